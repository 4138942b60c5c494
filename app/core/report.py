"""What the plan reports besides its decision: every turn's fate, the counts before and after,
the pins' tokens, the shaped results' places, and what left with the span.

These are figures of a decision already made (`app.core.steps.Decision`, `Drop`), computed once
for the answer; nothing here changes what leaves. They are the same for every strategy: a figure
one strategy alone reports (`fit`'s budget) is that strategy's. The loops here run once per turn,
message or removed result of transcripts of up to 100,000 messages, which is why their records
are typed dicts (decision 0004) and a test that a helper would name is written inline.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, replace

from app.core.counting import TranscriptTokens
from app.core.messages import Message
from app.core.pins import LedgerFold
from app.core.plan_types import (
    CurrentRequest,
    DroppedStanding,
    Fate,
    HeldBy,
    ImagesClearedEntry,
    Notice,
    PinBlock,
    Pins,
    PinT,
    ShapedEntry,
    ShapedResult,
    Stats,
    Turn,
)
from app.core.span import dropped_tool_names
from app.core.steps import Drop, Planning, Removal, SentFigures, Shaping
from app.core.transcript import Transcript
from app.core.turns import turn_index_of


def current_request_of(
    transcript: Transcript, request: int | None
) -> tuple[CurrentRequest | None, int | None]:
    """The reported current request and the turn holding it."""
    if request is None:
        return None, None
    turn = turn_index_of(transcript.segments, request)
    return CurrentRequest(transcript.callers[request], turn), turn


def sent_figures(shaping: Shaping, tokens: TranscriptTokens | None) -> SentFigures:
    """The figures of the transcript as sent. Its tokens are the shaped transcript's with each
    replaced result counted as sent, so only the replaced messages are counted again."""
    sent = shaping.sent
    chars = sum(len(message.content) for message in sent)
    if tokens is None:
        return SentFigures(chars, None)
    # A reasoning's removal changes no count (reasoning counts nothing: docs/rules.md#tokens).
    # A result cleared whose image beside it is replaced too has two entries: counted once.
    indices = sorted(
        {result.index for result in shaping.results if result.action != "thinking-cleared"}
    )
    replaced = [sent[index] for index in indices]
    now = sum(tokens.scaled[index] for index in indices)
    return SentFigures(chars, tokens.total - now + tokens.messages_scaled(replaced))


def reported_turns(
    transcript: Transcript,
    held: Sequence[HeldBy | None],
    evicted: Container[int],
    tokens: TranscriptTokens | None,
) -> tuple[Turn, ...]:
    """Every turn as reported, in order: its place, size, fate and what held it."""
    starts = transcript.turn_starts
    distinct = transcript.distinct_callers
    turns: list[Turn] = []
    for segment in transcript.segments:
        index = segment.turn
        length = (
            segment.end - segment.start
            if distinct
            else transcript.caller_count(range(segment.start, segment.end))
        )
        fate: Fate = "evicted" if index in evicted else "kept"
        if tokens is None:
            turn: Turn = {
                "index": index,
                "start": starts[index],
                "length": length,
                "chars": segment.chars,
                "fate": fate,
                "held_by": held[index],
            }
        else:
            turn = {
                "index": index,
                "start": starts[index],
                "length": length,
                "chars": segment.chars,
                "tokens": tokens.turns[index],
                "fate": fate,
                "held_by": held[index],
            }
        turns.append(turn)
    return tuple(turns)


def with_pin_tokens(pins: Pins, tokens: TranscriptTokens | None) -> Pins:
    """Each pin with its turn's tokens, when a tokenizer is in use."""
    if tokens is None:
        return pins
    turn_tokens = tokens.turns

    def counted(block: PinBlock[PinT] | None) -> PinBlock[PinT] | None:
        if block is None or not block.pinned:
            return block
        pinned = tuple(replace(pin, tokens=turn_tokens[pin.turn_index]) for pin in block.pinned)
        return replace(block, pinned=pinned)

    return Pins(counted(pins.last_tool_result), counted(pins.ledger_fact))


@dataclass(frozen=True, slots=True)
class Left:
    """The figures of everything that leaves: its core ranges, the caller messages that lose a
    core message to it, its turns, characters, scaled and raw tokens, and its tool names."""

    ranges: tuple[tuple[int, int], ...]
    caller_messages: tuple[int, ...]
    turns: int
    chars: int
    tokens: int
    raw_tokens: int
    tool_names: tuple[str, ...]

    @classmethod
    def of(
        cls, transcript: Transcript, tokens: TranscriptTokens | None, removal: Removal,
        drop: Drop | None,
    ) -> Left:  # fmt: skip
        """The figures of `removal`; those of a removal of the span alone are its drop's, counted
        when the span was chosen."""
        raw = 0
        if drop is not None and removal.single:
            if tokens is not None:
                raw = tokens.raw_messages(drop.start, drop.end)
            return cls(
                removal.ranges,
                drop.caller_messages,
                drop.last - drop.first + 1,
                drop.chars,
                drop.tokens,
                raw,
                drop.tool_names,
            )
        segments = transcript.segments
        callers: dict[int, None] = {}
        names: dict[str, None] = {}
        call_names = transcript.survey.call_names
        for start, end in removal.ranges:
            callers.update(dict.fromkeys(transcript.caller_messages(start, end)))
            names.update(
                dict.fromkeys(dropped_tool_names(transcript.messages, start, end, call_names))
            )
            if tokens is not None:
                raw += tokens.raw_messages(start, end)
        turns = removal.turns
        return cls(
            removal.ranges,
            tuple(callers),
            len(turns),
            sum(segments[turn].chars for turn in turns),
            0 if tokens is None else sum(tokens.turns[turn] for turn in turns),
            raw,
            tuple(names),
        )


def window_positions(
    size: int, ranges: Sequence[tuple[int, int]], notice: bool
) -> Iterator[int | None]:
    """The core positions the window keeps, in order, with None where the notice goes (at the
    first removed range)."""
    position = 0
    for index, (start, end) in enumerate(ranges):
        yield from range(position, start)
        if notice and index == 0:
            yield None
        position = end
    yield from range(position, size)


def stats_of(
    planning: Planning, left: Left | None, notice: Notice | None, notice_tokens: tuple[int, int],
    sent: SentFigures | None,
) -> Stats:  # fmt: skip
    """Counts before and after; the notice is one message and one turn, and its size counts.

    `transcript` is what was planned: the shaped transcript when shaping is on, whose characters
    are then `chars_shaped`, while `chars_before` stays the transcript as sent (`sent`); tokens
    likewise. A system prompt outside the transcript is counted apart
    (`system_chars`, `system_tokens`), never in the transcript's figures. `notice_tokens` are
    the notice's scaled and raw tokens.
    """
    transcript, tokens = planning.transcript, planning.tokens
    chars_sent = None if sent is None else sent.chars
    tokens_sent = None if sent is None else sent.tokens
    callers, turns = transcript.callers, len(transcript.segments)
    messages_before = transcript.caller_count(range(len(callers)))
    chars_before = transcript.chars if chars_sent is None else chars_sent
    chars_shaped = None if chars_sent is None else transcript.chars
    if left is None:
        messages_after, turns_after, chars_after = messages_before, turns, transcript.chars
        removed = 0
    else:
        inserted = 0 if notice is None else 1
        messages_after = (
            messages_before - sum(end - start for start, end in left.ranges) + inserted
            if transcript.distinct_callers
            else transcript.window_count(
                window_positions(len(callers), left.ranges, notice is not None)
            )
        )
        turns_after = turns - left.turns + inserted
        chars_after = transcript.chars - left.chars + (0 if notice is None else len(notice.content))
        removed = len(left.caller_messages)
    stats = Stats(
        messages_before,
        messages_after,
        turns,
        turns_after,
        chars_before,
        chars_shaped,
        chars_after,
        removed,
        planning.options.system_chars,
    )
    if tokens is None:
        return stats
    after, counted = tokens.total, tokens.raw_total
    if left is not None:
        after += notice_tokens[0] - left.tokens
        counted += notice_tokens[1] - left.raw_tokens
    return replace(
        stats,
        tokenizer=tokens.tokenizer.name,
        tokens_before=tokens.total if tokens_sent is None else tokens_sent,
        tokens_shaped=None if tokens_sent is None else tokens.total,
        tokens_after=after,
        tokens_counted=tokens.system_raw + counted,
        system_tokens=tokens.system,
    )


def shaped_entries(
    transcript: Transcript,
    shaped: Sequence[ShapedResult],
    ranges: Sequence[tuple[int, int]],
    notice: bool,
) -> tuple[ShapedEntry, ...]:
    """Each shaped result with its caller index and its position in the new window (None when
    it left); the image replacements of one caller message are one entry, after its results',
    and so is its reasoning's removal, last (one per item when the result names its own caller
    index inside its core message: a Responses reasoning item, placed at its own position)."""
    callers, spans = transcript.callers, transcript.survey.span_ends
    places: dict[int, int] = {}
    wanted = {result.index for result in shaped}
    position, previous = -1, None
    for index in window_positions(len(callers), ranges, notice):
        if index is None:  # the notice: a caller message of its own
            position, previous = position + 1, None
            continue
        first = callers[index]
        if first != previous:  # a new caller message of the window
            position += 1
        if index in wanted:
            places[index] = position
        last = spans.get(index, first)
        position += last - first
        previous = last
    entries: list[ShapedEntry] = []
    for result in shaped:
        caller = callers[result.index]
        if result.action == "thinking-cleared":
            entries.append(thinking_entry(result, caller, places.get(result.index), entries))
            continue
        if result.action != "image-cleared":
            entries.append(
                ShapedEntry(
                    caller,
                    places.get(result.index),
                    result.tool_call_id,
                    result.action,
                    result.chars_before,
                    result.chars_after,
                )
            )
            continue
        last_entry = entries[-1] if entries else None
        if isinstance(last_entry, ImagesClearedEntry) and last_entry.message_index == caller:
            entries[-1] = replace(
                last_entry,
                chars_after=last_entry.chars_after + result.chars_after,
                images=last_entry.images + result.images,
            )
        else:
            entries.append(
                ImagesClearedEntry(
                    caller,
                    places.get(result.index),
                    None,
                    "image-cleared",
                    0,
                    result.chars_after,
                    result.images,
                )
            )
    return tuple(entries)


def thinking_entry(
    result: ShapedResult, caller: int, place: int | None, entries: list[ShapedEntry]
) -> ShapedEntry:
    """The entry of a reasoning's removal, merged into the last entry when that one is the same
    caller message's (popped from `entries`)."""
    own = caller if result.caller is None else result.caller
    if place is not None:
        place += own - caller
    last = entries[-1] if entries else None
    chars = result.chars_before
    if last is not None and last.action == "thinking-cleared" and last.message_index == own:
        entries.pop()
        chars += last.chars_before
    return ShapedEntry(own, place, None, "thinking-cleared", chars, 0)


def dropped_standings(
    messages: Sequence[Message], ranges: Sequence[tuple[int, int]], fold: LedgerFold
) -> tuple[DroppedStanding, ...]:
    """One entry per removed result message, in order; standing None is undeclared."""
    standings: list[DroppedStanding] = []
    find = fold.get
    for start, end in ranges:
        for message in messages[start:end]:
            # A result message (`is_result_message`), tested inline: a span can hold nearly the
            # whole transcript, and a call per message would cost more than the test.
            call_id = message.tool_call_id
            if message.role == "tool" and not message.not_dispatched and call_id:
                row = find(call_id)
                standing = None if row is None else row.standing
                standings.append({"tool_call_id": call_id, "standing": standing})
    return tuple(standings)
