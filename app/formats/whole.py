"""Windows that keep or remove whole caller messages (native, OpenAI, Responses).

In these formats every caller message is held by one core message, so a window is a splice: the
caller's messages without the removed ones, the notice (a user message with string content) in
their place, each shaped result's message a copy with one field set to its new text. Native and
OpenAI map core messages one to one onto caller messages, so their writer and their shaping are
the same functions; Responses maps a core range to its items first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from app.core.messages import Message
from app.formats.callers import CallerMessages, Reshaped
from app.formats.dialect import (
    Dialect,
    ImageClearer,
    PartPredicate,
    Removed,
    Signals,
    ToolDeclarer,
)
from app.formats.fields import JsonObject, Problems, read_one_to_one
from app.formats.recall_texts import RecallText


def notice_message(text: str) -> JsonObject:
    return {"role": "user", "content": text}


def splice(callers: CallerMessages, removed: Removed, notice: JsonObject | None) -> list[Any]:
    """The caller's messages without those in `removed` (ranges of caller indices [s, e); empty:
    nothing removed), the written `notice` (None: none) in the first one's place, every other one
    as the window carries it unchanged."""
    window: list[Any] = []
    position = 0
    for start, end in removed:
        window += callers.verbatim_slice(position, start)
        if notice is not None:
            window.append(notice)
            notice = None
        position = end
    window += callers.verbatim_slice(position, len(callers))
    return window


def with_field_texts(
    callers: CallerMessages, texts: Iterable[tuple[int, str]], field: str
) -> CallerMessages:
    """`callers` with the `field` of each caller message named in `texts` (caller index, new
    text) set to its text: a copy of that message, every other key as sent."""
    return Reshaped(callers, FieldTexts(callers, dict(texts), field))


class FieldTexts(Mapping[int, JsonObject]):
    """Caller index → the caller's message with `field` set to its new text, written when first
    asked for: a shaped message the window leaves out is never parsed on the compiled path (a
    plan shapes results all along the transcript and keeps few of them)."""

    def __init__(self, callers: CallerMessages, texts: dict[int, str], field: str) -> None:
        self.callers = callers
        self.texts = texts
        self.field = field
        self.written: dict[int, JsonObject] = {}

    def __getitem__(self, index: int) -> JsonObject:
        found = self.written.get(index)
        if found is None:
            text = self.texts[index]
            found = self.written[index] = {**self.callers[index], self.field: text}
        return found

    def __iter__(self) -> Iterator[int]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)


def write_one_to_one(
    callers: CallerMessages, core: Sequence[Message], removed: Removed, notice: str | None
) -> list[Any]:
    """The caller's messages with the core ranges `removed` cut out and the notice in the first
    one's place."""
    return splice(callers, removed, None if notice is None else notice_message(notice))


def with_contents(
    callers: CallerMessages, core: Sequence[Message], texts: Mapping[int, str]
) -> CallerMessages:
    """The caller's messages with each shaped result's `content` replaced by its new text (an
    array of parts by the string)."""
    return with_field_texts(callers, texts.items(), "content")


def one_to_one_dialect(
    name: str,
    read_plain: Callable[[JsonObject, int], Message | None],
    read_message: Callable[[JsonObject, int, Problems], Message | None],
    signals: Signals | None = None,
    has_non_text_part: PartPredicate | None = None,
    result_has_parts: PartPredicate | None = None,
    clear_images: ImageClearer | None = None,
    recall_text: RecallText | None = None,
    declare_tool: ToolDeclarer | None = None,
) -> Dialect:
    """The dialect of a format whose caller messages map one to one onto core messages: each
    message read on the format's quick path (`read_plain`), else with every check
    (`read_message`), and the window written by `write_one_to_one`."""

    def read(raw: list[Any]) -> list[Message]:
        return read_one_to_one(raw, read_plain, read_message)

    def read_alone(value: Any, index: int) -> list[Message]:
        return read_one_to_one([value], read_plain, read_message, index)

    return Dialect(
        name,
        read,
        write_one_to_one,
        with_contents,
        notice_message,
        signals=signals,
        read_alone=read_alone,
        has_non_text_part=has_non_text_part,
        result_has_parts=result_has_parts,
        clear_images=clear_images,
        recall_text=recall_text,
        declare_tool=declare_tool,
    )
