"""Request and response schemas of `POST /v1/recall` (`docs/rules.md#answering-a-recall`), and
its examples.

The request carries the transcript as a window plan does (`messages`, `format`, `system`, read by
the same readers, so they are refused alike) and the recall call's own arguments. The schema checks
the types and refuses unknown top-level fields; the rule that joins two fields (exactly one of
`ref` and `query`, non-empty) is the use case's (`app.service.recall`), which names `ref`. The
response model documents the answer; the route serializes the use case's content.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictStr

from app.core import defaults
from app.core.recall import MAX_MAX_CHARS, MIN_MAX_CHARS
from app.schemas.common import (
    FORMAT_DESCRIPTION,
    MESSAGES_DESCRIPTION,
    NO_SYSTEM_FOR_MESSAGE_FORMATS,
    SYSTEM_DESCRIPTION,
    FormatName,
    SystemPrompt,
)
from app.schemas.types import PositiveWhole, whole_number

PageChars = Annotated[int, Field(ge=MIN_MAX_CHARS, le=MAX_MAX_CHARS), BeforeValidator(whole_number)]


class RecallRequest(BaseModel):
    """The whole history and the recall call's arguments: `ref` or `query`, and `page`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=NO_SYSTEM_FOR_MESSAGE_FORMATS)
    messages: list[Any] = Field(
        description=MESSAGES_DESCRIPTION
        + " Send the whole history the agent holds, never a planned window (which holds the "
        "placeholders)."
    )
    format: FormatName = Field(defaults.DEFAULT_FORMAT, description=FORMAT_DESCRIPTION)
    system: SystemPrompt = Field(
        None, description=SYSTEM_DESCRIPTION + " Accepted here, and not searched."
    )
    ref: StrictStr | None = Field(
        None,
        description="A `tool_call_id`: every result answering that call, whole. Exactly one of "
        "`ref` and `query` is sent, a non-empty string (null is absent).",
    )
    query: StrictStr | None = Field(
        None,
        description="Words or identifiers (a path, an id, a number) to search every earlier "
        "message but the system prompt for. Its terms are the runs of `A-Z a-z 0-9 _ . / : @ # "
        "-`, trimmed of `. : / -` at both ends, lowercased; a run of 3 characters or more, or 2 "
        "holding a digit.",
    )
    page: PositiveWhole = Field(
        defaults.DEFAULT_RECALL_PAGE, description="Which page of the answer, from 1."
    )
    max_chars: PageChars = Field(
        defaults.DEFAULT_RECALL_MAX_CHARS,
        description="The characters of one page (256 to 100,000).",
    )


class RecallResponse(BaseModel):
    """One page of the text found."""

    found: bool = Field(
        description="Whether the ref named a result, or the query matched a message."
    )
    text: str = Field(
        description="Page `page` of the text: the result(s) of `ref` joined by a newline; for a "
        "query, each matching message (at most 20, most terms first, then newest) as a header "
        "line and its text (600 characters around the first match when longer, `…` where cut), "
        'joined by a blank line; else a sentence saying what was not found. "" past the last '
        "page."
    )
    page: int = Field(description="The page given, as asked.")
    pages: int = Field(description="How many pages the text fills (at least 1).")
    hits: int | None = Field(
        description="For a query, how many messages matched (all of them, not only the 20 "
        "written); null for a ref."
    )


# ---- Swagger examples ----------------------------------------------------------------------------
# One coding run in OpenAI form whose older results a plan cleared: the model asks for the long
# test log back by its id (the answer comes in pages), and searches for the legacy parser by name.
# The API tests post each example and check the whole answer.

EXAMPLE_SYSTEM = "You are a coding agent. Use the tools; keep answers short."
EXAMPLE_TASK = "The test test_parse_dates fails on CI. Find out why and fix it."
EXAMPLE_LOG = "FAILED tests/test_dates.py::test_parse_dates - AssertionError\n" + (
    "E   assert parse('2026-12-01T09:00:00+01:00') == datetime(2026, 12, 1, 8, 0)\n" * 40
)
EXAMPLE_STEPS: list[tuple[str, str, str, str]] = [
    ("call_1", "read_file", '{"path":"src/dates.py"}', "def parse(text):\n    return text\n"),
    ("call_2", "run_tests", '{"k":"test_parse_dates"}', EXAMPLE_LOG),
    ("call_3", "read_file", '{"path":"src/legacy/dates_old.py"}', "def parse_old(text):\n    ..."),
    ("call_4", "run_tests", '{"k":"test_parse_dates"}', "1 failed"),
]
EXAMPLE_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": EXAMPLE_SYSTEM},
    {"role": "user", "content": EXAMPLE_TASK},
    *[
        message
        for call_id, name, arguments, content in EXAMPLE_STEPS
        for message in (
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": content},
        )
    ],
]
RECALL_EXAMPLES: dict[str, dict[str, Any]] = {
    "ref": {
        "summary": "A cleared result asked back by its id, in pages",
        "description": "The model calls the recall tool with the `tool_call_id` its cleared "
        "result showed; the test log is longer than a page of 2,000 characters, so the answer "
        "is page 1 of 2.",
        "value": {
            "messages": EXAMPLE_TRANSCRIPT,
            "format": "openai",
            "ref": "call_2",
            "max_chars": 2000,
        },
    },
    "query": {
        "summary": "Earlier messages searched by identifiers",
        "description": "The terms are `dates_old.py` and `parse_old`: the call that read the "
        "file and its result match both, the result first (newer); a result shows its tool and "
        "its ref.",
        "value": {
            "messages": EXAMPLE_TRANSCRIPT,
            "format": "openai",
            "query": "dates_old.py parse_old",
        },
    },
}
