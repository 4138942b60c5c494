from enum import StrEnum


class PlanRequestLedgerType0ItemType0KindType1(StrEnum):
    STANDING = "standing"

    def __str__(self) -> str:
        return str(self.value)
