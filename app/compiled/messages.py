"""The caller's messages as the compiled reader scanned them: read into core messages, and
`CallerMessages` for the dialect's one writer.

A scan knows each caller message's bytes and whether orjson would write them back exactly as sent
("canonical": no whitespace, no escape orjson writes otherwise, no float, no repeated key). A
message the window carries unchanged is embedded as an `orjson.Fragment` of its own bytes when
canonical, and anything else is parsed (each message once) and written as the Python path writes
it, so the dialect's writer, the same one as the Python path's, writes the same bytes (decision
0033) without parsing the messages it keeps whole.

The module's readers are the formats' quick paths (`read_plain`) in compiled form. A message they
do not read plainly is parsed here and read alone by the format's own Python reader
(`Dialect.read_alone`); a format that reads a message with the ones before it (Responses, Gemini)
is read whole by the module or handed back whole to the format's Python reader. A message the
Python reader refuses, or one that cannot be read alone (an Anthropic `compaction` block, which is
the artifact or not by the messages after it), sends the whole request to the Python path
(`Unanswered`), which words the 422.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import orjson

from app.compiled.module import Scan
from app.core.messages import Message, ToolCall
from app.core.turns import Segment, Survey
from app.errors import ErrorList
from app.formats import Dialect, detect_format
from app.formats.callers import CallerMessages, only_blocks
from app.formats.fields import is_object
from app.service.limits import ListLimits

# The key whose array the scan counts first as a message's blocks (`Scan.block_count`).
COUNTED_FIRST = "content"


class Unanswered(Exception):
    """The compiled path does not answer this request: the Python path reads it from its bytes."""


class ScannedMessages:
    """The caller's `messages` of a scanned body (`CallerMessages`): an item is the caller's
    message parsed, only the messages asked for, each once."""

    def __init__(self, body: bytes | bytearray, scan: Scan) -> None:
        self.scan = scan
        self.view = memoryview(body)
        self.size: int = scan.message_count() or 0
        self.parsed: dict[int, Any] = {}
        # `app.core.turns.survey` of the core messages `read` returned, when the module read them
        # all (and so surveyed them as it built them).
        self.survey: Survey | None = None
        # Whether the scan's block counts are those of the blocks a writer asks for (`read`).
        self.counts_blocks = True
        # The most calls a core message read may hold (`long_lists`); more: the Python path.
        self.most_calls: int | None = None

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> Any:
        found = self.parsed.get(index)
        if found is None:
            start, end, _ = self.scan.span(index)
            found = self.parsed[index] = orjson.loads(self.view[start:end])
        return found

    def __iter__(self) -> Iterator[Any]:
        return (self[index] for index in range(self.size))

    def verbatim(self, index: int) -> Any:
        """Its own bytes when orjson would write them so, else its parsed value (which orjson
        writes as the Python path does); a message already parsed is not copied again."""
        start, end, canonical = self.scan.span(index)
        if canonical and index not in self.parsed:
            return orjson.Fragment(self.view[start:end].tobytes())
        return self[index]

    def verbatim_slice(self, start: int, end: int) -> list[Any]:
        return [self.verbatim(index) for index in range(start, end)]

    def with_blocks(self, index: int, blocks: list[int], key: str) -> Any:
        """Decided on the scan's block count, without parsing, where it counts the blocks asked
        for (see `read`)."""
        if self.counts_blocks:
            count = self.scan.block_count(index)
            if count == len(blocks) or count < 0:  # -1: no array (a string content), kept whole
                return self.verbatim(index)
        return only_blocks(self[index], blocks, key)

    def head(self, count: int) -> CallerMessages:
        head = copy.copy(self)
        head.size = min(count, self.size)
        return head

    def callers(self) -> CallerMessages:
        """What the window is written from: these messages themselves."""
        return self

    def samples(self) -> list[Any]:
        """One message of each distinct shape `auto` reads, parsed, in order of first appearance
        (`Scan.detection_samples`: the shape is what the detector reads of a message)."""
        return [self[index] for index in self.scan.detection_samples()]

    def detect(self, system: Any) -> str:
        """`detect_format` over the samples: the same format as over every message, and a refusal
        (its locations then name the samples, not the messages) when it refuses."""
        return detect_format(self.samples(), system)

    def long_lists(self, dialect: Dialect, limits: ListLimits) -> ErrorList:
        """No error, or `Unanswered` when a message may hold a list over its limit: the scan
        counts each message's blocks (or parts), and a count past the lower of the two limits
        sends the request to the Python path, which words the 422 (`app.service.limits`). A
        `tool_calls` list is not counted by the scan: `read` refuses a core message with more
        calls than the limit the same way."""
        most = min(limits.content_parts, limits.tool_calls)
        if len(self.view) <= 2 * most:
            return ErrorList()  # a list of more than `most` items takes more bytes than the body
        key = dialect.blocks_key
        if key is not None and key != COUNTED_FIRST and self.has_both_keys(key):
            raise Unanswered  # the count may be of another array than the format's parts
        block_count = self.scan.block_count
        if any(block_count(index) > most for index in range(self.size)):
            raise Unanswered
        self.most_calls = limits.tool_calls
        return ErrorList()

    def has_both_keys(self, key: str) -> bool:
        """Whether a message holds `key`'s array beside `content` (its own shape to the
        detector, so the samples show it)."""
        return any(
            is_object(sample) and key in sample and COUNTED_FIRST in sample
            for sample in self.samples()
        )

    def read(self, dialect: Dialect) -> list[Message]:
        """The core transcript in `dialect`; InvalidRequest when its Python reader refuses a
        message, `Unanswered` when the module does not read the format or a message it leaves
        cannot be read alone."""
        try:
            read, self.survey = self.scan.read_surveyed(
                dialect.name, Message, ToolCall, Segment, Survey
            )
        except ValueError:  # a format the module does not read: the Python path reads it
            raise Unanswered from None
        key = dialect.blocks_key
        if key is not None and key != COUNTED_FIRST:
            # The scan counts a message's `content` array, else its `parts`: the count is that of
            # `key`'s array only in a message with no `content` beside it. A message with both has
            # a shape of its own to the detector, so the samples show whether any message has.
            self.counts_blocks = not self.has_both_keys(key)
        self.scan.release()  # read once: the window needs only the spans and block counts
        if read is None:  # a Responses or Gemini list handed back whole
            return self.calls_within_limit(dialect.read(list(self)))
        if self.survey is not None:  # every caller message read by the module
            return self.calls_within_limit(read)
        messages: list[Message] = []
        for item in read:
            if type(item) is int:
                messages.extend(self.read_alone(dialect, item))
            else:
                messages.append(item)
        return self.calls_within_limit(messages)

    def calls_within_limit(self, messages: list[Message]) -> list[Message]:
        """`messages`, or `Unanswered` when one holds more calls than `long_lists` allows."""
        most = self.most_calls
        if most is not None and any(len(message.tool_calls) > most for message in messages):
            raise Unanswered
        return messages

    def read_alone(self, dialect: Dialect, index: int) -> list[Message]:
        """Caller message `index` read by the format's own reader (quick path, then every check)."""
        read_alone = dialect.read_alone
        found = None if read_alone is None else read_alone(self[index], index)
        if found is None:
            raise Unanswered
        return found
