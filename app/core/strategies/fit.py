"""`fit`: remove just enough to bring the counted window under a token target, and hold the cut.

`fit` counts the window in tokens (system prompt, transcript and reserve) and acts when that total
is over `max_tokens`, the model's limit. The span the refusal engine allows is then shortened to
the fewest turns that bring the window under `target_tokens`, so a cut leaves room to grow and the
prefix stays the same for several requests (provider prompt caches pay only for an unchanged
prefix) (docs/rules.md#the-fit-strategy). When the previous plan was a `fit` cut that still fits
`max_tokens`, that cut is held, and when the whole span leaves the window over its target, `fit`
goes on (docs/rules.md#within-the-limit): both read the turns after the span, so they are
`app.core.within_limit`'s, which the plan runs for a strategy with an `overflow`. Sizes are
weighed in tokens throughout: the notice ladder and the summaries compare tokens, and a summary
request stays within `max_tokens`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from app.core.counting import TranscriptTokens
from app.core.defaults import (
    DEFAULT_FIT_KEEP_RECENT_TURNS,
    DEFAULT_FIT_OVERFLOW,
    DEFAULT_FIT_RESERVE_TOKENS,
    default_target_tokens,
)
from app.core.strategies.base import ClearState, StrategyKind

if TYPE_CHECKING:
    from app.core.plan_types import PriorRecord, Stats
    from app.core.steps import Drop, Planning, Removal
    from app.core.strategies.base import DropSpan

# What `fit` does once the span of the plan leaves the window over its target
# (docs/rules.md#within-the-limit): `cap` runs every stage, `report` stops before the caps.
Overflow = Literal["cap", "report"]
# The stage that took a run of turns, or the last that removed or shaped something.
Stage = Literal["span", "further-spans", "pins", "keep-window", "caps"]


@dataclass(frozen=True, slots=True)
class Fit:
    """Act when the counted window is over `max_tokens`; remove just enough to reach
    `target_tokens` (None: the default share of `max_tokens`)."""

    max_tokens: int
    target_tokens: int | None = None
    reserve_tokens: int = DEFAULT_FIT_RESERVE_TOKENS
    keep_recent_turns: int = DEFAULT_FIT_KEEP_RECENT_TURNS
    overflow: Overflow = DEFAULT_FIT_OVERFLOW

    weighs_tokens: ClassVar[bool] = True
    holds_clear: ClassVar[bool] = True

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
        self,
        total_before: int,
        prior_records: Sequence[PriorRecord],
        unmasked_total: int | None,
        clear: ClearState | None = None,
    ) -> FitGoal:
        """With clear applied, the cut held is the held state's (none when the boundary is not
        held: the plan then cuts afresh, docs/rules.md#holding-the-boundary); otherwise the last
        record's."""
        if clear is None or not clear.applied:
            count = held_count(prior_records)
        else:
            count = clear.cut if clear.held else 0
        return FitGoal(self.target, self.max_tokens, total_before, count, unmasked_total, clear)

    def engages(self, turn_count: int, goal: FitGoal | None) -> bool:
        # `goal` is never None under `fit`: the plan always counts and aims when it weighs tokens.
        return goal is not None and goal.engaged

    def clear_applies(self, total: int | None) -> bool:
        return total is not None and total > self.max_tokens

    def drop(self, planning: Planning, first: int, last: int, drop_span: DropSpan) -> Drop:
        """The span shortened to the target."""
        tokens, goal = planning.tokens, planning.goal
        if goal is None or tokens is None:
            return drop_span(planning, first, last)
        return fitted_drop(planning, first, last, tokens, goal, drop_span)

    def budget(self, planning: Planning, stats: Stats, removal: Removal | None) -> Budget | None:
        """Met when not engaged (the window is within `max_tokens`), for a held cut, or a plan
        whose stages went past the further spans, when the window's total is within `max_tokens`
        (the aim of those), else when it is within the target."""
        goal, tokens = planning.goal, planning.tokens
        if goal is None or tokens is None:
            return None
        total_after = (tokens.system or 0) + (stats.tokens_after or 0) + self.reserve_tokens
        held, released = False, 0
        stage: Stage = "span"
        runs: tuple[BudgetSpan, ...] = ()
        if removal is not None:
            held, stage = removal.held, removal.stage
            released, runs = removal.released_pins, removal.budget_spans()
        clear = goal.clear
        if not goal.engaged:
            met = True
        elif held or stage not in ("span", "further-spans"):
            met = total_after <= self.max_tokens
        else:
            met = total_after <= goal.target
        return Budget(
            self.max_tokens,
            goal.target,
            self.reserve_tokens,
            goal.reported_before,
            total_after,
            met,
            held,
            stage,
            released,
            runs,
            None if clear is None else clear.held,
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
    # What clear did (None: the request has it off).
    clear: ClearState | None = None

    @property
    def reported_before(self) -> int:
        return self.total_before if self.unmasked_total is None else self.unmasked_total

    @property
    def holding(self) -> bool:
        """Whether the plan is the held state's: the boundary and the cut of the last record,
        both held, or no plan (docs/rules.md#holding-the-boundary)."""
        return self.clear is not None and self.clear.held

    @property
    def engaged(self) -> bool:
        """Over `max_tokens` before clearing, and over the target after it: clearing comes
        first, and removal only takes what clearing could not free. The held state engages
        exactly when it holds a cut."""
        if self.holding:
            return self.held_count > 0
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
    # docs/rules.md#within-the-limit: the last stage that removed or shaped something, the pinned
    # turns that left, and every run of turns that left with the stage that took it.
    stage: Stage = "span"
    released_pins: int = 0
    spans: tuple[BudgetSpan, ...] = ()
    # With `clear` on in the request: whether the clear boundary and the cut of the last record
    # were held (docs/rules.md#holding-the-boundary); None otherwise, when the answer leaves it out.
    clear_held: bool | None = None


@dataclass(frozen=True)
class BudgetSpan:
    """A maximal run of turns that left, and the stage that took it (an output, like `Budget`)."""

    from_turn: int
    through_turn: int
    stage: Stage


def held_count(prior_records: Sequence[PriorRecord]) -> int:
    """The caller messages the previous plan's cut removed, when that plan was a `fit` plan;
    else 0 (a record of another strategy, or none, holds no cut)."""
    if not prior_records:
        return 0
    record = prior_records[-1]
    return record.removed_message_count if record.strategy == "fit" else 0


def fitted_drop(
    planning: Planning,
    first: int,
    last: int,
    tokens: TranscriptTokens,
    goal: FitGoal,
    drop_span: DropSpan,
) -> Drop:
    """The drop of `first … k` for the smallest `k` whose new window meets the target, else the
    drop of the whole span `first … last` (docs/rules.md#the-fit-strategy). The previous cut,
    when it may be held, was tried before (`app.core.within_limit.held_cut`).

    The new window of a span is counted with the notice the ladder would insert for it
    (docs/rules.md#the-drop-notice), so a `k` is tried only when the window without the span
    could meet the target at all (a notice only adds), and a `k` whose drop the ladder refuses
    changes nothing and never meets it.
    """
    for k in range(first, last + 1):
        without = goal.total_before - tokens.span(first, k)
        if without > goal.target:
            continue
        drop = drop_span(planning, first, k)
        if not drop.refused and without + drop.notice_tokens <= goal.target:
            return drop
    return drop_span(planning, first, last)
