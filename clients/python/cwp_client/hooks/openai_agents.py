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

Summaries (`docs/rules.md#summaries`): by default (`summarize=True`) the run's own model writes
the summary a plan asks for, unless the session has a summarizer of its own (`summarize=None`: no
summaries from the hook). The summary request's model request is Responses input
(`{"instructions"?, "input"}`), which is what the SDK's `Model.get_response` takes: its items are
mapped back onto the run's own items as a window is, and sent with the agent's model settings, no
tools and no tracing; the text of the answer's output messages is the summary. The model is the
agent's `Model`, or, for a model given by name (or none), the one the SDK's default provider makes
of that name; a run whose `RunConfig` sets another model or provider passes it as `model`.
`summarize` may instead be a function of the model request, returning the text (or an awaitable
of it). The session's settings (`summary_instructions`, `min_span_tokens`, `replan`) apply.

Recall (`docs/rules.md#recall`): a filter cannot add a tool to the agent, so it offers one,
`recall_tool` (a `FunctionTool` named `context_recall`, answered from the items the session last
planned, the run's whole input up to that model call, through the session's `recall`), to put in
the agent's tools: `Agent(..., tools=[..., planned.recall_tool])`. The filter plans with the
`recall` option only when the agent has a tool of that name, so the window's texts never point a
model at a tool it does not have: an existing agent's windows stay as they were until it is given
the tool. `recall={"tool_name": ...}` names it otherwise; `recall=None` offers no tool and never
plans with recall.

One filter serves one run: its `AsyncPlannerSession` carries the run's records, iteration numbers
and summaries from one model call to the next.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from cwp_client import AsyncPlannerSession, Plan
from cwp_client.hooks import missing_framework
from cwp_client.hooks._window import (
    RECALL_ON,
    Placed,
    aanswer_recall,
    chosen_summarizer,
    placed_request,
    placed_window,
    recall_option,
    text_of,
)
from cwp_client.planner import to_json
from cwp_client.recall import DESCRIPTION, PARAMETERS, tool_name_of

try:
    from agents import FunctionTool, Model, ModelSettings, ModelTracing
    from agents.models.multi_provider import MultiProvider
    from agents.run_config import CallModelData, ModelInputData
    from agents.tool_context import ToolContext
except ImportError as error:
    raise ImportError(
        missing_framework(__name__, "the OpenAI Agents SDK", "openai-agents"), name=error.name
    ) from error

__all__ = ["PlannedInput", "recall_tool", "summarize_with", "window_items"]

Summarize = Callable[[dict[str, Any]], Awaitable[str] | str]


class PlannedInput:
    """`RunConfig(call_model_input_filter=PlannedInput(session))`; `plans` lists the plans made,
    one per model call. `options` go with every plan (e.g. `collapse`, `ledger`, `cap`).
    `summarize`: True (the default) for summaries by the run's model (or `model`), unless the
    session has a summarizer of its own; a function for summaries by it; None or False for none
    from the hook (see the module's docstring). `recall`: the plans' `recall` option, sent when
    the agent has the tool of that name; `recall_tool` is that tool, to put in the agent's tools
    (None with `recall=None`)."""

    def __init__(
        self,
        session: AsyncPlannerSession,
        *,
        summarize: Summarize | bool | None = True,
        model: Model | None = None,
        recall: Mapping[str, Any] | None = RECALL_ON,
        **options: Any,
    ) -> None:
        self.session = session
        self.summarize = summarize
        self.model = model
        self.recall = recall_option(recall)
        self.options = options
        self.plans: list[Plan] = []
        self.tool_name = tool_name_of(self.recall)
        self.recall_tool: FunctionTool | None = (
            None if self.tool_name is None else recall_tool(session, self.tool_name)
        )

    def recalls(self, data: CallModelData[Any]) -> bool:
        """Whether this model call plans with recall: the agent has the recall tool."""
        if self.tool_name is None or data.agent is None:
            return False
        return any(getattr(tool, "name", None) == self.tool_name for tool in data.agent.tools)

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        instructions = data.model_data.instructions
        options: dict[str, Any] = {**self.options, "format": "responses"}
        if self.recalls(data):
            options["recall"] = self.recall
        if instructions:
            options["system"] = instructions
        items = list(data.model_data.input)
        sent = to_json(items)

        async def by_the_run_model(request: dict[str, Any]) -> str:
            # The model is looked up when a summary is due, not on every plan.
            model = self.model or run_model(data)
            return await summarize_with(model, items, sent, data.agent.model_settings)(request)

        chosen = chosen_summarizer(self.summarize, self.session, lambda: by_the_run_model)
        if chosen is not None:
            options["summarize"] = chosen
        plan = await self.session.plan(sent, **options)
        self.plans.append(plan)
        return ModelInputData(input=window_items(items, sent, plan), instructions=instructions)


def recall_tool(session: AsyncPlannerSession, name: str) -> FunctionTool:
    """The recall tool named `name`, answered by `session`'s `recall`; arguments that are not
    a JSON object get a sentence saying what to give."""

    async def recall(context: ToolContext[Any], arguments: str) -> str:
        try:
            parsed = json.loads(arguments) if arguments else {}
        except ValueError:
            parsed = None
        return await aanswer_recall(session, parsed)

    return FunctionTool(
        name=name,
        description=DESCRIPTION,
        params_json_schema=copy.deepcopy(PARAMETERS),
        on_invoke_tool=recall,
        strict_json_schema=False,
    )


def run_model(data: CallModelData[Any]) -> Model:
    """The agent's model: its `Model`, or the default provider's for its name (or none)."""
    model = data.agent.model
    if isinstance(model, Model):
        return model
    return MultiProvider().get_model(model)


def summarize_with(
    model: Model,
    items: Sequence[Any],
    sent: Sequence[Any],
    settings: ModelSettings | None = None,
) -> Callable[[dict[str, Any]], Awaitable[str]]:
    """A summarizer that sends a summary request's model request to `model`, the run's own items
    in it where the request has them (`items`, as planned: `sent`)."""

    async def summarize(request: dict[str, Any]) -> str:
        placed = placed_request(request.get("input") or [], sent)
        response = await model.get_response(
            system_instructions=request.get("instructions"),
            input=items_from(items, placed),
            model_settings=settings or ModelSettings(),
            tools=[],
            output_schema=None,
            handoffs=[],
            tracing=ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
        return output_text(response.output)

    return summarize


def output_text(output: Sequence[Any]) -> str:
    """The text of a response's output messages."""
    texts: list[str] = []
    for item in output:
        item = to_json(item)
        if isinstance(item, dict) and item.get("type") == "message":
            texts.extend(
                part.get("text", "")
                for part in item.get("content") or []
                if isinstance(part, dict) and part.get("type") == "output_text"
            )
    return "".join(texts)


def window_items(items: Sequence[Any], sent: Sequence[Any], plan: Plan) -> list[Any]:
    """The plan's window as input items: each kept item the caller's own, a shaped result the
    caller's item with `output` replaced, the notice as the planner wrote it."""
    return items_from(items, placed_window(plan, sent))


def items_from(items: Sequence[Any], placed: Sequence[Placed]) -> list[Any]:
    """Placed entries as input items (see `window_items`)."""
    window: list[Any] = []
    for placed_entry in placed:
        if placed_entry.source is None:
            window.append(placed_entry.entry)
        elif placed_entry.shaped:
            text = text_of(placed_entry.entry.get("output"))
            window.append(with_output(items[placed_entry.source], text))
        else:
            window.append(items[placed_entry.source])
    return window


def with_output(item: Any, text: str) -> Any:
    """`item` (a `function_call_output`, a dict or an SDK model) with `output` set to `text`."""
    if isinstance(item, dict):
        return {**item, "output": text}
    return item.model_copy(update={"output": text})
