"""Request and response schemas of `POST /v1/window/plan` (`api.md`, `window.md` §11).

The request schema checks option types and ranges; messages are checked by the wire-format readers
and ledger rows by `app.api.ledger`, because both report the caller's own field paths. Response
models document the answer; the route serializes the core's plan directly.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    field_validator,
)
from pydantic_core import PydanticCustomError

from app.api import defaults
from app.api.schemas.common import (
    FORMAT_DESCRIPTION,
    MESSAGES_DESCRIPTION,
    SYSTEM_DESCRIPTION,
    SYSTEM_ONLY_WITH_ANTHROPIC,
    FormatName,
    LedgerRows,
    SystemPrompt,
)
from app.api.types import NonNegativeWhole, PositiveWhole, json_number
from app.core.ledger import Standing
from app.core.plan_types import Fate, HeldBy, RefusalReason, Rung, StrategyKind

STRICT = ConfigDict(extra="forbid")


class Measured(BaseModel):
    """The provider's usage report for the last model call."""

    # The document states the rule of `provider_reported_something`: not both 0.
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "anyOf": [
                {"properties": {"input_tokens": {"minimum": 1}}},
                {"properties": {"output_tokens": {"minimum": 1}}},
            ]
        },
    )
    input_tokens: NonNegativeWhole
    output_tokens: NonNegativeWhole


class SlidingWindowStrategy(BaseModel):
    """Engages when there are more turns than `keep_recent_turns`."""

    model_config = STRICT
    kind: Literal["sliding-window"]
    keep_recent_turns: PositiveWhole = defaults.DEFAULT_KEEP_RECENT_TURNS


class TokenBudgetStrategy(BaseModel):
    """Engages when the last call's measured input tokens exceed `threshold_tokens`."""

    model_config = STRICT
    kind: Literal["token-budget"]
    # The bound before the validator, so the document shows it (`exclusiveMinimum`).
    threshold_tokens: Annotated[float, Field(gt=0), BeforeValidator(json_number)]
    keep_recent_turns: PositiveWhole = defaults.DEFAULT_KEEP_RECENT_TURNS
    measured: Measured | None = Field(
        None, description="null: nothing was counted yet, so the strategy does not engage."
    )

    @field_validator("measured")
    @classmethod
    def provider_reported_something(cls, measured: Measured | None) -> Measured | None:
        if measured is not None and measured.input_tokens == 0 and measured.output_tokens == 0:
            raise PydanticCustomError(
                "measured_empty",
                "input_tokens and output_tokens are both 0: the provider reported nothing, "
                "so the budget cannot be judged",
            )
        return measured


Strategy = Annotated[SlidingWindowStrategy | TokenBudgetStrategy, Field(discriminator="kind")]


class Paused(BaseModel):
    """The call the run is paused on."""

    model_config = STRICT
    tool_call_id: Annotated[StrictStr, Field(min_length=1)]
    check_in: StrictBool = False


class PriorRefusal(BaseModel):
    """A refusal row of an earlier record; only `reason` is read back."""

    model_config = ConfigDict(extra="allow")
    reason: StrictStr


class PriorRecord(BaseModel):
    """A `record` returned by an earlier plan of this run, sent back exactly as received."""

    model_config = ConfigDict(extra="allow")
    removed_message_count: NonNegativeWhole
    refusals: list[PriorRefusal]


class PlanRequest(BaseModel):
    """What to plan: the transcript, the strategy and the pin options."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=SYSTEM_ONLY_WITH_ANTHROPIC)
    messages: list[Any] = Field(description=MESSAGES_DESCRIPTION)
    format: FormatName = Field(defaults.DEFAULT_FORMAT, description=FORMAT_DESCRIPTION)
    system: SystemPrompt = Field(None, description=SYSTEM_DESCRIPTION)
    strategy: Strategy = Field(
        default_factory=lambda: SlidingWindowStrategy(kind="sliding-window"),
        description="`sliding-window` (default, keep 6 turns) or `token-budget`.",
    )
    keep_last_tool_results: NonNegativeWhole = Field(
        defaults.DEFAULT_KEEP_LAST_TOOL_RESULTS,
        description="Ceiling of last-tool-result pins (each tool's latest result); 0 = off.",
    )
    ledger: LedgerRows | None = Field(
        None,
        description="The findings ledger. Present (even []) arms ledger-fact pins; absent or null "
        "leaves them off.",
    )
    keep_ledger_facts: NonNegativeWhole = Field(
        defaults.DEFAULT_KEEP_LEDGER_FACTS, description="Ceiling of ledger-fact pins."
    )
    request_text: StrictStr | None = Field(
        None, description="The text the run was started with; finds the current request exactly."
    )
    paused: Paused | None = Field(None, description="The call the run is paused on.")
    iteration: PositiveWhole = Field(
        defaults.DEFAULT_ITERATION, description="Written into the drop notice and the record."
    )
    prior_records: list[PriorRecord] | None = Field(
        None,
        description="The records this run received from earlier plans, oldest first (the last two "
        "are read, for the stand-down); null means [].",
    )
    include_window: StrictBool = Field(
        defaults.DEFAULT_INCLUDE_WINDOW, description="Return the new window, ready to send."
    )


def strategy_error_locs(errors: list[Any]) -> list[Any]:
    """Pydantic names a strategy error under its tag (`strategy.token-budget.x`); the contract
    names it `strategy.x`, and a missing or unknown tag is an error of `strategy.kind`."""
    fixed = []
    for error in errors:
        loc = tuple(error["loc"])
        if len(loc) >= 2 and loc[0] == "strategy":
            if loc[1] in ("sliding-window", "token-budget"):
                loc = (loc[0], *loc[2:])
            elif error["type"] in ("union_tag_invalid", "union_tag_not_found") and len(loc) == 1:
                loc = ("strategy", "kind")
        elif loc == ("strategy",) and error["type"] in ("union_tag_invalid", "union_tag_not_found"):
            loc = ("strategy", "kind")
        fixed.append({**error, "loc": loc})
    return fixed


# ---- response documentation -------------------------------------------------------------------


class CurrentRequestOut(BaseModel):
    message_index: int
    turn_index: int


class TurnOut(BaseModel):
    index: int
    start: int = Field(description="Caller index of the turn's first message.")
    length: int = Field(description="Caller messages the turn touches.")
    chars: int
    fate: Fate
    held_by: HeldBy | None


class LastToolResultPinOut(BaseModel):
    tool_name: str
    turn_index: int
    message_index: int
    chars: int


class LedgerFactPinOut(LastToolResultPinOut):
    tool_call_ids: list[str]


class LastToolResultBlock(BaseModel):
    pinned: list[LastToolResultPinOut]
    yielded: int
    limit: int
    stand_down: bool


class LedgerFactBlock(BaseModel):
    pinned: list[LedgerFactPinOut]
    yielded: int
    limit: int
    stand_down: bool


class PinsOut(BaseModel):
    last_tool_result: LastToolResultBlock | None
    ledger_fact: LedgerFactBlock | None


class RefusalOut(BaseModel):
    reason: RefusalReason
    turn_index: int
    message_index: int


class NoticeOut(BaseModel):
    content: str
    window_index: int = Field(description="The notice's position in the new window.")
    rung: Rung


class StatsOut(BaseModel):
    messages_before: int
    messages_after: int
    turns_before: int
    turns_after: int
    chars_before: int
    chars_after: int
    removed_message_count: int
    system_chars: int | None = Field(
        None, description="Anthropic format only: characters of the top-level system prompt."
    )


class DroppedStandingOut(BaseModel):
    tool_call_id: str
    standing: Standing | None


class RecordOut(BaseModel):
    strategy: StrategyKind
    iteration: int
    removed_message_count: int
    refusals: list[RefusalOut]
    pins: PinsOut


class PlanResponse(BaseModel):
    """The window plan."""

    format: Literal["native", "openai", "anthropic"]
    strategy: StrategyKind
    engaged: bool
    current_request: CurrentRequestOut | None
    turns: list[TurnOut]
    kept: list[int]
    evicted: list[int]
    evicted_messages: list[int]
    pins: PinsOut
    refusals: list[RefusalOut]
    notice: NoticeOut | None
    stats: StatsOut
    dropped_tool_names: list[str]
    dropped_standings: list[DroppedStandingOut] | None
    record: RecordOut | None
    window: list[Any] | None = Field(
        None, description="The new window in the caller's format (left out when not asked for)."
    )
