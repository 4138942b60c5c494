"""The OpenAI Agents SDK hook from the installed client, in a run against a live planner."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText
from scenario import ANSWER, OPTIONS, QUESTION, STATIONS, check_shaped, planner_url, reading, report

from cwp_client import AsyncPlanner
from cwp_client.hooks.openai_agents import PlannedInput


class Answering(Model):
    """Answers at once, keeping the input it was sent."""

    def __init__(self) -> None:
        self.received: list[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any):
        self.received.append(input)
        text = ResponseOutputText(type="output_text", text=ANSWER, annotations=[])
        message = ResponseOutputMessage(
            type="message", id="msg_1", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(requests=1), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


async def main() -> None:
    items: list[Any] = [{"role": "user", "content": QUESTION}]
    for station in STATIONS:
        call = {"station": station}
        items.append(
            {
                "type": "function_call",
                "call_id": f"call_{station}",
                "name": "read_station",
                "arguments": json.dumps(call),
            }
        )
        items.append(
            {
                "type": "function_call_output",
                "call_id": f"call_{station}",
                "output": reading(station),
            }
        )
    model = Answering()
    agent = Agent(name="stations", instructions="Report briefly.", model=model)
    async with AsyncPlanner(planner_url()) as planner:
        planned = PlannedInput(planner.session(**OPTIONS))
        config = RunConfig(call_model_input_filter=planned, tracing_disabled=True)
        result = await Runner.run(agent, input=items, run_config=config)
    assert result.final_output == ANSWER
    [sent] = model.received
    assert sent == planned.plans[0].window
    check_shaped(
        {i["call_id"]: i["output"] for i in sent if i.get("type") == "function_call_output"}
    )
    assert result.to_input_list()[: len(items)] == items  # the run's history is untouched


asyncio.run(main())
report("openai-agents")
