"""`auto`: which wire format a request speaks, from the signals only one format sends.

The first rule that matches decides: a top-level `system` or a `tool_use`, `tool_result` or
`thinking` content block means Anthropic; a `tool_calls` item with a `function` key, a `developer`
role or any list `content` means OpenAI; anything else reads the same in every format and is
native. List content is no OpenAI signal once Anthropic is decided (Anthropic content is lists
too), but an Anthropic signal together with a `function`-keyed call or a `developer` role is a
contradiction that no reading can honour, so it is refused, naming the first message that carries
the OpenAI signal. Malformed messages are skipped here: the chosen reader reports them.
"""

from __future__ import annotations

from typing import Any

from app.errors import FieldError, InvalidRequest
from app.formats.fields import JsonObject, is_object

ANTHROPIC_BLOCK_TYPES = frozenset({"tool_use", "tool_result", "thinking"})


def detect_format(raw: list[Any], has_system: bool) -> str:
    """`anthropic`, `openai` or `native`; raises InvalidRequest when the signals disagree."""
    anthropic_reason = "a top-level 'system'" if has_system else None
    first_openai: tuple[int, str] | None = None
    list_content = False
    for index, message in enumerate(raw):
        if not is_object(message):
            continue
        content = message.get("content")
        if isinstance(content, list):
            list_content = True
            if anthropic_reason is None:
                block_type = anthropic_block_type(content)
                if block_type is not None:
                    anthropic_reason = f"a '{block_type}' block in message {index}"
        if first_openai is None:
            signal = openai_signal(message)
            if signal is not None:
                first_openai = (index, signal)
    if anthropic_reason is not None:
        if first_openai is not None:
            raise mixed_signals(first_openai, anthropic_reason)
        return "anthropic"
    if first_openai is not None or list_content:
        return "openai"
    return "native"


def anthropic_block_type(content: list[Any]) -> str | None:
    for block in content:
        if is_object(block):
            block_type = block.get("type")
            if isinstance(block_type, str) and block_type in ANTHROPIC_BLOCK_TYPES:
                return block_type
    return None


def openai_signal(message: JsonObject) -> str | None:
    """What marks this message as OpenAI-only, if anything (list content aside)."""
    if message.get("role") == "developer":
        return "a 'developer' role"
    calls = message.get("tool_calls")
    if isinstance(calls, list) and any(is_object(call) and "function" in call for call in calls):
        return "a tool call with a 'function' key"
    return None


def mixed_signals(openai: tuple[int, str], anthropic_reason: str) -> InvalidRequest:
    index, signal = openai
    msg = (
        f"this message has {signal} (OpenAI) but the request has {anthropic_reason} "
        "(Anthropic): mixed formats; send one format or set 'format'"
    )
    return InvalidRequest([FieldError((index,), msg, "mixed_format")])
