"""The OpenAI Agents SDK example against the real planner: the model is sent exactly the planned
window, the run completes, and the run's history keeps every item."""

from __future__ import annotations

import asyncio

import pytest

from examples.openai_agents.__main__ import main
from examples.openai_agents.agent import run
from examples.stations import (
    CLEARING,
    FINAL_ANSWER,
    INSTRUCTIONS,
    NEW_STATION,
    SHAPING,
    SUMMARY_HEADS,
    SUMMARY_TEXTS,
    cleared_in_window,
    reading,
    shaped_in_window,
)


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_the_model_gets_the_planned_window_and_the_run_completes(planner_url, streamed):
    outcome = asyncio.run(run(planner_url, streamed=streamed))
    plans, model = outcome.planned.plans, outcome.model
    assert len(plans) == len(model.received) == 2
    for plan, received in zip(plans, model.received, strict=True):
        assert received == plan.window
    assert model.instructions == [INSTRUCTIONS, INSTRUCTIONS]
    # The first call: the oldest readings left, the question and the newest kept.
    first = plans[0]
    assert first.engaged and first.evicted_messages == [1, 2, 3, 4]
    assert len(model.received[0]) < len(outcome.sent)
    assert model.received[0][0] == outcome.sent[0]
    # The second call carries the tool's real output, and the record of the first plan went back.
    assert model.received[1][-1]["output"] == reading(NEW_STATION)
    assert plans[1].record is not None and plans[1].record["iteration"] == 2
    # The run completed, and its own history still holds every item it was given.
    assert outcome.result.final_output == FINAL_ANSWER
    history = outcome.result.to_input_list()
    assert history[: len(outcome.sent)] == outcome.sent
    assert len(history) == len(outcome.sent) + 3  # the call, its output, the answer


def test_the_program_runs(planner_url, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["openai_agents", "--planner", planner_url])
    main()
    printed = capsys.readouterr().out
    assert "model call 1: 6 of 9 items sent, evicted [1, 2, 3, 4]" in printed
    assert FINAL_ANSWER in printed


def test_shaped_results_reach_the_model_as_the_sdks_own_items(planner_url):
    """With `collapse` and `cap`, each shaped result is the run's `function_call_output` item
    with only `output` replaced; the run's history keeps the tools' own outputs."""
    outcome = asyncio.run(run(planner_url, **SHAPING))
    plans, model = outcome.planned.plans, outcome.model
    assert len(plans) == len(model.received) == 2
    for plan, received in zip(plans, model.received, strict=True):
        assert received == plan.window
    first = shaped_in_window(plans[0].shaped)
    for item in first:
        original = outcome.sent[item["message_index"]]
        shaped = model.received[0][item["window_index"]]
        assert shaped == {**original, "output": shaped["output"]}
        assert len(shaped["output"]) == item["chars_after"] < len(original["output"])
    last = model.received[1][-1]
    assert last["call_id"] == f"call_{NEW_STATION}" and '"truncated"' in last["output"]
    assert outcome.result.final_output == FINAL_ANSWER
    assert outcome.result.to_input_list()[: len(outcome.sent)] == outcome.sent


def test_a_cleared_result_reaches_the_model_as_the_runs_own_output_item(planner_url):
    """With `clear`, the cleared result is the run's `function_call_output` item with only
    `output` replaced by the placeholder; the run's history keeps the tool's own output."""
    outcome = asyncio.run(run(planner_url, **CLEARING))
    plans, model = outcome.planned.plans, outcome.model
    for plan, received in zip(plans, model.received, strict=True):
        assert received == plan.window
    [item] = cleared_in_window(plans[0].shaped)
    original = outcome.sent[item["message_index"]]
    cleared = model.received[0][item["window_index"]]
    assert cleared == {**original, "output": cleared["output"]}
    assert cleared["output"].startswith('{"cleared":true,"tool_call_id":"call_3"')
    assert outcome.result.to_input_list()[: len(outcome.sent)] == outcome.sent


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_the_runs_model_writes_the_summaries_the_window_carries(planner_url, streamed):
    """With `summarize=True`, each summary request goes to the run's own model as it was
    answered (its instructions, its input), and the window of the call it was for carries it."""
    outcome = asyncio.run(run(planner_url, streamed=streamed, summarized=True))
    plans, model = outcome.planned.plans, outcome.model
    assert len(plans) == 2 and len(model.received) == 4
    for number, plan in enumerate(plans):
        asked = plan.replaces.summary_request if plan.replaces else None
        assert asked is not None, plan.raw
        assert model.received[2 * number] == asked["request"]["input"]
        assert model.instructions[2 * number] == asked["request"]["instructions"] == INSTRUCTIONS
        assert model.received[2 * number][-1]["role"] == "user"
        # The step's own call: the window with the summary in the notice's place.
        window = model.received[2 * number + 1]
        assert window == plan.window
        assert plan.summary_used == {"from": 1, "through": asked["through"]}
        assert window[1] == {
            "role": "user",
            "content": SUMMARY_HEADS[number] + SUMMARY_TEXTS[number],
        }
        assert plan.notice is not None and plan.notice.rung == "summary"
    # The second summary request is the first window up to the end of its span (station 3),
    # the first summary included, then the instruction: a prompt cache can serve all of it.
    second = model.received[2]
    assert second[:-1] == model.received[1][:4]
    assert outcome.result.final_output == FINAL_ANSWER
    assert outcome.result.to_input_list()[: len(outcome.sent)] == outcome.sent
