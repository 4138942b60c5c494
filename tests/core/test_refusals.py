"""The span the refusal engine chooses, against the rule read literally (`window.md`): candidates
oldest first, refusing ones stepped over until the span starts, the first refusal after it ends it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.plan_types import Refusal
from app.core.refusals import RefusalContext, choose_span, reason_for

turn_sets = st.frozensets(st.integers(0, 14), max_size=8)


@st.composite
def contexts(draw: st.DrawFn) -> RefusalContext:
    return RefusalContext(
        request_turn=draw(st.none() | st.integers(0, 14)),
        system_turns=draw(turn_sets),
        paused_turns=draw(turn_sets),
        paused_check_in=draw(st.booleans()),
        unanswered_turns=draw(turn_sets),
        held_by_last_tool_result=draw(turn_sets),
        held_by_ledger_fact=draw(turn_sets),
    )


def literal_span(cc: int, context: RefusalContext, turn_starts: list[int]):
    before: list[Refusal] = []
    first = last = None
    for turn in range(cc):
        reason = reason_for(turn, context)
        if reason is None:
            first = turn if first is None else first
            last = turn
            continue
        before.append(Refusal(reason, turn, turn_starts[turn]))
        if first is not None:
            break
    return tuple(before), first, last


@settings(derandomize=True, max_examples=400, deadline=None)
@given(cc=st.integers(0, 15), context=contexts())
def test_the_span_is_the_one_the_literal_rule_chooses(cc: int, context: RefusalContext) -> None:
    turn_starts = [10 * turn for turn in range(16)]
    choice = choose_span(cc, context, turn_starts)
    assert (choice.before, choice.first, choice.last) == literal_span(cc, context, turn_starts)


def test_reasons_follow_the_rule_order() -> None:
    held_everywhere = frozenset({3})
    context = RefusalContext(
        3, held_everywhere, held_everywhere, True, held_everywhere, *[held_everywhere] * 2
    )
    assert reason_for(3, context) == "current-request"
    paused_only = RefusalContext(
        None, frozenset(), frozenset({1}), True, frozenset({1}), frozenset(), frozenset()
    )
    assert reason_for(1, paused_only) == "pending-check-in"
    assert reason_for(2, paused_only) is None
