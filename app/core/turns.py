"""Turn segmentation, and how many caller messages a run of core messages spans.

A turn is the unit of removal: a non-`tool` message and the `tool` messages after it, so a call
and its results always leave together. Segments are located in the core transcript; reports name
caller messages, and in the Anthropic format several core messages come from one caller message,
so every count of caller messages goes through `caller_message_count`. Segments are named tuples:
one is built per turn, for transcripts of up to 100,000 messages.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from app.core.messages import Message


class Segment(NamedTuple):
    """A turn located in the core transcript: messages `start` up to (not including) `end`."""

    turn: int  # the turn's index
    start: int
    end: int
    chars: int


def segment_turns(messages: Sequence[Message]) -> tuple[Segment, ...]:
    """Split the transcript into turns; leading `tool` messages form a turn of their own."""
    segments: list[Segment] = []
    start = 0
    size = 0
    for position, message in enumerate(messages):
        if message.role != "tool" and position > 0:
            segments.append(Segment(len(segments), start, position, size))
            start, size = position, 0
        size += len(message.content)  # chars(message), inlined: this loop sees every message
    if messages:
        segments.append(Segment(len(segments), start, len(messages), size))
    return tuple(segments)


def turn_index_of(segments: Sequence[Segment], message_index: int) -> int:
    """The turn holding core message `message_index` (which must be in the transcript)."""
    return bisect_right([segment.start for segment in segments], message_index) - 1


def caller_indices(messages: Sequence[Message]) -> list[int]:
    """The caller's index of every core message, in order."""
    return [
        position if message.source is None else message.source
        for position, message in enumerate(messages)
    ]


def caller_message_count(indices: Iterable[int | None]) -> int:
    """Caller messages spanned by consecutive core messages given by their caller indices.

    Consecutive equal indices are one caller message; `None` stands for a message this service
    inserts (the notice), which is one message of its own and never merges with a neighbour.
    """
    count = 0
    previous: int | None = None
    for index in indices:
        if index is None or index != previous:
            count += 1
        previous = index
    return count
