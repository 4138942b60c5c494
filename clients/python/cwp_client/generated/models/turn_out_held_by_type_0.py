from enum import StrEnum


class TurnOutHeldByType0(StrEnum):
    CURRENT_REQUEST = "current-request"
    INSIDE_KEEP_WINDOW = "inside-keep-window"
    LAST_TOOL_RESULT = "last-tool-result"
    LEDGER_FACT = "ledger-fact"
    PAUSED_TOOL = "paused-tool"
    PENDING_CHECK_IN = "pending-check-in"
    REPLACEMENT_NOT_SMALLER = "replacement-not-smaller"
    SYSTEM_ENVELOPE = "system-envelope"
    UNRESOLVED_TOOL_CALL = "unresolved-tool-call"

    def __str__(self) -> str:
        return str(self.value)
