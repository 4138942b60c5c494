"""The span the refusal engine chooses, against the rule read literally
(docs/rules.md#choosing-the-span): candidates oldest first, refusing ones stepped over until the
span starts, the first refusal after it ends it.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.plan_types import Refusal
from app.core.refusals import RefusalContext, choose_span, reason_for

turn_sets = st.frozensets(st.integers(0, 14), max_size=8)


@st.composite
def contexts(draw: st.DrawFn) -> RefusalContext:
    return RefusalContext.of(
        request_turn=draw(st.none() | st.integers(0, 14)),
        system_turns=draw(turn_sets),
        paused_turns=draw(turn_sets),
        paused_check_in=draw(st.booleans()),
        unanswered_turns=draw(turn_sets),
        held_by_last_tool_result=draw(turn_sets),
        held_by_ledger_fact=draw(turn_sets),
    )


def literal_span(candidate_count: int, context: RefusalContext, turn_starts: list[int]):
    before: list[Refusal] = []
    first = last = None
    for turn in range(candidate_count):
        reason = reason_for(turn, context)
        if reason is None:
            first = turn if first is None else first
            last = turn
            continue
        before.append(Refusal(reason, turn, turn_starts[turn]))
        if first is not None:
            break
    return tuple(before), first, last


@given(candidate_count=st.integers(0, 15), context=contexts())
def test_the_span_is_the_one_the_literal_rule_chooses(
    candidate_count: int, context: RefusalContext
) -> None:
    turn_starts = [10 * turn for turn in range(16)]
    choice = choose_span(candidate_count, context, turn_starts)
    assert (choice.before, choice.first, choice.last) == literal_span(
        candidate_count, context, turn_starts
    )


RULE_ORDER = [
    ("request_turn", "current-request"),
    ("system_turns", "system-envelope"),
    ("paused_turns", "pending-check-in"),
    ("unanswered_turns", "unresolved-tool-call"),
    ("held_by_last_tool_result", "last-tool-result"),
    ("held_by_ledger_fact", "ledger-fact"),
]


@pytest.mark.parametrize("first", range(len(RULE_ORDER)))
def test_a_turn_held_by_several_rules_names_the_first_of_them(first: int) -> None:
    """The rule order of docs/rules.md#refusals: every rule from `first` on holds turn 3, and
    `first` names it."""
    holding = {name for name, _ in RULE_ORDER[first:]}
    context = RefusalContext.of(
        request_turn=3 if "request_turn" in holding else None,
        paused_check_in=True,
        **{name: frozenset({3}) if name in holding else frozenset() for name, _ in RULE_ORDER[1:]},
    )
    assert reason_for(3, context) == RULE_ORDER[first][1]
    assert reason_for(2, context) is None


def test_a_paused_call_without_check_in_is_a_paused_tool() -> None:
    context = RefusalContext.of(
        request_turn=None,
        system_turns=frozenset(),
        paused_turns=frozenset({1}),
        paused_check_in=False,
        unanswered_turns=frozenset({1}),
        held_by_last_tool_result=frozenset(),
        held_by_ledger_fact=frozenset(),
    )
    assert reason_for(1, context) == "paused-tool"
