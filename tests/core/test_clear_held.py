"""The clear boundary held with the cut under `fit` (docs/rules.md#holding-the-boundary) through
the core: the clear-only record, the held state with and without a cut, every way back to the
step rule's boundary (the held window over `max_tokens`, a boundary the step rule has not reached,
a cut's frame in the transcript, a record that holds no boundary), `fit`'s own held cut not
tried after a fresh boundary, clear not applying, `sliding-window`, and the stand-down.

The run: `U(TASK)` then `R(c1,read,T)` … `R(cn,read,T)` with `T` = `"t"×300`, `clear {"keep_last":
1, "step": 2}`, `fit` with `keep_recent_turns` 1 and `keep_last_tool_results` 0 unless a test says
otherwise. Under `estimate`: the request 5 tokens, each call 9, each result 79, a cleared one 31
(48 saved); `run(n)` totals `5 + 88 n`; `n − 1` results are read (the last follows the last
assistant message), so the step rule's count is `floor((n − 2) / 2) × 2`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.core.plan_types import (
    NO_PINS,
    ClearOption,
    Fit,
    PlanOptions,
    PriorRecord,
    Record,
    Refusal,
    WindowPlan,
)
from app.core.strategies.fit import Budget, BudgetSpan
from app.core.window import plan_window
from tests.core.window_fixtures import R, U, W, options

TT = "t" * 300
STEP_2 = ClearOption(keep_last=1, step=2)
SAVED = 79 - 31  # what clearing one result frees
# The refusals of every engaged plan of `run(12)`: the request and the keep window's last turn.
ROWS_12 = (Refusal("current-request", 0, 0), Refusal("inside-keep-window", 12, 23))


def run(n: int) -> list[Any]:
    return W(U("TASK"), *(R(f"c{i}", "read", TT) for i in range(1, n + 1)))


def total(n: int) -> int:
    return 5 + 88 * n


def fit(
    max_tokens: int,
    *prior: PriorRecord,
    clear: ClearOption | None = STEP_2,
    ltr: int = 0,
    it: int = 1,
) -> PlanOptions:
    return replace(
        options(ltr=ltr, it=it),
        strategy=Fit(max_tokens, None, 0, 1),
        clear=clear,
        prior_records=prior,
    )


def held(k: int, n: int = 0, strategy: str = "fit") -> PriorRecord:
    """A record sent back with the boundary `k` and the cut `n`."""
    return PriorRecord(n, (), strategy, k)


def cleared_ids(result: WindowPlan) -> list[str | None]:
    return [entry.tool_call_id for entry in result.shaped_results if entry.action == "cleared"]


def budget(result: WindowPlan) -> Budget:
    assert result.budget is not None
    return result.budget


def test_the_clear_only_record_when_clear_applies_and_fit_does_not_engage() -> None:
    # run(8): P = 709 over 708; the step rule's 6 results cleared: 709 − 6 × 48 = 421 ≤ 566.
    result = plan_window(run(8), fit(708, it=4))
    assert not result.engaged and result.removed == ()
    assert result.record == Record("fit", 4, 0, (), NO_PINS, 6)
    assert cleared_ids(result) == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert budget(result) == Budget(708, 566, 0, 709, 421, True, False, clear_held=False)


def test_the_held_state_without_a_cut_holds_the_boundary_where_the_record_put_it() -> None:
    # run(10): the step rule's count is 8 now, the record's boundary 6: held at 6, the window
    # (885 − 6 × 48 = 597) within 700, so nothing is removed and the record keeps k = 6.
    result = plan_window(run(10), fit(700, held(6), it=7))
    assert not result.engaged and result.removed == ()
    assert result.record == Record("fit", 7, 0, (), NO_PINS, 6)
    assert cleared_ids(result) == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert budget(result) == Budget(700, 560, 0, 885, 885 - 6 * SAVED, True, False, clear_held=True)
    # Without the record the step rule's boundary: 8 cleared, and a record that says so.
    fresh = plan_window(run(10), fit(700, it=7))
    assert fresh.record == Record("fit", 7, 0, (), NO_PINS, 8)
    assert budget(fresh).total_after == 885 - 8 * SAVED and budget(fresh).clear_held is False


def test_the_exceptions_are_read_against_the_held_boundary() -> None:
    # keep_last_tool_results 1: read's latest at or before the held boundary (c6) stays whole,
    # not the latest at or before the step rule's (c8).
    result = plan_window(run(10), fit(700, held(6), ltr=1))
    assert cleared_ids(result) == ["c1", "c2", "c3", "c4", "c5"]
    assert result.record is not None and result.record.cleared_results == 6
    assert budget(result).clear_held is True
    fresh = plan_window(run(10), fit(700, ltr=1))
    assert cleared_ids(fresh) == ["c1", "c2", "c3", "c4", "c5", "c6", "c7"]


def test_the_held_state_with_a_cut_holds_both() -> None:
    # run(12): P = 1061; held boundary 6 → 1061 − 288 = 773; the held cut of 4 caller messages
    # (turns 1–2, cleared: 2 × 40 tokens) with its 70-token notice → 763 ≤ 800.
    result = plan_window(run(12), fit(800, held(6, 4), it=9))
    assert result.engaged and result.removed == ((1, 5),)
    assert result.notice is not None
    assert result.notice.content.startswith("[dropped history — 4 earlier message(s)")
    assert result.record == Record("fit", 9, 4, ROWS_12, NO_PINS, 6)
    assert cleared_ids(result) == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert budget(result) == Budget(
        800, 640, 0, 1061, 763, True, True, "span", 0, (BudgetSpan(1, 2, "span"),), True
    )
    # Not tried (a record without a boundary): the step rule's 10, whose window fits the target.
    fresh = plan_window(run(12), fit(800, held(0, 4)))
    assert not fresh.engaged and fresh.record == Record("fit", 1, 0, (), NO_PINS, 10)


def test_the_held_window_over_max_tokens_moves_boundary_and_cut_together() -> None:
    # At 700 the held window (763) is over the limit: the step rule's boundary (10: 581 tokens,
    # over the target 560) and a cut to the target afresh (turn 1, 40 tokens: 541).
    for prior in (held(6, 4), held(6, 0)):
        result = plan_window(run(12), fit(700, prior))
        assert result.engaged and result.removed == ((1, 3),) and result.notice is None
        assert result.record == Record("fit", 1, 2, ROWS_12, NO_PINS, 10)
        assert cleared_ids(result) == [f"c{i}" for i in range(1, 11)]
        assert budget(result) == Budget(
            700, 560, 0, 1061, 541, True, False, "span", 0, (BudgetSpan(1, 1, "span"),), False
        )


def test_a_held_cut_that_cannot_be_found_falls_back_to_the_step_rule() -> None:
    # 3 caller messages end no turn: no held cut, so no held state.
    result = plan_window(run(12), fit(800, held(6, 3)))
    assert not result.engaged
    assert result.record == Record("fit", 1, 0, (), NO_PINS, 10)
    assert budget(result).clear_held is False and budget(result).total_after == 581


def test_a_boundary_past_the_step_rules_count_is_not_held() -> None:
    # run(8): the step rule's count is 6; a record's 8 is not held.
    result = plan_window(run(8), fit(708, held(8)))
    assert result.record == Record("fit", 1, 0, (), NO_PINS, 6)
    assert budget(result).clear_held is False
    # At the count exactly it is held (the same boundary, now held).
    same = plan_window(run(8), fit(708, held(6)))
    assert same.record == Record("fit", 1, 0, (), NO_PINS, 6)
    assert budget(same).clear_held is True


def test_a_cut_frame_in_the_transcript_means_the_boundary_is_not_held() -> None:
    for frame in (
        "[dropped history — 4 earlier message(s) were removed]",
        "[compacted history] what came before",
    ):
        messages = run(10)
        messages.insert(1, U(frame))
        result = plan_window(messages, fit(700, held(6)))
        assert not result.engaged
        assert result.record == Record("fit", 1, 0, (), NO_PINS, 8)
        assert cleared_ids(result) == [f"c{i}" for i in range(1, 9)]
        assert budget(result).clear_held is False
    # A frame of another kind (an image's) does not stop the hold.
    messages = run(10)
    messages.insert(1, U("[image removed from the context window]"))
    assert budget(plan_window(messages, fit(700, held(6)))).clear_held is True


def test_a_record_that_holds_no_boundary_gives_the_step_rules() -> None:
    for prior in (
        held(6, 0, "sliding-window"),
        held(6, 0, "token-budget"),
        PriorRecord(0, (), "fit", None),
        PriorRecord(0, (), None, 6),
        held(0),
    ):
        result = plan_window(run(10), fit(700, prior))
        assert result.record == Record("fit", 1, 0, (), NO_PINS, 8), prior
        assert budget(result).clear_held is False
    # Only the last record is read.
    result = plan_window(run(10), fit(700, held(6), held(0)))
    assert result.record is not None and result.record.cleared_results == 8
    result = plan_window(run(10), fit(700, held(0), held(6)))
    assert result.record is not None and result.record.cleared_results == 6


def test_after_a_fresh_boundary_the_fit_held_cut_is_not_tried() -> None:
    # run(12) at 600 (target 480): the step rule's boundary leaves 581. The last cut (4 caller
    # messages, 581 − 80 + 70 = 571 ≤ 600) would be held by `fit` alone; with the boundary fresh the
    # cut goes to the target: six turns, 442.
    result = plan_window(run(12), fit(600, PriorRecord(4, (), "fit", None)))
    assert result.engaged and result.removed == ((1, 13),)
    assert result.record == Record("fit", 1, 12, ROWS_12, NO_PINS, 10)
    assert budget(result) == Budget(
        600, 480, 0, 1061, 442, True, False, "span", 0, (BudgetSpan(1, 6, "span"),), False
    )
    # The same cut with the boundary held (the record's 10): the cut of 4 is held.
    kept = plan_window(run(12), fit(600, held(10, 4)))
    assert kept.removed == ((1, 5),) and kept.record == Record("fit", 1, 4, ROWS_12, NO_PINS, 10)
    assert budget(kept).held and budget(kept).clear_held and budget(kept).total_after == 571


def test_clear_not_applying_gives_zero_and_no_clear_only_record() -> None:
    # trigger_tokens at P (885): clear does not apply.
    at_total = ClearOption(keep_last=1, step=2, trigger_tokens=885)
    engaged = plan_window(run(10), fit(700, held(6), clear=at_total))
    assert engaged.engaged and engaged.shaped_results == ()
    assert engaged.record is not None
    assert (engaged.record.removed_message_count, engaged.record.cleared_results) == (10, 0)
    assert budget(engaged).clear_held is False and not budget(engaged).held
    quiet = plan_window(run(10), fit(900, held(6), clear=at_total))
    assert not quiet.engaged and quiet.record is None
    assert budget(quiet) == Budget(900, 720, 0, 885, 885, True, False, clear_held=False)
    # Under fit without a trigger, within max_tokens: clear does not apply either.
    within = plan_window(run(10), fit(885, held(6)))
    assert within.record is None and within.shaped_results == ()
    assert budget(within).clear_held is False


def test_without_clear_no_record_carries_the_key() -> None:
    result = plan_window(run(10), fit(700, held(6), clear=None))
    assert result.engaged and result.record is not None
    assert result.record.cleared_results is None and budget(result).clear_held is None
    assert plan_window(run(10), fit(900, clear=None)).record is None


def test_outside_fit_the_step_rule_alone() -> None:
    opts = replace(options(keep=2), clear=STEP_2, prior_records=(held(2, 0, "sliding-window"),))
    result = plan_window(run(8), opts)
    assert result.engaged and result.budget is None
    assert result.record is not None and result.record.cleared_results == 6
    # keep_last_tool_results 2 (the default here) spares read's latest at or before b, c6.
    assert cleared_ids(result) == ["c1", "c2", "c3", "c4", "c5"]
    # A `fit` record sent to another strategy holds nothing either.
    other = plan_window(run(8), replace(opts, prior_records=(held(2),)))
    assert other.record is not None and other.record.cleared_results == 6


def test_a_clear_only_record_breaks_a_stand_down_streak() -> None:
    blocking = PriorRecord(0, ("last-tool-result",), "fit", 0)
    # run(12) at 600 with a last-tool-result ceiling: two blocking records, the kind stands down.
    streak = plan_window(run(12), fit(600, blocking, blocking, ltr=1))
    assert streak.engaged and streak.pins.last_tool_result is not None
    assert streak.pins.last_tool_result.stand_down
    # The last record a clear-only one (nothing removed, nothing refused; its boundary 2, whose
    # window is over the limit, so the plan is the step rule's and engages): no stand-down.
    broken = plan_window(run(12), fit(600, blocking, held(2), ltr=1))
    assert broken.engaged and budget(broken).clear_held is False
    assert broken.pins.last_tool_result is None
