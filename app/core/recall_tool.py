"""The recall tool: its name's rule, and the one description and parameter schema every format
declares it with (docs/rules.md#the-recall-option).

The planner takes text out of the window (results cleared, capped or collapsed, turns removed,
spans summarized), while the agent's client still holds all of it. With `recall` on, the plan
names a tool the model can call to get any of it back, and the answer declares that tool in the
request's format (`app.formats.dialect.Dialect.recall_tool`); the agent answers the call from its
whole history (`POST /v1/recall`), so the service stays stateless. The words are the same in every
format, so they live here once; only the declaration's shape is each format's. The texts of the
window that name the tool (the placeholder's hint, the marker's `ref`, the notice's sentence, the
summary message's first line) stay beside the rule that writes each of them.
"""

from __future__ import annotations

import re
from typing import Any, Final

# A name every provider accepts for a function tool (OpenAI's and Anthropic's rule, Gemini's and
# Bedrock's included): a letter or `_` first, then letters, digits, `_` and `-`.
TOOL_NAME_PATTERN: Final = r"[A-Za-z_][A-Za-z0-9_-]*"
MAX_TOOL_NAME_CHARS: Final = 64
_TOOL_NAME = re.compile(TOOL_NAME_PATTERN)

DESCRIPTION: Final = (
    "Get back text that was taken out of your context window to save space: a tool result shown "
    "as cleared or truncated, or earlier messages that were dropped or summarized. Give ref (the "
    "tool_call_id shown in a cleared or truncated result) to get that result whole, or query "
    "(words or identifiers it contained: a path, an id, a number) to search everything earlier in "
    "this conversation. Long answers come in pages: ask again with page 2, 3, and so on."
)


def parameters() -> dict[str, Any]:
    """The tool's parameters as a JSON Schema object (a new value on every call: a caller may
    change the answer it is written into)."""
    return {
        "type": "object",
        "properties": {
            "ref": {
                "type": "string",
                "description": "the tool_call_id of a cleared or truncated result",
            },
            "query": {
                "type": "string",
                "description": "words or identifiers to search the earlier conversation for",
            },
            "page": {
                "type": "integer",
                "description": "which page of a long answer, from 1",
            },
        },
    }


def is_tool_name(name: str) -> bool:
    """1 to 64 characters matching `TOOL_NAME_PATTERN`, the whole name (a trailing newline does
    not match: `re.fullmatch`, not `$`)."""
    return len(name) <= MAX_TOOL_NAME_CHARS and _TOOL_NAME.fullmatch(name) is not None
