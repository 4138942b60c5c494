"""The core message model every wire format is read into, and character counting.

The planner reasons about one shape of message whatever dialect the caller speaks; the readers in
`app.formats` build these values and remember in `source` which caller message each came from, so
that indices can be reported in the caller's own array. Arguments of tool calls are carried
as sent and read only by token counting: every character size is measured on text content alone.

Messages and calls are immutable named tuples rather than frozen dataclasses: one is built for
every message of transcripts of up to 100,000 messages, and a tuple is several times cheaper to
build. Use `message._replace(...)` where a dataclass would use `dataclasses.replace`. The
readers' fast paths build them with `from_fields(Message, (...every field...))`: `tuple.__new__`
itself, a C call, where `Message(...)` runs generated keyword handling and `Message._make` a
Python frame and a length check (1,000 messages: 0.54 ms with `_make`, 0.19 to 0.32 ms without).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from app.core.images import Image

Role = Literal["system", "user", "assistant", "tool"]

# A named tuple from all its fields in order, with no Python-level call. Nothing checks the count
# at run time: use it only in the wire readers' hot loops, with every field written out as a tuple
# literal (tests/test_from_fields.py fails naming each call site whose count is not the type's).
from_fields = tuple.__new__


class ToolCall(NamedTuple):
    """One call an assistant message makes; its id and tool name are what the planner reads.

    `source` is the caller index of the item that holds the call when that is not the message's
    own (a Responses `function_call` item inside an assistant run); None otherwise.
    """

    id: str
    name: str
    source: int | None = None
    # The call's arguments as the caller sent them (a JSON string as OpenAI sends it, else the
    # parsed JSON value); "" when the caller sent none. Read only to count tokens
    # (docs/rules.md#the-tokens-of-a-message).
    arguments: object = ""


class Message(NamedTuple):
    """A message of the core transcript.

    `source` is the index of the caller message this one was read from (several core messages can
    share one caller message in the Anthropic format); `None` means the message's own position.
    `blocks` are the caller's content-block indices it holds, for writing it back. `source_end`
    is the index of the last caller message it was read from when it spans several (a Responses
    assistant run: reasoning, text and call items read as one assistant message); None when it
    is one caller message. `images` are the images its parts or blocks carry, counted only with
    tokens (docs/rules.md#images); they add no characters.

    `extra_texts` and `extra_tokens` are what the provider reads of the message that the core
    model holds no text for (docs/rules.md#the-tokens-of-a-message): a Responses shell or patch
    output, a server-side tool's item or result block, a document sent as text (each one text,
    counted as the content is); and a fixed count for what has no text to count (1,600 for each
    document or file not sent as text, the unknown size of an `image_generation_call`'s image).
    They add tokens, never characters, and no rule but counting reads them.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    injected: bool = False
    not_dispatched: bool = False
    source: int | None = None
    blocks: tuple[int, ...] = ()
    source_end: int | None = None
    images: tuple[Image, ...] = ()
    extra_texts: tuple[str, ...] = ()
    extra_tokens: int = 0


def chars(message: Message) -> int:
    """Characters of a message: code points of its text; ids, names and flags count 0."""
    return len(message.content)


def caller_index(messages: list[Message] | tuple[Message, ...], index: int) -> int:
    """The caller's index of core message `index`."""
    source = messages[index].source
    return index if source is None else source


def is_result(message: Message) -> bool:
    """A tool message that ran: a `not_dispatched` one answers its call but holds nothing."""
    return message.role == "tool" and not message.not_dispatched


def is_result_message(message: Message) -> bool:
    """A *result message* (docs/rules.md#the-message-model): it ran and names the call it answers;
    the only messages pins, standings and the offer read."""
    return is_result(message) and bool(message.tool_call_id)
