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
from app.formats import anthropic, native, openai
from app.formats.detect import detect_format

FORMATS = ("native", "openai", "anthropic")

Reader = Callable[[list[Any]], list[Message]]
Writer = Callable[[list[Any], Sequence[Message], tuple[int, int] | None, str | None], list[Any]]

READERS: dict[str, Reader] = {
    "native": native.read,
    "openai": openai.read,
    "anthropic": anthropic.read,
}
WRITERS: dict[str, Writer] = {
    "native": native.write,
    "openai": openai.write,
    "anthropic": anthropic.write,
}

Shaper = Callable[[list[Any], Sequence[Message], Mapping[int, str]], list[Any]]
SHAPERS: dict[str, Shaper] = {
    "native": native.with_result_texts,
    "openai": openai.with_result_texts,
    "anthropic": anthropic.with_result_texts,
}

SYSTEM_CHARS: dict[str, Callable[[Any], int]] = {"anthropic": anthropic.system_chars}

PartPredicate = Callable[[list[Any], Message], bool]
NON_TEXT_PARTS: dict[str, PartPredicate] = {
    "openai": openai.has_non_text_part,
    "anthropic": anthropic.has_non_text_part,
}

__all__ = [
    "FORMATS",
    "detect_format",
    "non_text_part_predicate",
    "read_messages",
    "system_prompt_chars",
    "write_window",
]


def read_messages(raw: list[Any], format: str) -> list[Message]:
    """The core transcript of the caller's `messages` list in `format` (one of FORMATS).

    Raises InvalidRequest with every violation, each `loc` relative to the messages array.
    """
    return READERS[known(format)](raw)


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
    format = known(format)
    if shaped:
        raw = SHAPERS[format](raw, core, shaped)
    return WRITERS[format](raw, core, removed, notice)


def system_prompt_chars(system: Any, format: str) -> int | None:
    """Characters of the top-level system prompt of `format` (0 when none was sent), or None when
    the format keeps its system prompt in the transcript (native, OpenAI)."""
    count = SYSTEM_CHARS.get(known(format))
    return None if count is None else count(system)


def non_text_part_predicate(raw: list[Any], format: str) -> Callable[[Message], bool]:
    """Whether a core message read from `raw` in `format` carries a part other than text (an
    image, a file, audio, a document): the one thing `app.core.diagnostics` asks a format."""
    predicate = NON_TEXT_PARTS.get(known(format))
    if predicate is None:  # a format whose messages carry text alone
        return lambda message: False
    return lambda message: predicate(raw, message)


def known(format: str) -> str:
    if format not in READERS:
        raise ValueError(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
    return format
