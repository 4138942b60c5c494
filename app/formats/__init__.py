"""The wire formats: caller messages in, core messages to plan on, the new window out.

The planner never sees a wire shape. Each format module holds all its format knows: its reader
(the caller's `messages` into core messages that remember their caller index and, where a message
holds several, their blocks), its one window writer (from the caller's own objects, so an agent can
send the window straight to its provider) and the signals `auto` looks for. What several formats
share is written once beside them: the field checks (`fields`), the caller's messages as a writer
reads them (`callers`), the block regrouping of Anthropic, Gemini and Bedrock (`blocks`) and the
splice of native, OpenAI and Responses (`whole`). `auto` is resolved by `detect_format` before
reading.

The package registers the dialects (`DIALECTS`, in the order `FORMATS` and the `format` enum list
them). A request resolves its format to one `Dialect` once (`dialect_of`) and asks that object
everything after; the functions by name below serve callers that hold only a format's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.core.messages import Message
from app.core.plan_types import WindowPlan
from app.formats import anthropic, bedrock, gemini, native, openai, responses
from app.formats.callers import CallerMessages, Callers
from app.formats.detect import detect_format
from app.formats.dialect import Dialect, Removed

DIALECTS: dict[str, Dialect] = {
    dialect.name: dialect
    for dialect in (
        native.DIALECT,
        openai.DIALECT,
        anthropic.DIALECT,
        responses.DIALECT,
        gemini.DIALECT,
        bedrock.DIALECT,
    )
}
FORMATS = tuple(DIALECTS)
# The formats whose system prompt is outside `messages`, sent in the request's `system`.
SYSTEM_FORMATS = tuple(name for name, dialect in DIALECTS.items() if dialect.system_text)

__all__ = [
    "DIALECTS",
    "FORMATS",
    "SYSTEM_FORMATS",
    "CallerMessages",
    "Callers",
    "Dialect",
    "detect_format",
    "dialect_of",
    "has_system_prompt",
    "non_text_part_predicate",
    "place_window",
    "read_messages",
    "system_problem",
    "system_prompt_problem",
    "system_prompt_text",
    "write_window",
]


def dialect_of(format: str) -> Dialect:
    """The dialect named `format` (one of FORMATS; `auto` is resolved by `detect_format` first)."""
    dialect = DIALECTS.get(format)
    if dialect is None:
        raise ValueError(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
    return dialect


def system_prompt_problem(system: Any, dialect: Dialect) -> str | None:
    """Why `system` (not null) is not a system prompt of `dialect`, or None when it is."""
    check = dialect.system_problem
    if check is None:
        return f"a top-level system prompt belongs to the {', '.join(SYSTEM_FORMATS)} formats only"
    return check(system)


# By name: the same as the `Dialect` methods, for callers that hold a format's name rather than
# its dialect (the formats' own tests, the benchmark).


def read_messages(raw: list[Any], format: str) -> list[Message]:
    """The core transcript of the caller's `messages` list in `format` (one of FORMATS).

    Raises InvalidRequest with every violation, each `loc` relative to the messages array.
    """
    return dialect_of(format).read(raw)


def write_window(
    raw: Callers,
    core: Sequence[Message],
    removed: Removed,
    notice: str | None,
    format: str,
    shaped: Mapping[int, str] | None = None,
) -> list[Any]:
    """`Dialect.write_window` of the format named `format`."""
    return dialect_of(format).write_window(raw, core, removed, notice, shaped)


def place_window(
    raw: Callers, core: Sequence[Message], plan: WindowPlan, format: str
) -> WindowPlan:
    """`Dialect.place_window` of the format named `format`."""
    return dialect_of(format).place_window(raw, core, plan)


def has_system_prompt(format: str) -> bool:
    """Whether `format` sends its system prompt outside the transcript (`system`)."""
    return dialect_of(format).has_system_prompt


def system_prompt_text(system: Any, format: str) -> str | None:
    """`Dialect.system_prompt_text` of the format named `format`."""
    return dialect_of(format).system_prompt_text(system)


def system_problem(system: Any, format: str) -> str | None:
    """`system_prompt_problem` of the format named `format`."""
    return system_prompt_problem(system, dialect_of(format))


def non_text_part_predicate(raw: Callers, format: str) -> Callable[[Message], bool]:
    """`Dialect.non_text_part_predicate` of the format named `format`."""
    return dialect_of(format).non_text_part_predicate(raw)
