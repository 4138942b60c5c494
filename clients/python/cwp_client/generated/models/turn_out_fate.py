from enum import StrEnum


class TurnOutFate(StrEnum):
    EVICTED = "evicted"
    KEPT = "kept"

    def __str__(self) -> str:
        return str(self.value)
