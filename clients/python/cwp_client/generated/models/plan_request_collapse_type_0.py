from enum import StrEnum


class PlanRequestCollapseType0(StrEnum):
    LEDGER_AND_FACTS = "ledger-and-facts"
    LEDGER_ONLY = "ledger-only"

    def __str__(self) -> str:
        return str(self.value)
