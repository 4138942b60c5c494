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
from app.core.strategies.fit import FitGoal
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


@dataclass(frozen=True, slots=True)
class Shaping:
    """The transcript as the caller sent it, and the results shaping replaced in it: the plan is
    of the shaped transcript, while `chars_before` and `tokens_before` count this one."""

    sent: Sequence[Message]
    results: tuple[ShapedResult, ...]
    # With `clear` applied: the total before clearing (`FitGoal.unmasked_total`).
    unmasked_total: int | None = None


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
class Decision:
    """The refusals in report order, every turn's `held_by`, and the drop (None: nothing leaves)."""

    refusals: tuple[Refusal, ...]
    held: tuple[HeldBy | None, ...]
    drop: Drop | None
    # The drop the notice ladder refused (nothing leaves): summaries are judged against it, and
    # it still gets a summary request (docs/rules.md#summaries).
    refused: Drop | None = None
