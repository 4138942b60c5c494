"""The values a window plan reads and returns.

Inputs are the options of `POST /v1/window/plan` after the HTTP layer has validated them; outputs
are the plan, whose fields are declared in the order the response writes them, so a serializer that
walks the fields in order produces the documented key order. Every index in an output value refers
to the caller's messages array; only `WindowPlan.removed` is a range of the core transcript, for the
writer that builds the new window.

Outputs are frozen dataclasses, except the two that come once per turn or once per removed result
(`Turn`, `DroppedStanding`): a plan of 100,000 messages builds tens of thousands of them, and as
typed dicts they cost a fifth as much to build and to serialize. Treat them as read-only. The
output dataclasses have no `__slots__`: orjson writes a dataclass from its `__dict__` several times
faster than from slots (a 50-message plan's answer: 24 against 11 µs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, Literal, TypedDict, TypeVar

from app.core.collapse import CollapseMode
from app.core.defaults import (
    DEFAULT_ITERATION,
    DEFAULT_KEEP_LAST_TOOL_RESULTS,
    DEFAULT_KEEP_LEDGER_FACTS,
    DEFAULT_KEEP_RECENT_TURNS,
)
from app.core.ledger import Standing, StandingRow

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
HeldBy = RefusalReason | Literal["not-reached"]
Fate = Literal["kept", "evicted"]
Rung = Literal["rich", "plain"]
StrategyKind = Literal["sliding-window", "token-budget"]
ShapeAction = Literal["collapsed", "capped"]


# --- inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SlidingWindow:
    """Act whenever the transcript holds more turns than the keep window."""

    keep_recent_turns: int = DEFAULT_KEEP_RECENT_TURNS

    @property
    def kind(self) -> StrategyKind:
        return "sliding-window"


@dataclass(frozen=True, slots=True)
class Measured:
    """The provider's usage report for the last model call."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class TokenBudget:
    """Act when the provider measured more input tokens than the threshold."""

    threshold_tokens: float
    keep_recent_turns: int = DEFAULT_KEEP_RECENT_TURNS
    measured: Measured | None = None

    @property
    def kind(self) -> StrategyKind:
        return "token-budget"


Strategy = SlidingWindow | TokenBudget


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
class PriorRecord:
    """The two things the stand-down reads back from a record this service returned earlier."""

    removed_message_count: int
    refusal_reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """Every option of a plan. `ledger` None means absent: ledger-fact pins are off."""

    strategy: Strategy = SlidingWindow()
    keep_last_tool_results: int = DEFAULT_KEEP_LAST_TOOL_RESULTS
    ledger: tuple[StandingRow, ...] | None = None
    keep_ledger_facts: int = DEFAULT_KEEP_LEDGER_FACTS
    request_text: str | None = None
    paused: Paused | None = None
    iteration: int = DEFAULT_ITERATION
    prior_records: tuple[PriorRecord, ...] = ()
    # Characters of a system prompt sent outside the transcript (Anthropic's top-level `system`);
    # None when the format has none, so the stats leave the count out.
    system_chars: int | None = None
    # Shaping (shaping.md): both off by default.
    collapse: CollapseMode | None = None
    cap: CapOption | None = None


# --- outputs ----------------------------------------------------------------------------------


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
    fate: Fate
    held_by: HeldBy | None


@dataclass(frozen=True)
class LastToolResultPin:
    tool_name: str
    turn_index: int
    message_index: int
    chars: int


@dataclass(frozen=True)
class LedgerFactPin:
    tool_name: str
    turn_index: int
    message_index: int
    chars: int
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


@dataclass(frozen=True, slots=True)
class ShapedResult:
    """One result whose text shaping replaced: where it is (core index), how, and its sizes."""

    index: int
    tool_call_id: str
    tool_name: str | None
    action: ShapeAction
    chars_before: int
    chars_after: int
    content: str


@dataclass(frozen=True)
class ShapedEntry:
    """A shaped result as reported: caller index, its place in the new window (None: evicted)."""

    message_index: int
    window_index: int | None
    tool_call_id: str
    action: ShapeAction
    chars_before: int
    chars_after: int


class DroppedStanding(TypedDict):
    tool_call_id: str
    standing: Standing | None


@dataclass(frozen=True)
class Record:
    """What an engaged plan files; the caller sends it back in `prior_records`."""

    strategy: StrategyKind
    iteration: int
    removed_message_count: int
    refusals: tuple[Refusal, ...]
    pins: Pins


@dataclass(frozen=True, slots=True)
class WindowPlan:
    """The plan, in response order; `strategy`, `removed`, `shaped_results` are for the writer.

    `removed` is the core message range [s, e) that leaves, or None when nothing leaves; a notice,
    when there is one, takes the place of that range. `shaped_results` are the results whose text
    the window replaces (empty when shaping is off).
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
    dropped_tool_names: tuple[str, ...]
    dropped_standings: tuple[DroppedStanding, ...] | None
    shaped: tuple[ShapedEntry, ...] | None
    record: Record | None
    strategy: StrategyKind
    removed: tuple[int, int] | None
    shaped_results: tuple[ShapedResult, ...]
