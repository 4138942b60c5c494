"""A LangChain v1 agent middleware that sends the model the planner's window.

`wrap_model_call` sees each model request before it is made; what it passes on to `handler` is
what the model gets, while the agent's state (its `messages`) stays as it was. So the middleware
converts the request's messages to OpenAI Chat Completions messages
(`convert_to_openai_messages`), plans them (`format: "openai"`), and hands on the window. The
system message travels beside the messages in a LangChain request and is left to it.

Back from the window to LangChain messages: an entry that is one of the messages as sent (the
planner returns kept messages verbatim) becomes that original message object again, so ids and
metadata survive; any other entry (the drop notice, a result shortened by `cap`) is converted
with `convert_to_messages`.

One middleware serves one run: its session carries the run's records and iteration numbers from
one model call to the next. A `PlannerSession` serves `agent.invoke`, an `AsyncPlannerSession`
`agent.ainvoke` (`awrap_model_call`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from cwp_client import AsyncPlannerSession, Plan, PlannerSession
from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AnyMessage, convert_to_messages, convert_to_openai_messages


class PlannedWindow(AgentMiddleware):
    """`create_agent(..., middleware=[PlannedWindow(session)])`; `plans` lists the plans made,
    one per model call."""

    def __init__(self, session: PlannerSession | AsyncPlannerSession) -> None:
        super().__init__()
        self.session = session
        self.plans: list[Plan] = []

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        if not isinstance(self.session, PlannerSession):
            raise TypeError("agent.invoke plans through a PlannerSession (ainvoke: async)")
        sent = convert_to_openai_messages(request.messages)
        plan = self.session.plan(sent, format="openai")
        self.plans.append(plan)
        return handler(request.override(messages=window_messages(request.messages, sent, plan)))

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> ModelResponse:
        if not isinstance(self.session, AsyncPlannerSession):
            raise TypeError("agent.ainvoke plans through an AsyncPlannerSession")
        sent = convert_to_openai_messages(request.messages)
        plan = await self.session.plan(sent, format="openai")
        self.plans.append(plan)
        window = window_messages(request.messages, sent, plan)
        return await handler(request.override(messages=window))


def window_messages(
    originals: Sequence[AnyMessage], sent: Sequence[dict[str, Any]], plan: Plan
) -> list[AnyMessage]:
    """The plan's window as LangChain messages, reusing the original message of each entry that
    was sent as it is."""
    messages: list[AnyMessage] = []
    start = 0
    for entry in plan.window:
        found = next((k for k in range(start, len(sent)) if sent[k] == entry), None)
        if found is None:
            messages.extend(convert_to_messages([entry]))  # type: ignore[arg-type]
        else:
            messages.append(originals[found])
            start = found + 1
    return messages
