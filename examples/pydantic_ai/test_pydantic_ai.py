"""The Pydantic AI example against the real planner: the model is sent exactly the planned window,
the run completes, and the run's history keeps every message."""

from __future__ import annotations

import asyncio

from cwp_client import Planner
from cwp_client.hooks.pydantic_ai import to_openai, window_messages
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from examples.pydantic_ai.__main__ import main
from examples.pydantic_ai.agent import run
from examples.stations import (
    CLEARING,
    FINAL_ANSWER,
    NEW_STATION,
    QUESTION,
    RECALL_SUMMARY_HEADS,
    SHAPING,
    SUMMARY_TEXTS,
    cleared_in_window,
    reading,
    shaped_in_window,
)


def test_the_model_gets_the_planned_window_and_the_run_completes(planner_url):
    outcome = asyncio.run(run(planner_url))
    plans, received = outcome.planned.plans, outcome.model.received
    assert len(plans) == len(received) == 2
    for plan, messages in zip(plans, received, strict=True):
        assert to_openai(messages)[0] == plan.window
    first = plans[0]
    assert first.engaged and first.evicted_messages == [1, 2, 3, 4]
    assert first.notice is not None
    # The notice is a user prompt of its own (Pydantic AI joins it to the request before it).
    prompts = [
        part.content
        for message in received[0]
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]
    assert prompts == [QUESTION, first.notice.content]
    # The second request carries the tool's real output; the first plan's record went back.
    last = received[1][-1]
    assert isinstance(last, ModelRequest)
    results = [part for part in last.parts if isinstance(part, ToolReturnPart)]
    assert [part.content for part in results] == [reading(NEW_STATION)]
    assert plans[1].record is not None and plans[1].record["iteration"] == 2
    # The run completed, and its history still holds every message it was given.
    assert outcome.result.output == FINAL_ANSWER
    history = outcome.result.all_messages()
    assert to_openai(history[: len(outcome.sent)])[0] == to_openai(outcome.sent)[0]
    assert len(history) == len(outcome.sent) + 3  # the call, its result, the answer


def test_the_program_runs(planner_url, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["pydantic_ai", "--planner", planner_url])
    main()
    printed = capsys.readouterr().out
    assert "model request 1: 6 of 9 messages sent, evicted [1, 2, 3, 4]" in printed
    assert FINAL_ANSWER in printed


def test_a_request_keeps_only_the_parts_whose_messages_stayed(planner_url):
    """A tool's return and a new question in one request: the return leaves with its turn, the
    question stays, in a copy of the request; the history's request is untouched."""
    call = ToolCallPart("read_station", {"station": 1}, tool_call_id="call_1")
    both = ModelRequest(
        parts=[
            ToolReturnPart("read_station", reading(1), tool_call_id="call_1"),
            UserPromptPart(content="And now station 2?"),
        ]
    )
    messages = [
        ModelRequest(parts=[UserPromptPart(content=QUESTION)]),
        ModelResponse(parts=[call]),
        both,
    ]
    sent, origins = to_openai(messages)
    with Planner(planner_url) as planner:
        plan = planner.plan(
            sent, format="openai", strategy={"kind": "sliding-window", "keep_recent_turns": 1}
        )
    assert plan.evicted_messages == [0, 1, 2]
    window = window_messages(messages, sent, origins, plan)
    assert to_openai(window)[0] == plan.window
    kept = window[-1]
    assert isinstance(kept, ModelRequest) and kept is not both
    assert [type(part) for part in kept.parts] == [UserPromptPart]
    assert len(both.parts) == 2


def test_shaped_results_reach_the_model_as_the_runs_own_tool_returns(planner_url):
    """With `collapse` and `cap`, each shaped result is the run's `ToolReturnPart` (tool name
    and call id kept) with only `content` replaced; the run's history keeps the tools' own
    outputs."""
    outcome = asyncio.run(run(planner_url, **SHAPING))
    plans, received = outcome.planned.plans, outcome.model.received
    assert len(plans) == len(received) == 2
    for plan, messages in zip(plans, received, strict=True):
        assert to_openai(messages)[0] == plan.window
    first = shaped_in_window(plans[0].shaped)
    returns = {
        part.tool_call_id: part
        for message in received[0]
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    for item in first:
        part = returns[item["tool_call_id"]]
        assert part.tool_name == "read_station"
        assert part.content == plans[0].window[item["window_index"]]["content"]
        assert len(part.content) == item["chars_after"] < len(reading(3))
    last = received[1][-1]
    assert isinstance(last, ModelRequest)
    assert [
        '"truncated"' in part.content for part in last.parts if isinstance(part, ToolReturnPart)
    ] == [True]
    assert outcome.result.output == FINAL_ANSWER
    history = outcome.result.all_messages()
    assert to_openai(history[: len(outcome.sent)])[0] == to_openai(outcome.sent)[0]


def test_a_cleared_result_reaches_the_model_as_the_runs_own_tool_return(planner_url):
    """With `clear`, the cleared result is the run's `ToolReturnPart` (tool name and call id
    kept) with only `content` replaced by the placeholder."""
    outcome = asyncio.run(run(planner_url, **CLEARING))
    plans, received = outcome.planned.plans, outcome.model.received
    for plan, messages in zip(plans, received, strict=True):
        assert to_openai(messages)[0] == plan.window
    [item] = cleared_in_window(plans[0].shaped)
    returns = {
        part.tool_call_id: part
        for message in received[0]
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    part = returns[item["tool_call_id"]]
    assert part.tool_name == "read_station"
    assert part.content == plans[0].window[item["window_index"]]["content"]
    assert part.content.startswith('{"cleared":true,"tool_call_id":"call_3"')


def user_prompts(messages: list[ModelMessage]) -> list[str]:
    return [
        part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart) and isinstance(part.content, str)
    ]


def test_the_agents_model_writes_the_summaries_the_window_carries(planner_url):
    """With `summarize=True`, each summary request goes to the agent's own model (a direct model
    request) as it was answered, and the window of the request it was for carries the summary."""
    outcome = asyncio.run(run(planner_url, summarized=True))
    plans, received = outcome.planned.plans, outcome.model.received
    assert len(plans) == 2 and len(received) == 4
    for number, plan in enumerate(plans):
        asked = plan.replaces.summary_request if plan.replaces else None
        assert asked is not None, plan.raw
        summary_call = received[2 * number]
        assert to_openai(summary_call)[0] == asked["request"]["messages"]
        assert user_prompts(summary_call)[-1] == asked["request"]["messages"][-1]["content"]
        step = received[2 * number + 1]
        assert to_openai(step)[0] == plan.window
        summary = RECALL_SUMMARY_HEADS[number] + SUMMARY_TEXTS[number]
        assert user_prompts(step) == [QUESTION, summary]
        assert plan.summary_used == {"from": 1, "through": asked["through"]}
    assert outcome.result.output == FINAL_ANSWER
    history = outcome.result.all_messages()
    assert to_openai(history[: len(outcome.sent)])[0] == to_openai(outcome.sent)[0]
