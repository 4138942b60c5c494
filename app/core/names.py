"""Which tool answered each message (`name_of`), recovered in one pass.

OpenAI results carry no tool name, so the name is recovered from the first call in the transcript
that has the result's id. A message with no recoverable name has none: the planner never invents
"unknown", because a made-up name would be pinned, listed and offered as if it were real.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.core.messages import Message, ToolCall


def first_call_names(messages: Sequence[Message]) -> dict[str, str]:
    """Map each call id to the name of the first call (oldest first) with that id and a name."""
    names: dict[str, str] = {}
    for message in messages:
        if message.tool_calls:
            remember_call_names(names, message.tool_calls)
    return names


def remember_call_names(names: dict[str, str], calls: Iterable[ToolCall]) -> None:
    """Add each call's name to `names` unless its id already has one (the first call wins)."""
    for call in calls:
        if call.name and call.id not in names:
            names[call.id] = call.name


def name_of(message: Message, call_names: dict[str, str]) -> str | None:
    """The tool that answered `message`, or None; `not_dispatched` messages name no tool."""
    if message.role != "tool" or message.not_dispatched:
        return None
    if message.tool_name:
        return message.tool_name
    if message.tool_call_id:
        return call_names.get(message.tool_call_id)
    return None


def tool_names(messages: Sequence[Message]) -> list[str | None]:
    """`name_of` for every message of the transcript, in order (linear time)."""
    call_names = first_call_names(messages)
    return [name_of(message, call_names) for message in messages]
