"""A `call_model_input_filter` for the OpenAI Agents SDK that sends the model the planner's window.

The SDK calls the filter right before each model request with the items it is about to send
(Responses input items) and the agent's instructions; whatever the filter returns is what the
model gets, and the run's own history is left as it was. So the filter plans those items
(`format: "responses"`, the instructions as `system`, outside the plan) and returns the window.

One filter serves one run: its `AsyncPlannerSession` carries the run's records and iteration
numbers from one model call to the next.
"""

from __future__ import annotations

from typing import Any

from agents.run_config import CallModelData, ModelInputData
from cwp_client import AsyncPlannerSession, Plan


class PlannedInput:
    """`RunConfig(call_model_input_filter=PlannedInput(session))`; `plans` lists the plans made,
    one per model call."""

    def __init__(self, session: AsyncPlannerSession) -> None:
        self.session = session
        self.plans: list[Plan] = []

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        instructions = data.model_data.instructions
        options: dict[str, Any] = {"format": "responses"}
        if instructions:
            options["system"] = instructions
        plan = await self.session.plan(data.model_data.input, **options)
        self.plans.append(plan)
        return ModelInputData(input=plan.window, instructions=instructions)
