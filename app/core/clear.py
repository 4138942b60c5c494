"""Clear: which old results are sent as a placeholder, and the placeholder's text.

An agent rarely needs the full text of a result it read many steps ago; it needs to know the call
happened and that it can call again. So, with `clear` on, a result the model has already read and
that lies at or before the boundary is sent as a short placeholder (docs/rules.md#clear), while
every call, id and name stays: each call keeps its result, and the provider's pairing rules hold.

The boundary is the `floor((N − keep_last) / step) × step`-th of the `N` read results: it moves
only forward and only every `step` results, so the window up to it is the same bytes from one
request to the next and a provider prompt cache keeps hitting (one miss per step, not per result).

What it deliberately spares: results after the last `assistant` message (the model has not read
them), each tool's latest result at or before the boundary (read against the boundary, not the
whole transcript, so a newer result arriving after it changes nothing before it), excluded tools,
results the ledger holds as `fact` or `open`, and texts not longer than their placeholder (unless
the result carries an image or another non-text part). Whether clearing applies at all (the
trigger) and the order among the shaping rules are `app.core.shaping`'s and `app.core.window`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import orjson

from app.core.ledger import Standing, StandingRow
from app.core.messages import Message, is_result_message
from app.core.names import name_of
from app.core.plan_types import ClearOption

HINT = "call the tool again to see it"
PLACEHOLDER_KEYS = ("cleared", "tool_call_id", "tool_name", "chars", "hint")
# The model said it relies on these (`fact`) or has not finished with them (`open`).
SPARED_STANDINGS: frozenset[Standing] = frozenset({"fact", "open"})


def placeholder_for(tool_call_id: str, tool_name: str | None, chars: int) -> str:
    """The compact JSON placeholder of a cleared result, keys in their fixed order."""
    return orjson.dumps(
        {
            "cleared": True,
            "tool_call_id": tool_call_id,
            "tool_name": tool_name,
            "chars": chars,
            "hint": HINT,
        }
    ).decode()


def is_placeholder(value: object) -> bool:
    """Whether `value` (parsed JSON) is a placeholder: an object with exactly the five keys in
    their order and `cleared` the boolean true."""
    return isinstance(value, dict) and tuple(value) == PLACEHOLDER_KEYS and value["cleared"] is True


def read_results(messages: Sequence[Message]) -> list[int]:
    """The indices of the result messages before the last `assistant` message, oldest first:
    the results the model has read (none without an `assistant` message)."""
    last_assistant = len(messages) - 1
    while last_assistant >= 0 and messages[last_assistant].role != "assistant":
        last_assistant -= 1
    return [index for index in range(last_assistant) if is_result_message(messages[index])]


def boundary_count(read: int, option: ClearOption) -> int:
    """How many of the `read` results lie at or before the boundary (0: no boundary)."""
    return max(0, (read - option.keep_last) // option.step * option.step)


def cleared_results(
    messages: Sequence[Message],
    option: ClearOption,
    fold: Mapping[str, StandingRow] | None,
    spare_latest: bool,
    call_names: dict[str, str],
    carries_parts: Callable[[Message], bool],
) -> dict[int, str]:
    """The results to clear (core index → placeholder), by docs/rules.md#clear.

    `spare_latest` is `keep_last_tool_results > 0`: each tool's latest result at or before the
    boundary then stays whole. Results already shaped are among the read results (so a cleared
    window sent back keeps its boundary) and are left to `app.core.shaping`'s first rule.
    """
    read = read_results(messages)
    before = read[: boundary_count(len(read), option)]
    if not before:
        return {}
    names = [name_of(messages[index], call_names) for index in before]
    latest: set[int] = set()
    if spare_latest:
        seen: set[str] = set()
        for index, name in zip(reversed(before), reversed(names), strict=True):
            if name is not None and name not in seen:
                seen.add(name)
                latest.add(index)
    cleared: dict[int, str] = {}
    for index, name in zip(before, names, strict=True):
        if index in latest or (name is not None and name in option.exclude_tools):
            continue
        message = messages[index]
        call_id = message.tool_call_id or ""
        row = None if fold is None else fold.get(call_id)
        if row is not None and row.standing in SPARED_STANDINGS:
            continue
        text = message.content
        placeholder = placeholder_for(call_id, name, len(text))
        if len(placeholder) < len(text) or carries_parts(message):
            cleared[index] = placeholder
    return cleared
