"""What a provider reads of a message that the core model holds no text for: texts and a fixed
count (`Message.extra_texts`, `Message.extra_tokens`; docs/rules.md#the-tokens-of-a-message).

A provider bills every item and block it reads, so a window's count that left them out would let
`fit` send windows over the model's limit. A server-side tool's item or result block is read as
its compact JSON (`docs/rules.md#compact-serialization`) without the keys that only identify it
(`id`, `status`, `type`); a document or file part as its text when it is sent as text, else as a
fixed count, since nothing is fetched and no file is decoded to be measured. Written once here, so
every dialect counts them alike.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import orjson

from app.formats.fields import JsonObject

# The keys of a server-side tool's item or block that name it rather than say what it read.
IDENTIFYING_KEYS = frozenset({"id", "status", "type"})
# A document or file not sent as text: about a page of text, whatever its size.
DOCUMENT_TOKENS = 1_600


def item_text(item: JsonObject, left_out: Collection[str] = IDENTIFYING_KEYS) -> str:
    """The compact JSON of `item` without its `left_out` keys, the others in their order."""
    return orjson.dumps({key: value for key, value in item.items() if key not in left_out}).decode()


def output_text(output: Any) -> str:
    """A paired call output's `output` as one text: itself when a string, else its compact JSON."""
    return output if type(output) is str else orjson.dumps(output).decode()


class Extras:
    """The extra texts and the fixed count gathered for one core message while it is read."""

    __slots__ = ("texts", "tokens")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.tokens = 0

    def text(self, text: str) -> None:
        self.texts.append(text)

    def document(self, text: str | None) -> None:
        """A document or file: its text when it was sent as text (None: it was not)."""
        if text is None:
            self.tokens += DOCUMENT_TOKENS
        else:
            self.texts.append(text)

    def fields(self) -> tuple[tuple[str, ...], int]:
        """`(extra_texts, extra_tokens)` of the message."""
        return tuple(self.texts), self.tokens
