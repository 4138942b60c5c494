"""What every wire format module provides, so the package can serve each one the same way.

A dialect reads the caller's `messages` into core messages and writes a window back from the
caller's own objects, through one writer over `CallerMessages` (a parsed list or the compiled
reader's scan: `app.formats.callers`); it names the signals `auto` looks for (`Signals`; the rules'
order is `app.formats.detect`'s); formats whose content has parts say which parts are not text (for
`diagnostics`); formats whose system prompt is outside the transcript count it and say when a
`system` value is not their shape; and a format whose window is laid out differently from its core
messages (Bedrock merges neighbours of one role) places the plan's window figures itself. A format
whose provider reads nothing before a message of the transcript (Anthropic, after its last
compaction artifact) says which core message that is. A format that carries images says how its
caller messages are written with the images of chosen core messages replaced by a text
(`app.formats.cleared`): what a plan that makes room by clearing images writes. A format whose
messages carry content parts writes a message's recall text with them (`app.formats.recall_texts`).
Each format says how
its requests declare a function tool, so that a plan with recall on hands the agent the recall
tool ready to append to its tools (`recall_tool`; the words are `app.core.recall_tool`'s).

A request resolves its format to one `Dialect` once; everything after asks that object, through
the methods below, which give the optional parts (no part predicate, no system prompt, no placer)
their one meaning.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core import recall_tool
from app.core.messages import Message
from app.core.plan_types import WindowPlan
from app.formats.callers import CallerMessages, Callers, caller_messages
from app.formats.fields import JsonObject
from app.formats.reasoning import ReasoningReader, ReasoningRemover, parts_of, per_caller
from app.formats.recall_texts import RecallText, plain_recall_text

Reader = Callable[[list[Any]], list[Message]]
# The core ranges [s, e) a window leaves out, ascending and apart (empty: nothing); a notice goes
# where the first was.
Removed = tuple[tuple[int, int], ...]
# Caller message `index` read on its own (the compiled reader's fallback for a message its quick
# path leaves): its core messages, None when its reading depends on other messages; raises
# InvalidRequest when it is refused.
ReadAlone = Callable[[Any, int], list[Message] | None]
Writer = Callable[[CallerMessages, Sequence[Message], Removed, str | None], list[Any]]
Shaper = Callable[[CallerMessages, Sequence[Message], Mapping[int, str]], CallerMessages]
# The caller's messages with every image the given core messages count replaced by the format's
# text part holding `IMAGE_REMOVED_TEXT`, in its place (docs/rules.md#images).
ImageClearer = Callable[[CallerMessages, Sequence[Message], Collection[int]], CallerMessages]
PartPredicate = Callable[[CallerMessages, Message], bool]
Placer = Callable[[CallerMessages, Sequence[Message], WindowPlan], WindowPlan]
ReadingStart = Callable[[Sequence[Message]], int | None]
# A function tool as the format's requests declare it among their tools, from its name, its
# description and its parameters as a JSON Schema object.
ToolDeclarer = Callable[[str, str, dict[str, Any]], JsonObject]


@dataclass(frozen=True)
class Signals:
    """What `auto` looks for to name this format (docs/rules.md#auto): values only this format
    sends, by where in a message they are (beside each, the words a refusal names it by).

    They are data, not a function per format: detection reads every message of a transcript, so
    `app.formats.detect` looks for every format's signals in one walk, in the rules' order.
    """

    item_types: frozenset[str] = frozenset()  # a message's `type`: "a '…' item"
    part_types: frozenset[str] = frozenset()  # a content part's `type`: "an '…' content part"
    keys: tuple[str, ...] = ()  # a key of the message: "a '…' key"
    roles: tuple[str, ...] = ()  # its `role`: "the '…' role"
    # The first of these keys a content block without a `type` has: "a '…' block without a type".
    typeless_block_keys: tuple[str, ...] = ()
    block_types: frozenset[str] = frozenset()  # a content block's `type`: "a '…' block"
    call_keys: tuple[str, ...] = ()  # a key of a `tool_calls` item: "a tool call with a '…' key"
    # Rule 5's signals that the block formats send too, so they name this format only when no
    # message carries another: a role, and an array as content.
    weak_roles: tuple[str, ...] = ()
    weak_list_content: bool = False
    # Whether a top-level system prompt has this format's shape (rule 6).
    system: Callable[[Any], bool] | None = None


@dataclass(frozen=True)
class Dialect:
    """One wire format's readers and writers (see the module docstring)."""

    name: str
    read: Reader
    # The window from the caller's messages (shaped results already rewritten): the core ranges
    # `removed` left out, the notice text, if any, where the first one was.
    write: Writer
    # The caller's messages with each shaped result (core index → its new text) written as the
    # format writes a result (`with_result_texts` gives them as a list).
    rewritten: Shaper
    # A user message of the service's own holding a text (the notice), as the format writes it.
    notice_message: Callable[[str], JsonObject]
    signals: Signals | None = None
    read_alone: ReadAlone | None = None
    has_non_text_part: PartPredicate | None = None
    # Whether a result carries an image or another non-text part inside what the format writes as
    # its text (docs/rules.md#clear: such a result is cleared even when its text is short).
    result_has_parts: PartPredicate | None = None
    # Formats with a top-level system prompt (`docs/rules.md#top-level-system-prompt`): its text
    # (None when none was sent; its characters and tokens are counted from it), and why a value is
    # not this format's shape (None: it is).
    system_text: Callable[[Any], str | None] | None = None
    system_problem: Callable[[Any], str | None] | None = None
    place: Placer | None = None
    # The core index of the message the provider reads the conversation from, or None
    # (docs/rules.md#provider-compaction).
    reading_start: ReadingStart | None = None
    # A written window with a user text of the service's own after it (a summary request's
    # instruction), as the format writes a notice; None: its `notice_message` after the window.
    user_text_after: Callable[[list[Any], str], list[Any]] | None = None
    # The keys of a model request in this format: its system prompt's (None: the system prompt
    # is a message) and its messages' (docs/rules.md#summaries).
    request_keys: tuple[str | None, str] = (None, "messages")
    # The key of the array whose items a core message's `blocks` index (`content`, Gemini's
    # `parts`); None: a core message holds whole caller messages.
    blocks_key: str | None = None
    # Formats whose messages carry images: how their images are replaced by a text (None: the
    # format carries none, as native).
    clear_images: ImageClearer | None = None
    # Formats whose assistant messages carry the model's reasoning: which of it may leave, and
    # how it is taken out (docs/rules.md#images-and-thinking; None: the format carries none).
    reasoning: ReasoningReader | None = None
    remove_reasoning: ReasoningRemover | None = None
    # Formats whose messages carry content parts: a core message's recall text, its parts that
    # are not text written as marks where they stood (`app.formats.recall_texts`; None: the text
    # alone and an assistant's call lines, as native).
    recall_text: RecallText | None = None

    # How the format declares a function tool (docs/rules.md#the-recall-option); None: it has no
    # tools to declare one among.
    declare_tool: ToolDeclarer | None = None

    def recall_tool(self, name: str) -> JsonObject | None:
        """The recall tool named `name` declared as this format's requests declare a tool (the
        answer's `recall_tool`); None for a format that declares none."""
        if self.declare_tool is None:
            return None
        return self.declare_tool(name, recall_tool.DESCRIPTION, recall_tool.parameters())

    @property
    def has_system_prompt(self) -> bool:
        """Whether the format sends its system prompt outside the transcript (`system`)."""
        return self.system_text is not None

    def system_prompt_text(self, system: Any) -> str | None:
        """The text of the top-level system prompt, None when none was sent or the format keeps
        its system prompt in the transcript (native, OpenAI)."""
        return None if self.system_text is None else self.system_text(system)

    def write_window(
        self,
        raw: Callers,
        core: Sequence[Message],
        removed: Removed,
        notice: str | None,
        shaped: Mapping[int, str] | None = None,
        images_cleared: Collection[int] = (),
        thinking_cleared: Collection[int] = (),
    ) -> list[Any]:
        """The new window: the caller's messages without the core ranges `removed`, with the
        notice text, if any, where the first one was, each shaped result (core index → its new
        text) written as the format writes a result, the images of the core messages at
        `images_cleared` replaced by a text (`with_images_cleared`), and the reasoning of those
        at `thinking_cleared` taken out (`without_reasoning`)."""
        callers = caller_messages(raw)
        if shaped:
            callers = self.rewritten(callers, core, shaped)
        callers = self.with_images_cleared(callers, core, images_cleared)
        callers, core = self.without_reasoning(callers, core, thinking_cleared)
        return self.write(callers, core, removed, notice)

    def without_reasoning(
        self, callers: CallerMessages, core: Sequence[Message], indices: Collection[int]
    ) -> tuple[CallerMessages, Sequence[Message]]:
        """`callers` without the reasoning `reasoning_predicate` names in the core messages at
        `indices`, and the core messages as the writer then reads them (block positions
        renumbered where blocks left); both unchanged when there is none."""
        if self.reasoning is None or self.remove_reasoning is None or not indices:
            return callers, core
        parts = parts_of(callers, core, indices, self.reasoning)
        if not parts:
            return callers, core
        return self.remove_reasoning(callers, core, parts)

    def reasoning_predicate(self, raw: Callers) -> Callable[[Message], Sequence[tuple[int, int]]]:
        """What reasoning a core message read from `raw` holds that may leave: (caller index,
        visible characters) per caller message (per item in Responses); none for a format that
        carries none."""
        reasoning = self.reasoning
        if reasoning is None:
            return lambda message: ()
        callers = caller_messages(raw)
        return lambda message: per_caller(reasoning(callers, message))

    def recall_texts(self, raw: Callers) -> Callable[[Message], str]:
        """The recall text of a core message read from `raw` (docs/rules.md#answering-a-recall):
        a user or tool message's text with its other parts as `[image]` or `[file]` where they
        stood, an assistant's text and a line `{name} {arguments}` per call."""
        callers = caller_messages(raw)
        recall_text = self.recall_text or plain_recall_text
        return lambda message: recall_text(callers, message)

    def with_images_cleared(
        self, callers: CallerMessages, core: Sequence[Message], indices: Collection[int]
    ) -> CallerMessages:
        """`callers` with every image the core messages at `indices` count replaced, in its
        place, by the format's text part holding `IMAGE_REMOVED_TEXT` (never an image the provider
        requires: `Image.required`); each changed caller message a copy, everything else of it as
        sent. `callers` itself when the format carries no images or `indices` is empty."""
        if self.clear_images is None or not indices:
            return callers
        return self.clear_images(callers, core, indices)

    def with_result_texts(
        self, raw: Callers, core: Sequence[Message], texts: Mapping[int, str]
    ) -> list[Any]:
        """The caller's messages with each shaped result (core index → its new text) written as
        the format writes a result, every other message as the window carries it unchanged."""
        callers = self.rewritten(caller_messages(raw), core, texts)
        return callers.verbatim_slice(0, len(callers))

    def place_window(self, raw: Callers, core: Sequence[Message], plan: WindowPlan) -> WindowPlan:
        """The plan with its window figures (`messages_after`, the notice's and shaped results'
        `window_index`) as the format lays its window out; the core's own for most formats."""
        return plan if self.place is None else self.place(caller_messages(raw), core, plan)

    def with_user_text(self, window: list[Any], text: str) -> list[Any]:
        """`window` followed by a user text of the service's own, written as the format writes a
        notice (joined to a preceding user message where roles must alternate)."""
        if self.user_text_after is None:
            return [*window, self.notice_message(text)]
        return self.user_text_after(window, text)

    def provider_reads_from(self, core: Sequence[Message]) -> int | None:
        """The core index of the message the provider reads the conversation from, when it reads
        nothing before one (the core then looks for the current request and the pins only after
        that message's turn); None when it reads all of it, as most formats' providers do."""
        return None if self.reading_start is None else self.reading_start(core)

    def result_parts_predicate(self, raw: Callers) -> Callable[[Message], bool]:
        """Whether a result read from `raw` carries a non-text part inside its result (an image
        in an Anthropic `tool_result`'s content, in a Bedrock `toolResult`, …)."""
        return self.predicate(self.result_has_parts, raw)

    def non_text_part_predicate(self, raw: Callers) -> Callable[[Message], bool]:
        """Whether a core message read from `raw` carries a part other than text (an image, a
        file, audio, a document): the one thing `app.core.diagnostics` asks a format."""
        return self.predicate(self.has_non_text_part, raw)

    @staticmethod
    def predicate(asked: PartPredicate | None, raw: Callers) -> Callable[[Message], bool]:
        if asked is None:  # a format whose messages (results) carry text alone
            return lambda message: False
        callers = caller_messages(raw)
        return lambda message: asked(callers, message)
