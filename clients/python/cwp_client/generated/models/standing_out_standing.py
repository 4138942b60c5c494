from enum import StrEnum


class StandingOutStanding(StrEnum):
    FACT = "fact"
    NOISE = "noise"
    OPEN = "open"
    RULED_OUT = "ruled-out"

    def __str__(self) -> str:
        return str(self.value)
