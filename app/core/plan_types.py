"""The values a window plan reads and returns.

Inputs are the options of `POST /v1/window/plan` after the HTTP layer has validated them; outputs
are the plan, whose fields are declared in the order the response writes them, so a serializer that
walks the fields in order produces the documented key order. Every index in an output value refers
to the caller's messages array; only `WindowPlan.removed` holds ranges of the core transcript, for
the writer that builds the new window.

Outputs are frozen dataclasses, except the two that come once per turn or once per removed result
(`Turn`, `DroppedStanding`): a plan of 100,000 messages builds tens of thousands of them, and as
typed dicts they cost a fifth as much to build and to serialize. Treat them as read-only. The
output dataclasses have no `__slots__`: orjson writes a dataclass from its `__dict__` several times
faster than from slots (a 50-message plan's answer: 24 against 11 µs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Literal, NotRequired, TypedDict, TypeVar

from app.core.collapse import CollapseMode
from app.core.defaults import (
    DEFAULT_CLEAR_EXCLUDE_TOOLS,
    DEFAULT_CLEAR_IMAGES,
    DEFAULT_CLEAR_KEEP_LAST,
    DEFAULT_CLEAR_STEP,
    DEFAULT_CLEAR_THINKING,
    DEFAULT_CLEAR_TRIGGER_TOKENS,
    DEFAULT_FRAME_DETECTION,
    DEFAULT_ITERATION,
    DEFAULT_KEEP_LAST_TOOL_RESULTS,
    DEFAULT_KEEP_LEDGER_FACTS,
    DEFAULT_RECALL_TOOL_NAME,
    DEFAULT_SUMMARY_INSTRUCTIONS,
    DEFAULT_SUMMARY_MIN_SPAN_TOKENS,
)
from app.core.frames import FrameDetection
from app.core.ledger import Standing, StandingRow
from app.core.strategies import Budget as Budget
from app.core.strategies import Fit as Fit
from app.core.strategies import Measured as Measured
from app.core.strategies import SlidingWindow as SlidingWindow
from app.core.strategies import Stage as Stage
from app.core.strategies import Strategy as Strategy
from app.core.strategies import StrategyKind as StrategyKind
from app.core.strategies import TokenBudget as TokenBudget
from app.core.tokens import Calibration, Tokenizer

RefusalReason = Literal[
    "current-request",
    "system-envelope",
    "paused-tool",
    "pending-check-in",
    "unresolved-tool-call",
    "last-tool-result",
    "ledger-fact",
    "inside-keep-window",
    "replacement-not-smaller",
]
# `within-budget` is no refusal: the `fit` strategy did not need the turn
# (docs/rules.md#the-fit-strategy).
HeldBy = RefusalReason | Literal["not-reached", "within-budget"]
Fate = Literal["kept", "evicted"]
Rung = Literal["rich", "plain", "summary"]
ShapeAction = Literal["collapsed", "cleared", "capped", "image-cleared", "thinking-cleared"]


# --- inputs ---------------------------------------------------------------------------------------

# The strategies (`SlidingWindow`, `TokenBudget` with its `Measured`, `Fit`, and the `Strategy`
# protocol they meet) are defined beside their rules in `app.core.strategies`, imported above.
# The default one is `sliding-window` with its defaults; a frozen value, shared by every plan.
DEFAULT_STRATEGY: Final = SlidingWindow()


@dataclass(frozen=True, slots=True)
class Paused:
    """The call the run is paused on; `check_in` when it waits for a person."""

    tool_call_id: str
    check_in: bool = False


@dataclass(frozen=True, slots=True)
class CapOption:
    """The plan's `cap`: the ceiling on one result's text, and per-tool ceilings over it."""

    max_chars: int
    max_chars_by_tool: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ClearOption:
    """The plan's `clear` (docs/rules.md#clear): read results older than the newest `keep_last`
    become a placeholder, the boundary moving by `step` read results at a time; `exclude_tools`
    are never cleared; with `trigger_tokens`, only when the total before clearing is over it;
    `images` and `thinking` clear the images and the model's reasoning at the same boundary
    (docs/rules.md#images-and-thinking)."""

    keep_last: int = DEFAULT_CLEAR_KEEP_LAST
    step: int = DEFAULT_CLEAR_STEP
    exclude_tools: frozenset[str] = frozenset(DEFAULT_CLEAR_EXCLUDE_TOOLS)
    trigger_tokens: int | None = DEFAULT_CLEAR_TRIGGER_TOKENS
    images: bool = DEFAULT_CLEAR_IMAGES
    thinking: bool = DEFAULT_CLEAR_THINKING


@dataclass(frozen=True, slots=True)
class SummarizeOption:
    """The plan's `summarize` (docs/rules.md#summaries): ask for a summary request when a span of
    at least `min_span_tokens` leaves at the front, ending with `instructions`."""

    instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS
    min_span_tokens: int = DEFAULT_SUMMARY_MIN_SPAN_TOKENS


@dataclass(frozen=True, slots=True)
class RecallOption:
    """The plan's `recall` (docs/rules.md#the-recall-option): the texts the window writes name
    the tool `tool_name`, which the answer declares, and a result of that tool is never capped."""

    tool_name: str = DEFAULT_RECALL_TOOL_NAME


# Why an entry of `summaries` does not apply, in the order the first that fits is reported.
IgnoredReason = Literal[
    "out-of-range",
    "changed",
    "not-at-the-front",
    "not-at-the-span",
    "beyond-the-span",
    "not-a-turn-boundary",
    "not-smaller",
    "superseded",
]


@dataclass(frozen=True, slots=True)
class SummaryEntry:
    """One entry of `summaries`: the caller messages `first … through` it stands for, its text,
    and, when its key did not match this request's messages, why (`out-of-range`, `changed`;
    the key is checked where the caller's messages are read, None: it matched)."""

    first: int
    through: int
    summary: str
    mismatch: IgnoredReason | None = None


@dataclass(frozen=True, slots=True)
class PriorRecord:
    """What is read back from a record this service returned earlier: the stand-down reads the
    count removed and the refusals' reasons, the `fit` strategy's held cut the count and the
    strategy (None when the record's `strategy` is not a string: it then holds no cut), and its
    clear boundary `cleared_results` (None when the record has none: it holds no boundary)."""

    removed_message_count: int
    refusal_reasons: tuple[str, ...]
    strategy: str | None = None
    cleared_results: int | None = None


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """Every option of a plan. `ledger` None means absent: ledger-fact pins are off."""

    strategy: Strategy = DEFAULT_STRATEGY
    keep_last_tool_results: int = DEFAULT_KEEP_LAST_TOOL_RESULTS
    ledger: tuple[StandingRow, ...] | None = None
    keep_ledger_facts: int = DEFAULT_KEEP_LEDGER_FACTS
    request_text: str | None = None
    # Framework frames (docs/rules.md#framework-frames): whether a user message an agent framework
    # wrote is told apart from a person's, and the element names that make one besides the list.
    frames: FrameDetection = DEFAULT_FRAME_DETECTION
    # Provider compaction (docs/rules.md#provider-compaction): the core index of the message the
    # provider reads the conversation from (Anthropic's last compaction artifact), set by the
    # caller's format; None when the provider reads all of it. The current request and the pins
    # are then looked for only in the turns after that message's turn.
    provider_reads_from: int | None = None
    paused: Paused | None = None
    iteration: int = DEFAULT_ITERATION
    prior_records: tuple[PriorRecord, ...] = ()
    # Characters of a system prompt sent outside the transcript (Anthropic's top-level `system`);
    # None when the format has none, so the stats leave the count out.
    system_chars: int | None = None
    # Shaping (docs/rules.md#shaping): all off by default.
    collapse: CollapseMode | None = None
    cap: CapOption | None = None
    clear: ClearOption | None = None
    # Tokens (docs/rules.md#tokens): the tokenizer asked for (None: no token figures, unless the
    # strategy is `fit`, which then counts with `estimate`), the calibration against a provider's
    # count, and the text of a system prompt sent outside the transcript (None when none was sent).
    tokenizer: Tokenizer | None = None
    calibration: Calibration | None = None
    system_text: str | None = None
    # Summaries (docs/rules.md#summaries): off, and none carried, by default.
    summarize: SummarizeOption | None = None
    summaries: tuple[SummaryEntry, ...] = ()
    # Recall (docs/rules.md#the-recall-option): None, off.
    recall: RecallOption | None = None

    @property
    def recall_tool(self) -> str | None:
        """The recall tool's name the window's texts name, None when recall is off."""
        return None if self.recall is None else self.recall.tool_name


# --- outputs --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CurrentRequest:
    message_index: int
    turn_index: int


class Turn(TypedDict):
    """A turn as reported: `start` and `length` in caller messages, `chars` of its core messages."""

    index: int
    start: int
    length: int
    chars: int
    tokens: NotRequired[int]  # with a tokenizer only, written right after `chars`
    fate: Fate
    held_by: HeldBy | None


@dataclass(frozen=True)
class LastToolResultPin:
    tool_name: str
    turn_index: int
    message_index: int
    chars: int
    tokens: int | None  # the turn's tokens, with a tokenizer only (the answer leaves None out)


@dataclass(frozen=True)
class LedgerFactPin:
    tool_name: str
    turn_index: int
    message_index: int
    chars: int
    tokens: int | None
    tool_call_ids: tuple[str, ...]


PinT = TypeVar("PinT", LastToolResultPin, LedgerFactPin)


@dataclass(frozen=True)
class PinBlock(Generic[PinT]):
    """What one pin kind holds: the admitted pins, and how many the ceiling turned away."""

    pinned: tuple[PinT, ...]
    yielded: int
    limit: int
    stand_down: bool


@dataclass(frozen=True)
class Pins:
    last_tool_result: PinBlock[LastToolResultPin] | None
    ledger_fact: PinBlock[LedgerFactPin] | None


NO_PINS = Pins(last_tool_result=None, ledger_fact=None)


@dataclass(frozen=True)
class Refusal:
    reason: RefusalReason
    turn_index: int
    message_index: int


@dataclass(frozen=True)
class Notice:
    """The drop notice inserted where the span was; `window_index` counts caller messages."""

    content: str
    window_index: int
    rung: Rung


@dataclass(frozen=True)
class Stats:
    """Counts before and after. `chars_before` is the transcript as sent; `chars_shaped` (None
    unless shaping is on) the shaped transcript before removal; `system_chars` (None for a format
    whose system prompt is a message) a top-level system prompt, counted apart. The response
    leaves the None ones out."""

    messages_before: int
    messages_after: int
    turns_before: int
    turns_after: int
    chars_before: int
    chars_shaped: int | None
    chars_after: int
    removed_message_count: int
    system_chars: int | None
    # With a tokenizer only (docs/rules.md#token-figures-in-the-answer), else None and left out.
    tokenizer: str | None = None
    tokens_before: int | None = None
    tokens_shaped: int | None = None
    tokens_after: int | None = None
    tokens_counted: int | None = None
    system_tokens: int | None = None


# `Budget`, the `fit` strategy's block of the answer, is defined in `app.core.strategies.fit`.


@dataclass(frozen=True, slots=True)
class ShapedResult:
    """One result whose text shaping replaced, one message whose images were replaced (action
    `image-cleared`: `tool_call_id` None, `images` of them, each now the text
    `app.core.images.IMAGE_REMOVED_TEXT`), or one caller message or item whose reasoning left
    (`thinking-cleared`: `chars_before` the visible reasoning text removed): where it is (core
    index; `caller`, the caller index, when it is not the core message's own, as a Responses
    reasoning item inside its run), how, and its sizes."""

    index: int
    tool_call_id: str | None
    tool_name: str | None
    action: ShapeAction
    chars_before: int
    chars_after: int
    content: str
    images: int = 0
    caller: int | None = None


@dataclass(frozen=True)
class ShapedEntry:
    """A shaped result as reported: caller index, its place in the new window (None: evicted)."""

    message_index: int
    window_index: int | None
    tool_call_id: str | None
    action: ShapeAction
    chars_before: int
    chars_after: int


@dataclass(frozen=True)
class ImagesClearedEntry(ShapedEntry):
    """A caller message whose images were replaced, as reported: a shaped entry with the number
    of images (docs/rules.md#caps-and-images)."""

    images: int


class DroppedStanding(TypedDict):
    tool_call_id: str
    standing: Standing | None


def answered_pins(pins: Pins) -> Pins | dict[str, Any]:
    """The pins as the answer writes them: a pin's `tokens` only when a tokenizer counted it."""
    blocks = (pins.last_tool_result, pins.ledger_fact)
    if not any(block is not None and block.pinned and block.pinned[0].tokens is None
               for block in blocks):  # fmt: skip
        return pins
    return {
        kind: None
        if block is None
        else {
            **vars(block),
            "pinned": [
                {key: value for key, value in vars(pin).items() if key != "tokens"}
                for pin in block.pinned
            ],
        }
        for kind, block in vars(pins).items()
    }


@dataclass(frozen=True)
class Record:
    """What an engaged plan files (and, under `fit` with clear applied, any plan: the clear-only
    record); the caller sends it back in `prior_records`. `cleared_results` is the clear
    boundary's position among the read results when the request has `clear` on (0: none), None
    otherwise, when the answer leaves the key out."""

    strategy: StrategyKind
    iteration: int
    removed_message_count: int
    refusals: tuple[Refusal, ...]
    pins: Pins
    cleared_results: int | None = None


def answered_record(record: Record | None) -> Record | dict[str, Any] | None:
    """The record as the answer writes it: its pins as `answered_pins` writes them, and
    `cleared_results` only when the request has `clear` on."""
    if record is None:
        return None
    pins = answered_pins(record.pins)
    if pins is record.pins and record.cleared_results is not None:
        return record
    written = {**vars(record), "pins": pins}
    if record.cleared_results is None:
        del written["cleared_results"]
    return written


def answered_budget(budget: Budget) -> Budget | dict[str, Any]:
    """The budget as the answer writes it: `clear_held` only when the request has `clear` on."""
    if budget.clear_held is not None:
        return budget
    written = dict(vars(budget))
    del written["clear_held"]
    return written


@dataclass(frozen=True, slots=True)
class SummaryRequestPlan:
    """What the summary request holds, in core positions (the caller's format writes it): the
    caller messages `first … through` it asks to summarize (its key's range); the core messages
    `0 … end−1` it carries, with `replaced` ([s, e)) standing as `summary` when an entry applied
    (its summary message as first written); and the instruction it ends with."""

    first: int
    through: int
    end: int
    replaced: tuple[int, int] | None
    summary: str | None
    instructions: str


@dataclass(frozen=True, slots=True)
class SummaryOutcome:
    """The answer's `summary_request` (None: none), `summary_used` (the entry that applied, as
    `(from, through)`) and `summaries_ignored` (`(index, reason)`, in order)."""

    request: SummaryRequestPlan | None
    used: tuple[int, int] | None
    ignored: tuple[tuple[int, IgnoredReason], ...]


@dataclass(frozen=True, slots=True)
class WindowPlan:
    """The plan, in response order; `strategy`, `removed`, `shaped_results` are for the writer.

    `removed` is the core message ranges [s, e) that leave, ascending and apart (empty when nothing
    leaves); a notice, when there is one, takes the place of the first. `shaped_results` are the
    results whose text the window replaces and the messages whose images it replaces (empty when
    nothing is shaped).
    """

    engaged: bool
    current_request: CurrentRequest | None
    turns: tuple[Turn, ...]
    kept: tuple[int, ...]
    evicted: tuple[int, ...]
    evicted_messages: tuple[int, ...]
    pins: Pins
    refusals: tuple[Refusal, ...]
    notice: Notice | None
    stats: Stats
    budget: Budget | None
    dropped_tool_names: tuple[str, ...]
    dropped_standings: tuple[DroppedStanding, ...] | None
    shaped: tuple[ShapedEntry, ...] | None
    record: Record | None
    strategy: StrategyKind
    removed: tuple[tuple[int, int], ...]
    shaped_results: tuple[ShapedResult, ...]
    # With `summarize` on or `summaries` sent (docs/rules.md#summaries); None otherwise.
    summaries: SummaryOutcome | None = None
