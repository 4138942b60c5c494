"""Schema pieces shared by the endpoints that take a transcript (window plan and offer)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from app.core.ledger import STANDINGS
from app.formats import FORMATS, SYSTEM_FORMATS

FORMAT_NAMES = ("auto", *FORMATS)


def check_format_name(value: Any) -> str:
    """`auto` or a format this service reads (`app.formats.FORMATS`, where each one registers)."""
    if isinstance(value, str) and value in FORMAT_NAMES:
        return value
    raise PydanticCustomError(
        "literal_error", "Input should be {expected}", {"expected": ", ".join(FORMAT_NAMES)}
    )


FormatName = Annotated[
    str, PlainValidator(check_format_name), WithJsonSchema({"enum": list(FORMAT_NAMES)})
]
# The format an answer names: never `auto`.
UsedFormat = Annotated[str, WithJsonSchema({"enum": list(FORMATS)})]

MESSAGES_DESCRIPTION = (
    "The transcript, oldest first, in `format`. Native messages are "
    '`{"role", "content", "tool_calls": [{"id", "name", "arguments"}], "tool_call_id", '
    '"tool_name", "injected", "not_dispatched"}`; OpenAI Chat Completions messages, Anthropic '
    "Messages, OpenAI Responses `input` items, Gemini `contents` and Bedrock Converse messages "
    "are accepted as they are. Extra fields are kept and returned verbatim."
)
FORMAT_DESCRIPTION = (
    "`auto` detects the format from the messages and says which in the response; `native`, "
    "`openai` (Chat Completions), `anthropic` (Messages), `responses` (OpenAI Responses input "
    "items), `gemini` (contents) or `bedrock` (Converse messages)."
)
SYSTEM_DESCRIPTION = (
    "The top-level system prompt of the formats that keep it outside the messages, in the "
    "provider's shape: Anthropic `system` (a string or text blocks), Responses `instructions` "
    '(a string), Gemini `systemInstruction` (`{"parts": [...]}`), Bedrock `system` (blocks). '
    "It is outside the plan: never a turn, never evicted; counted in `stats.system_chars`."
)


def check_system_prompt(value: Any) -> Any:
    """A string, an array of blocks, a Gemini content object, or null; one error naming `system`
    otherwise. Whether it is the shape of the format used is the format's to say
    (`app.formats.system_problem`), once the format is known."""
    if value is None or isinstance(value, str | dict):
        return value
    if isinstance(value, list) and all(isinstance(block, dict) for block in value):
        return value
    raise PydanticCustomError(
        "system_type",
        "system must be a string, an array of blocks, a Gemini content object, or null",
    )


SystemPrompt = Annotated[
    Any,
    BeforeValidator(check_system_prompt),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "description": "Anthropic or Responses (`instructions`)."},
                {
                    "type": "array",
                    "description": "Anthropic text blocks.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {"const": "text"},
                            "text": {"type": "string"},
                        },
                        "required": ["type", "text"],
                    },
                },
                {
                    "type": "array",
                    "description": "Bedrock system blocks (`cachePoint` and `guardContent` add "
                    "no characters).",
                    "items": {
                        "type": "object",
                        "properties": {"type": False, "text": {"type": "string"}},
                        "anyOf": [
                            {"required": ["text"]},
                            {"required": ["cachePoint"]},
                            {"required": ["guardContent"]},
                        ],
                    },
                },
                {
                    "type": "object",
                    "description": "Gemini `systemInstruction`.",
                    "properties": {
                        "parts": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {"text": {"type": "string"}},
                            },
                        }
                    },
                    "required": ["parts"],
                },
                {"type": "null"},
            ]
        }
    ),
]


# A request that names a format whose system prompt is a message (native, OpenAI) must not send a
# top-level `system` (the rule of `app.service.transcript`), stated in the document of every request
# that takes both fields.
NO_SYSTEM_FOR_MESSAGE_FORMATS: dict[str, Any] = {
    "if": {
        "properties": {"format": {"enum": [f for f in FORMATS if f not in SYSTEM_FORMATS]}},
        "required": ["format"],
    },
    "then": {"properties": {"system": {"type": "null"}}},
}

# Ledger rows are read by `app.service.ledger`, which reports the caller's own paths; this schema
# only documents what that reader accepts, so a request valid by the document is never refused
# there.
LEDGER_ROW_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {
            "type": "object",
            "description": "A standing row (`kind` absent, null or `standing`): folded; the last "
            "row per id wins. Extra fields are ignored.",
            "properties": {
                "kind": {"enum": ["standing", None]},
                "tool_call_id": {"type": "string"},
                "standing": {"enum": list(STANDINGS)},
                "tool_name": {"type": ["string", "null"]},
                "ref": {"type": ["string", "null"]},
            },
            "required": ["tool_call_id", "standing"],
        },
        {
            "type": "object",
            "description": "A row of another kind: skipped whole, unread.",
            "properties": {"kind": {"type": "string", "not": {"const": "standing"}}},
            "required": ["kind"],
        },
    ]
}
LedgerRows = Annotated[list[Any], WithJsonSchema({"type": "array", "items": LEDGER_ROW_SCHEMA})]

MessagesField = Field(description=MESSAGES_DESCRIPTION)
Messages = list[Any]
