from enum import StrEnum


class SummaryIgnoredOutReason(StrEnum):
    BEYOND_THE_SPAN = "beyond-the-span"
    CHANGED = "changed"
    NOT_AT_THE_FRONT = "not-at-the-front"
    NOT_AT_THE_SPAN = "not-at-the-span"
    NOT_A_TURN_BOUNDARY = "not-a-turn-boundary"
    NOT_SMALLER = "not-smaller"
    OUT_OF_RANGE = "out-of-range"
    SUPERSEDED = "superseded"

    def __str__(self) -> str:
        return str(self.value)
