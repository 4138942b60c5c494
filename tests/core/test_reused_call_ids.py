"""A reused call id through the plan (docs/rules.md#the-per-turn-reason, #diagnostics): a result
answers the nearest call before it with its id, so a later call with a reused id and no result
after it is unresolved, and its turn never leaves."""

from __future__ import annotations

from app.core.messages import Message
from app.core.plan_types import PlanOptions, SlidingWindow
from app.core.turns import survey
from app.core.window import plan_window
from tests.core.window_fixtures import AC, A, R, T, U, W, new_window


def plan(messages: list[Message]) -> tuple[list[tuple[str, int]], list[Message]]:
    options = PlanOptions(strategy=SlidingWindow(1), keep_last_tool_results=0, request_text="go")
    result = plan_window(messages, options)
    return [(r.reason, r.turn_index) for r in result.refusals], new_window(messages, result)


def test_a_later_call_with_a_reused_id_and_no_result_is_unresolved() -> None:
    # Turns: 0 the request, 1 the first call and its result, 2 the later call, 3 "and?", 4 done.
    messages = W(U("go"), R("c1"), AC("c1:probe"), U("and?"), A("done"))
    assert survey(messages).unanswered_calls == {2: ["c1"]}
    refusals, window = plan(messages)
    assert refusals == [
        ("current-request", 0),
        ("unresolved-tool-call", 2),
        ("inside-keep-window", 4),
    ]
    # The span (turn 1, the first call with its result) leaves; the unanswered call stays, as
    # the input's diagnostics say.
    assert [m.tool_calls[0].name for m in window if m.tool_calls] == ["probe"]


def test_an_earlier_call_answered_only_after_the_later_one_is_unresolved() -> None:
    messages = W(U("go"), AC("c1:look"), U("still there?"), AC("c1:look"), T("c1"), U("x"), A("y"))
    assert survey(messages).unanswered_calls == {1: ["c1"]}
    refusals, _ = plan(messages)
    assert ("unresolved-tool-call", 1) in refusals


def test_calls_sharing_an_id_each_answered_in_turn_leave_with_their_results() -> None:
    messages = W(U("go"), R("c1"), U("again"), R("c1"), U("next"), A("ok"))
    assert survey(messages).unanswered_calls == {}
    refusals, window = plan(messages)
    assert refusals == [("current-request", 0), ("inside-keep-window", 5)]
    assert window[0] == U("go") and window[-1] == A("ok")
    assert sum(len(m.tool_calls) for m in window) == [m.role for m in window].count("tool")


def test_an_id_twice_in_one_message_leaves_the_first_call_unanswered() -> None:
    messages = W(U("go"), AC("c1:look", "c1:move"), T("c1"), U("next"), A("ok"))
    assert survey(messages).unanswered_calls == {1: ["c1"]}
    refusals, _ = plan(messages)
    assert ("unresolved-tool-call", 1) in refusals
