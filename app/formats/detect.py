"""`auto`: which wire format a request speaks, from the signals only one format sends.

The rules of `docs/rules.md#auto`, first that matches: a Responses item type or content part
type means `responses`; a `parts` key or the `model` role means `gemini`; a content block with no
`type` but a Bedrock key means `bedrock`; an Anthropic block type means `anthropic`; a `function`
call, the `developer` role or list content means `openai` (the last two only when no signal of the
block formats is present: they use lists and a `developer` role too); then the top-level `system`
by its shape; otherwise `native`. The first message that carries a signal of rules 1–5 decides,
and a later message with a signal of another of those rules is a contradiction no reading can
honour, so it is refused naming that message. Malformed messages are skipped: the chosen reader
reports them.

Each format names its own signals, as data beside its reader (`Dialect.signals`), so a type list
lives once, in the format that owns it; this module gathers them in the rules' order and looks for
all of them in one walk of each message (a call per format and message measured 20 to 60% slower:
detection reads every message of a transcript).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.errors import FieldError, InvalidRequest
from app.formats import anthropic, bedrock, gemini, openai, responses
from app.formats.dialect import Dialect
from app.formats.fields import JsonObject, is_object

# The formats of rules 1–5, in rule order; each names its own signals (`Dialect.signals`).
BY_RULE: tuple[Dialect, ...] = (
    responses.DIALECT,
    gemini.DIALECT,
    bedrock.DIALECT,
    anthropic.DIALECT,
    openai.DIALECT,
)
SIGNALS = tuple((dialect.name, dialect.signals) for dialect in BY_RULE if dialect.signals)
# Each kind of signal of every format, gathered: value → format (a value two formats name is the
# earlier rule's), or (value, format) pairs in rule order. The walk of `strong_signal` looks for
# them kind by kind, which is the rules' order: no kind is named by a format of an earlier rule
# than a kind looked for before it (checked below).
ITEM_TYPES = {v: name for name, found in reversed(SIGNALS) for v in found.item_types}
PART_TYPES = {v: name for name, found in reversed(SIGNALS) for v in found.part_types}
KEYS = tuple((v, name) for name, found in SIGNALS for v in found.keys)
ROLES = {v: name for name, found in reversed(SIGNALS) for v in found.roles}
TYPELESS_BLOCK_KEYS = tuple((v, name) for name, found in SIGNALS for v in found.typeless_block_keys)
BLOCK_TYPES = {v: name for name, found in reversed(SIGNALS) for v in found.block_types}
CALL_KEYS = tuple((v, name) for name, found in SIGNALS for v in found.call_keys)
WEAK_ROLES = {v: name for name, found in reversed(SIGNALS) for v in found.weak_roles}
WEAK_LIST_CONTENT = next((name for name, found in SIGNALS if found.weak_list_content), None)


def rules_of(named: Iterable[str]) -> list[int]:
    order = [name for name, _ in SIGNALS]
    return [order.index(name) for name in named]


# The rules each kind's formats have, in the walk's order: never a rule before an earlier kind's.
WALKED = [
    rules_of(ITEM_TYPES.values()),
    rules_of(PART_TYPES.values()),
    rules_of(name for _, name in KEYS),
    rules_of(ROLES.values()),
    rules_of(name for _, name in TYPELESS_BLOCK_KEYS),
    rules_of(BLOCK_TYPES.values()),
    rules_of(name for _, name in CALL_KEYS),
]
assert all(
    max(earlier, default=0) <= min(later, default=len(SIGNALS))
    for position, later in enumerate(WALKED)
    for earlier in WALKED[:position]
), "a format's signal kind is looked for after a kind of a later rule: reorder the walk"


def detect_format(raw: list[Any], system: Any = None) -> str:
    """The format `raw` (and the top-level `system`, when not None) is written in; raises
    InvalidRequest naming the first message whose signal disagrees with an earlier one."""
    decided: tuple[str, int, str] | None = None  # (format, message index, what signalled it)
    weak: str | None = None  # the format of the first weak signal
    for index, message in enumerate(raw):
        if not is_object(message):
            continue
        found = strong_signal(message)
        if found is None:
            if weak is None:
                weak = weak_signal(message)
            continue
        format_name, reason = found
        if decided is None:
            decided = (format_name, index, reason)
        elif format_name != decided[0]:
            raise mixed_signals(index, format_name, reason, decided)
    if decided is not None:
        return decided[0]
    if weak is not None:
        return weak
    if system is not None:
        return format_of_system(system)
    return "native"


def strong_signal(message: JsonObject) -> tuple[str, str] | None:
    """(format, reason) of the first signal of rules 1–4, or 5's call, in `message`."""
    item_type = message.get("type")
    if isinstance(item_type, str) and item_type in ITEM_TYPES:
        return ITEM_TYPES[item_type], f"a '{item_type}' item"
    content = message.get("content")
    blocks = content if isinstance(content, list) else None
    if blocks is not None:
        for part in blocks:
            if is_object(part):
                part_type = part.get("type")
                if isinstance(part_type, str) and part_type in PART_TYPES:
                    return PART_TYPES[part_type], f"an '{part_type}' content part"
    for key, name in KEYS:
        if key in message:
            return name, f"a '{key}' key"
    role = message.get("role")
    if isinstance(role, str) and role in ROLES:
        return ROLES[role], f"the '{role}' role"
    if blocks is not None:
        for block in blocks:
            if is_object(block) and "type" not in block:
                for key, name in TYPELESS_BLOCK_KEYS:
                    if key in block:
                        return name, f"a '{key}' block without a type"
        for block in blocks:
            if is_object(block):
                block_type = block.get("type")
                if isinstance(block_type, str) and block_type in BLOCK_TYPES:
                    return BLOCK_TYPES[block_type], f"a '{block_type}' block"
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        for key, name in CALL_KEYS:
            if any(is_object(call) and key in call for call in calls):
                return name, f"a tool call with a '{key}' key"
    return None


def weak_signal(message: JsonObject) -> str | None:
    """The format of rule 5's signals that every block format shares (OpenAI's `developer` role
    and list content) in `message`."""
    role = message.get("role")
    if isinstance(role, str) and role in WEAK_ROLES:
        return WEAK_ROLES[role]
    if WEAK_LIST_CONTENT is not None and isinstance(message.get("content"), list):
        return WEAK_LIST_CONTENT
    return None


def format_of_system(system: Any) -> str:
    """Rule 6: the format a top-level system prompt's shape names (each format says its shape,
    in rule order; Anthropic's is any other)."""
    for name, found in SIGNALS:
        if found.system is not None and found.system(system):
            return name
    return "native"


def mixed_signals(
    index: int, format_name: str, reason: str, decided: tuple[str, int, str]
) -> InvalidRequest:
    first_format, first_index, first_reason = decided
    msg = (
        f"this message has {reason} ({format_name}) but message {first_index} has "
        f"{first_reason} ({first_format}): mixed formats; send one format or set 'format'"
    )
    return InvalidRequest([FieldError((index,), msg, "mixed_format")])
