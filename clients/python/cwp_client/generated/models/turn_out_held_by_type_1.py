from enum import StrEnum


class TurnOutHeldByType1(StrEnum):
    NOT_REACHED = "not-reached"
    WITHIN_BUDGET = "within-budget"

    def __str__(self) -> str:
        return str(self.value)
