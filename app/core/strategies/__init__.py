"""The window strategies (`sliding-window`, `token-budget`, `fit`) behind one protocol.

`base.Strategy` is what the plan asks of a strategy; each strategy's module holds its value (the
option the HTTP layer builds) and every rule that is its own. `app.core.plan_types` re-exports
them beside the plan's other inputs.
"""

from app.core.strategies.base import (
    CLEAR_NOT_APPLIED,
    ClearState,
    Strategy,
    StrategyKind,
    WholeSpan,
)
from app.core.strategies.fit import Budget, BudgetSpan, Fit, FitGoal, Overflow, Stage
from app.core.strategies.sliding_window import SlidingWindow
from app.core.strategies.token_budget import Measured, TokenBudget

__all__ = [
    "CLEAR_NOT_APPLIED",
    "Budget",
    "BudgetSpan",
    "ClearState",
    "Fit",
    "FitGoal",
    "Measured",
    "Overflow",
    "SlidingWindow",
    "Stage",
    "Strategy",
    "StrategyKind",
    "TokenBudget",
    "WholeSpan",
]
