from enum import StrEnum


class RecallRequestFormat(StrEnum):
    ANTHROPIC = "anthropic"
    AUTO = "auto"
    BEDROCK = "bedrock"
    GEMINI = "gemini"
    NATIVE = "native"
    OPENAI = "openai"
    RESPONSES = "responses"

    def __str__(self) -> str:
        return str(self.value)
