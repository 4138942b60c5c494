"""A model for the OpenAI Agents SDK that answers from a script instead of a provider, and keeps
every input it was sent, so a test can see exactly what reached the model."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agents import (
    AgentOutputSchemaBase,
    Handoff,
    Model,
    ModelResponse,
    ModelSettings,
    ModelTracing,
    Tool,
    TResponseInputItem,
    Usage,
)
from agents.items import TResponseOutputItem, TResponseStreamEvent
from openai.types.responses import Response, ResponseCompletedEvent


class ScriptedModel(Model):
    """Answers call `n` with `script[n]`; `received[n]` is the input of call `n` and
    `instructions[n]` its system instructions."""

    def __init__(self, script: Sequence[Sequence[TResponseOutputItem]]) -> None:
        self.script = [list(outputs) for outputs in script]
        self.received: list[list[Any]] = []
        self.instructions: list[str | None] = []

    def _next(
        self, system_instructions: str | None, input: str | list[TResponseInputItem]
    ) -> list[TResponseOutputItem]:
        if len(self.received) == len(self.script):
            raise AssertionError("the model was called more often than scripted")
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        self.received.append(copy.deepcopy(list(items)))
        self.instructions.append(system_instructions)
        return self.script[len(self.received) - 1]

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any | None,
    ) -> ModelResponse:
        output = self._next(system_instructions, input)
        return ModelResponse(output=list(output), usage=Usage(requests=1), response_id=None)

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        output = self._next(system_instructions, input)
        response = Response(
            id=f"resp_{len(self.received)}",
            created_at=0,
            model="scripted",
            object="response",
            output=list(output),
            parallel_tool_calls=False,
            tool_choice="auto",
            tools=[],
        )
        yield ResponseCompletedEvent(
            type="response.completed", response=response, sequence_number=0
        )
