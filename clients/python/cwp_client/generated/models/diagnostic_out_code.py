from enum import StrEnum


class DiagnosticOutCode(StrEnum):
    DUPLICATE_CALL_ID = "duplicate-call-id"
    DUPLICATE_RESULT = "duplicate-result"
    EMPTY_MESSAGE = "empty-message"
    MORE_DIAGNOSTICS = "more-diagnostics"
    ORPHAN_RESULT = "orphan-result"
    RESULT_OUTSIDE_ITS_TURN = "result-outside-its-turn"
    UNANSWERED_CALL = "unanswered-call"

    def __str__(self) -> str:
        return str(self.value)
