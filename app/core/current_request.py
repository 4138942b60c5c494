"""Which message a person said, and which one the run is executing (the current request).

The request is what the agent was asked to do; it must never leave the window, and nothing at or
before it is pinned, so a new request releases everything gathered for the previous one. Only a
person's words can be the request: messages the framework injected and the frames this service
writes (a drop notice, a compaction) are user messages that nobody said, and one that merely
imitates a frame is treated the same way rather than guessed at.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.messages import Message

SERVICE_FRAMES = ("[dropped history", "[compacted history")


def said_by_a_person(message: Message) -> bool:
    """A user message that is neither injected nor one of the service's frames."""
    return (
        message.role == "user"
        and not message.injected
        and not message.content.startswith(SERVICE_FRAMES)
    )


def current_request_index(messages: Sequence[Message], request_text: str | None) -> int | None:
    """The core index of the current request, or None when no person said anything.

    With `request_text` (even empty) the last person message equal to it wins over recency, since a
    restored conversation can put later person messages after the one the run started with;
    without a match, or without `request_text`, the last person message is the request.
    """
    latest: int | None = None
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if not said_by_a_person(message):
            continue
        if request_text is None or message.content == request_text:
            return position
        if latest is None:
            latest = position
    return latest
