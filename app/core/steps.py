"""The values the steps of one plan hand each other: what they read, and what they decided.

`plan_window` builds `Planning` once per plan and every step reads it, so no step recomputes the
transcript's survey, its tokens or the strategy's goal. A step's result is a frozen value rather
than several returned figures, so the report reads one decision (`Decision`, `Drop`) and never
recomputes it. None of them is an output: the answer is `app.core.plan_types.WindowPlan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.counting import TranscriptTokens
from app.core.messages import Message
from app.core.plan_types import HeldBy, PlanOptions, Refusal, Rung, ShapedResult
from app.core.strategies.base import ClearState
from app.core.strategies.fit import BudgetSpan, FitGoal, Stage
from app.core.transcript import Transcript


@dataclass(frozen=True, slots=True)
class Planning:
    """What the steps of one plan read besides their own arguments: the transcript planned, the
    options, the turn holding the current request (None: none found), and with token counting
    the transcript's tokens and, under `fit`, its goal. Built once per plan."""

    transcript: Transcript
    options: PlanOptions
    request_turn: int | None
    tokens: TranscriptTokens | None
    goal: FitGoal | None
    # The current request's core index (None: none found).
    request: int | None = None


@dataclass(frozen=True, slots=True)
class Shaping:
    """The transcript as the caller sent it, and the results shaping replaced in it: the plan is
    of the shaped transcript, while `chars_before` and `tokens_before` count this one."""

    sent: Sequence[Message]
    results: tuple[ShapedResult, ...]
    # With `clear` applied: the total before clearing (`FitGoal.unmasked_total`).
    unmasked_total: int | None = None
    # With `clear` on in the request: what it did (the record's `cleared_results`, the held state).
    clear: ClearState | None = None


@dataclass(frozen=True, slots=True)
class SentFigures:
    """The characters and (with token counting) tokens of the transcript as sent, when shaping
    changed it."""

    chars: int
    tokens: int | None


@dataclass(frozen=True, slots=True)
class Drop:
    """What happens to the chosen span `first … last` (core messages `start … end−1`)."""

    first: int
    last: int
    start: int
    end: int
    caller_messages: tuple[int, ...]
    chars: int
    tool_names: tuple[str, ...]
    notice_content: str | None
    rung: Rung | None
    refused: bool
    # With token counting: the span's scaled tokens, and the notice's scaled and raw tokens (0
    # without a notice).
    tokens: int = 0
    notice_tokens: int = 0
    notice_raw_tokens: int = 0
    # Under `fit`: the previous cut, held (docs/rules.md#the-fit-strategy).
    held: bool = False
    # Whether the removal reaches the front (where a notice or a summary may go), and the entry of
    # `summaries` whose summary message takes the notice's place (docs/rules.md#summaries).
    front: bool = False
    summary_entry: int | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """Turns `first … last` that left together, and the stage that took them."""

    first: int
    last: int
    stage: Stage


@dataclass(frozen=True, slots=True)
class Removal:
    """Every turn that leaves: the span's (`Drop`) and, under `fit`, the further stages'
    (docs/rules.md#within-the-limit), with the core ranges they cover.

    `turns` is ascending (a `range` for one span, so membership costs nothing on a span of
    thousands of turns); `ranges` are the core messages [s, e) that leave, ascending, apart (two
    runs of turns with only removed turns between them are one range).
    """

    turns: range | tuple[int, ...]
    runs: tuple[Run, ...]
    ranges: tuple[tuple[int, int], ...]
    held: bool = False
    stage: Stage = "span"
    released_pins: int = 0

    @classmethod
    def of_drop(cls, drop: Drop) -> Removal:
        """The removal of one span alone."""
        return cls(
            range(drop.first, drop.last + 1),
            (Run(drop.first, drop.last, "span"),),
            ((drop.start, drop.end),),
            held=drop.held,
        )

    @property
    def single(self) -> bool:
        return isinstance(self.turns, range)

    def turn_set(self) -> range | frozenset[int]:
        """The turns, for membership tests."""
        turns = self.turns
        return turns if isinstance(turns, range) else frozenset(turns)

    def budget_spans(self) -> tuple[BudgetSpan, ...]:
        return tuple(BudgetSpan(run.first, run.last, run.stage) for run in self.runs)


@dataclass(frozen=True, slots=True)
class Decision:
    """The refusals in report order, every turn's `held_by`, the span's drop (None: no span
    leaves) and everything that leaves (None: nothing)."""

    refusals: tuple[Refusal, ...]
    held: tuple[HeldBy | None, ...]
    drop: Drop | None
    # The drop the notice ladder refused (nothing of the span leaves): summaries are judged
    # against it, and it still gets a summary request (docs/rules.md#summaries).
    refused: Drop | None = None
    removal: Removal | None = None
    # Under `fit`'s stages: the pinned turns that left, and the results capped and messages whose
    # images were replaced (docs/rules.md#within-the-limit).
    released: frozenset[int] = frozenset()
    shaped: tuple[ShapedResult, ...] = ()
    # The transcript with those texts in place (None: the stages shaped nothing).
    messages: Sequence[Message] | None = None
