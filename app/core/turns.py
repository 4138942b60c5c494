"""Turn segmentation, and how many caller messages a run of core messages spans.

A turn is the unit of removal: a non-`tool` message and the `tool` messages after it, so a call
and its results always leave together. Segments are located in the core transcript; reports name
caller messages, and in the Anthropic format several core messages come from one caller message,
so every count of caller messages goes through `caller_message_count`. Segments are named tuples:
one is built per turn, for transcripts of up to 100,000 messages.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from app.core.messages import Message
from app.core.names import remember_call_names


class Segment(NamedTuple):
    """A turn located in the core transcript: messages `start` up to (not including) `end`."""

    turn: int  # the turn's index
    start: int
    end: int
    chars: int


class Survey(NamedTuple):
    """What the plan reads about the whole transcript, gathered in one pass over it."""

    segments: tuple[Segment, ...]
    callers: list[int]  # the caller's index of every core message (its first, when it spans)
    span_ends: dict[int, int]  # core position → its last caller index, for messages that span
    answered: frozenset[str]  # every call id a `tool` message answers, `not_dispatched` included
    system_turns: frozenset[int]  # turns holding a `system` message
    # The ids of each turn's calls that no `tool` message answers, per occurrence: a `tool`
    # message answers the nearest call before it with its id (only turns with such a call).
    unanswered_calls: dict[int, list[str]]
    call_names: dict[str, str]  # `first_call_names`


def survey(messages: Sequence[Message]) -> Survey:
    """Turns, caller indices, answered calls, call names and per-turn facts, in ONE pass.

    Transcripts run to 100,000 messages, and every pass over them costs more than the rule it
    serves, so the facts several rules need are read here together. A message whose role is not
    `tool` starts a new turn; a `tool` message joins the current turn (or starts the first one).
    A call is answered by a `tool` message after it with its id and before the next call with
    that id, so a reused id never makes an earlier call's result answer a later call.
    """
    segments: list[Segment] = []
    callers: list[int] = []
    span_ends: dict[int, int] = {}
    answered: set[str] = set()
    system_turns: set[int] = set()
    unanswered_calls: dict[int, list[str]] = {}
    waiting: dict[str, int] = {}  # call id -> the turn of its latest call, while none answers it
    call_names: dict[str, str] = {}
    start = size = 0
    turn = -1
    for position, message in enumerate(messages):
        role = message.role
        if role != "tool" or turn < 0:
            if turn >= 0:
                segments.append(Segment(turn=turn, start=start, end=position, chars=size))
            turn += 1
            start, size = position, 0
        size += len(message.content)  # chars(message), inlined
        source = message.source
        callers.append(position if source is None else source)  # caller_index, inlined
        if message.source_end is not None:
            span_ends[position] = message.source_end
        if role == "tool":
            if message.tool_call_id:
                answered.add(message.tool_call_id)
                waiting.pop(message.tool_call_id, None)
        elif role == "system":
            system_turns.add(turn)
        elif message.tool_calls:
            for call in message.tool_calls:
                earlier = waiting.get(call.id)
                if earlier is not None:  # no later `tool` message can answer that call now
                    unanswered_calls.setdefault(earlier, []).append(call.id)
                waiting[call.id] = turn
            remember_call_names(call_names, message.tool_calls)
    if messages:
        segments.append(Segment(turn=turn, start=start, end=len(messages), chars=size))
    for call_id, waiting_turn in waiting.items():
        unanswered_calls.setdefault(waiting_turn, []).append(call_id)
    return Survey(
        tuple(segments),
        callers,
        span_ends,
        frozenset(answered),
        frozenset(system_turns),
        unanswered_calls,
        call_names,
    )


def segment_turns(messages: Sequence[Message]) -> tuple[Segment, ...]:
    """Split the transcript into turns; leading `tool` messages form a turn of their own."""
    return survey(messages).segments


def turn_index_of(segments: Sequence[Segment], message_index: int) -> int:
    """The turn holding core message `message_index` (which must be in the transcript)."""
    return bisect_right([segment.start for segment in segments], message_index) - 1


def spanned_caller_count(
    callers: Sequence[int], span_ends: Mapping[int, int], positions: Iterable[int | None]
) -> int:
    """Caller messages spanned by the core messages at `positions`, in order (None: the notice).

    A core message covers caller messages `callers[p]` to `span_ends[p]` (just `callers[p]` when
    it does not span); one that starts where the previous one ended shares that caller message.
    """
    count = 0
    previous: int | None = None
    for position in positions:
        if position is None:
            count += 1
            previous = None
            continue
        first = callers[position]
        last = span_ends.get(position, first)
        count += last - first + (0 if first == previous else 1)
        previous = last
    return count


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
