"""The LangChain example against the real planner: the model is sent exactly the planned window,
the agent's run completes, and its state keeps every message."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import SystemMessage, ToolMessage, convert_to_openai_messages

from examples.langchain.__main__ import main
from examples.langchain.agent import run, run_async
from examples.stations import (
    CLEARING,
    FINAL_ANSWER,
    INSTRUCTIONS,
    NEW_STATION,
    RECALL_SUMMARY_HEADS,
    SHAPING,
    SUMMARY_TEXTS,
    cleared_in_window,
    reading,
    shaped_in_window,
)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_the_model_gets_the_planned_window_and_the_run_completes(planner_url, asynchronous):
    outcome = asyncio.run(run_async(planner_url)) if asynchronous else run(planner_url)
    plans, received = outcome.planned.plans, outcome.model.received
    assert len(plans) == len(received) == 2
    for plan, messages in zip(plans, received, strict=True):
        system, *rest = messages
        assert isinstance(system, SystemMessage) and system.content == INSTRUCTIONS
        assert convert_to_openai_messages(rest) == plan.window
    first = plans[0]
    assert first.engaged and first.evicted_messages == [1, 2, 3, 4]
    # Kept messages are the agent's own objects, ids included; the notice is new.
    kept_first = received[0][1:]
    assert kept_first[0] is outcome.sent[0]
    assert first.notice is not None and kept_first[1].content == first.notice.content
    assert [m.id for m in kept_first[2:]] == ["ai_3", "tool_3", "ai_4", "tool_4"]
    # The second call carries the tool's real output; the first plan's record went back.
    assert received[1][-1].content == reading(NEW_STATION)
    assert plans[1].record is not None and plans[1].record["iteration"] == 2
    # The run completed and its state still holds every message it was given.
    messages = outcome.state["messages"]
    assert messages[-1].content == FINAL_ANSWER
    assert [m.id for m in messages[: len(outcome.sent)]] == [m.id for m in outcome.sent]
    assert len(messages) == len(outcome.sent) + 3  # the call, its result, the answer


def test_the_program_runs(planner_url, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["langchain", "--planner", planner_url])
    main()
    printed = capsys.readouterr().out
    assert "model call 1: 6 of 9 messages sent, evicted [1, 2, 3, 4]" in printed
    assert FINAL_ANSWER in printed


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_shaped_results_reach_the_model_as_the_agents_own_tool_messages(planner_url, asynchronous):
    """With `collapse` and `cap`, each shaped result is the agent's `ToolMessage` (id and call id
    kept) with only `content` replaced; the agent's state keeps the tools' own outputs."""
    if asynchronous:
        outcome = asyncio.run(run_async(planner_url, **SHAPING))
    else:
        outcome = run(planner_url, **SHAPING)
    plans, received = outcome.planned.plans, outcome.model.received
    assert len(plans) == len(received) == 2
    for plan, messages in zip(plans, received, strict=True):
        assert convert_to_openai_messages(messages[1:]) == plan.window
    first = shaped_in_window(plans[0].shaped)
    for item in first:
        original = outcome.sent[item["message_index"]]
        shaped = received[0][1 + item["window_index"]]
        assert isinstance(shaped, ToolMessage) and shaped is not original
        assert (shaped.id, shaped.tool_call_id) == (original.id, original.tool_call_id)
        assert shaped.content == plans[0].window[item["window_index"]]["content"]
        assert len(shaped.content) == item["chars_after"] < len(original.content)
    last = received[1][-1]
    assert isinstance(last, ToolMessage) and '"truncated"' in last.content
    messages = outcome.state["messages"]
    assert messages[-1].content == FINAL_ANSWER
    assert [m.content for m in messages[: len(outcome.sent)]] == [m.content for m in outcome.sent]
    assert messages[-2].content == reading(NEW_STATION)


def test_a_cleared_result_reaches_the_model_as_the_agents_own_tool_message(planner_url):
    """With `clear`, the cleared result is the agent's `ToolMessage` (id and call id kept) with
    only `content` replaced by the placeholder; the agent's state keeps the tool's own output."""
    outcome = run(planner_url, **CLEARING)
    plans, received = outcome.planned.plans, outcome.model.received
    for plan, messages in zip(plans, received, strict=True):
        assert convert_to_openai_messages(messages[1:]) == plan.window
    [item] = cleared_in_window(plans[0].shaped)
    original = outcome.sent[item["message_index"]]
    cleared = received[0][1 + item["window_index"]]
    assert isinstance(cleared, ToolMessage) and cleared is not original
    assert (cleared.id, cleared.tool_call_id) == (original.id, original.tool_call_id)
    assert cleared.content.startswith('{"cleared":true,"tool_call_id":"call_3"')
    assert [m.content for m in outcome.state["messages"][: len(outcome.sent)]] == [
        m.content for m in outcome.sent
    ]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_the_agents_model_writes_the_summaries_the_window_carries(planner_url, asynchronous):
    """With `summarize=True`, each summary request goes to the agent's own chat model (with the
    system prompt, as the agent's calls go) as it was answered, and the window of the call it was
    for carries the summary."""
    if asynchronous:
        outcome = asyncio.run(run_async(planner_url, summarized=True))
    else:
        outcome = run(planner_url, summarized=True)
    plans, received = outcome.planned.plans, outcome.model.received
    assert len(plans) == 2 and len(received) == 4
    for number, plan in enumerate(plans):
        asked = plan.replaces.summary_request if plan.replaces else None
        assert asked is not None, plan.raw
        system, *summary_call = received[2 * number]
        assert isinstance(system, SystemMessage) and system.content == INSTRUCTIONS
        assert convert_to_openai_messages(summary_call) == asked["request"]["messages"]
        # Kept messages in the summary call are the agent's own objects.
        assert summary_call[0] is outcome.sent[0]
        step = received[2 * number + 1][1:]
        assert convert_to_openai_messages(step) == plan.window
        assert step[1].content == RECALL_SUMMARY_HEADS[number] + SUMMARY_TEXTS[number]
        assert plan.summary_used == {"from": 1, "through": asked["through"]}
    assert outcome.state["messages"][-1].content == FINAL_ANSWER
    assert [m.id for m in outcome.state["messages"][: len(outcome.sent)]] == [
        m.id for m in outcome.sent
    ]
