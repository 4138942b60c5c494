from enum import StrEnum


class FitStrategyOverflow(StrEnum):
    CAP = "cap"
    REPORT = "report"

    def __str__(self) -> str:
        return str(self.value)
