"""A LangChain chat model that answers from a script instead of a provider, and keeps every list
of messages it was sent, so a test can see exactly what reached the model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


class ScriptedChatModel(BaseChatModel):
    """Answers call `n` with `script[n]`; `received[n]` is what call `n` was sent (the system
    message included, as a provider would get it)."""

    script: list[AIMessage]
    received: list[list[BaseMessage]] = Field(default_factory=list)
    bound_tools: list[Any] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        # The script decides the calls; the tools are kept only to show they were offered.
        self.bound_tools = list(tools)
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if len(self.received) == len(self.script):
            raise AssertionError("the model was called more often than scripted")
        self.received.append(list(messages))
        answer = self.script[len(self.received) - 1]
        return ChatResult(generations=[ChatGeneration(message=answer)])
