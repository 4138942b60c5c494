"""What the client's tests share besides fixtures."""

from __future__ import annotations

from typing import Any

# A body this size or larger is refused with 413 by `strict_server`; smaller ones run past its
# deadline (every body goes to a worker thread, and the deadline is a microsecond) and get 503.
STRICT_MAX_BODY_BYTES = 4096


def tool_round(call_id: str, tool_name: str, result: str) -> list[dict[str, Any]]:
    """An assistant's tool call and its result, in OpenAI Chat Completions messages."""
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": tool_name, "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]
