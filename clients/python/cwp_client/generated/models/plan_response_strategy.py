from enum import StrEnum


class PlanResponseStrategy(StrEnum):
    FIT = "fit"
    SLIDING_WINDOW = "sliding-window"
    TOKEN_BUDGET = "token-budget"

    def __str__(self) -> str:
        return str(self.value)
