from enum import StrEnum


class PlanResponseFormat(StrEnum):
    ANTHROPIC = "anthropic"
    BEDROCK = "bedrock"
    GEMINI = "gemini"
    NATIVE = "native"
    OPENAI = "openai"
    RESPONSES = "responses"

    def __str__(self) -> str:
        return str(self.value)
