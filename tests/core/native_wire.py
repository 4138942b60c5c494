"""Core fixture messages written as native wire messages, for the tests that post the examples the
core tests plan (every call gets empty `arguments`; flags are written only when set)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.core.messages import Message


def native(message: Message) -> dict[str, Any]:
    """One core fixture message as a native wire message."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": call.id, "name": call.name, "arguments": {}} for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.tool_name is not None:
        out["tool_name"] = message.tool_name
    if message.injected:
        out["injected"] = True
    if message.not_dispatched:
        out["not_dispatched"] = True
    return out


def wire(messages: Sequence[Message]) -> list[dict[str, Any]]:
    return [native(message) for message in messages]
