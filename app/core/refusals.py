"""The refusal engine: why a turn will not leave, the keep window, and which span leaves.

Every kept turn is given a reason, so a caller can see what holds the window. The engine removes
at most one contiguous run of candidate turns from the old end: refusing turns before the run are
stepped over, and the first refusing turn after it ends it, because removing on both sides of a
held turn would cut two holes in the history. Turns after that one are not evaluated at all.
Pin admission happens before this (`app.core.pins`); this module only reads which turns each pin
kind holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.messages import Message
from app.core.plan_types import Paused, Refusal, RefusalReason
from app.core.turns import Segment


@dataclass(frozen=True, slots=True)
class RefusalContext:
    """What the per-turn rules read besides the turn itself."""

    messages: Sequence[Message]
    request_turn: int | None
    paused: Paused | None
    answered: frozenset[str]
    system_turns: frozenset[int]
    calls_by_turn: dict[int, list[str]]
    held_by_last_tool_result: frozenset[int]
    held_by_ledger_fact: frozenset[int]


def touches_call(messages: Sequence[Message], segment: Segment, call_id: str) -> bool:
    """The turn answers the call or makes it."""
    for message in messages[segment.start : segment.end]:
        if message.role == "tool" and message.tool_call_id == call_id:
            return True
        for call in message.tool_calls:
            if call.id == call_id:
                return True
    return False


def has_unanswered_call(context: RefusalContext, turn: int) -> bool:
    """A call the turn makes is answered by no `tool` message anywhere in the transcript."""
    made = context.calls_by_turn.get(turn)
    if made:
        answered = context.answered
        for call_id in made:
            if call_id not in answered:
                return True
    return False


def reason_for(segment: Segment, context: RefusalContext) -> RefusalReason | None:
    """Why the turn refuses to leave (the first rule that matches), or None when it may leave."""
    messages = context.messages
    if segment.turn == context.request_turn:
        return "current-request"
    if segment.turn in context.system_turns:
        return "system-envelope"
    paused = context.paused
    if paused is not None and touches_call(messages, segment, paused.tool_call_id):
        return "pending-check-in" if paused.check_in else "paused-tool"
    if has_unanswered_call(context, segment.turn):
        return "unresolved-tool-call"
    if segment.turn in context.held_by_last_tool_result:
        return "last-tool-result"
    if segment.turn in context.held_by_ledger_fact:
        return "ledger-fact"
    return None


def keep_window_refusals(cc: int, turn_starts: Sequence[int]) -> list[Refusal]:
    """Every turn from `cc` on stays, whatever else it holds, and is reported only as such."""
    return [
        Refusal("inside-keep-window", index, turn_starts[index])
        for index in range(cc, len(turn_starts))
    ]


@dataclass(frozen=True, slots=True)
class SpanChoice:
    """The refusals met among the candidates, and the span `first … last` (None when none)."""

    before: tuple[Refusal, ...]
    first: int | None
    last: int | None


def choose_span(
    segments: Sequence[Segment], cc: int, context: RefusalContext, turn_starts: Sequence[int]
) -> SpanChoice:
    """Evaluate candidates oldest first; the first refusal after the span started ends it."""
    before: list[Refusal] = []
    first: int | None = None
    last: int | None = None
    for segment in segments[:cc]:
        reason = reason_for(segment, context)
        if reason is None:
            if first is None:
                first = segment.turn
            last = segment.turn
            continue
        before.append(Refusal(reason, segment.turn, turn_starts[segment.turn]))
        if first is not None:
            break
    return SpanChoice(tuple(before), first, last)
