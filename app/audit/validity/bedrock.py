"""Amazon Bedrock Converse's rules for a `messages` list, written once (as in `.chat`).

What the Converse API refuses in the windows it is sent:
- the conversation must open on a user message, and the roles must alternate (a
  `ValidationException`: "A conversation must start with a user message" / "A conversation must
  alternate between user and assistant roles");
- every `toolUse` block of an assistant message needs a `toolResult` block with its `toolUseId` in
  the user message right after it ("The number of toolResult blocks at messages.N.content exceeds
  the number of toolUse blocks of previous turn" and its converse) — unless the assistant message
  is the last one: that is an agent about to run the calls;
- every `toolResult` block must answer a `toolUse` block of the assistant message right before it.
A tool the provider runs itself (Nova's code interpreter: a `toolUse` of type `server_tool_use`)
has its `toolResult` in the same assistant message; neither takes part in the pairing above.

Each violation is one sentence; [] means Converse accepts the window's pairing.
"""

from __future__ import annotations

from typing import Any

OPENING = "the conversation opens on"


def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return (
        [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
    )


def is_server_use(block: dict[str, Any]) -> bool:
    use = block.get("toolUse")
    return isinstance(use, dict) and use.get("type") == "server_tool_use"


def bedrock_violations(messages: list[dict[str, Any]]) -> list[str]:
    """Every rule of the module docstring that `messages` breaks."""
    problems: list[str] = []
    if messages and messages[0].get("role") != "user":
        problems.append(f"message 0: {OPENING} {messages[0].get('role')!r}, not a user message")
    previous_calls: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if index and role == messages[index - 1].get("role"):
            problems.append(f"message {index}: a second {role!r} message in a row")
        blocks = blocks_of(message)
        server = [b["toolUse"].get("toolUseId") for b in blocks if is_server_use(b)]
        calls = [
            b["toolUse"].get("toolUseId") for b in blocks if "toolUse" in b and not is_server_use(b)
        ]
        answered = [b["toolResult"].get("toolUseId") for b in blocks if "toolResult" in b]
        if role == "assistant":
            if [call_id for call_id in answered if call_id not in server]:
                problems.append(f"message {index}: an assistant message holds toolResult blocks")
            if previous_calls:
                problems.append(f"message {index}: calls {previous_calls} have no toolResult")
            previous_calls = calls
            continue
        if calls:
            problems.append(f"message {index}: a user message holds toolUse blocks")
        for call_id in answered:
            if call_id not in previous_calls:
                problems.append(
                    f"message {index}: toolResult {call_id!r} answers no toolUse right before it"
                )
        missing = [call_id for call_id in previous_calls if call_id not in answered]
        if missing:
            problems.append(f"message {index}: calls {missing} have no toolResult here")
        previous_calls = []
    return problems
