"""Summaries: which summary the agent sent stands in for the removed span, and why others do not.

The service never calls a model and keeps no state, so a summary reaches it only as text the agent
obtained for an earlier summary request and sends back in `summaries` (docs/rules.md#summaries).
Whether that text still describes the same caller messages is settled where the caller's messages
are read (the key is a hash of their bytes, which only the format layer has); this module judges
the entries that matched against the span this plan removes. An entry stands in for the span's
first turns when it starts where the span starts, ends where one of its turns ends, and its summary
message is smaller than what it replaces; the one reaching furthest wins. Everything else is
reported with the first reason that fits, so an agent can tell a stale summary from one the plan
simply did not need.

What it deliberately does not do: judge whether a summary is any good. A wrong summary costs the
agent one window; the next summary request replaces it, and the transcript itself is never lost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.core.plan_types import IgnoredReason, SummaryEntry


def summary_message(count: int, rest: int, summary: str, recall_tool: str | None = None) -> str:
    """The summary message: `count` caller messages summarized, `rest` more removed without a
    summary (docs/rules.md#summaries); with recall on (`recall_tool`, the tool's name), its first
    line says how to get their full text back (docs/rules.md#the-recall-option). It opens with
    the service's own frame, so it is never taken for a person's request."""
    more = "" if rest == 0 else f" and {rest} more removed without a summary"
    recall = "" if recall_tool is None else f"; call {recall_tool} with a query for their full text"
    header = (
        f"[compacted history — {count} earlier message(s) summarized by the model{more}{recall}]"
    )
    return f"{header}\n\n{summary}"


@dataclass(frozen=True, slots=True)
class Judgement:
    """The entry that applies (its index in `summaries`, its summary message, and the last turn
    it covers), or None; and every other entry with its reason, in order."""

    applied: int | None
    content: str | None
    covers_through_turn: int | None
    ignored: tuple[tuple[int, IgnoredReason], ...]


NOT_JUDGED = Judgement(None, None, None, ())


def judge(
    entries: Sequence[SummaryEntry],
    *,
    at_front: bool,
    lo: int,
    hi: int,
    turn_ending_at: Mapping[int, int],
    smaller: Callable[[int, str], bool],
    recall_tool: str | None = None,
) -> Judgement:
    """Judge `entries` against the span of caller messages `lo … hi`.

    `turn_ending_at` maps the last caller message of each of the span's turns to that turn (the
    later one when two turns end in one caller message); `smaller(turn, content)` tells whether
    `content` is smaller than the span's turns up to `turn` (tokens under `fit`, else
    characters). Of the entries that apply, the one with the largest `through` wins, the last
    sent among equals; the others are `superseded`. Each summary message is weighed as written,
    with recall on (`recall_tool`) naming the tool.
    """
    reasons: dict[int, IgnoredReason] = {}
    candidates: list[tuple[int, int, str, int]] = []  # (through, index, content, turn)
    for index, entry in enumerate(entries):
        reason = entry_reason(entry, at_front, lo, hi, turn_ending_at)
        if reason is None:
            turn = turn_ending_at[entry.through]
            content = summary_message(
                entry.through - lo + 1, hi - entry.through, entry.summary, recall_tool
            )
            if smaller(turn, content):
                candidates.append((entry.through, index, content, turn))
                continue
            reason = "not-smaller"
        reasons[index] = reason
    if not candidates:
        return Judgement(None, None, None, tuple(sorted(reasons.items())))
    _, applied, content, turn = max(candidates)
    for _, index, _, _ in candidates:
        if index != applied:
            reasons[index] = "superseded"
    return Judgement(applied, content, turn, tuple(sorted(reasons.items())))


def entry_reason(
    entry: SummaryEntry, at_front: bool, lo: int, hi: int, turn_ending_at: Mapping[int, int]
) -> IgnoredReason | None:
    """The first reason that keeps `entry` from applying, before its size is weighed; None when
    only its size is left to judge."""
    if entry.mismatch is not None:
        return entry.mismatch
    if not at_front:
        return "not-at-the-front"
    if entry.first != lo:
        return "not-at-the-span"
    if entry.through > hi:
        return "beyond-the-span"
    if entry.through not in turn_ending_at:
        return "not-a-turn-boundary"
    return None


def unjudged(entries: Sequence[SummaryEntry]) -> tuple[tuple[int, IgnoredReason], ...]:
    """Every entry's reason when nothing is removed at the front."""
    return tuple(
        (index, entry.mismatch or "not-at-the-front") for index, entry in enumerate(entries)
    )
