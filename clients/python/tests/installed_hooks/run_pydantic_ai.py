"""The Pydantic AI hook from the installed client, in an agent run against a live planner."""

from __future__ import annotations

import asyncio
import copy

from pydantic_ai import Agent
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
from scenario import ANSWER, OPTIONS, QUESTION, STATIONS, check_shaped, planner_url, reading, report

from cwp_client import AsyncPlanner
from cwp_client.hooks.pydantic_ai import PlannedWindow

received: list[list[ModelMessage]] = []


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    received.append(copy.deepcopy(messages))
    return ModelResponse(parts=[TextPart(ANSWER)])


async def main() -> None:
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart(content=QUESTION)])]
    for station in STATIONS:
        call_id = f"call_{station}"
        history.append(
            ModelResponse(parts=[ToolCallPart("read_station", {"station": station}, call_id)])
        )
        history.append(
            ModelRequest(parts=[ToolReturnPart("read_station", reading(station), call_id)])
        )
    async with AsyncPlanner(planner_url()) as planner:
        planned = PlannedWindow(planner.session(**OPTIONS))
        agent = Agent(FunctionModel(answer), capabilities=[planned])
        result = await agent.run(message_history=history)
    assert result.output == ANSWER
    [sent] = received
    returns = [
        part
        for message in sent
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    check_shaped({part.tool_call_id: part.content for part in returns})
    assert history[-1].parts[0].content == reading(3)  # the run's history is untouched


asyncio.run(main())
report("pydantic-ai")
