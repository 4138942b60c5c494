"""`token-budget`: act when the provider measured more input tokens than the threshold.

The measurement is the provider's own usage report for the last model call, read by the caller's
format (`app.core.usage`); the plan counts nothing to engage. With nothing measured, or a report
of 0/0 (which the HTTP layer refuses), there is nothing to judge, so it does not act. Every other
decision is `WholeSpan`'s (docs/rules.md#strategies).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.defaults import DEFAULT_KEEP_RECENT_TURNS
from app.core.strategies.base import StrategyKind, WholeSpan

if TYPE_CHECKING:
    from app.core.strategies.fit import FitGoal


@dataclass(frozen=True, slots=True)
class Measured:
    """The provider's usage report for the last model call."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class TokenBudget(WholeSpan):
    """Act when the provider measured more input tokens than the threshold."""

    threshold_tokens: float
    keep_recent_turns: int = DEFAULT_KEEP_RECENT_TURNS
    measured: Measured | None = None

    @property
    def kind(self) -> StrategyKind:
        return "token-budget"

    def engages(self, turn_count: int, goal: FitGoal | None) -> bool:
        measured = self.measured
        if measured is None or (measured.input_tokens == 0 and measured.output_tokens == 0):
            return False
        return measured.input_tokens > self.threshold_tokens
