"""The planner in front of a Pydantic AI agent's model requests: a capability.

`pip install 'context-window-planner-client[pydantic-ai]'`, then
`Agent(..., capabilities=[PlannedWindow(async_planner.session())])`.

`before_model_request` runs once before each model request; the messages it puts in the request
context are what that request sends, while the run's history (`RunContext.messages`) stays as it
was. (Pydantic AI's own `ProcessHistory` capability, the successor of `history_processors`,
writes its result back into that history too; the planner's window must not become the run's
memory, so this capability replaces only the request's copy.)

The messages are planned as OpenAI Chat Completions messages (`format: "openai"`): each part of
a `ModelRequest` that the model reads as a message is one message (a system prompt, a user
prompt, a tool's return, feedback on a response it could not use), and each `ModelResponse` is
one assistant message with its tool calls. Parts that carry no conversation (instruction and
settings deltas, ...) are not sent and stay with their request.

Back from the window: an entry that is one of the messages as sent (the planner returns kept
messages verbatim) brings back the original part or response; a result the plan shaped
(`collapse`, `cap`) brings back its `ToolReturnPart` with `content` replaced by the new text; a
request keeps the parts whose messages stayed (the original object when all did, unchanged). A
new `user` entry, the drop notice, becomes a request of its own. Any other new entry is not
mapped back: the capability raises rather than send the model something else.

Summaries (`docs/rules.md#summaries`): by default (`summarize=True`) the request's own model
writes the summary a plan asks for, unless the session has a summarizer of its own
(`summarize=None`: no summaries from the hook), through a direct model request
(`pydantic_ai.direct.model_request`). The summary request's model request is OpenAI messages,
mapped back onto the run's messages as a window is (the summary it holds and the instruction are
user prompts of requests of their own), and sent with the request's model settings and parameters
(its tools and instructions, so a prompt cache can serve its prefix); the text of the answer is the
summary. `summarize` may instead be a function of the model request, returning the text (or an
awaitable of it). The session's settings (`summary_instructions`, `min_span_tokens`, `replan`)
apply.

Recall (`docs/rules.md#recall`): by default the capability's toolset holds the recall tool
(`context_recall`) and its plans carry the `recall` option, so the window's texts point the model
at it; the tool answers from the messages the session last planned (the run's whole history up to
that model request) through the session's `recall`. `recall={"tool_name": ...}` names it
otherwise; `recall=None` adds no tool and plans without recall, as before.
"""

from __future__ import annotations

import copy
import dataclasses
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
from cwp_client.recall import DESCRIPTION, PARAMETERS, tool_name_of

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.direct import model_request
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelRequestPart,
        ModelResponse,
        RetryFeedbackPart,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.tools import Tool
    from pydantic_ai.toolsets import AgentToolset, FunctionToolset
except ImportError as error:
    raise ImportError(
        missing_framework(__name__, "Pydantic AI", "pydantic-ai"), name=error.name
    ) from error

__all__ = ["PlannedWindow", "recall_tool", "summarize_with", "to_openai", "window_messages"]

# Where a sent message came from: (message index, part index), the part index None for a response.
Origin = tuple[int, int | None]


class PlannedWindow(AbstractCapability[Any]):
    """`Agent(..., capabilities=[PlannedWindow(session)])`; `plans` lists the plans made, one
    per model request. `options` go with every plan (e.g. `collapse`, `ledger`, `cap`).
    `summarize`: True (the default) for summaries by the request's model, unless the session has
    a summarizer of its own; a function for summaries by it; None or False for none from the hook
    (see the module's docstring). `recall`: the plans' `recall` option, the recall tool in the
    capability's toolset (on by default; None for neither)."""

    def __init__(
        self,
        session: AsyncPlannerSession,
        *,
        summarize: Callable[[dict[str, Any]], Awaitable[str] | str] | bool | None = True,
        recall: Mapping[str, Any] | None = RECALL_ON,
        **options: Any,
    ) -> None:
        self.session = session
        self.summarize = summarize
        self.recall = recall_option(recall)
        self.options = options
        self.plans: list[Plan] = []

    def get_toolset(self) -> AgentToolset[Any] | None:
        name = tool_name_of(self.recall)
        return None if name is None else FunctionToolset([recall_tool(self.session, name)])

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        messages = request_context.messages
        sent, origins = to_openai(messages)
        options: dict[str, Any] = {**self.options, "format": "openai"}
        if self.recall is not None:
            options["recall"] = self.recall
        chosen = chosen_summarizer(
            self.summarize, self.session, lambda: summarize_with(request_context, sent, origins)
        )
        if chosen is not None:
            options["summarize"] = chosen
        plan = await self.session.plan(sent, **options)
        self.plans.append(plan)
        window = window_messages(messages, sent, origins, plan)
        return dataclasses.replace(request_context, messages=window)


def recall_tool(session: AsyncPlannerSession, name: str) -> Tool[Any]:
    """The recall tool named `name`, answered by `session`'s `recall`."""

    async def recall(**arguments: Any) -> str:
        return await aanswer_recall(session, arguments)

    return Tool.from_schema(recall, name, DESCRIPTION, copy.deepcopy(PARAMETERS))


def summarize_with(
    request_context: ModelRequestContext, sent: Sequence[dict[str, Any]], origins: list[Origin]
) -> Callable[[dict[str, Any]], Awaitable[str]]:
    """A summarizer that sends a summary request's model request to the request's model, with
    its settings and parameters, the run's own messages in it where the request has them."""

    async def summarize(request: dict[str, Any]) -> str:
        placed = placed_request(request.get("messages") or [], sent)
        response = await model_request(
            request_context.model,
            messages_from(request_context.messages, origins, placed),
            model_settings=request_context.model_settings,
            model_request_parameters=request_context.model_request_parameters,
        )
        return "".join(part.content for part in response.parts if isinstance(part, TextPart))

    return summarize


def part_to_openai(part: ModelRequestPart) -> dict[str, Any] | None:
    """The message the model reads for a request part; None for a part that is no message."""
    if isinstance(part, SystemPromptPart):
        return {"role": "system", "content": part.content}
    if isinstance(part, UserPromptPart):
        return {"role": "user", "content": text_of(part.content)}
    if isinstance(part, ToolReturnPart):
        return {
            "role": "tool",
            "tool_call_id": part.tool_call_id,
            "content": part.model_response_str(),
        }
    if isinstance(part, RetryFeedbackPart):
        return {"role": "user", "content": part.model_response()}
    return None


def response_to_openai(response: ModelResponse) -> dict[str, Any]:
    text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
    calls = [
        {
            "id": part.tool_call_id,
            "type": "function",
            "function": {"name": part.tool_name, "arguments": part.args_as_json_str()},
        }
        for part in response.parts
        if isinstance(part, ToolCallPart)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    return message


def to_openai(messages: Sequence[ModelMessage]) -> tuple[list[dict[str, Any]], list[Origin]]:
    """The OpenAI messages the model reads, and where each came from."""
    sent: list[dict[str, Any]] = []
    origins: list[Origin] = []
    for index, message in enumerate(messages):
        if isinstance(message, ModelResponse):
            sent.append(response_to_openai(message))
            origins.append((index, None))
            continue
        for part_index, part in enumerate(message.parts):
            converted = part_to_openai(part)
            if converted is not None:
                sent.append(converted)
                origins.append((index, part_index))
    return sent, origins


def window_messages(
    messages: Sequence[ModelMessage],
    sent: Sequence[dict[str, Any]],
    origins: Sequence[Origin],
    plan: Plan,
) -> list[ModelMessage]:
    """The plan's window as Pydantic AI messages (see the module's docstring)."""
    return messages_from(messages, origins, placed_window(plan, sent))


def messages_from(
    messages: Sequence[ModelMessage], origins: Sequence[Origin], placed_entries: Sequence[Placed]
) -> list[ModelMessage]:
    """Placed entries as Pydantic AI messages (see the module's docstring)."""
    # Each window entry: the origin of the message it is, with the new text of a shaped result
    # (None when its text is the one sent), or the notice's text.
    placed: list[tuple[Origin, str | None] | str] = []
    for entry in placed_entries:
        if entry.source is None:
            if entry.entry.get("role") != "user":
                raise ValueError(f"a planned {entry.entry.get('role')!r} message is not one sent")
            placed.append(text_of(entry.entry.get("content")))
            continue
        origin = origins[entry.source]
        if entry.shaped and origin[1] is None:
            raise ValueError("a shaped message is not a tool's return")
        new_text = text_of(entry.entry.get("content")) if entry.shaped else None
        placed.append((origin, new_text))
    kept_parts: dict[int, dict[int, str | None]] = {}
    for item in placed:
        if isinstance(item, tuple) and item[0][1] is not None:
            kept_parts.setdefault(item[0][0], {})[item[0][1]] = item[1]
    window: list[ModelMessage] = []
    emitted: set[int] = set()
    for item in placed:
        if isinstance(item, str):
            window.append(ModelRequest(parts=[UserPromptPart(content=item)]))
            continue
        index = item[0][0]
        if index in emitted:
            continue
        emitted.add(index)
        message = messages[index]
        if isinstance(message, ModelResponse):
            window.append(message)
        else:
            window.append(request_with(message, kept_parts[index]))
    return window


def request_with(request: ModelRequest, kept: dict[int, str | None]) -> ModelRequest:
    """`request` with only the message parts in `kept` (parts that are no message stay), each
    shaped tool return with its new text."""
    parts: list[ModelRequestPart] = []
    for number, part in enumerate(request.parts):
        if number in kept:
            text = kept[number]
            if text is not None and isinstance(part, ToolReturnPart):
                part = with_content(part, text)
            parts.append(part)
        elif part_to_openai(part) is None:
            parts.append(part)
    if len(parts) == len(request.parts) and all(
        new is old for new, old in zip(parts, request.parts, strict=True)
    ):
        return request
    return dataclasses.replace(request, parts=parts)


def with_content(part: ToolReturnPart[Any], text: str) -> ToolReturnPart[Any]:
    """A copy of `part` whose content is `text` (a shaped result's new text)."""
    return dataclasses.replace(part, content=text)
