from enum import StrEnum


class BudgetSpanOutStage(StrEnum):
    CAPS = "caps"
    FURTHER_SPANS = "further-spans"
    KEEP_WINDOW = "keep-window"
    PINS = "pins"
    SPAN = "span"

    def __str__(self) -> str:
        return str(self.value)
