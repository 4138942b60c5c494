"""The planner in front of a LangChain v1 agent's model calls: an agent middleware.

`pip install 'context-window-planner-client[langchain]'`, then
`create_agent(..., middleware=[PlannedWindow(planner.session())])`.

`wrap_model_call` sees each model request before it is made; what it passes on to `handler` is
what the model gets, while the agent's state (its `messages`) stays as it was. So the middleware
converts the request's messages to OpenAI Chat Completions messages
(`convert_to_openai_messages`), plans them (`format: "openai"`), and hands on the window. The
system message travels beside the messages in a LangChain request and is left to it.

Back from the window to LangChain messages: an entry that is one of the messages as sent (the
planner returns kept messages verbatim) becomes that original message object again, so ids and
metadata survive; a result the plan shaped (`collapse`, `cap`) becomes a copy of the original
`ToolMessage` with `content` replaced by its new text; any other entry (the drop notice) is
converted with `convert_to_messages`.

Summaries (`docs/rules.md#summaries`): by default (`summarize=True`) the request's own chat model
writes the summary a plan asks for, unless the session has a summarizer of its own
(`summarize=None`: no summaries from the hook). The summary request's model request is OpenAI
messages, mapped back onto the agent's messages as a window is, and sent to the request's model
with the request's system message, tools and model settings bound as the agent binds them (a
prompt cache can then serve its prefix); the text of its answer is the summary. `summarize` may
instead be a function of the model request, returning the text (awaitable under `ainvoke`). The
session's settings (`summary_instructions`, `min_span_tokens`, `replan`) apply.

Recall (`docs/rules.md#recall`): by default the middleware registers the recall tool
(`context_recall`, a `StructuredTool` in its `tools`, which `create_agent` adds to the agent's
tools) and plans with the `recall` option, so the window's texts point the model at it; the tool
answers from the messages the session last planned (the agent's whole history up to that model
call) through the session's `recall`. `recall={"tool_name": ...}` names it otherwise;
`recall=None` registers no tool and plans without recall, as before.

One middleware serves one run: its session carries the run's records, iteration numbers and
summaries from one model call to the next. A `PlannerSession` serves `agent.invoke`, an
`AsyncPlannerSession` `agent.ainvoke` (`awrap_model_call`).
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, cast

from cwp_client import AsyncPlannerSession, Plan, PlannerSession
from cwp_client.hooks import missing_framework
from cwp_client.hooks._window import (
    RECALL_ON,
    Placed,
    aanswer_recall,
    answer_recall,
    chosen_summarizer,
    placed_request,
    placed_window,
    recall_option,
    text_of,
)
from cwp_client.recall import DESCRIPTION, PARAMETERS, tool_name_of

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import (
        AnyMessage,
        convert_to_messages,
        convert_to_openai_messages,
    )
    from langchain_core.tools import BaseTool, StructuredTool
except ImportError as error:
    raise ImportError(missing_framework(__name__, "LangChain", "langchain"), name=error.name) from (
        error
    )

__all__ = ["PlannedWindow", "recall_tool", "request_model", "to_openai", "window_messages"]

# The LangChain message each OpenAI message sent came from; None when that message became more
# than one OpenAI message (it is then not mapped back whole).
Origins = list[int | None]


class PlannedWindow(AgentMiddleware):
    """`create_agent(..., middleware=[PlannedWindow(session)])`; `plans` lists the plans made,
    one per model call. `options` go with every plan (e.g. `collapse`, `ledger`, `cap`).
    `summarize`: True (the default) for summaries by the request's model, unless the session has
    a summarizer of its own; a function for summaries by it; None or False for none from the hook
    (see the module's docstring). `recall`: the plans' `recall` option, the recall tool in `tools`
    (on by default; None for neither)."""

    def __init__(
        self,
        session: PlannerSession | AsyncPlannerSession,
        *,
        summarize: Callable[[dict[str, Any]], Any] | bool | None = True,
        recall: Mapping[str, Any] | None = RECALL_ON,
        **options: Any,
    ) -> None:
        super().__init__()
        self.session = session
        self.summarize = summarize
        self.recall = recall_option(recall)
        self.options = options
        self.plans: list[Plan] = []
        name = tool_name_of(self.recall)
        self.tools: list[BaseTool] = [] if name is None else [recall_tool(session, name)]

    def _options(
        self, request: ModelRequest, sent: list[dict[str, Any]], origins: Origins, run: str
    ) -> dict[str, Any]:
        options: dict[str, Any] = {**self.options, "format": "openai"}
        if self.recall is not None:
            options["recall"] = self.recall

        def messages_for(model_request: dict[str, Any]) -> list[AnyMessage]:
            placed = placed_request(model_request.get("messages") or [], sent)
            system = [request.system_message] if request.system_message is not None else []
            return [*system, *messages_from(request.messages, origins, placed)]

        def summarize(model_request: dict[str, Any]) -> str:
            answer = request_model(request).invoke(messages_for(model_request))
            return text_of(answer.content)

        async def asummarize(model_request: dict[str, Any]) -> str:
            answer = await request_model(request).ainvoke(messages_for(model_request))
            return text_of(answer.content)

        chosen = chosen_summarizer(
            self.summarize, self.session, lambda: summarize if run == "sync" else asummarize
        )
        if chosen is not None:
            options["summarize"] = chosen
        return options

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        if not isinstance(self.session, PlannerSession):
            raise TypeError("agent.invoke plans through a PlannerSession (ainvoke: async)")
        sent, origins = to_openai(request.messages)
        plan = self.session.plan(sent, **self._options(request, sent, origins, "sync"))
        self.plans.append(plan)
        window = window_messages(request.messages, sent, origins, plan)
        return handler(request.override(messages=window))

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> ModelResponse:
        if not isinstance(self.session, AsyncPlannerSession):
            raise TypeError("agent.ainvoke plans through an AsyncPlannerSession")
        sent, origins = to_openai(request.messages)
        plan = await self.session.plan(sent, **self._options(request, sent, origins, "async"))
        self.plans.append(plan)
        window = window_messages(request.messages, sent, origins, plan)
        return await handler(request.override(messages=window))


def recall_tool(session: PlannerSession | AsyncPlannerSession, name: str) -> StructuredTool:
    """The recall tool named `name`, answered by `session`'s `recall` (under `invoke` through a
    `PlannerSession`, under `ainvoke` through either)."""

    def recall(**arguments: Any) -> str:
        return answer_recall(session, arguments)

    async def arecall(**arguments: Any) -> str:
        return await aanswer_recall(session, arguments)

    return StructuredTool.from_function(
        func=recall,
        coroutine=arecall,
        name=name,
        description=DESCRIPTION,
        args_schema=copy.deepcopy(PARAMETERS),
    )


def request_model(request: ModelRequest) -> Any:
    """The request's chat model, bound as the agent binds it for the request: its tools and tool
    choice, and its model settings."""
    model = request.model
    settings = dict(request.model_settings or {})
    if request.tools:
        if request.tool_choice is not None:
            settings["tool_choice"] = request.tool_choice
        try:
            return model.bind_tools(request.tools, **settings)
        except NotImplementedError:
            pass
    if settings and isinstance(model, BaseChatModel):
        return model.bind(**settings)
    return model


def to_openai(messages: Sequence[AnyMessage]) -> tuple[list[dict[str, Any]], Origins]:
    """The OpenAI messages the model reads, and the LangChain message each came from."""
    sent: list[dict[str, Any]] = []
    origins: Origins = []
    for index, message in enumerate(messages):
        converted = convert_to_openai_messages([message])
        sent.extend(converted)
        origins.extend([index] if len(converted) == 1 else [None] * len(converted))
    return sent, origins


def window_messages(
    originals: Sequence[AnyMessage],
    sent: Sequence[dict[str, Any]],
    origins: Origins,
    plan: Plan,
) -> list[AnyMessage]:
    """The plan's window as LangChain messages (see the module's docstring)."""
    return messages_from(originals, origins, placed_window(plan, sent))


def messages_from(
    originals: Sequence[AnyMessage], origins: Origins, placed_entries: Sequence[Placed]
) -> list[AnyMessage]:
    """Placed entries as LangChain messages (see the module's docstring)."""
    messages: list[AnyMessage] = []
    for placed in placed_entries:
        origin = None if placed.source is None else origins[placed.source]
        if origin is None:
            messages.extend(cast(list[AnyMessage], convert_to_messages([placed.entry])))
        elif placed.shaped:
            text = text_of(placed.entry.get("content"))
            messages.append(originals[origin].model_copy(update={"content": text}))
        else:
            messages.append(originals[origin])
    return messages
