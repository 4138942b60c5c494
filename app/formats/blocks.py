"""Regrouping kept core messages into the caller messages they were read from (Anthropic, Gemini,
Bedrock).

In these formats one caller message holds several core messages, each remembering its caller index
(`source`) and the indices of the blocks (Gemini: parts) it holds. A window is written by
regrouping the kept core messages: consecutive ones from one caller message form a run, written as
that message holding only their blocks, each block the caller's own object. A shaped result is a
rewritten block, so its message is copied once, however many of its blocks change. Written once
here, over `CallerMessages`, so the three formats and both read paths regroup alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from app.core.messages import Message
from app.core.report import window_positions
from app.formats.callers import CallerMessages, Reshaped
from app.formats.dialect import Removed, Writer
from app.formats.fields import JsonObject

Run = tuple[int, list[int]]  # (caller index, the block indices kept)


def kept_runs(core: Sequence[Message], positions: Iterable[int | None]) -> list[Run | None]:
    """(caller index, block indices) per run of consecutive positions sharing a caller message;
    None where the notice goes (a None position)."""
    runs: list[Run | None] = []
    last: Run | None = None
    for position in positions:
        if position is None:
            runs.append(None)
            last = None
            continue
        message = core[position]
        source = position if message.source is None else message.source
        if last is not None and last[0] == source:
            last[1].extend(message.blocks)
        else:
            last = (source, list(message.blocks))
            runs.append(last)
    return runs


def runs_of(core: Sequence[Message], positions: range) -> list[Run]:
    """`kept_runs` of a stretch with no notice in it."""
    return [run for run in kept_runs(core, positions) if run is not None]


def regrouped(
    callers: CallerMessages,
    core: Sequence[Message],
    removed: Removed,
    notice: JsonObject | None,
    key: str,
) -> list[Any]:
    """The kept core messages regrouped into caller messages (their blocks under `key`), the
    written `notice` (None: none) where the first of the core ranges `removed` was.

    The notice ends a run, so the window has one message per run plus the notice.
    """
    if not removed:
        return callers.verbatim_slice(0, len(callers))
    return [
        notice if run is None else callers.with_blocks(run[0], run[1], key)
        for run in kept_runs(core, window_positions(len(core), removed, notice is not None))
    ]


def regrouping_writer(notice_message: Callable[[str], JsonObject], key: str) -> Writer:
    """The writer of a format whose window is `regrouped` (its blocks under `key`), the notice
    written by `notice_message`."""

    def write(
        callers: CallerMessages, core: Sequence[Message], removed: Removed, notice: str | None
    ) -> list[Any]:
        notice_object = None if notice is None else notice_message(notice)
        return regrouped(callers, core, removed, notice_object, key)

    return write


def with_blocks_rewritten(
    callers: CallerMessages,
    core: Sequence[Message],
    texts: Mapping[int, str],
    key: str,
    rewrite: Callable[[JsonObject, str], JsonObject],
) -> CallerMessages:
    """`callers` with each shaped result's blocks (under `key`: `content` or `parts`) rewritten to
    hold its new text; a message is copied once, however many of its blocks change, and every
    other key stays as sent."""
    replaced: dict[int, JsonObject] = {}
    for index, text in texts.items():
        message = core[index]
        source = index if message.source is None else message.source
        caller = replaced.get(source)
        if caller is None:
            original = callers[source]
            caller = replaced[source] = {**original, key: list(original[key])}
        blocks = caller[key]
        for position in message.blocks:
            blocks[position] = rewrite(blocks[position], text)
    return Reshaped(callers, replaced)
