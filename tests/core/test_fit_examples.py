"""The `fit` strategy and the token figures of a plan (docs/rules.md#token-figures-in-the-answer and
#the-fit-strategy; examples in `tests/core/fit_examples.py`), through the core."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
import pytest

from app.core.plan_types import (
    CapOption,
    Fit,
    PlanOptions,
    PriorRecord,
    SlidingWindow,
    WindowPlan,
    answered_budget,
)
from app.core.tokens import ESTIMATE, Calibration, Tokenizer
from app.core.window import plan_window
from tests.core.fit_examples import (
    EXAMPLES_BY_NAME,
    F_NOTICE_LENGTH,
    F_TRANSCRIPT,
    F_TURN_TOKENS,
    FIT_EXAMPLES,
    B,
    FitExample,
    f_notice,
)
from tests.core.window_fixtures import AC, TASK, R, T, U, W, held, prior_record


def fit_of(strategy: dict[str, Any]) -> Fit:
    return Fit(
        strategy["max_tokens"],
        strategy.get("target_tokens"),
        strategy.get("reserve_tokens", 0),
        strategy.get("keep_recent_turns", 2),
        strategy.get("overflow", "cap"),
    )


F3 = EXAMPLES_BY_NAME["F3"]


def plan_f(example: FitExample, **options: Any) -> WindowPlan:
    prior = (
        ()
        if example.prior is None
        else (prior_record(plan_f(EXAMPLES_BY_NAME[example.prior]).record),)
    )
    return plan_window(
        example.transcript,
        PlanOptions(
            strategy=fit_of(example.strategy),
            keep_last_tool_results=0,
            prior_records=prior,
            **options,
        ),
    )


@pytest.mark.parametrize("example", FIT_EXAMPLES, ids=lambda example: example.name)
def test_worked_example(example: FitExample) -> None:
    result = plan_f(example)
    assert held(result) == example.held
    assert orjson.loads(orjson.dumps(answered_budget(result.budget))) == example.budget
    assert list(result.evicted_messages) == example.evicted_messages
    assert [turn["tokens"] for turn in result.turns] == example.turn_tokens
    assert (result.notice and result.notice.content) == example.notice
    if result.notice is not None:
        assert result.notice.rung == "rich" and len(result.notice.content) == F_NOTICE_LENGTH
    stats = result.stats
    assert (stats.tokenizer, stats.tokens_before, stats.tokens_after) == (
        "estimate",
        example.tokens_before,
        example.tokens_after,
    )
    # No calibration, no system prompt outside the transcript: the raw count is the window's.
    assert stats.tokens_counted == example.tokens_after
    assert stats.tokens_shaped is None and stats.system_tokens is None
    assert result.engaged == (example.name != "F3")
    if result.record is not None:
        assert result.record.strategy == "fit"


def test_fit_keys_of_a_turn_put_tokens_right_after_chars() -> None:
    turn = plan_f(FIT_EXAMPLES[0]).turns[2]
    assert list(turn) == ["index", "start", "length", "chars", "tokens", "fate", "held_by"]


def test_an_unreachable_target_removes_the_whole_span_and_is_not_met() -> None:
    example = FIT_EXAMPLES[0]
    strategy = {**example.strategy, "target_tokens": 100}
    result = plan_window(
        F_TRANSCRIPT, PlanOptions(strategy=fit_of(strategy), keep_last_tool_results=0)
    )
    assert held(result) == "se cr EV EV EV ikw"
    assert result.budget is not None
    assert (result.budget.total_after, result.budget.met) == (236, False)


def test_the_default_target_is_four_fifths_of_the_budget() -> None:
    result = plan_window(
        F_TRANSCRIPT, PlanOptions(strategy=Fit(450, keep_recent_turns=1), keep_last_tool_results=0)
    )
    assert result.budget is not None and result.budget.target_tokens == 360
    # k = 3 (turns 2–3) gives 474 − 226 + 101 = 349 ≤ 360: turn 4 is not needed.
    assert held(result) == "se cr EV EV within-budget ikw"
    assert Fit(1).target == 1 and Fit(9).target == 7


def test_the_reserve_counts_in_every_total() -> None:
    # 474 + 30 = 504 > 500 engages; k=2 gives 462 + 30 = 492 ≤ 500.
    strategy = Fit(500, 500, reserve_tokens=30, keep_recent_turns=1)
    result = plan_window(F_TRANSCRIPT, PlanOptions(strategy=strategy, keep_last_tool_results=0))
    assert held(result) == "se cr EV within-budget within-budget ikw"
    assert result.budget is not None
    assert (result.budget.total_before, result.budget.total_after) == (504, 492)
    assert result.stats.tokens_after == 462  # the window alone


def test_a_tokenizer_under_another_strategy_reports_and_decides_nothing() -> None:
    options = PlanOptions(strategy=SlidingWindow(2), keep_last_tool_results=0)
    plain = plan_window(F_TRANSCRIPT, options)
    counted = plan_window(F_TRANSCRIPT, replace(options, tokenizer=ESTIMATE))
    assert counted.budget is None and plain.stats.tokenizer is None
    assert [t["tokens"] for t in counted.turns] == F_TURN_TOKENS
    assert "tokens" not in plain.turns[0]
    assert held(counted) == held(plain)
    assert counted.notice == plain.notice  # the ladder compared characters
    assert replace(counted.stats, tokenizer=None, tokens_before=None, tokens_after=None,
                   tokens_counted=None) == plain.stats  # fmt: skip


def test_a_named_tokenizer_counts_under_fit() -> None:
    doubled = Tokenizer("double", lambda text: 2 * -(-len(text.encode()) // 4))
    result = plan_f(F3, tokenizer=doubled)
    assert result.stats.tokenizer == "double"
    # Each text counts twice the estimate; the framing does not: a call 0 + (2 + 2 + 3) + 4,
    # a result 200 + 4.
    assert [turn["tokens"] for turn in result.turns] == [6, 30, 215, 215, 215, 215]


def test_calibration_scales_each_message_and_never_the_counted_figure() -> None:
    # scale = (948 − 0) / 474 = 2: every message counts twice, so F3's 474 becomes 948 > 500.
    calibration = Calibration(counted=474, input_tokens=948)
    result = plan_f(F3, calibration=calibration)
    assert [turn["tokens"] for turn in result.turns] == [10, 34, 226, 226, 226, 226]
    assert result.engaged and result.budget is not None
    # 948 − 226·k + notice (101·2 = 202) ≤ 350? k = 2 gives 924, k = 3 (the whole span 2–4)
    # 948 − 678 + 202 = 472 > 350: no k meets it.
    assert held(result) == "se cr EV EV EV ikw"
    assert (result.budget.total_after, result.budget.met) == (472, False)
    # tokens_counted is raw (the window's 236 at scale 1), what the next calibration takes back.
    assert result.stats.tokens_after == 472 and result.stats.tokens_counted == 236


def test_calibration_takes_off_the_reserve_before_scaling() -> None:
    strategy = Fit(500, 350, reserve_tokens=100, keep_recent_turns=1)
    calibration = Calibration(counted=474, input_tokens=574)  # (574 − 100) / 474 = 1
    result = plan_window(
        F_TRANSCRIPT,
        PlanOptions(strategy=strategy, keep_last_tool_results=0, calibration=calibration),
    )
    assert result.budget is not None and result.budget.total_before == 574
    assert [turn["tokens"] for turn in result.turns] == F_TURN_TOKENS


def test_a_scale_rounds_up_per_message_before_summing() -> None:
    calibration = Calibration(counted=10, input_tokens=11)  # 1.1
    result = plan_window(
        F_TRANSCRIPT,
        PlanOptions(strategy=SlidingWindow(), tokenizer=ESTIMATE, calibration=calibration),
    )
    # S 5 → 6, U 17 → 19, call 9 → 10, result 104 → 115 (114.4): a turn 125, not ceil(124.3).
    assert [turn["tokens"] for turn in result.turns] == [6, 19, 125, 125, 125, 125]
    assert result.stats.tokens_before == 525 and result.stats.tokens_counted == 474


def test_a_system_prompt_outside_the_transcript_counts_in_the_total() -> None:
    transcript = F_TRANSCRIPT[1:]  # Anthropic-like: the system prompt is sent apart
    options = PlanOptions(
        strategy=Fit(450, 350, keep_recent_turns=1),
        keep_last_tool_results=0,
        system_chars=3,
        system_text="sys",
    )
    result = plan_window(transcript, options)
    assert held(result) == "cr EV EV within-budget ikw"  # F1 without its first word
    assert result.budget is not None
    assert (result.budget.total_before, result.budget.total_after) == (474, 349)
    stats = result.stats
    assert (stats.system_tokens, stats.tokens_after, stats.tokens_counted) == (5, 344, 349)
    none_sent = plan_window(transcript, replace(options, system_text=None, system_chars=0))
    assert none_sent.stats.system_tokens == 0


def test_a_span_the_ladder_refuses_is_passed_over_for_a_longer_one() -> None:
    # Ordinary path (the request is turn 2). Dropping turn 0 alone (28 tokens) would bring the
    # total under the target, but no notice is smaller (plain: 48 tokens) and the tail would open
    # with an assistant message: the ladder refuses it, so k = 0 changes nothing. Turns 0–1
    # (141 tokens) take the rich notice (78): 259 − 141 + 78 = 196 ≤ 239.
    transcript = W(R("c1", "look", "x" * 60), R("c2", "look", B), U("next"), R("c3", "look", B))
    options = PlanOptions(
        strategy=Fit(250, 239, keep_recent_turns=1), keep_last_tool_results=0, request_text="next"
    )
    result = plan_window(transcript, options)
    assert [turn["tokens"] for turn in result.turns] == [28, 113, 5, 113]
    assert result.budget is not None
    assert (result.budget.total_before, result.budget.total_after) == (259, 196)
    assert result.budget.met and list(result.evicted) == [0, 1]
    assert result.notice is not None and result.notice.rung == "rich"


def test_pins_carry_their_turns_tokens() -> None:
    transcript = W(U(TASK), R("c1", "look", B), R("c2", "grep", B), R("c3", "look", B))
    result = plan_window(
        transcript, PlanOptions(strategy=Fit(350, keep_recent_turns=1), request_text=TASK)
    )
    block = result.pins.last_tool_result
    assert block is not None and block.pinned
    assert [(pin.tool_name, pin.tokens) for pin in block.pinned] == [("grep", 113)]
    assert result.record is not None and result.record.pins == result.pins


def test_shaping_counts_the_shaped_transcript_and_reports_the_sent_one() -> None:
    options = PlanOptions(
        strategy=Fit(10_000, keep_recent_turns=1),
        keep_last_tool_results=0,
        cap=CapOption(max_chars=100),
    )
    result = plan_window(F_TRANSCRIPT, options)
    stats = result.stats
    assert stats.tokens_before == 474
    assert stats.tokens_shaped is not None and stats.tokens_shaped < 474
    assert result.budget is not None and result.budget.total_before == stats.tokens_shaped


def test_fit_never_engages_at_its_budget() -> None:
    result = plan_f(replace(F3, strategy={"max_tokens": 474}))
    assert not result.engaged and result.budget is not None and result.budget.met


def test_an_assistant_turn_with_no_text_still_costs_its_framing() -> None:
    transcript = W(U("go"), AC("c1:look"), T("c1", "look", ""))
    result = plan_window(transcript, PlanOptions(strategy=SlidingWindow(), tokenizer=ESTIMATE))
    assert [turn["tokens"] for turn in result.turns] == [5, 9 + 4]


F2H_HELD = EXAMPLES_BY_NAME["F2h (max 470)"]


def plan_f2h(*prior: PriorRecord) -> WindowPlan:
    """F2h with `max_tokens` 470 (where F1's cut would be held) and these records sent back."""
    return plan_window(
        F2H_HELD.transcript,
        PlanOptions(
            strategy=fit_of(F2H_HELD.strategy), keep_last_tool_results=0, prior_records=prior
        ),
    )


def test_without_a_record_the_grown_transcript_is_cut_afresh_to_the_target() -> None:
    # k = 4 (turns 2–4): 587 − 339 + 101 = 349 ≤ 350, the cut F2h makes at max_tokens 450.
    result = plan_f2h()
    assert held(result) == EXAMPLES_BY_NAME["F2h"].held
    assert result.budget is not None
    assert (result.budget.total_after, result.budget.met, result.budget.held) == (349, True, False)


@pytest.mark.parametrize(
    "prior",
    [
        (PriorRecord(4, (), "sliding-window"),),
        (PriorRecord(4, (), "token-budget"),),
        (PriorRecord(4, (), None),),  # a record whose `strategy` is absent or not a string
        (PriorRecord(4, (), "fit"), PriorRecord(4, (), "sliding-window")),  # only the last counts
        (PriorRecord(0, (), "fit"),),  # removed nothing: no cut to hold
        (PriorRecord(3, (), "fit"),),  # no turn ends 3 messages into the span
        (PriorRecord(99, (), "fit"),),  # more than the span holds
    ],
)
def test_a_record_that_holds_no_cut_leaves_the_plan_as_without_one(
    prior: tuple[PriorRecord, ...],
) -> None:
    assert plan_f2h(*prior) == plan_f2h()


def test_only_the_last_record_holds_a_cut() -> None:
    result = plan_f2h(PriorRecord(2, (), "fit"), PriorRecord(4, (), "fit"))
    assert held(result) == F2H_HELD.held
    assert result.budget is not None and result.budget.held


def test_a_held_cut_of_one_turn_keeps_the_rest_within_budget() -> None:
    # F1's transcript grown by a turn, after F2's cut of turn 2 (2 messages): 587 − 113 + 101 =
    # 575 > 470, not held; with max_tokens 580 it is held and met against max_tokens only.
    strategy = Fit(580, 350, keep_recent_turns=1)
    result = plan_window(
        F2H_HELD.transcript,
        PlanOptions(
            strategy=strategy,
            keep_last_tool_results=0,
            prior_records=(PriorRecord(2, (), "fit"),),
        ),
    )
    assert held(result) == "se cr EV within-budget within-budget within-budget ikw"
    assert result.budget is not None
    assert (result.budget.total_after, result.budget.met, result.budget.held) == (575, True, True)
    assert result.notice is not None and result.notice.content == f_notice(2)


def test_a_held_cut_the_ladder_would_refuse_is_not_held() -> None:
    # Ordinary path (the request is turn 2): turn 0 alone takes no notice and would leave an
    # assistant message opening the window, so a record of its one message holds nothing.
    transcript = W(R("c1", "look", "x" * 60), R("c2", "look", B), U("next"), R("c3", "look", B))
    options = PlanOptions(
        strategy=Fit(250, 239, keep_recent_turns=1), keep_last_tool_results=0, request_text="next"
    )
    fresh = plan_window(transcript, options)
    held_one = plan_window(transcript, replace(options, prior_records=(PriorRecord(2, (), "fit"),)))
    assert held_one == fresh and fresh.budget is not None and not fresh.budget.held
