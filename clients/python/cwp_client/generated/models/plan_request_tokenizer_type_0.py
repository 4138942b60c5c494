from enum import StrEnum


class PlanRequestTokenizerType0(StrEnum):
    CL100K_BASE = "cl100k_base"
    ESTIMATE = "estimate"
    O200K_BASE = "o200k_base"

    def __str__(self) -> str:
        return str(self.value)
