from enum import StrEnum


class DroppedStandingOutStandingType0(StrEnum):
    FACT = "fact"
    NOISE = "noise"
    OPEN = "open"
    RULED_OUT = "ruled-out"

    def __str__(self) -> str:
        return str(self.value)
