"""The planner in front of the OpenAI Agents SDK's model calls: a `call_model_input_filter`.

`pip install 'context-window-planner-client[openai-agents]'`, then
`RunConfig(call_model_input_filter=PlannedInput(async_planner.session()))`.

The SDK calls the filter right before each model request with the items it is about to send
(Responses input items) and the agent's instructions; whatever the filter returns is what the
model gets, and the run's own history is left as it was. So the filter plans those items
(`format: "responses"`, the instructions as `system`, outside the plan) and returns the window:
each kept item as the SDK gave it, the drop notice as a new user message, and a result the plan
shaped (`collapse`, `cap`) as the SDK's own `function_call_output` item with `output` replaced by
its new text.

One filter serves one run: its `AsyncPlannerSession` carries the run's records and iteration
numbers from one model call to the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cwp_client import AsyncPlannerSession, Plan
from cwp_client.hooks import missing_framework
from cwp_client.hooks._window import placed_window, text_of
from cwp_client.planner import to_json

try:
    from agents.run_config import CallModelData, ModelInputData
except ImportError as error:
    raise ImportError(
        missing_framework(__name__, "the OpenAI Agents SDK", "openai-agents"), name=error.name
    ) from error

__all__ = ["PlannedInput", "window_items"]


class PlannedInput:
    """`RunConfig(call_model_input_filter=PlannedInput(session))`; `plans` lists the plans made,
    one per model call. `options` go with every plan (e.g. `collapse`, `ledger`, `cap`)."""

    def __init__(self, session: AsyncPlannerSession, **options: Any) -> None:
        self.session = session
        self.options = options
        self.plans: list[Plan] = []

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        instructions = data.model_data.instructions
        options: dict[str, Any] = {**self.options, "format": "responses"}
        if instructions:
            options["system"] = instructions
        items = list(data.model_data.input)
        sent = to_json(items)
        plan = await self.session.plan(sent, **options)
        self.plans.append(plan)
        return ModelInputData(input=window_items(items, sent, plan), instructions=instructions)


def window_items(items: Sequence[Any], sent: Sequence[Any], plan: Plan) -> list[Any]:
    """The plan's window as input items: each kept item the caller's own, a shaped result the
    caller's item with `output` replaced, the notice as the planner wrote it."""
    window: list[Any] = []
    for placed in placed_window(plan, sent):
        if placed.source is None:
            window.append(placed.entry)
        elif placed.shaped:
            window.append(with_output(items[placed.source], text_of(placed.entry.get("output"))))
        else:
            window.append(items[placed.source])
    return window


def with_output(item: Any, text: str) -> Any:
    """`item` (a `function_call_output`, a dict or an SDK model) with `output` set to `text`."""
    if isinstance(item, dict):
        return {**item, "output": text}
    return item.model_copy(update={"output": text})
