"""The recall text of a core message (docs/rules.md#answering-a-recall): what a recall searches
and gives back, written the same way in every format.

A user or tool message's recall text is its text as the format reads it, with each content part
that is not text written where it stood, with no separator: `[image]` for an image, `[file]` for
any other content (a file, a document, audio, video); markers that carry no content (Bedrock's
`cachePoint`, `guardContent`) write nothing. So a model that asks for a cleared screenshot result
back learns there was an image in it, and where, instead of reading a text that silently lost it.
An assistant message's recall text is its text, then a line `{name} {arguments}` per call, so a
query for a path the model once passed to a tool finds the call.

Only the walk over a message's parts is the format's (`Dialect.recall_text`, one function per
format beside its reader); the assistant's lines, the marks and the part joining are here. Each
format's walk reads the same parts its reader reads, and a message with no part that is not text
gets exactly its core text (tests/formats/test_recall_texts.py checks it on every fixture).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import orjson

from app.core.messages import Message
from app.formats.callers import CallerMessages

IMAGE_MARK = "[image]"
FILE_MARK = "[file]"

# The recall text of a core message read from the caller's messages.
RecallText = Callable[[CallerMessages, Message], str]


def arguments_text(arguments: object) -> str:
    """A call's arguments as a recall line shows them: a string as sent, `{}` when absent or
    null (the core holds "" for absent), else the compact JSON of the value."""
    if arguments is None or arguments == "":
        return "{}"
    if type(arguments) is str:
        return arguments
    return orjson.dumps(arguments).decode()


def assistant_text(message: Message) -> str:
    """Its text, then a line `{name} {arguments}` per call; no leading newline when the text is
    empty."""
    lines = [f"{call.name} {arguments_text(call.arguments)}" for call in message.tool_calls]
    if message.content or not lines:
        lines.insert(0, message.content)
    return "\n".join(lines)


def plain_recall_text(callers: CallerMessages, message: Message) -> str:
    """The recall text of a message of a format with no content parts (native): its text, and
    an assistant's call lines."""
    if message.role == "assistant":
        return assistant_text(message)
    return message.content


def recall_text_with(parts_text: RecallText) -> RecallText:
    """A format's recall text from its walk over a user or tool message's parts (`parts_text`);
    an assistant's is `assistant_text`, a system message's its text (never searched)."""

    def recall_text(callers: CallerMessages, message: Message) -> str:
        if message.role == "assistant":
            return assistant_text(message)
        if message.role == "system":
            return message.content
        return parts_text(callers, message)

    return recall_text


def joined(parts: Iterable[Any], piece: Callable[[Any], str]) -> str:
    """Each part written by `piece` (its text, a mark, or ""), in order, with no separator."""
    return "".join(piece(part) for part in parts)


def string_at(obj: Any, key: str) -> str:
    """The string under `key` of an object; "" for anything else (the reader refused it)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else ""


def caller_of(callers: CallerMessages, message: Message) -> Any:
    """The caller message the core message was read from."""
    return callers[message.source] if message.source is not None else None


def field_of(callers: CallerMessages, message: Message, key: str) -> Any:
    """The `key` field of the caller message it was read from (None when not an object)."""
    caller = caller_of(callers, message)
    return caller.get(key) if isinstance(caller, dict) else None
