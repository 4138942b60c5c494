"""The list lengths a request may carry, each refused whole before any of its items is read.

A list's items are checked one by one and every bad item adds errors, so without a bound on its
length a body of small invalid items costs the service work and memory in proportion to the items,
not to anything a caller needs: the limits here are far above what a real agent sends (a message
with more than a thousand tool calls, a ledger of more than 100,000 rows) and far below what makes
a request costly. A list over its limit gets one `too_long` error naming the list itself, and its
items are never read: the list is replaced, for the rest of the reading, by an empty one, and any
error that stand-in would raise (an empty `results`) is not reported.

The limits come from the settings (`CWP_MAX_*`, reported by `/v1/info`); `DEFAULT_LIST_LIMITS`
holds the defaults of docs/rules.md#validation for callers without settings (tools, tests).
The per-message lists (`tool_calls`, content blocks or parts) are checked by
`message_list_errors`, after the format is known, since each format keeps them under its own keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from app.core import defaults
from app.errors import ErrorList, FieldError

Path = tuple[str, ...]
Bounds = tuple[tuple[Path, int], ...]


@dataclass(frozen=True, slots=True)
class ListLimits:
    """The longest list of each kind a request may carry."""

    tool_calls: int = 1024  # calls in one message
    content_parts: int = 4096  # content blocks or parts in one message's own list
    frame_tags: int = 256
    exclude_tools: int = 256
    chars_by_tool_keys: int = 1024  # keys of a `max_chars_by_tool` object
    prior_records: int = 1000
    ledger_rows: int = 100_000
    list_items: int = 10_000  # `results`, `answers`, `used`, `previous_batch`, `kept`
    summaries: int = defaults.MAX_SUMMARIES  # fixed by the contract (docs/rules.md#summaries)

    def plan_lists(self) -> Bounds:
        return (
            (("frame_tags",), self.frame_tags),
            (("prior_records",), self.prior_records),
            (("ledger",), self.ledger_rows),
            (("summaries",), self.summaries),
            (("clear", "exclude_tools"), self.exclude_tools),
            (("cap", "max_chars_by_tool"), self.chars_by_tool_keys),
        )

    def offer_lists(self) -> Bounds:
        return ((("ledger",), self.ledger_rows), (("previous_batch",), self.list_items))

    def cap_lists(self) -> Bounds:
        return (
            (("max_chars_by_tool",), self.chars_by_tool_keys),
            (("results",), self.list_items),
        )

    def kept_lists(self, *fields: str) -> Bounds:
        return tuple(((field,), self.list_items) for field in ("kept", *fields))


DEFAULT_LIST_LIMITS = ListLimits()


def too_long_error(loc: tuple[str | int, ...], count: int, limit: int, what: str) -> FieldError:
    """The one error of a list over its limit."""
    return FieldError(
        loc, f"too long: holds {count} {what}; at most {limit} are accepted", "too_long"
    )


@dataclass(frozen=True, slots=True)
class CheckedLists:
    """A body with every over-long list replaced by an empty one, and the paths replaced."""

    raw: dict[str, Any]
    replaced: tuple[Path, ...] = ()


def refuse_long_lists(
    raw: dict[str, Any], lists: Iterable[tuple[Path, int]], errors: ErrorList
) -> CheckedLists:
    """`raw` with each list (or object, counted by keys) over its limit replaced by an empty one
    of its kind, and one `too_long` error appended for each, located under `body`.

    A path's parents are objects the schema checks itself; a path that does not lead to a list or
    an object is left to the schema too. The body is copied only along a path that is replaced.
    """
    replaced: list[Path] = []
    for path, limit in lists:
        value: Any = raw
        for key in path:
            value = value.get(key) if type(value) is dict else None
        if type(value) is list:
            what = "items"
        elif type(value) is dict:
            what = "keys"
        else:
            continue
        if len(value) <= limit:
            continue
        errors.append(too_long_error(("body", *path), len(value), limit, what))
        raw = _replaced(raw, path, [] if type(value) is list else {})
        replaced.append(path)
    return CheckedLists(raw, tuple(replaced))


def _replaced(raw: dict[str, Any], path: Path, empty: Any) -> dict[str, Any]:
    copied = dict(raw)
    if len(path) == 1:
        copied[path[0]] = empty
    else:
        copied[path[0]] = _replaced(raw[path[0]], path[1:], empty)
    return copied


def under_replaced(loc: Sequence[Any], replaced: Sequence[Path]) -> bool:
    """Whether a schema error at `loc` (after `body`) is about a replaced list's stand-in."""
    return any(tuple(loc[: len(path)]) == path for path in replaced)


# Where each format keeps a message's own list of content blocks or parts.
_PARTS_KEY = {
    "native": "content",
    "openai": "content",
    "anthropic": "content",
    "responses": "content",
    "bedrock": "content",
    "gemini": "parts",
}
# The formats whose calls are a `tool_calls` list of the message.
_CALL_LISTS = frozenset({"native", "openai"})


def _is_call_block(format_name: str, block: Any) -> bool:
    """Whether a block or part of a format that keeps its calls among them is a call."""
    if type(block) is not dict:
        return False
    if format_name == "anthropic":
        return block.get("type") == "tool_use"
    if format_name == "bedrock":
        return "toolUse" in block
    if format_name == "gemini":
        return "functionCall" in block
    return False


def message_list_errors(messages: Sequence[Any], format_name: str, limits: ListLimits) -> ErrorList:
    """One `too_long` error for each message list over its limit (located under the messages
    array): a `tool_calls` list, the message's own content blocks or parts, and, in the formats
    that keep calls among their blocks, those calls.

    It reads lengths only; a block is looked at (to count calls) only in a list longer than the
    call limit, which a real message never is.
    """
    errors = ErrorList()
    parts_key = _PARTS_KEY.get(format_name)
    calls_listed = format_name in _CALL_LISTS
    most_parts, most_calls = limits.content_parts, limits.tool_calls
    for index, message in enumerate(messages):
        if type(message) is not dict:
            continue
        if calls_listed:
            calls = message.get("tool_calls")
            if type(calls) is list and len(calls) > most_calls:
                errors.append(
                    too_long_error((index, "tool_calls"), len(calls), most_calls, "tool calls")
                )
        if parts_key is None:
            continue
        parts = message.get(parts_key)
        if type(parts) is not list or len(parts) <= min(most_parts, most_calls):
            continue
        if len(parts) > most_parts:
            errors.append(too_long_error((index, parts_key), len(parts), most_parts, "items"))
        elif not calls_listed and len(parts) > most_calls:
            calls_held = sum(1 for block in parts if _is_call_block(format_name, block))
            if calls_held > most_calls:
                errors.append(
                    too_long_error((index, parts_key), calls_held, most_calls, "tool calls")
                )
    return errors
