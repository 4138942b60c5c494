"""Clear: the boundary, which old results are sent as a placeholder (and the placeholder's text),
and which images and reasoning leave at the same boundary.

An agent rarely needs the full text of a result it read many steps ago; it needs to know the call
happened and that it can call again. So, with `clear` on, a result the model has already read and
that lies at or before the boundary is sent as a short placeholder (docs/rules.md#clear), while
every call, id and name stays: each call keeps its result, and the provider's pairing rules hold.

The boundary is the `floor((N − keep_last) / step) × step`-th of the `N` read results: it moves
only forward and only every `step` results, so the window up to it is the same bytes from one
request to the next and a provider prompt cache keeps hitting (one miss per step, not per result).
Under a strategy that holds its cut (`fit`), the last record's boundary is held with its cut until
the window outgrows the model's limit, and both then move on the same request: one miss for both
(`held_boundary`; docs/rules.md#holding-the-boundary). With `images` and `thinking` on, the images
of the user messages and results at or before the boundary, and the model's reasoning in the
assistant messages there, leave too (docs/rules.md#images-and-thinking); which blocks are
reasoning is the caller's format's to say (`ReasoningOf`).

What it deliberately spares: results after the last `assistant` message (the model has not read
them), each tool's latest result at or before the boundary (read against the boundary, not the
whole transcript, so a newer result arriving after it changes nothing before it), excluded tools,
results the ledger holds as `fact` or `open`, and texts not longer than their placeholder (unless
the result carries an image or another non-text part); the images of the current request and of
a spared result; a screenshot the provider requires to stay one (a result holding one is not
cleared at all); the reasoning of the last assistant message, and a message's whose only content
is reasoning. Whether clearing applies at all (the trigger), the held state's fallback and the
order among the shaping rules are `app.core.window`'s and `app.core.shaping`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import orjson

from app.core.current_request import CUT_FRAMES
from app.core.ledger import Standing, StandingRow
from app.core.messages import Message, is_result_message
from app.core.names import name_of
from app.core.plan_types import ClearOption, PriorRecord, ShapedResult

# What a format says of an assistant core message's reasoning that may leave: one (caller index,
# visible characters) per caller message or item it is removed from; none when the message has
# none, or when its only content is reasoning (docs/rules.md#images-and-thinking).
ReasoningOf = Callable[[Message], Sequence[tuple[int, int]]]

HINT = "call the tool again to see it"
# With recall on, the hint names the recall tool (docs/rules.md#the-recall-option).
RECALL_HINT = "call {tool} with this tool_call_id to see it"
PLACEHOLDER_KEYS = ("cleared", "tool_call_id", "tool_name", "chars", "hint")
# The model said it relies on these (`fact`) or has not finished with them (`open`).
SPARED_STANDINGS: frozenset[Standing] = frozenset({"fact", "open"})


def placeholder_for(
    tool_call_id: str, tool_name: str | None, chars: int, recall_tool: str | None = None
) -> str:
    """The compact JSON placeholder of a cleared result, keys in their fixed order; with recall
    on (`recall_tool`, the tool's name), its hint says to call that tool with the id."""
    return orjson.dumps(
        {
            "cleared": True,
            "tool_call_id": tool_call_id,
            "tool_name": tool_name,
            "chars": chars,
            "hint": HINT if recall_tool is None else RECALL_HINT.format(tool=recall_tool),
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
    """How many of the `read` results lie at or before the step rule's boundary (0: none)."""
    return max(0, (read - option.keep_last) // option.step * option.step)


def held_boundary(
    messages: Sequence[Message], option_count: int, prior_records: Sequence[PriorRecord],
    kind: str,
) -> tuple[int, int] | None:  # fmt: skip
    """The boundary and the cut the last record asks to hold, `(k, n)`: when it is a record of
    the strategy `kind` with `cleared_results` `k ≥ 1`, `k` is at most the step rule's count now
    (`option_count`), and no message of the transcript starts with a cut's frame (an agent that
    sends back its window sends one whenever a cut was made, and its results were cleared in
    place already); else None (docs/rules.md#holding-the-boundary)."""
    if not prior_records:
        return None
    record = prior_records[-1]
    count = record.cleared_results
    if record.strategy != kind or count is None or count < 1 or count > option_count:
        return None
    if any(message.content.startswith(CUT_FRAMES) for message in messages):
        return None
    return count, record.removed_message_count


@dataclass(frozen=True, slots=True)
class Boundary:
    """The clear boundary: the read results at or before it (`count`, 0: none), the core index of
    the last of them (None: none), and the results at or before it that stay whole (each tool's
    latest, excluded tools, the ledger's `fact` and `open`), whose images stay too."""

    count: int
    index: int | None
    spared: frozenset[int]
    cleared: dict[int, str]  # core index → placeholder


def boundary_at(
    messages: Sequence[Message],
    count: int,
    option: ClearOption,
    fold: Mapping[str, StandingRow] | None,
    spare_latest: bool,
    call_names: dict[str, str],
    carries_parts: Callable[[Message], bool],
    recall_tool: str | None = None,
) -> Boundary:
    """The boundary at the `count`-th read result and the results it clears (core index →
    placeholder), by docs/rules.md#clear.

    `spare_latest` is `keep_last_tool_results > 0`: each tool's latest result at or before the
    boundary then stays whole. Results already shaped are among the read results (so a cleared
    window sent back keeps its boundary) and are left to `app.core.shaping`'s first rule. A
    result with an image the provider requires to stay one (a Responses `computer_call_output`)
    cannot be written as a placeholder: it stays whole, unreported. With recall on
    (`recall_tool`), the placeholder weighed and written is the one whose hint names the tool.
    """
    before = read_results(messages)[:count]
    if not before:
        return Boundary(0, None, frozenset(), {})
    names = [name_of(messages[index], call_names) for index in before]
    spared: set[int] = set()
    if spare_latest:
        seen: set[str] = set()
        for index, name in zip(reversed(before), reversed(names), strict=True):
            if name is not None and name not in seen:
                seen.add(name)
                spared.add(index)
    cleared: dict[int, str] = {}
    for index, name in zip(before, names, strict=True):
        if index in spared:
            continue
        if name is not None and name in option.exclude_tools:
            spared.add(index)
            continue
        message = messages[index]
        call_id = message.tool_call_id or ""
        row = None if fold is None else fold.get(call_id)
        if row is not None and row.standing in SPARED_STANDINGS:
            spared.add(index)
            continue
        if any(image.required for image in message.images):
            continue
        text = message.content
        placeholder = placeholder_for(call_id, name, len(text), recall_tool)
        if len(placeholder) < len(text) or carries_parts(message):
            cleared[index] = placeholder
    return Boundary(len(before), before[-1], frozenset(spared), cleared)


def images_at(messages: Sequence[Message], boundary: Boundary, request: int | None) -> list[int]:
    """The core messages at or before the boundary whose images are replaced by a text
    (docs/rules.md#images-and-thinking): a user message's or a result's, except the current
    request's and a spared result's; `messages` are shaped, so a result cleared, collapsed or
    capped has none left. Only images that may be replaced count (`Image.required`)."""
    if boundary.index is None:
        return []
    found = []
    for index in range(boundary.index + 1):
        message = messages[index]
        if index == request or index in boundary.spared:
            continue
        if message.role in ("user", "tool") and any(not image.required for image in message.images):
            found.append(index)
    return found


def reasoning_at(
    messages: Sequence[Message], boundary: Boundary, reasoning_of: ReasoningOf
) -> list[ShapedResult]:
    """The reasoning that leaves the assistant messages at or before the boundary, never the
    transcript's last assistant message's (docs/rules.md#images-and-thinking): one entry per
    caller message or item `reasoning_of` names (its caller index and visible characters)."""
    if boundary.index is None:
        return []
    found: list[ShapedResult] = []
    for index in range(boundary.index + 1):  # the last assistant message is after every read result
        message = messages[index]
        if message.role != "assistant":
            continue
        for caller, chars in reasoning_of(message):
            found.append(
                ShapedResult(
                    index=index,
                    tool_call_id=None,
                    tool_name=None,
                    action="thinking-cleared",
                    chars_before=chars,
                    chars_after=0,
                    content="",
                    caller=caller,
                )
            )
    return found
