"""The model's reasoning taken out of the caller's messages (docs/rules.md#images-and-thinking):
the window writer's half of `clear.thinking`, shared by the dialects.

Providers need the reasoning of the last assistant message only (Anthropic and Bedrock say so; a
Gemini thought part or a Responses reasoning item before it is read again and billed on every
request), so a plan with `clear.thinking` takes the reasoning out of the assistant messages at or
before the clear boundary. Which blocks or items are reasoning, and which may leave, is each
format's (`Dialect.reasoning`: one `ReasoningPart` per block or item); the core decides which
assistant messages lose theirs and reports one entry per caller message (per item in Responses)
from the same parts, so the report and the window can never disagree.

Two ways out, as the formats lay their messages out:
- blocks inside a caller message (Anthropic `thinking`, Bedrock `reasoningContent`, Gemini thought
  parts): the caller message is copied without them, and the core messages read from it have their
  block positions renumbered, so every writer path (verbatim, kept blocks, Bedrock's merging)
  writes from the copy as from the caller's own message;
- whole caller items (Responses `reasoning` items): they are left out of every verbatim stretch
  (`WithoutItems`), the core messages unchanged, so the window is a splice as before.

What it deliberately keeps: a message whose only content is reasoning (removing it would leave an
empty message the providers refuse), a Responses reasoning item paired by id with the next item
(the format's own rule), and every other block or key as sent, a `thoughtSignature` on a call part
included.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from app.core.messages import Message
from app.core.plan_types import WindowPlan
from app.formats.callers import CallerMessages, Reshaped
from app.formats.fields import JsonObject


class ReasoningPart(NamedTuple):
    """A block or item of reasoning that may leave: the caller message holding it, its position
    in that message's blocks (None: the caller item itself is the reasoning), and the characters
    of its visible text (0 for redacted or encrypted content)."""

    caller: int
    position: int | None
    chars: int


def per_caller(parts: Sequence[ReasoningPart]) -> list[tuple[int, int]]:
    """The parts as the core reports them: (caller index, characters), one per caller message,
    in order (per item when each part is an item of its own)."""
    found: dict[int, int] = {}
    for part in parts:
        key = part.caller
        found[key] = found.get(key, 0) + part.chars
    return list(found.items())


def without_blocks(
    callers: CallerMessages,
    core: Sequence[Message],
    parts: Sequence[ReasoningPart],
    key: str,
) -> tuple[CallerMessages, Sequence[Message]]:
    """`callers` with each part's block (under `key`) taken out of its caller message, and `core`
    with the blocks of the core messages read from those caller messages renumbered."""
    gone: dict[int, set[int]] = {}
    for part in parts:
        if part.position is not None:
            gone.setdefault(part.caller, set()).add(part.position)
    if not gone:
        return callers, core
    replaced: dict[int, JsonObject] = {}
    renumbered: dict[int, dict[int, int]] = {}
    for caller, positions in gone.items():
        message = callers[caller]
        blocks = message.get(key)
        if type(blocks) is not list:
            continue
        kept = [position for position in range(len(blocks)) if position not in positions]
        replaced[caller] = {**message, key: [blocks[position] for position in kept]}
        renumbered[caller] = {old: new for new, old in enumerate(kept)}
    written = list(core)
    for index, message in enumerate(core):
        source = index if message.source is None else message.source
        numbers = renumbered.get(source)
        if numbers is not None:
            blocks = tuple(numbers[block] for block in message.blocks if block in numbers)
            written[index] = message._replace(blocks=blocks)
    return Reshaped(callers, replaced), written


class WithoutItems:
    """Caller messages with some items left out of every stretch the window carries verbatim
    (Responses reasoning items); read by index, every item is still there, so the core
    messages' caller indices stay as they are."""

    __slots__ = ("callers", "items")

    def __init__(self, callers: CallerMessages, items: Collection[int]) -> None:
        self.callers = callers
        self.items = frozenset(items)

    def __len__(self) -> int:
        return len(self.callers)

    def __getitem__(self, index: int) -> Any:
        return self.callers[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.callers)

    def verbatim(self, index: int) -> Any:
        return self.callers.verbatim(index)

    def verbatim_slice(self, start: int, end: int) -> list[Any]:
        window = self.callers.verbatim_slice(start, end)
        gone = sorted(index - start for index in self.items if start <= index < end)
        for position in reversed(gone):
            del window[position]
        return window

    def with_blocks(self, index: int, blocks: list[int], key: str) -> Any:
        return self.callers.with_blocks(index, blocks, key)

    def head(self, count: int) -> CallerMessages:
        return WithoutItems(self.callers.head(count), [i for i in self.items if i < count])


def without_items(
    callers: CallerMessages, core: Sequence[Message], parts: Sequence[ReasoningPart]
) -> tuple[CallerMessages, Sequence[Message]]:
    """`callers` with each part's caller item left out of the window (`WithoutItems`)."""
    items = [part.caller for part in parts if part.position is None]
    return (WithoutItems(callers, items) if items else callers), core


# A format's reader of the reasoning a core assistant message holds that may leave.
ReasoningReader = Callable[[CallerMessages, Message], Sequence[ReasoningPart]]
# How a format takes those parts out: `without_blocks` under its key, or `without_items`.
ReasoningRemover = Callable[
    [CallerMessages, Sequence[Message], Sequence[ReasoningPart]],
    tuple[CallerMessages, Sequence[Message]],
]


def blocks_remover(key: str) -> ReasoningRemover:
    """`without_blocks` under `key` (`content`, `parts`)."""

    def remove(
        callers: CallerMessages, core: Sequence[Message], parts: Sequence[ReasoningPart]
    ) -> tuple[CallerMessages, Sequence[Message]]:
        return without_blocks(callers, core, parts, key)

    return remove


def parts_of(
    callers: CallerMessages,
    core: Sequence[Message],
    indices: Collection[int],
    reasoning: ReasoningReader,
) -> list[ReasoningPart]:
    """Every part `reasoning` (the format's reader) names in the core messages at `indices`."""
    return [part for index in sorted(indices) for part in reasoning(callers, core[index])]


def text_chars(value: Any) -> int:
    """The characters of a string (0 for anything else: redacted or encrypted content)."""
    return len(value) if isinstance(value, str) else 0


def block_parts(
    callers: CallerMessages,
    message: Message,
    key: str,
    chars_of: Callable[[Any], int | None],
) -> list[ReasoningPart]:
    """The reasoning blocks (under `key`) of an assistant core message read from one caller
    message: each block of its own that `chars_of` measures (None: not reasoning); none when
    every block of the caller message is reasoning, which it then keeps."""
    if message.role != "assistant" or not message.blocks:
        return []
    caller = message.source
    if caller is None:
        return []
    blocks = callers[caller].get(key)
    if type(blocks) is not list:
        return []
    if all(chars_of(block) is not None for block in blocks):
        return []
    found = []
    for position in message.blocks:
        chars = chars_of(blocks[position])
        if chars is not None:
            found.append(ReasoningPart(caller, position, chars))
    return found


def placed_without_items(
    callers: CallerMessages, core: Sequence[Message], plan: WindowPlan
) -> WindowPlan:
    """The plan's window figures with the reasoning items its window leaves out taken away
    (`without_items`): `messages_after` counts one message fewer for each, and every window
    index after one moves up; a left-out item's own entry names the item now where it was."""
    gone = sorted(
        entry.window_index
        for entry in plan.shaped or ()
        if entry.action == "thinking-cleared" and entry.window_index is not None
    )
    if not gone:
        return plan

    def moved(index: int) -> int:
        return index - bisect_left(gone, index)

    notice = plan.notice
    if notice is not None:
        notice = replace(notice, window_index=moved(notice.window_index))
    stats = replace(plan.stats, messages_after=plan.stats.messages_after - len(gone))
    shaped = tuple(
        entry
        if entry.window_index is None
        else replace(entry, window_index=moved(entry.window_index))
        for entry in plan.shaped or ()
    )
    return replace(plan, stats=stats, notice=notice, shaped=shaped)
