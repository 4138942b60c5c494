"""Clear (docs/rules.md#clear) through the core: C1–C3 byte for byte, each exception on its own,
the trigger, the order among the shaping rules, and `fit` with clearing first."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from app.core.cap import marker_for
from app.core.clear import is_placeholder, placeholder_for
from app.core.messages import Message
from app.core.plan_types import (
    NO_PINS,
    CapOption,
    ClearOption,
    Fit,
    PlanOptions,
    Record,
    WindowPlan,
)
from app.core.shaping import is_shaped
from app.core.tokens import estimate_tokens, message_tokens
from app.core.window import plan_window
from tests.core.window_fixtures import AC, R, T, U, W, ledger_rows, options

TT = "t" * 300
C1 = W(
    U("TASK"),
    R("c1", "read", TT),
    R("c2", "read", TT),
    R("c3", "grep", TT),
    R("c4", "read", TT),
    R("c5", "grep", TT),
    R("c6", "read", TT),
)
C2 = [*C1, *R("c7", "grep", TT)]
C2_MOVED = [*C2, *R("c8", "read", TT)]
C1_PLACEHOLDER = (
    '{"cleared":true,"tool_call_id":"c1","tool_name":"read","chars":300,'
    '"hint":"call the tool again to see it"}'
)


def clearing(clear: ClearOption | None = None, **kwargs: Any) -> PlanOptions:
    """The worked examples' plan: `sliding-window` keep 20, `keep_last_tool_results` 2."""
    kwargs.setdefault("keep", 20)
    clear = ClearOption(keep_last=1, step=2) if clear is None else clear
    return replace(options(**kwargs), clear=clear)


def entries(result: WindowPlan) -> list[tuple[Any, ...]]:
    assert result.shaped is not None
    return [
        (e.message_index, e.window_index, e.tool_call_id, e.action, e.chars_before, e.chars_after)
        for e in result.shaped
    ]


def texts(messages: list[Message], result: WindowPlan) -> list[str]:
    out = [m.content for m in messages]
    for shaped in result.shaped_results:
        out[shaped.index] = shaped.content
    return out


def test_c1_the_boundary() -> None:
    result = plan_window(C1, clearing())
    assert entries(result) == [(2, 2, "c1", "cleared", 300, 106), (4, 4, "c2", "cleared", 300, 106)]
    assert result.shaped_results[0].content == C1_PLACEHOLDER
    assert len(C1_PLACEHOLDER) == 106
    assert result.shaped_results[1].content == C1_PLACEHOLDER.replace('"c1"', '"c2"')
    assert not result.engaged and result.removed == ()
    assert result.stats.chars_shaped == result.stats.chars_before - 2 * (300 - 106)


def test_c2_the_step_holds_the_prefix_then_moves() -> None:
    c1, c2 = plan_window(C1, clearing()), plan_window(C2, clearing())
    assert entries(c2) == entries(c1)
    # The window up to c6's result is C1's, byte for byte.
    assert texts(C2, c2)[: len(C1)] == texts(C1, c1)
    moved = plan_window(C2_MOVED, clearing())
    assert [e[2] for e in entries(moved)] == ["c1", "c2", "c3", "c4"]
    assert {e[3] for e in entries(moved)} == {"cleared"}


def test_c3_excluded_judged_short() -> None:
    messages = list(C2_MOVED)
    messages[4] = T("c2", "read", "ok")
    result = plan_window(
        messages,
        clearing(ClearOption(keep_last=1, step=2, exclude_tools=frozenset({"grep"})),
                 ledger=ledger_rows(c1="fact")),
    )  # fmt: skip
    assert entries(result) == [(8, 8, "c4", "cleared", 300, 106)]


def test_results_the_model_has_not_read_are_never_cleared() -> None:
    # No assistant message after any result: nothing has been read.
    unread = [U("TASK"), AC("c1:read", "c2:read"), T("c1", "read", TT), T("c2", "read", TT)]
    result = plan_window(unread, clearing(ClearOption(keep_last=0, step=1), ltr=0))
    assert entries(result) == []
    assert plan_window([U("TASK"), T("c1", "read", TT)], clearing()).shaped == ()


def test_keep_last_tool_results_zero_spares_no_latest() -> None:
    result = plan_window(C1, clearing(ltr=0))
    assert [e[2] for e in entries(result)] == ["c1", "c2", "c3", "c4"]


def test_open_is_spared_like_fact_and_noise_is_not() -> None:
    result = plan_window(C2_MOVED, clearing(ledger=ledger_rows(c1="open", c2="noise")))
    assert [e[2] for e in entries(result)] == ["c2", "c3", "c4"]


def test_a_short_result_with_parts_is_cleared() -> None:
    messages = list(C1)
    messages[2] = T("c1", "read", "img")
    plain = plan_window(messages, clearing())
    assert [e[2] for e in entries(plain)] == ["c2"]
    with_parts = plan_window(messages, clearing(), carries_parts=lambda m: m.content == "img")
    assert entries(with_parts)[0] == (2, 2, "c1", "cleared", 3, 104)


def test_the_placeholder_is_recognised_and_clearing_is_idempotent() -> None:
    assert is_placeholder(orjson.loads(C1_PLACEHOLDER)) and is_shaped(C1_PLACEHOLDER)
    assert is_shaped(placeholder_for("c", None, 3))
    reordered = '{"tool_call_id":"c1","cleared":true,"tool_name":"read","chars":1,"hint":"h"}'
    assert not is_shaped(reordered)
    assert not is_shaped('{"cleared":true,"tool_call_id":"c1"}')
    result = plan_window(C2_MOVED, clearing())
    shaped = [m._replace(content=t) for m, t in zip(C2_MOVED, texts(C2_MOVED, result), strict=True)]
    again = plan_window(shaped, clearing())
    assert again.shaped == ()
    assert again.stats.chars_shaped == result.stats.chars_shaped


def test_clear_comes_after_collapse_and_before_cap() -> None:
    opts = replace(
        clearing(ledger=ledger_rows(c1="noise")), collapse="ledger-and-facts", cap=CapOption(200)
    )
    result = plan_window(C2_MOVED, opts)
    actions = {e[2]: e[3] for e in entries(result)}
    assert actions == {
        "c1": "collapsed",
        "c2": "cleared",
        "c3": "cleared",
        "c4": "cleared",
        "c5": "capped",
        "c6": "capped",
        "c7": "capped",
        "c8": "capped",
    }
    capped = next(s for s in result.shaped_results if s.tool_call_id == "c5")
    assert capped.content == orjson.dumps(marker_for(TT, "grep", 200)).decode()


def total(messages: list[Message]) -> int:
    return sum(message_tokens(message, estimate_tokens) for message in messages)


def test_trigger_tokens_gates_clearing() -> None:
    before = total(C2_MOVED)
    at = ClearOption(keep_last=1, step=2, trigger_tokens=before)
    over = ClearOption(keep_last=1, step=2, trigger_tokens=before - 1)
    assert entries(plan_window(C2_MOVED, clearing(at))) == []
    assert len(entries(plan_window(C2_MOVED, clearing(over)))) == 4


def fit_clearing(max_tokens: int, target: int | None = None, **kwargs: Any) -> PlanOptions:
    return replace(
        options(ltr=2, **kwargs),
        strategy=Fit(max_tokens, target, 0, 1),
        clear=ClearOption(keep_last=1, step=2),
    )


def test_under_fit_clearing_alone_meeting_the_target_removes_nothing() -> None:
    before = total(C2_MOVED)  # 9 messages of calls and results: 4 cleared save 4 × 49 tokens
    cleared = before - 4 * (75 - 27)
    result = plan_window(C2_MOVED, fit_clearing(before - 1, cleared))
    assert not result.engaged and result.removed == ()
    # The clear-only record: nothing removed, nothing refused, the boundary (6 read results).
    assert result.record == Record("fit", 1, 0, (), NO_PINS, 6)
    assert result.budget is not None
    assert (result.budget.total_before, result.budget.total_after) == (before, cleared)
    assert result.budget.met and not result.budget.held and result.budget.clear_held is False
    assert [e[3] for e in entries(result)] == ["cleared"] * 4


def test_under_fit_clearing_does_not_apply_within_max_tokens() -> None:
    before = total(C2_MOVED)
    result = plan_window(C2_MOVED, fit_clearing(before))
    assert not result.engaged and entries(result) == []
    assert result.budget is not None and result.budget.total_before == before


def test_under_fit_removal_takes_what_clearing_could_not_free() -> None:
    before = total(C2_MOVED)
    cleared = before - 4 * (75 - 27)
    result = plan_window(C2_MOVED, fit_clearing(before - 1, cleared - 60))
    assert result.engaged and result.removed != ()
    assert result.budget is not None and result.budget.total_before == before
    assert result.budget.total_after <= cleared - 60
    without_clear = plan_window(
        C2_MOVED, replace(fit_clearing(before - 1, cleared - 60), clear=None)
    )
    assert without_clear.removed != ()
    # Clearing first: no more messages leave than with removal alone.
    assert sum(end - start for start, end in result.removed) <= sum(
        end - start for start, end in without_clear.removed
    )
