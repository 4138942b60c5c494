"""Core messages that span several caller messages (a Responses assistant run: reasoning, text and
call items read as one assistant message): every index and count is in caller messages."""

from __future__ import annotations

from app.core.diagnostics import diagnose
from app.core.messages import Message, ToolCall
from app.core.window import PlanOptions, SlidingWindow, plan_window


def run(source: int, end: int, *calls: tuple[str, int]) -> Message:
    """An assistant run of caller items `source … end`, its calls held by the given items."""
    made = tuple(ToolCall(call_id, "look", item) for call_id, item in calls)
    return Message("assistant", "", made, source=source, source_end=end)


def result(call_id: str, source: int, content: str = "x" * 300) -> Message:
    return Message("tool", content, tool_call_id=call_id, source=source)


# Items: 0 user, 1-3 run (reasoning, function_call c1, function_call c2), 4-5 outputs,
# 6-7 run (reasoning, function_call c3), 8 output, 9-10 run (reasoning, c4), 11 output.
TRANSCRIPT = [
    Message("user", "go", source=0),
    run(1, 3, ("c1", 2), ("c2", 3)),
    result("c1", 4),
    result("c2", 5),
    run(6, 7, ("c3", 7)),
    result("c3", 8),
    run(9, 10, ("c4", 10)),
    result("c4", 11),
]


def test_turns_starts_lengths_and_removal_are_in_items() -> None:
    plan = plan_window(TRANSCRIPT, PlanOptions(strategy=SlidingWindow(1), keep_last_tool_results=0))
    assert [(t["start"], t["length"]) for t in plan.turns] == [(0, 1), (1, 5), (6, 3), (9, 3)]
    assert plan.evicted == (1, 2)
    assert plan.evicted_messages == tuple(range(1, 9))
    assert plan.stats.messages_before == 12
    assert plan.notice is not None and plan.notice.window_index == 1
    # The notice counts the items it replaces.
    assert plan.notice.content.startswith("[dropped history — 8 earlier message(s)")
    assert plan.stats.messages_after == 12 - 8 + 1
    assert plan.stats.removed_message_count == 8


def test_an_unanswered_call_is_reported_on_the_item_that_holds_it() -> None:
    transcript = [*TRANSCRIPT[:3], Message("user", "and?", source=5)]
    found = diagnose(transcript)
    assert [(d.code, d.message_index) for d in found] == [("unanswered-call", 3)]
