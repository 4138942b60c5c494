"""`fit`: remove just enough to bring the counted window under a token target, and hold the cut.

`fit` counts the window in tokens (system prompt, transcript and reserve) and acts when that total
is over `max_tokens`, the model's limit. The span the refusal engine allows is then shortened to
the fewest turns that bring the window under `target_tokens`, so a cut leaves room to grow and the
prefix stays the same for several requests (provider prompt caches pay only for an unchanged
prefix); and when the previous plan was a `fit` cut that still fits `max_tokens`, that cut is
held, so an agent that re-sends its whole history keeps its prefix too
(docs/rules.md#the-fit-strategy). Sizes are weighed in tokens throughout: the notice ladder and
the summaries compare tokens, and a summary request stays within `max_tokens`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from app.core.counting import TranscriptTokens
from app.core.defaults import (
    DEFAULT_FIT_KEEP_RECENT_TURNS,
    DEFAULT_FIT_RESERVE_TOKENS,
    default_target_tokens,
)
from app.core.strategies.base import StrategyKind
from app.core.transcript import Transcript

if TYPE_CHECKING:
    from app.core.plan_types import PriorRecord, Stats
    from app.core.steps import Drop, Planning
    from app.core.strategies.base import DropSpan


@dataclass(frozen=True, slots=True)
class Fit:
    """Act when the counted window is over `max_tokens`; remove just enough to reach
    `target_tokens` (None: the default share of `max_tokens`)."""

    max_tokens: int
    target_tokens: int | None = None
    reserve_tokens: int = DEFAULT_FIT_RESERVE_TOKENS
    keep_recent_turns: int = DEFAULT_FIT_KEEP_RECENT_TURNS

    weighs_tokens: ClassVar[bool] = True

    @property
    def kind(self) -> StrategyKind:
        return "fit"

    @property
    def target(self) -> int:
        if self.target_tokens is None:
            return default_target_tokens(self.max_tokens)
        return self.target_tokens

    @property
    def token_limit(self) -> int:
        return self.max_tokens

    def goal(
        self, total_before: int, prior_records: Sequence[PriorRecord], unmasked_total: int | None
    ) -> FitGoal:
        return FitGoal(
            self.target, self.max_tokens, total_before, held_count(prior_records), unmasked_total
        )

    def engages(self, turn_count: int, goal: FitGoal | None) -> bool:
        # `goal` is never None under `fit`: the plan always counts and aims when it weighs tokens.
        return goal is not None and goal.engaged

    def clear_applies(self, total: int | None) -> bool:
        return total is not None and total > self.max_tokens

    def drop(self, planning: Planning, first: int, last: int, drop_span: DropSpan) -> Drop:
        """The previous cut when it may be held, else the span shortened to the target."""
        tokens, goal = planning.tokens, planning.goal
        if goal is None or tokens is None:
            return drop_span(planning, first, last)
        return fitted_drop(planning, first, last, tokens, goal, drop_span)

    def budget(self, planning: Planning, stats: Stats, drop: Drop | None) -> Budget | None:
        """Met when not engaged (the window is within `max_tokens`), for a held cut when the
        window's total is within `max_tokens` (the cut is held only then), else when it is within
        the target."""
        goal, tokens = planning.goal, planning.tokens
        if goal is None or tokens is None:
            return None
        total_after = (tokens.system or 0) + (stats.tokens_after or 0) + self.reserve_tokens
        engaged = goal.engaged
        held = drop is not None and drop.held
        if held:
            met = total_after <= self.max_tokens
        else:
            met = total_after <= goal.target if engaged else True
        return Budget(
            self.max_tokens,
            goal.target,
            self.reserve_tokens,
            goal.reported_before,
            total_after,
            met,
            held,
        )


@dataclass(frozen=True, slots=True)
class FitGoal:
    """What `fit` aims at: its target, its limit, the total (system prompt, transcript and
    reserve) before any removal, and the caller messages the previous `fit` cut removed (0: no
    cut to hold)."""

    target: int
    max_tokens: int
    total_before: int
    held_count: int = 0
    # With `clear` applied: the total of the transcript shaped as if `clear` were off, which is
    # what engages `fit` and what `budget.total_before` reports (docs/rules.md#clear);
    # `total_before` is then the cleared transcript's, which removal shortens from.
    unmasked_total: int | None = None

    @property
    def reported_before(self) -> int:
        return self.total_before if self.unmasked_total is None else self.unmasked_total

    @property
    def engaged(self) -> bool:
        """Over `max_tokens` before clearing, and over the target after it: clearing comes
        first, and removal only takes what clearing could not free."""
        return self.reported_before > self.max_tokens and self.total_before > self.target


@dataclass(frozen=True)
class Budget:
    """The `fit` strategy's budget: the totals before and after, whether the plan met it (not
    engaged: the window is within `max_tokens`, so it is met; a held cut: within `max_tokens`;
    any other cut: within the target), and whether the cut was the previous one, held.

    An output of the plan (`WindowPlan.budget`), so without `__slots__` like the others
    (`app.core.plan_types`)."""

    max_tokens: int
    target_tokens: int
    reserve_tokens: int
    total_before: int
    total_after: int
    met: bool
    held: bool


def held_count(prior_records: Sequence[PriorRecord]) -> int:
    """The caller messages the previous plan's cut removed, when that plan was a `fit` plan;
    else 0 (a record of another strategy, or none, holds no cut)."""
    if not prior_records:
        return 0
    record = prior_records[-1]
    return record.removed_message_count if record.strategy == "fit" else 0


def held_turn(transcript: Transcript, first: int, last: int, count: int) -> int | None:
    """The turn `j` in `first … last` whose end is exactly `count` caller messages from the
    start of turn `first` (its first message counted), or None.

    Caller messages follow the core messages in order, so the caller messages of `first … j` are
    those up to the last one turn `j` touches: one pass over the turns' ends, not a count per
    turn.
    """
    segments = transcript.segments
    start = segments[first].start
    if transcript.distinct_callers:
        for j in range(first, last + 1):
            length = segments[j].end - start
            if length >= count:
                return j if length == count else None
        return None
    found = transcript.caller_messages(start, segments[last].end)
    if count > len(found):
        return None
    wanted, callers, spans = found[count - 1], transcript.callers, transcript.survey.span_ends
    for j in range(first, last + 1):
        position = segments[j].end - 1
        reached = spans.get(position, callers[position])
        if reached >= wanted:
            return j if reached == wanted else None
    return None


def held_drop(
    planning: Planning,
    first: int,
    last: int,
    tokens: TranscriptTokens,
    goal: FitGoal,
    drop_span: DropSpan,
) -> Drop | None:
    """The previous `fit` cut, held: the drop of `first … j` when turn `j` ends where that cut
    ended (counted in caller messages) and its new window, notice included, is within
    `max_tokens` and not refused by the ladder; else None.

    An agent that keeps its whole history is over `max_tokens` on every request once cut: cut
    afresh to the target each time, its span would grow by a turn per request and the window's
    prefix would change every time. Held, the prefix changes only when the window outgrows
    `max_tokens`.
    """
    if goal.held_count <= 0:
        return None
    j = held_turn(planning.transcript, first, last, goal.held_count)
    if j is None:
        return None
    without = goal.total_before - tokens.span(first, j)
    if without > goal.max_tokens:  # a notice only adds
        return None
    drop = drop_span(planning, first, j)
    if drop.refused or without + drop.notice_tokens > goal.max_tokens:
        return None
    return replace(drop, held=True)


def fitted_drop(
    planning: Planning,
    first: int,
    last: int,
    tokens: TranscriptTokens,
    goal: FitGoal,
    drop_span: DropSpan,
) -> Drop:
    """The previous cut when it may be held, else the drop of `first … k` for the smallest `k`
    whose new window meets the target, else the drop of the whole span `first … last`
    (docs/rules.md#the-fit-strategy).

    The new window of a span is counted with the notice the ladder would insert for it
    (docs/rules.md#the-drop-notice), so a `k` is tried only when the window without the span
    could meet the target at all (a notice only adds), and a `k` whose drop the ladder refuses
    changes nothing and never meets it.
    """
    held = held_drop(planning, first, last, tokens, goal, drop_span)
    if held is not None:
        return held
    for k in range(first, last + 1):
        without = goal.total_before - tokens.span(first, k)
        if without > goal.target:
            continue
        drop = drop_span(planning, first, k)
        if not drop.refused and without + drop.notice_tokens <= goal.target:
            return drop
    return drop_span(planning, first, last)
