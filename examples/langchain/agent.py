"""The stations agent on LangChain v1 (`create_agent`): a real tool, a scripted model (one tool
call, then the answer) and the planner's window on every model call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cwp_client import AsyncPlanner, Planner
from cwp_client.hooks.langchain import PlannedWindow
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

from examples.langchain.scripted_model import ScriptedChatModel
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


@tool
def read_station(station: int) -> str:
    """Read the current weather at one station."""
    return reading(station)


def earlier_messages() -> list[AnyMessage]:
    """The run's input: the question and the readings already taken."""
    messages: list[AnyMessage] = [HumanMessage(QUESTION, id="question")]
    for station in EARLIER_STATIONS:
        call_id = f"call_{station}"
        call = {"name": "read_station", "args": {"station": station}, "id": call_id}
        messages.append(AIMessage("", tool_calls=[call], id=f"ai_{station}"))
        messages.append(ToolMessage(reading(station), tool_call_id=call_id, id=f"tool_{station}"))
    return messages


def script(summarized: bool = False) -> list[AIMessage]:
    """One tool call, then the answer; with `summarized`, each after a summary."""
    call = {"name": "read_station", "args": {"station": NEW_STATION}, "id": f"call_{NEW_STATION}"}
    steps = [AIMessage("", tool_calls=[call]), AIMessage(FINAL_ANSWER)]
    if not summarized:
        return steps
    first, second = (AIMessage(text) for text in SUMMARY_TEXTS)
    return [first, steps[0], second, steps[1]]


@dataclass
class Outcome:
    state: dict[str, Any]
    model: ScriptedChatModel
    planned: PlannedWindow
    sent: list[AnyMessage]


def run(planner_url: str, *, summarized: bool = False, **plan_options: Any) -> Outcome:
    """The run; `plan_options` go with every plan (e.g. `SHAPING`); with `summarized`, the
    agent's model summarizes each span the planner removes (`SUMMARIES`)."""
    model = ScriptedChatModel(script=script(summarized))
    sent = earlier_messages()
    with Planner(planner_url) as planner:
        settings = SUMMARIES if summarized else {}
        session = planner.session(strategy=KEEP_TWO, **plan_options, **settings)
        planned = PlannedWindow(session, summarize=True if summarized else None)
        agent = create_agent(
            model=model, tools=[read_station], system_prompt=INSTRUCTIONS, middleware=[planned]
        )
        state = agent.invoke({"messages": sent})
    return Outcome(state, model, planned, sent)


async def run_async(planner_url: str, *, summarized: bool = False, **plan_options: Any) -> Outcome:
    """`run`, through `agent.ainvoke` and an `AsyncPlanner`."""
    model = ScriptedChatModel(script=script(summarized))
    sent = earlier_messages()
    async with AsyncPlanner(planner_url) as planner:
        settings = SUMMARIES if summarized else {}
        session = planner.session(strategy=KEEP_TWO, **plan_options, **settings)
        planned = PlannedWindow(session, summarize=True if summarized else None)
        agent = create_agent(
            model=model, tools=[read_station], system_prompt=INSTRUCTIONS, middleware=[planned]
        )
        state = await agent.ainvoke({"messages": sent})
    return Outcome(state, model, planned, sent)
