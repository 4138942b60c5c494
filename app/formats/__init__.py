"""The wire formats: caller messages in, core messages to plan on, the new window out.

The planner never sees a wire shape. Each format module reads the caller's `messages` into core
messages that remember their caller index (and, for Anthropic, their content blocks), and writes a
window back from the caller's own objects, so an agent can send it straight to its provider.
`auto` is resolved by `detect_format` before reading; this package does not read the top-level
Anthropic `system` prompt, which is outside the transcript.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.core.messages import Message
from app.core.plan_types import WindowPlan
from app.formats import anthropic, bedrock, gemini, native, openai, responses
from app.formats.detect import detect_format
from app.formats.dialect import Dialect

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
    "FORMATS",
    "SYSTEM_FORMATS",
    "detect_format",
    "has_system_prompt",
    "non_text_part_predicate",
    "place_window",
    "read_messages",
    "system_problem",
    "system_prompt_text",
    "write_window",
]


def dialect_of(format: str) -> Dialect:
    dialect = DIALECTS.get(format)
    if dialect is None:
        raise ValueError(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
    return dialect


def read_messages(raw: list[Any], format: str) -> list[Message]:
    """The core transcript of the caller's `messages` list in `format` (one of FORMATS).

    Raises InvalidRequest with every violation, each `loc` relative to the messages array.
    """
    return dialect_of(format).read(raw)


def write_window(
    raw: list[Any],
    core: Sequence[Message],
    removed: tuple[int, int] | None,
    notice: str | None,
    format: str,
    shaped: Mapping[int, str] | None = None,
) -> list[Any]:
    """The new window in `format`: the caller's messages without the core range `removed`
    ([s, e), None = nothing removed), with the notice text, if any, at core position s, and
    each shaped result (core index → its new text) written as the format writes a result."""
    dialect = dialect_of(format)
    if shaped:
        raw = dialect.with_result_texts(raw, core, shaped)
    return dialect.write(raw, core, removed, notice)


def place_window(
    raw: list[Any], core: Sequence[Message], plan: WindowPlan, format: str
) -> WindowPlan:
    """The plan with its window figures (`messages_after`, the notice's and shaped results'
    `window_index`) as the format lays its window out; the core's own for most formats."""
    place = dialect_of(format).place
    return plan if place is None else place(raw, core, plan)


def has_system_prompt(format: str) -> bool:
    """Whether `format` sends its system prompt outside the transcript (`system`)."""
    return dialect_of(format).system_text is not None


def system_prompt_text(system: Any, format: str) -> str | None:
    """The text of the top-level system prompt of `format`, None when none was sent or the
    format keeps its system prompt in the transcript (native, OpenAI)."""
    text_of = dialect_of(format).system_text
    return None if text_of is None else text_of(system)


def system_problem(system: Any, format: str) -> str | None:
    """Why `system` (not null) is not a system prompt of `format`, or None when it is."""
    check = dialect_of(format).system_problem
    if check is None:
        return f"a top-level system prompt belongs to the {', '.join(SYSTEM_FORMATS)} formats only"
    return check(system)


def non_text_part_predicate(raw: list[Any], format: str) -> Callable[[Message], bool]:
    """Whether a core message read from `raw` in `format` carries a part other than text (an
    image, a file, audio, a document): the one thing `app.core.diagnostics` asks a format."""
    predicate = dialect_of(format).has_non_text_part
    if predicate is None:  # a format whose messages carry text alone
        return lambda message: False
    return lambda message: predicate(raw, message)
