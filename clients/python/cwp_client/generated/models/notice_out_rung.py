from enum import StrEnum


class NoticeOutRung(StrEnum):
    PLAIN = "plain"
    RICH = "rich"
    SUMMARY = "summary"

    def __str__(self) -> str:
        return str(self.value)
