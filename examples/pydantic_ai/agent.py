"""The stations agent on Pydantic AI: a real tool, a scripted model (`FunctionModel`: one tool
call, then the answer) and the planner's window on every model request."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from cwp_client import AsyncPlanner
from cwp_client.hooks.pydantic_ai import PlannedWindow
from pydantic_ai import Agent
from pydantic_ai.agent import AgentRunResult
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

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


def earlier_messages() -> list[ModelMessage]:
    """The run's history: the question and the readings already taken."""
    messages: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart(content=QUESTION)])]
    for station in EARLIER_STATIONS:
        call_id = f"call_{station}"
        call = ToolCallPart("read_station", {"station": station}, tool_call_id=call_id)
        messages.append(ModelResponse(parts=[call]))
        result = ToolReturnPart("read_station", reading(station), tool_call_id=call_id)
        messages.append(ModelRequest(parts=[result]))
    return messages


@dataclass
class ScriptedModel:
    """The model's side: one tool call, then the answer (with `summarized`, each after a
    summary); `received` keeps what each request sent."""

    received: list[list[ModelMessage]] = field(default_factory=list)
    summarized: bool = False

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append(copy.deepcopy(messages))
        if self.summarized:
            if len(self.received) in (1, 3):
                return ModelResponse(parts=[TextPart(SUMMARY_TEXTS[len(self.received) // 2])])
            return self.step(len(self.received) // 2)
        return self.step(len(self.received))

    def step(self, number: int) -> ModelResponse:
        if number == 1:
            call_id = f"call_{NEW_STATION}"
            call = ToolCallPart("read_station", {"station": NEW_STATION}, tool_call_id=call_id)
            return ModelResponse(parts=[call])
        if number == 2:
            return ModelResponse(parts=[TextPart(FINAL_ANSWER)])
        raise AssertionError("the model was called more often than scripted")


@dataclass
class Outcome:
    result: AgentRunResult[str]
    model: ScriptedModel
    planned: PlannedWindow
    sent: list[ModelMessage]


async def run(planner_url: str, *, summarized: bool = False, **plan_options: Any) -> Outcome:
    """The run; `plan_options` go with every plan (e.g. `SHAPING`); with `summarized`, the
    agent's model summarizes each span the planner removes (`SUMMARIES`)."""
    model = ScriptedModel(summarized=summarized)
    sent = earlier_messages()
    async with AsyncPlanner(planner_url) as planner:
        settings = SUMMARIES if summarized else {}
        session = planner.session(strategy=KEEP_TWO, **plan_options, **settings)
        planned = PlannedWindow(session, summarize=True if summarized else None)
        agent = Agent(
            FunctionModel(model.respond), instructions=INSTRUCTIONS, capabilities=[planned]
        )

        @agent.tool_plain
        def read_station(station: int) -> str:
            """Read the current weather at one station."""
            return reading(station)

        result = await agent.run(message_history=sent)
    return Outcome(result, model, planned, sent)
