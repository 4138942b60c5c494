"""Which message a person said, and which one the run is executing (the current request).

The request is what the agent was asked to do; it must never leave the window, and nothing at or
before it is pinned, so a new request releases everything gathered for the previous one. Only a
person's words can be the request: messages the framework injected and the frames this service
writes (a drop notice, a compaction, the text that replaces an image) are user messages that
nobody said, and one that merely imitates a frame is treated the same way rather than guessed at.
A user message with no text (only images or files: the screenshot a computer-use framework sends
after each action) asks nothing, so it is no request either. A framework frame (a reminder, a
command echo, an interruption mark: `app.core.frames`) is not a person's words either, unless the
caller names it as the request with `request_text`, which then wins over detection.

A provider that reads nothing before its own summary of the run (Anthropic's last compaction
artifact) never sees a message before it: the request is looked for only in the turns after the
summary's turn (`search_start`), and the pins start there too (docs/rules.md#provider-compaction).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.frames import FrameDetection
from app.core.messages import Message
from app.core.turns import Segment, turn_index_of

# How the texts the service writes in place of a cut begin: a drop notice and a summary.
CUT_FRAMES = ("[dropped history", "[compacted history")
# How each text the service writes into a window begins: a cut's, and the text that replaces an
# image (`app.core.images.IMAGE_REMOVED_TEXT`).
SERVICE_FRAMES = (*CUT_FRAMES, "[image removed")


def could_be_said_by_a_person(message: Message) -> bool:
    """A user message with a text that is neither injected nor one of the service's frames: a
    person's words, or a framework frame, which only `request_text` can make the request."""
    return (
        message.role == "user"
        and not message.injected
        and message.content != ""
        and not message.content.startswith(SERVICE_FRAMES)
    )


def said_by_a_person(message: Message, *, frames: FrameDetection) -> bool:
    """A user message with a text that is neither injected, nor one of the service's frames, nor
    (when `frames` is enabled) a framework frame."""
    return could_be_said_by_a_person(message) and not frames.detects(message.content)


def search_start(segments: Sequence[Segment], provider_reads_from: int | None) -> int:
    """The first core index where the current request and the pins are looked for: 0, or the
    start of the turn after the one holding `provider_reads_from` (the message the provider reads
    the conversation from). The turns before it stay ordinary candidates for removal; they are
    only never the request and never pinned."""
    if provider_reads_from is None:
        return 0
    return segments[turn_index_of(segments, provider_reads_from)].end


def current_request_index(
    messages: Sequence[Message],
    request_text: str | None,
    *,
    frames: FrameDetection,
    start: int = 0,
) -> int | None:
    """The core index of the current request among `messages[start:]`, or None when no person
    said anything there.

    With `request_text` (even empty) the last message equal to it that a person could have said
    wins over recency, since a restored conversation can put later person messages after the one
    the run started with; it wins over frame detection too, the caller knowing its own request.
    Without a match, or without `request_text`, the last message said by a person is the request.
    """
    latest: int | None = None
    for position in range(len(messages) - 1, start - 1, -1):
        message = messages[position]
        if not could_be_said_by_a_person(message):
            continue
        if request_text is not None and message.content == request_text:
            return position
        if latest is None and not frames.detects(message.content):
            if request_text is None:
                return position
            latest = position
    return latest
