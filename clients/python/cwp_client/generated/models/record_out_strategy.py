from enum import StrEnum


class RecordOutStrategy(StrEnum):
    FIT = "fit"
    SLIDING_WINDOW = "sliding-window"
    TOKEN_BUDGET = "token-budget"

    def __str__(self) -> str:
        return str(self.value)
