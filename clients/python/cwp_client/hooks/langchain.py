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

One middleware serves one run: its session carries the run's records and iteration numbers from
one model call to the next. A `PlannerSession` serves `agent.invoke`, an `AsyncPlannerSession`
`agent.ainvoke` (`awrap_model_call`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from cwp_client import AsyncPlannerSession, Plan, PlannerSession
from cwp_client.hooks import missing_framework
from cwp_client.hooks._window import placed_window, text_of

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    from langchain_core.messages import (
        AnyMessage,
        convert_to_messages,
        convert_to_openai_messages,
    )
except ImportError as error:
    raise ImportError(missing_framework(__name__, "LangChain", "langchain"), name=error.name) from (
        error
    )

__all__ = ["PlannedWindow", "to_openai", "window_messages"]

# The LangChain message each OpenAI message sent came from; None when that message became more
# than one OpenAI message (it is then not mapped back whole).
Origins = list[int | None]


class PlannedWindow(AgentMiddleware):
    """`create_agent(..., middleware=[PlannedWindow(session)])`; `plans` lists the plans made,
    one per model call. `options` go with every plan (e.g. `collapse`, `ledger`, `cap`)."""

    def __init__(self, session: PlannerSession | AsyncPlannerSession, **options: Any) -> None:
        super().__init__()
        self.session = session
        self.options = options
        self.plans: list[Plan] = []

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        if not isinstance(self.session, PlannerSession):
            raise TypeError("agent.invoke plans through a PlannerSession (ainvoke: async)")
        sent, origins = to_openai(request.messages)
        plan = self.session.plan(sent, **{**self.options, "format": "openai"})
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
        plan = await self.session.plan(sent, **{**self.options, "format": "openai"})
        self.plans.append(plan)
        window = window_messages(request.messages, sent, origins, plan)
        return await handler(request.override(messages=window))


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
    messages: list[AnyMessage] = []
    for placed in placed_window(plan, sent):
        origin = None if placed.source is None else origins[placed.source]
        if origin is None:
            messages.extend(cast(list[AnyMessage], convert_to_messages([placed.entry])))
        elif placed.shaped:
            text = text_of(placed.entry.get("content"))
            messages.append(originals[origin].model_copy(update={"content": text}))
        else:
            messages.append(originals[origin])
    return messages
