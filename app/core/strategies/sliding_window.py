"""`sliding-window`: act whenever the transcript holds more turns than the keep window.

The default strategy, and the one that needs nothing measured: it counts turns, so it engages on
the transcript alone, and every other decision is `WholeSpan`'s (docs/rules.md#strategies).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.defaults import DEFAULT_KEEP_RECENT_TURNS
from app.core.strategies.base import StrategyKind, WholeSpan

if TYPE_CHECKING:
    from app.core.strategies.fit import FitGoal


@dataclass(frozen=True, slots=True)
class SlidingWindow(WholeSpan):
    """Act whenever the transcript holds more turns than the keep window."""

    keep_recent_turns: int = DEFAULT_KEEP_RECENT_TURNS

    @property
    def kind(self) -> StrategyKind:
        return "sliding-window"

    def engages(self, turn_count: int, goal: FitGoal | None) -> bool:
        return turn_count > self.keep_recent_turns
