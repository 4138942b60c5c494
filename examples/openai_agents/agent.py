"""The stations agent on the OpenAI Agents SDK: a real `function_tool`, a scripted model (one tool
call, then the answer) and the planner's window on every model call."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agents import Agent, RunConfig, Runner, function_tool
from agents.result import RunResultBase
from cwp_client import AsyncPlanner
from cwp_client.hooks.openai_agents import PlannedInput
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from examples.openai_agents.scripted_model import ScriptedModel
from examples.stations import (
    EARLIER_STATIONS,
    FINAL_ANSWER,
    INSTRUCTIONS,
    KEEP_TWO,
    NEW_STATION,
    QUESTION,
    SUMMARIES,
    SUMMARY_TEXTS,
    reading,
)


@function_tool
def read_station(station: int) -> str:
    """Read the current weather at one station.

    Args:
        station: The station's number.
    """
    return reading(station)


def earlier_items() -> list[Any]:
    """The run's input: the question and the readings already taken, as Responses items."""
    items: list[Any] = [{"role": "user", "content": QUESTION}]
    for station in EARLIER_STATIONS:
        call_id = f"call_{station}"
        items.append(
            {
                "type": "function_call",
                "call_id": call_id,
                "name": "read_station",
                "arguments": json.dumps({"station": station}),
            }
        )
        items.append(
            {"type": "function_call_output", "call_id": call_id, "output": reading(station)}
        )
    return items


def said(text: str, number: int) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        type="message",
        id=f"msg_{number}",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def script(summarized: bool = False) -> list[list[Any]]:
    """One tool call, then the answer; with `summarized`, each after a summary."""
    steps = [
        [
            ResponseFunctionToolCall(
                type="function_call",
                id=f"fc_{NEW_STATION}",
                call_id=f"call_{NEW_STATION}",
                name="read_station",
                arguments=json.dumps({"station": NEW_STATION}),
                status="completed",
            )
        ],
        [said(FINAL_ANSWER, 0)],
    ]
    if not summarized:
        return steps
    summaries = [[said(text, number)] for number, text in enumerate(SUMMARY_TEXTS, 1)]
    return [summaries[0], steps[0], summaries[1], steps[1]]


@dataclass
class Outcome:
    result: RunResultBase
    model: ScriptedModel
    planned: PlannedInput
    sent: list[Any]


async def run(
    planner_url: str, *, streamed: bool = False, summarized: bool = False, **plan_options: Any
) -> Outcome:
    """The run; `plan_options` go with every plan (e.g. `SHAPING`); with `summarized`, the run's
    model summarizes each span the planner removes (`SUMMARIES`)."""
    model = ScriptedModel(script(summarized))
    agent = Agent(name="stations", instructions=INSTRUCTIONS, model=model, tools=[read_station])
    sent = earlier_items()
    async with AsyncPlanner(planner_url) as planner:
        session = planner.session(
            strategy=KEEP_TWO, **plan_options, **(SUMMARIES if summarized else {})
        )
        planned = PlannedInput(session, summarize=True if summarized else None)
        config = RunConfig(call_model_input_filter=planned, tracing_disabled=True)
        if streamed:
            streaming = Runner.run_streamed(agent, input=sent, run_config=config)
            async for _ in streaming.stream_events():
                pass
            result: RunResultBase = streaming
        else:
            result = await Runner.run(agent, input=sent, run_config=config)
    return Outcome(result, model, planned, sent)
