"""`fit` within the model's limit (docs/rules.md#within-the-limit), through the core: the worked
examples (`tests/core/within_limit_examples.py`), and the rules no example shows alone."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.core.plan_types import Fit, PlanOptions, PriorRecord, WindowPlan, answered_budget
from app.core.window import plan_window
from tests.core.test_fit_examples import fit_of
from tests.core.window_fixtures import TASK, R, S, U, W, held, new_window, prior_record
from tests.core.within_limit_examples import (
    L400,
    STAGED,
    WITHIN_LIMIT_EXAMPLES,
    StagedExample,
)


def plan_of(
    example: StagedExample, prior: tuple[PriorRecord, ...] = (), **options: Any
) -> WindowPlan:
    return plan_window(
        example.transcript,
        PlanOptions(
            strategy=fit_of(example.strategy),
            keep_last_tool_results=0,
            prior_records=prior,
            **options,
        ),
    )


def sent_window(example: StagedExample, result: WindowPlan) -> list[tuple[str, str]]:
    texts = {shaped.index: shaped.content for shaped in result.shaped_results}
    sent = [
        message._replace(content=texts.get(index, message.content))
        for index, message in enumerate(example.transcript)
    ]
    return [(message.role, message.content) for message in new_window(sent, result)]


@pytest.mark.parametrize("example", WITHIN_LIMIT_EXAMPLES, ids=lambda example: example.name)
def test_worked_example(example: StagedExample) -> None:
    result = plan_of(example)
    assert held(result) == example.held
    refusals = [(r.reason, r.turn_index, r.message_index) for r in result.refusals]
    assert refusals == example.refusals
    assert orjson.loads(orjson.dumps(answered_budget(result.budget))) == example.budget
    assert list(result.evicted_messages) == example.evicted_messages
    assert result.stats.removed_message_count == len(example.evicted_messages)
    assert (None if result.notice is None else result.notice.content) == example.notice
    assert sent_window(example, result) == example.window
    assert result.stats.tokens_after == example.budget["total_after"]
    shaped = None
    if result.shaped is not None:
        shaped = [(s.message_index, s.action, s.chars_before, s.chars_after) for s in result.shaped]
    assert shaped == example.shaped
    # The record carries every span's messages and the refusals that are left.
    assert result.record is not None
    assert result.record.removed_message_count == len(example.evicted_messages)
    assert result.record.refusals == result.refusals


def test_the_caps_report_the_shaped_figures() -> None:
    example = WITHIN_LIMIT_EXAMPLES[2]
    result = plan_of(example)
    assert result.stats.chars_shaped == result.stats.chars_after
    assert result.stats.chars_before - result.stats.chars_shaped == 3000
    assert (result.stats.tokens_before, result.stats.tokens_shaped) == (1035, 285)
    assert [turn["tokens"] for turn in result.turns] == [5, 17, 263]


def test_a_plan_the_span_serves_runs_no_stage() -> None:
    # With the target at 427 the span alone reaches it: one span, as before the stages.
    strategy = {"kind": "fit", "max_tokens": 450, "target_tokens": 427, "keep_recent_turns": 1}
    example = StagedExample("", STAGED, strategy, "", [], {}, [], None, [])
    result = plan_of(example)
    assert result.budget is not None and result.budget.stage == "span"
    assert held(result) == "se EV EV cr nr nr ikw"
    assert [(s.from_turn, s.through_turn) for s in result.budget.spans] == [(1, 2)]


def test_pins_yield_after_the_further_spans() -> None:
    # Turn 2 holds `grep`'s only result, pinned, so the span is turn 3 alone and leaves with no
    # notice (361 − 113 = 248, over the target of 160); nothing follows it, so the pin yields
    # (135 ≤ 200).
    transcript = W(
        S("sys"),
        U(TASK),
        R("c1", "grep", L400),
        R("c2", "look", L400),
        R("c3", "look", L400),
    )
    result = plan_window(
        transcript, PlanOptions(strategy=Fit(200, keep_recent_turns=1), keep_last_tool_results=2)
    )
    budget = result.budget
    assert budget is not None
    assert held(result) == "se cr EV EV ikw"
    assert (budget.stage, budget.released_pins, budget.total_after) == ("pins", 1, 135)
    assert [(s.from_turn, s.through_turn, s.stage) for s in budget.spans] == [
        (2, 2, "pins"),
        (3, 3, "span"),
    ]
    block = result.pins.last_tool_result
    assert block is not None and block.pinned == () and block.limit == 2
    assert all(refusal.reason != "last-tool-result" for refusal in result.refusals)


def test_the_last_assistant_turn_and_the_request_never_leave() -> None:
    transcript = W(S("sys"), U(TASK), R("c1", "look", L400))
    result = plan_window(transcript, PlanOptions(strategy=Fit(50, overflow="report")))
    assert result.budget is not None and not result.budget.met
    assert result.evicted == () and result.budget.stage == "span"


def test_a_turn_that_would_open_the_window_on_an_assistant_stays() -> None:
    # No system envelope: removing turn 0 would open the window on turn 1's call.
    transcript = W(U("old"), R("c1", "look", L400), U(TASK), R("c2", "look", "ok"))
    result = plan_window(
        transcript, PlanOptions(strategy=Fit(40, keep_recent_turns=3), request_text=TASK)
    )
    assert result.budget is not None
    assert 0 not in result.evicted or result.notice is not None
    window = new_window(transcript, result)
    assert window[0].role == "user"


def test_the_held_cut_reaches_into_a_further_span() -> None:
    example = WITHIN_LIMIT_EXAMPLES[0]
    first = plan_of(example)
    assert first.record is not None
    grown = [*STAGED, *W(R("c5", "look", "ok"))]
    again = plan_window(
        grown,
        PlanOptions(
            strategy=fit_of(example.strategy),
            keep_last_tool_results=0,
            prior_records=(prior_record(first.record),),
        ),
    )
    budget = again.budget
    assert budget is not None and budget.held and budget.met
    assert again.evicted_messages == first.evicted_messages
    assert budget.stage == "further-spans"
    assert [(s.from_turn, s.through_turn, s.stage) for s in budget.spans] == [
        (1, 2, "span"),
        (4, 5, "further-spans"),
    ]
    # The window is the previous one with the new turn after it: its prefix is unchanged.
    assert new_window(grown, again)[:-2] == new_window(STAGED, first)
