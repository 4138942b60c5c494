"""The strategy protocol: what a strategy decides, and what every strategy shares.

A strategy answers two questions the rest of the plan does not: when the window changes, and how
much of what may leave does leave. So each one decides whether the plan engages, what it aims at
(`fit`'s goal), which part of the span the refusal engine allows is removed, the budget block it
reports, whether `clear` applies when no trigger is set, the tokens it reserves, the limit no
window or summary request may exceed, and whether sizes are weighed in tokens or characters.
Everything else (turns, pins, refusals, the span, the notice, every figure) is the same for every
strategy and lives in the plan's own modules, which read the strategy only through `Strategy`:
they never ask which strategy it is, so a strategy's rule changes in its own module.

The strategies are frozen values the HTTP layer builds, held by `PlanOptions` and re-exported by
`app.core.plan_types`. That module is below the plan's steps, so the strategies name the steps'
values (`Planning`, `Drop`, `Stats`) as types only, and build a span's drop with the `drop_span`
the plan hands them rather than importing it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from app.core.plan_types import PriorRecord, Stats
    from app.core.steps import Drop, Planning, Removal
    from app.core.strategies.fit import Budget, FitGoal, Overflow

    # What the chosen span's removal would be: `drop_span(planning, first, last)`.
    DropSpan = Callable[[Planning, int, int], Drop]

StrategyKind = Literal["sliding-window", "token-budget", "fit"]


@dataclass(frozen=True, slots=True)
class ClearState:
    """What `clear` did on a plan, as the strategy reads it (docs/rules.md#clear): whether it
    applied, the boundary's position among the read results (`count`, 0: none), and whether the
    boundary and the cut of the last record are held (`held`, with `cut` the caller messages that
    cut removed, 0: none)."""

    applied: bool
    count: int = 0
    held: bool = False
    cut: int = 0


# `clear` on in the request but not applied: no boundary, nothing held.
CLEAR_NOT_APPLIED = ClearState(applied=False)


class Strategy(Protocol):
    """What the plan asks of its strategy (docs/rules.md#strategies)."""

    @property
    def kind(self) -> StrategyKind:
        """The name the record, the notice and the answer carry."""
        ...

    @property
    def keep_recent_turns(self) -> int:
        """The newest turns that are never candidates (the keep window)."""
        ...

    @property
    def reserve_tokens(self) -> int:
        """What the next call adds outside the transcript, counted in every total; 0 when the
        strategy counts none."""
        ...

    @property
    def token_limit(self) -> int | None:
        """The total no window, nor a summary request, may exceed (the model's limit); None when
        the strategy sets none."""
        ...

    @property
    def weighs_tokens(self) -> bool:
        """Whether sizes are weighed in tokens: they are then counted even when no tokenizer is
        named (with `estimate`), and the notice ladder and the summaries compare tokens, not
        characters (tool-call arguments cost tokens that characters do not show)."""
        ...

    @property
    def overflow(self) -> Overflow | None:
        """None for a strategy that removes one span and no more; for one that fits a token limit
        (`fit`), what it does when that span leaves the window over its target: it then holds
        its cut over several spans, and runs the stages of docs/rules.md#within-the-limit up to
        the caps (`cap`) or stops before them (`report`)."""
        ...

    @property
    def holds_clear(self) -> bool:
        """Whether, with `clear` applying, the clear boundary is held with the cut and both move
        together (`fit`, docs/rules.md#holding-the-boundary): a plan whose clear applied then
        files a record even when it does not engage (the clear-only record)."""
        ...

    def goal(
        self,
        total_before: int,
        prior_records: Sequence[PriorRecord],
        unmasked_total: int | None,
        clear: ClearState | None = None,
    ) -> FitGoal | None:
        """What the plan aims at, from the counted total before removal (None: no token goal);
        `clear` is what clear did (None: the request has it off)."""
        ...

    def engages(self, turn_count: int, goal: FitGoal | None) -> bool:
        """Whether the strategy acts on this request."""
        ...

    def clear_applies(self, total: int | None) -> bool:
        """Whether `clear` applies when it has no `trigger_tokens`, on the total before clearing
        (None when not counted)."""
        ...

    def drop(self, planning: Planning, first: int, last: int, drop_span: DropSpan) -> Drop:
        """What leaves of the span `first … last` the refusal engine allows."""
        ...

    def budget(self, planning: Planning, stats: Stats, removal: Removal | None) -> Budget | None:
        """The answer's budget block (None: the strategy reports none)."""
        ...


class WholeSpan:
    """What the strategies without a token goal (`sliding-window`, `token-budget`) share: the
    whole span the refusal engine allows leaves, sizes are weighed in characters, nothing is
    reserved or aimed at, no budget block is reported, and `clear` always applies unless its own
    trigger says otherwise (docs/rules.md#clear)."""

    __slots__ = ()  # the strategies are slotted dataclasses

    reserve_tokens: ClassVar[int] = 0
    token_limit: ClassVar[int | None] = None
    weighs_tokens: ClassVar[bool] = False
    overflow: ClassVar[Overflow | None] = None
    holds_clear: ClassVar[bool] = False

    def goal(
        self,
        total_before: int,
        prior_records: Sequence[PriorRecord],
        unmasked_total: int | None,
        clear: ClearState | None = None,
    ) -> FitGoal | None:
        return None

    def clear_applies(self, total: int | None) -> bool:
        return True

    def drop(self, planning: Planning, first: int, last: int, drop_span: DropSpan) -> Drop:
        return drop_span(planning, first, last)

    def budget(self, planning: Planning, stats: Stats, removal: Removal | None) -> Budget | None:
        return None
