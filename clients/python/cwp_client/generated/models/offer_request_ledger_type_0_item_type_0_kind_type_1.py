from enum import StrEnum


class OfferRequestLedgerType0ItemType0KindType1(StrEnum):
    STANDING = "standing"

    def __str__(self) -> str:
        return str(self.value)
