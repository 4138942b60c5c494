"""A Pydantic AI capability that sends the model the planner's window.

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
messages verbatim) brings back the original part or response; a request keeps the parts whose
messages stayed (the original object when all did). A new `user` entry, the drop notice, becomes
a request of its own. Another new entry (a tool result shortened by the planner's `cap` option)
is not mapped back here: the capability raises rather than send the model something else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from cwp_client import AsyncPlannerSession, Plan
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
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

# Where a sent message came from: (message index, part index), the part index None for a response.
Origin = tuple[int, int | None]


class PlannedWindow(AbstractCapability[Any]):
    """`Agent(..., capabilities=[PlannedWindow(session)])`; `plans` lists the plans made, one
    per model request."""

    def __init__(self, session: AsyncPlannerSession) -> None:
        self.session = session
        self.plans: list[Plan] = []

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        messages = request_context.messages
        sent, origins = to_openai(messages)
        plan = await self.session.plan(sent, format="openai")
        self.plans.append(plan)
        window = window_messages(messages, sent, origins, plan)
        return dataclasses.replace(request_context, messages=window)


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(item for item in content if isinstance(item, str))


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
    placed: list[Origin | dict[str, Any]] = []
    start = 0
    for entry in plan.window:
        found = next((k for k in range(start, len(sent)) if sent[k] == entry), None)
        if found is None:
            if entry.get("role") != "user":
                raise ValueError(f"a planned {entry.get('role')!r} message is not one sent")
            placed.append(entry)
        else:
            placed.append(origins[found])
            start = found + 1
    kept_parts: dict[int, set[int]] = {}
    for origin in placed:
        if isinstance(origin, tuple) and origin[1] is not None:
            kept_parts.setdefault(origin[0], set()).add(origin[1])
    window: list[ModelMessage] = []
    emitted: set[int] = set()
    for origin in placed:
        if isinstance(origin, dict):
            window.append(ModelRequest(parts=[UserPromptPart(content=origin["content"])]))
            continue
        index = origin[0]
        if index in emitted:
            continue
        emitted.add(index)
        message = messages[index]
        if isinstance(message, ModelResponse):
            window.append(message)
        else:
            window.append(request_with(message, kept_parts[index]))
    return window


def request_with(request: ModelRequest, kept: set[int]) -> ModelRequest:
    """`request` with only the message parts in `kept` (parts that are no message stay)."""
    parts = [
        part
        for number, part in enumerate(request.parts)
        if number in kept or part_to_openai(part) is None
    ]
    if len(parts) == len(request.parts):
        return request
    return dataclasses.replace(request, parts=parts)
