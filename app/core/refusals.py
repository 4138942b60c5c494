"""The refusal engine: why a turn will not leave, the keep window, and which span leaves.

Every kept turn is given a reason, so a caller can see what holds the window. The engine removes
at most one contiguous run of candidate turns from the old end: refusing turns before the run are
stepped over, and the first refusing turn after it ends it, because removing on both sides of a
held turn would cut two holes in the history. Turns after that one are not reported. Each rule's
holds are gathered once as a set of turns, so choosing the span visits only the held candidates,
and a turn met is given the reason of the first rule that holds it. Pin admission happens before
this (`app.core.pins`); this module only reads which turns each pin kind holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import count

from app.core.messages import Message
from app.core.plan_types import Paused, Refusal, RefusalReason
from app.core.turns import Segment


@dataclass(frozen=True, slots=True)
class RefusalContext:
    """The turns each per-turn rule holds, in the order the rules are tried (the first that holds
    a turn names its refusal), gathered before any candidate is looked at."""

    holds: tuple[tuple[RefusalReason, frozenset[int]], ...]

    @classmethod
    def of(
        cls,
        *,
        request_turn: int | None,
        system_turns: frozenset[int],
        paused_turns: frozenset[int],
        paused_check_in: bool,
        unanswered_turns: frozenset[int],
        held_by_last_tool_result: frozenset[int],
        held_by_ledger_fact: frozenset[int],
    ) -> RefusalContext:
        request = frozenset() if request_turn is None else frozenset((request_turn,))
        paused: RefusalReason = "pending-check-in" if paused_check_in else "paused-tool"
        return cls(
            (
                ("current-request", request),
                ("system-envelope", system_turns),
                (paused, paused_turns),
                ("unresolved-tool-call", unanswered_turns),
                ("last-tool-result", held_by_last_tool_result),
                ("ledger-fact", held_by_ledger_fact),
            )
        )

    def refusing_turns(self) -> frozenset[int]:
        """Every turn some rule holds; any other candidate may leave."""
        return frozenset().union(*(turns for _, turns in self.holds))


def touches_call(messages: Sequence[Message], segment: Segment, call_id: str) -> bool:
    """The turn answers the call or makes it."""
    for message in messages[segment.start : segment.end]:
        if message.role == "tool" and message.tool_call_id == call_id:
            return True
        for call in message.tool_calls:
            if call.id == call_id:
                return True
    return False


def turns_touching_call(
    messages: Sequence[Message], segments: Sequence[Segment], paused: Paused | None
) -> frozenset[int]:
    """The turns that make or answer the paused call (none when nothing is paused)."""
    if paused is None:
        return frozenset()
    call_id = paused.tool_call_id
    return frozenset(s.turn for s in segments if touches_call(messages, s, call_id))


def turns_with_unanswered_calls(unanswered_calls: dict[int, list[str]]) -> frozenset[int]:
    """Turns making a call that no `tool` message answers (`Survey.unanswered_calls`: a result
    answers the nearest call before it with its id, so a reused id hides no unanswered call)."""
    return frozenset(unanswered_calls)


def reason_for(turn: int, context: RefusalContext) -> RefusalReason | None:
    """Why the turn refuses to leave (the first rule that holds it), or None when it may leave."""
    for reason, turns in context.holds:
        if turn in turns:
            return reason
    return None


def keep_window_refusals(candidate_count: int, turn_starts: Sequence[int]) -> list[Refusal]:
    """Every turn from `candidate_count` on stays, whatever else it holds, and is reported only
    as such."""
    return [
        Refusal("inside-keep-window", index, turn_starts[index])
        for index in range(candidate_count, len(turn_starts))
    ]


@dataclass(frozen=True, slots=True)
class SpanChoice:
    """The refusals met among the candidates, and the span `first … last` (None when none)."""

    before: tuple[Refusal, ...]
    first: int | None
    last: int | None


def choose_span(
    candidate_count: int, context: RefusalContext, turn_starts: Sequence[int]
) -> SpanChoice:
    """Evaluate candidates oldest first; the first refusal after the span started ends it.

    Only the refusing candidates are visited: the span starts at the first candidate no rule
    holds and ends before the next held one (or at the last candidate), so a transcript of
    thousands of turns costs as many steps as it has holds.
    """
    refusing = sorted(turn for turn in context.refusing_turns() if 0 <= turn < candidate_count)
    # Turns 0 … first−1 all refuse; `first` is the oldest candidate free to leave.
    first = next((turn for turn, held in zip(count(), refusing) if turn != held), len(refusing))
    ending = refusing[first] if first < len(refusing) else None

    def refusal(turn: int) -> Refusal:
        reason = reason_for(turn, context)
        assert reason is not None  # every turn in `refusing` is held by some rule
        return Refusal(reason, turn, turn_starts[turn])

    met = refusing[: first + 1]  # the turns stepped over, and the one that ends the span
    before = tuple(refusal(turn) for turn in met)
    if first >= candidate_count:
        return SpanChoice(before, None, None)
    return SpanChoice(before, first, candidate_count - 1 if ending is None else ending - 1)
