"""The caller's messages as a window writer reads them: a parsed list, or the compiled scan.

Each dialect writes its window once, over `CallerMessages`, and both read paths hand it theirs: the
Python path its parsed list (wrapped in a `ListCallers`, one small object a request), the compiled
path its scanned messages (`app.compiled.messages.ScannedMessages`), which parse a message only
when a writer needs its value and otherwise embed the message's own bytes (decision 0033). It is
pydantic-core's shape, one validator over two inputs: the protocol asks only what the two inputs
answer differently (a message as the window carries it unchanged, a message keeping some of its
blocks), so no writer knows which path it runs on, and the two windows serialize to the same bytes.

Shaped results do not change the protocol either: `Reshaped` is the caller's messages with the
shaped ones replaced by their rewritten copies, and a writer writes from it as from the original.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from app.formats.fields import JsonObject


class CallerMessages(Protocol):
    """What a window writer (and a format's part predicates) reads of the caller's messages."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> Any:
        """Caller message `index` parsed."""
        ...

    def __iter__(self) -> Iterator[Any]: ...

    def verbatim(self, index: int) -> Any:
        """Caller message `index` as the window carries it unchanged."""
        ...

    def verbatim_slice(self, start: int, end: int) -> list[Any]:
        """`verbatim` of caller messages `start … end − 1`, in a new list."""
        ...

    def with_blocks(self, index: int, blocks: list[int], key: str) -> Any:
        """Caller message `index` holding only `blocks` of its `key` array (`content`, `parts`):
        `verbatim` when they are all of them (or that is no array), else a copy (`only_blocks`)."""
        ...

    def head(self, count: int) -> CallerMessages:
        """The first `count` caller messages."""
        ...


# What the dialects' entry points take: a caller holding a plain list need not wrap it.
Callers = list[Any] | CallerMessages


def caller_messages(raw: Callers) -> CallerMessages:
    return ListCallers(raw) if isinstance(raw, list) else raw


def only_blocks(message: JsonObject, blocks: list[int], key: str) -> JsonObject:
    """The message itself when it keeps every block of its `key` array (or that is no array, as
    an Anthropic string content); otherwise a copy with every other key as sent and only the kept
    blocks, in their order, each the caller's own object."""
    content = message.get(key)
    if not isinstance(content, list) or len(blocks) == len(content):
        return message
    return {**message, key: [content[block] for block in sorted(blocks)]}


class ListCallers:
    """A parsed `messages` list: a message as the window carries it is the caller's own object."""

    __slots__ = ("raw",)

    def __init__(self, raw: list[Any]) -> None:
        self.raw = raw

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, index: int) -> Any:
        return self.raw[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.raw)

    def verbatim(self, index: int) -> Any:
        return self.raw[index]

    def verbatim_slice(self, start: int, end: int) -> list[Any]:
        return self.raw[start:end]

    def with_blocks(self, index: int, blocks: list[int], key: str) -> Any:
        return only_blocks(self.raw[index], blocks, key)

    def head(self, count: int) -> CallerMessages:
        return ListCallers(self.raw[:count])


class Reshaped:
    """Caller messages with some replaced (caller index → the new message): the shaped results'
    messages, rewritten by the format, every other message as `callers` holds it."""

    __slots__ = ("callers", "replaced")

    def __init__(self, callers: CallerMessages, replaced: Mapping[int, JsonObject]) -> None:
        self.callers = callers
        self.replaced = replaced

    def __len__(self) -> int:
        return len(self.callers)

    def __getitem__(self, index: int) -> Any:
        found = self.replaced.get(index)
        return self.callers[index] if found is None else found

    def __iter__(self) -> Iterator[Any]:
        return (self[index] for index in range(len(self.callers)))

    def verbatim(self, index: int) -> Any:
        found = self.replaced.get(index)
        return self.callers.verbatim(index) if found is None else found

    def verbatim_slice(self, start: int, end: int) -> list[Any]:
        window = self.callers.verbatim_slice(start, end)
        for index in self.replaced:  # only the ones in the slice are asked for (`FieldTexts`)
            if start <= index < end:
                window[index - start] = self.replaced[index]
        return window

    def with_blocks(self, index: int, blocks: list[int], key: str) -> Any:
        found = self.replaced.get(index)
        if found is None:
            return self.callers.with_blocks(index, blocks, key)
        return only_blocks(found, blocks, key)

    def head(self, count: int) -> CallerMessages:
        kept = {index: self.replaced[index] for index in self.replaced if index < count}
        return Reshaped(self.callers.head(count), kept)
