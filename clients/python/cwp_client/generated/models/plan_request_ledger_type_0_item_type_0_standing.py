from enum import StrEnum


class PlanRequestLedgerType0ItemType0Standing(StrEnum):
    FACT = "fact"
    NOISE = "noise"
    OPEN = "open"
    RULED_OUT = "ruled-out"

    def __str__(self) -> str:
        return str(self.value)
