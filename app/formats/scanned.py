"""The caller's messages as the compiled reader scanned them: core messages and the window.

A scan (`app.compiled`) knows each caller message's bytes and whether orjson would write them back
exactly as sent ("canonical": no whitespace, no escape orjson writes otherwise, no float, no
repeated key). The window is written from those bytes: a kept canonical message is embedded as an
`orjson.Fragment` of its own bytes, anything else is parsed and written as the Python path writes
it, so the answer is byte for byte the Python path's.

The module's readers are the formats' quick paths (`read_plain`) in compiled form; a message they
do not read plainly is parsed here and read by the format's own Python reader, and one that reader
refuses raises `Unanswered`, so the whole request is read again by the Python path, which words the
422. So does an Anthropic assistant message holding a `compaction` block: whether that block is the
transcript's compaction artifact depends on the messages after it, which only the whole reading
sees. Bedrock is read message by message as Anthropic is; Responses and Gemini read a message with
the ones before it (a run of items, the calls a response answers), so the module reads the whole
list or hands it back, and the format's Python reader then reads every message. A Responses window
keeps or removes whole items, so it is written from the items' bytes as OpenAI's is; a Gemini or
Bedrock window with nothing shaped is written as the format's writer lays it out, a message that
keeps all its parts (blocks) as its own bytes and only the ones the removal splits or joins parsed;
with shaped results the format's own writer runs over the parsed messages, each message it keeps as
sent then written as its own bytes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from typing import Any

import orjson

from app.core.messages import Message, ToolCall
from app.core.turns import Segment, Survey
from app.errors import InvalidRequest
from app.formats import anthropic, bedrock, gemini, native, openai, responses
from app.formats.detect import detect_format
from app.formats.fields import JsonObject, Problems, message_object

SCANNED_FORMATS = ("native", "openai", "anthropic", "responses", "gemini", "bedrock")
ONE_TO_ONE = {"native": native, "openai": openai}
# The formats whose reader reads them here, and Gemini's and Bedrock's window, written by their own
# writer over the parsed messages (`window`; Responses' is `items_window`).
WRITTEN = {"responses": responses.DIALECT, "gemini": gemini.DIALECT, "bedrock": bedrock.DIALECT}
NO_ARTIFACT = anthropic.LastArtifact(())


class Unanswered(Exception):
    """The compiled path does not answer this request: the Python path reads it from its bytes."""


class ScannedMessages(Sequence[Any]):
    """The caller's `messages` of a scanned body; an item is the caller's message parsed (only
    the messages asked for are parsed, each once)."""

    def __init__(self, body: bytes | bytearray, scan: Any) -> None:
        self.scan = scan
        self.view = memoryview(body)
        self.size: int = scan.message_count() or 0
        self.parsed: dict[int, Any] = {}
        # `app.core.turns.survey` of the core messages `read` returned, when the module read them
        # all (and so surveyed them as it built them).
        self.survey: Survey | None = None

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: Any) -> Any:
        if not isinstance(index, int):
            raise TypeError("a scanned message is read by its index")
        found = self.parsed.get(index)
        if found is None:
            start, end, _ = self.scan.span(index)
            found = self.parsed[index] = orjson.loads(self.view[start:end])
        return found

    def __iter__(self) -> Iterator[Any]:
        return (self[index] for index in range(self.size))

    def verbatim(self, index: int) -> Any:
        """Caller message `index` as the window carries it: its own bytes when orjson would write
        them so, else its parsed value (which orjson writes as the Python path does)."""
        start, end, canonical = self.scan.span(index)
        if canonical and index not in self.parsed:
            return orjson.Fragment(self.view[start:end].tobytes())
        return self[index]

    def detect(self, system: Any) -> str:
        """`detect_format` over one message of each distinct shape the detector reads, in order of
        first appearance: the same format as over every message, and a refusal when it refuses."""
        samples = [self[index] for index in self.scan.detection_samples()]
        try:
            return detect_format(samples, system)
        except InvalidRequest:
            raise Unanswered from None

    def read(self, format_name: str) -> list[Message]:
        """The core transcript in `format_name`; `Unanswered` when the Python reader refuses a
        message or the format is not read here."""
        if format_name not in SCANNED_FORMATS:
            raise Unanswered
        read, self.survey = self.scan.read_surveyed(format_name, Message, ToolCall, Segment, Survey)
        self.scan.release()  # read once: the window needs only the spans and block counts
        if read is None:  # a Responses or Gemini list handed back whole
            try:
                return WRITTEN[format_name].read(list(self))
            except InvalidRequest:
                raise Unanswered from None
        if self.survey is not None:  # every caller message read by the module
            return read  # type: ignore[no-any-return]
        messages: list[Message] = []
        for item in read:
            if type(item) is int:
                messages.extend(self.read_in_python(format_name, item))
            else:
                messages.append(item)
        return messages

    def read_in_python(self, format_name: str, index: int) -> list[Message]:
        """Caller message `index` read by the format's own reader (quick path, then every check)."""
        value = self[index]
        problems = Problems()
        out: list[Message] = []
        one_to_one = ONE_TO_ONE.get(format_name)
        if one_to_one is not None:
            core = one_to_one.read_plain(value, index) if type(value) is dict else None
            if core is None:
                message = message_object(value, index, problems)
                core = (
                    None if message is None else one_to_one.read_message(message, index, problems)
                )
            if core is not None:
                out.append(core)
        elif format_name == "bedrock":
            if not (type(value) is dict and bedrock.read_plain(value, index, out)):
                message = message_object(value, index, problems)
                if message is not None:
                    bedrock.read_message(message, index, problems, out)
        elif anthropic.holds_compaction(value):
            raise Unanswered
        elif not (type(value) is dict and anthropic.read_plain(value, index, out)):
            message = message_object(value, index, problems)
            if message is not None:
                # No message read here holds a compaction block, so no artifact is looked for.
                anthropic.read_message(message, index, problems, out, NO_ARTIFACT)
        if problems.errors:
            raise Unanswered
        return out

    def window(
        self,
        format_name: str,
        core: Sequence[Message],
        removed: tuple[int, int] | None,
        notice: str | None,
        texts: Mapping[int, str],
    ) -> list[Any]:
        """`app.formats.write_window` of this transcript, kept messages as their own bytes."""
        if format_name == "anthropic":
            return self.block_window(core, removed, notice, texts)
        if format_name == "responses":
            return self.items_window(core, removed, notice, texts)
        if removed is not None and not texts and format_name == "gemini":
            return self.parts_window(core, removed, notice)
        if removed is not None and not texts and format_name == "bedrock":
            return self.seam_window(core, removed, notice)
        written = WRITTEN.get(format_name)
        if written is not None:
            return self.written_window(written, core, removed, notice, texts)
        dialect = ONE_TO_ONE[format_name]
        return self.spliced(
            removed,
            None if notice is None else dialect.notice_message(notice),
            {index: ("content", text) for index, text in texts.items()},
        )

    def spliced(
        self,
        removed: tuple[int, int] | None,
        notice: Any,
        shaped: Mapping[int, tuple[str, str]],
    ) -> list[Any]:
        """The caller's messages without those in `removed` (caller indices [s, e)), the written
        `notice` (None: none) in their place, each message in `shaped` with its field set to its
        new text, every other one as its own bytes: the formats whose window keeps or removes
        whole caller messages (native, OpenAI, Responses)."""
        positions: Iterator[int | None] = iter(range(self.size))
        if removed is not None:
            start, end = removed
            notices = () if notice is None else (None,)
            positions = chain(range(start), notices, range(end, self.size))
        window: list[Any] = []
        for position in positions:
            if position is None:
                window.append(notice)
            elif position in shaped:
                field, text = shaped[position]
                window.append({**self[position], field: text})
            else:
                window.append(self.verbatim(position))
        return window

    def written_window(
        self,
        dialect: Any,
        core: Sequence[Message],
        removed: tuple[int, int] | None,
        notice: str | None,
        texts: Mapping[int, str],
    ) -> list[Any]:
        """The format's own `write_window` over the parsed messages; a message it keeps as sent
        (the very object) is written as its own bytes where orjson would write them so."""
        if removed is None and not texts:  # every writer keeps every message as sent
            return [self.verbatim(index) for index in range(self.size)]
        parsed = list(self)
        window = dialect.write_window(parsed, core, removed, notice, texts)
        positions = {id(value): index for index, value in enumerate(parsed)}
        out: list[Any] = []
        for value in window:
            index = positions.get(id(value))
            kept = index is not None and value is parsed[index]
            out.append(self.verbatim_parsed(index) if kept else value)  # type: ignore[arg-type]
        return out

    def items_window(
        self,
        core: Sequence[Message],
        removed: tuple[int, int] | None,
        notice: str | None,
        texts: Mapping[int, str],
    ) -> list[Any]:
        """The Responses window (`responses.with_result_texts` then `responses.write`): the items
        outside the removed ones, a shaped output's item parsed and rewritten, every other item
        as its own bytes, so only those are parsed."""
        items = None
        if removed is not None:
            items = (
                responses.caller_start(self, core, removed[0]),
                responses.caller_start(self, core, removed[1]),
            )
        return self.spliced(
            items,
            None if notice is None else responses.notice_message(notice),
            {
                responses.caller_start(self, core, index): ("output", text)
                for index, text in texts.items()
            },
        )

    def kept(self, source: int, blocks: list[int], keep: Any) -> Any:
        """Caller message `source` holding `blocks`: its own bytes when they are all of its blocks
        (or parts), else `keep(message, blocks)` of it parsed."""
        if self.scan.block_count(source) == len(blocks):
            return self.verbatim(source)
        return keep(self[source], blocks)

    def parts_window(
        self, core: Sequence[Message], removed: tuple[int, int], notice: str | None
    ) -> list[Any]:
        """Gemini's `write` (nothing shaped): a content keeping all of its parts is its own bytes,
        so only a content the removal splits is parsed."""
        start, end = removed
        notice_positions = () if notice is None else (anthropic.NOTICE_POSITION,)
        positions = chain(range(start), notice_positions, range(end, len(core)))
        window: list[Any] = []
        for run in anthropic.kept_runs(core, positions):
            if run is None:
                assert notice is not None
                window.append(gemini.notice_message(notice))
            else:
                window.append(self.kept(run[0], run[1], gemini.with_parts))
        return window

    def seam_window(
        self, core: Sequence[Message], removed: tuple[int, int], notice: str | None
    ) -> list[Any]:
        """Bedrock's `write` (nothing shaped): the messages at the removal's seam parsed and laid
        out by `bedrock.seam_groups`, every other kept message its own bytes when it keeps all of
        its blocks."""
        start, end = removed
        head = bedrock.runs_of(core, range(start))
        tail = bedrock.runs_of(core, range(end, len(core)))
        prev = head.pop() if head else None
        following = tail[0] if tail else None
        groups = bedrock.seam_groups(
            None if prev is None else bedrock.caller_role(core[start - 1]),
            notice is not None,
            None if following is None else bedrock.caller_role(core[end]),
        )
        window = [self.kept(source, blocks, anthropic.with_blocks) for source, blocks in head]
        for items in groups:
            runs = [
                prev if item == bedrock.PREV else following if item == bedrock.NEXT else None
                for item in items
            ]
            window.append(bedrock.written(self, runs, notice or ""))  # type: ignore[arg-type]
        window.extend(self.kept(run[0], run[1], anthropic.with_blocks) for run in tail[1:])
        return window

    def verbatim_parsed(self, index: int) -> Any:
        """`verbatim` of a message already parsed: its bytes when canonical, else its value."""
        start, end, canonical = self.scan.span(index)
        if canonical:
            return orjson.Fragment(self.view[start:end].tobytes())
        return self[index]

    def block_window(
        self,
        core: Sequence[Message],
        removed: tuple[int, int] | None,
        notice: str | None,
        texts: Mapping[int, str],
    ) -> list[Any]:
        """The Anthropic window: `with_result_texts` then `write`, over the caller's bytes."""
        shaped: dict[int, JsonObject] = {}
        for index, text in texts.items():
            message = core[index]
            source = index if message.source is None else message.source
            caller = shaped.get(source)
            if caller is None:
                original = self[source]
                caller = shaped[source] = {**original, "content": list(original["content"])}
            blocks = caller["content"]
            for position in message.blocks:
                blocks[position] = anthropic.result_with_text(blocks[position], text)
        if removed is None:
            return [shaped.get(i) or self.verbatim(i) for i in range(self.size)]
        start, end = removed
        notice_positions = () if notice is None else (anthropic.NOTICE_POSITION,)
        positions = chain(range(start), notice_positions, range(end, len(core)))
        window: list[Any] = []
        for run in anthropic.kept_runs(core, positions):
            if run is None:
                assert notice is not None
                window.append(anthropic.notice_message(notice))
                continue
            source, blocks = run
            caller = shaped.get(source)
            if caller is not None:
                window.append(anthropic.with_blocks(caller, blocks))
            elif self.scan.block_count(source) in (-1, len(blocks)):
                window.append(self.verbatim(source))
            else:
                window.append(anthropic.with_blocks(self[source], blocks))
        return window
