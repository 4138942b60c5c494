"""The answer of `POST /v1/window/plan` as the OpenAPI document describes it
(docs/rules.md#the-plans-answer).

Documentation only: the route serializes the core's plan directly (`app.core.plan_types` declares
its fields in the answer's key order), so these models are never built; they give the OpenAPI
document the answer's shape and words.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.core.diagnostics import DiagnosticCode
from app.core.ledger import Standing
from app.core.plan_types import (
    Fate,
    HeldBy,
    IgnoredReason,
    RefusalReason,
    Rung,
    ShapeAction,
    Stage,
    StrategyKind,
)
from app.schemas.common import UsedFormat


class CurrentRequestOut(BaseModel):
    message_index: int
    turn_index: int


class TurnOut(BaseModel):
    index: int
    start: int = Field(description="Caller index of the turn's first message.")
    length: int = Field(description="Caller messages the turn touches.")
    chars: int
    tokens: int | None = Field(None, description="With a tokenizer only.")
    fate: Fate
    held_by: HeldBy | None


class LastToolResultPinOut(BaseModel):
    tool_name: str
    turn_index: int
    message_index: int
    chars: int
    tokens: int | None = Field(None, description="The turn's tokens, with a tokenizer only.")


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
    chars_before: int = Field(description="Characters of the transcript as sent.")
    chars_shaped: int | None = Field(
        None,
        description="With `collapse`, `cap` or `clear` only: characters of the shaped transcript, "
        "before removal.",
    )
    chars_after: int
    removed_message_count: int
    system_chars: int | None = Field(
        None,
        description="Formats with a top-level system prompt only (anthropic, responses, gemini, "
        "bedrock): its characters.",
    )
    tokenizer: str | None = Field(None, description="With a tokenizer only: its name.")
    tokens_before: int | None = Field(
        None, description="With a tokenizer only: the transcript as sent."
    )
    tokens_shaped: int | None = Field(
        None,
        description="With a tokenizer and `collapse`, `cap` or `clear`: the shaped transcript, "
        "before removal.",
    )
    tokens_after: int | None = Field(
        None, description="With a tokenizer only: the window, notice included."
    )
    tokens_counted: int | None = Field(
        None,
        description="With a tokenizer only: `system_tokens` + the window, unscaled; what "
        "`calibration.counted` takes back.",
    )
    system_tokens: int | None = Field(
        None,
        description="With a tokenizer, for formats with a top-level system prompt: its tokens "
        "(0 when none was sent).",
    )


class BudgetOut(BaseModel):
    """The `fit` strategy's budget: `total` = system prompt + window + `reserve_tokens`."""

    max_tokens: int
    target_tokens: int
    reserve_tokens: int
    total_before: int
    total_after: int
    met: bool = Field(
        description="Engaged: `total_after <= target_tokens` when `stage` is `span` or "
        "`further-spans`; `total_after <= max_tokens` for a held cut and for the later stages, "
        "which aim at the limit. Not engaged: true (the window is within `max_tokens`)."
    )
    held: bool = Field(
        description="True when the plan held the previous `fit` cut (the last record of "
        "`prior_records`) instead of cutting to `target_tokens`, so the window keeps its prefix; "
        "else false (false when not engaged)."
    )
    stage: Stage = Field(
        description="The last stage that removed or shaped something: `span` (the span alone, "
        "also when nothing was removed), `further-spans`, `pins`, `keep-window` or `caps` "
        "(docs/rules.md#within-the-limit)."
    )
    released_pins: int = Field(description="The pinned turns that left (0 unless `pins` ran).")
    spans: list[BudgetSpanOut] = Field(
        description="Every maximal run of turns that left, in turn order, with the stage that "
        "took it (a run two stages took is split where the stage changes); `[]` when nothing left."
    )
    clear_held: bool | None = Field(
        None,
        description="Only when the request has `clear` on: true when the clear boundary and the "
        "cut of the last record were both held (the window still fits `max_tokens`), false "
        "otherwise (docs/rules.md#holding-the-boundary).",
    )


class BudgetSpanOut(BaseModel):
    from_turn: int
    through_turn: int
    stage: Stage = Field(description="`span` for the first span, else the stage that took it.")


class DroppedStandingOut(BaseModel):
    tool_call_id: str
    standing: Standing | None


class ShapedOut(BaseModel):
    message_index: int = Field(description="Caller index of the result's message.")
    window_index: int | None = Field(
        description="Its position in the new window; null when it was evicted."
    )
    tool_call_id: str | None = Field(
        description="The result's call id; null on an `image-cleared` or `thinking-cleared` entry."
    )
    action: ShapeAction
    chars_before: int
    chars_after: int
    images: int | None = Field(
        None,
        description="On an `image-cleared` entry only: how many of the message's images were "
        "replaced by `[image removed from the context window]`. (A `thinking-cleared` entry's "
        "`chars_before` is the visible reasoning text removed, 0 for redacted or encrypted.)",
    )


class DiagnosticOut(BaseModel):
    code: DiagnosticCode = Field(
        description="`orphan-result`, `result-outside-its-turn`, `duplicate-result`, "
        "`unanswered-call`, `duplicate-call-id`, `empty-message`; `more-diagnostics` closes a "
        "list cut at 100."
    )
    message_index: int | None = Field(
        description="Caller index of the message the finding is about (null on `more-diagnostics`)."
    )
    detail: str = Field(description="One sentence naming the ids or keys concerned.")


class RecordOut(BaseModel):
    strategy: StrategyKind
    iteration: int
    removed_message_count: int
    refusals: list[RefusalOut]
    pins: PinsOut
    cleared_results: int | None = Field(
        None,
        description="Only when the request has `clear` on: the clear boundary's position among the "
        "read results (0 when clear did not apply or there was no boundary). Under `fit`, a plan "
        "whose clear applied files a record even when it does not engage (the clear-only record: "
        "nothing removed, no refusals, no pins), so the next plan can hold the boundary.",
    )


class SummaryRequestOut(BaseModel):
    from_: int = Field(alias="from", description="The first caller message to summarize.")
    through: int = Field(description="The last caller message to summarize (included).")
    key: str = Field(description="Send it back with `from`, `through` and the text in `summaries`.")
    request: dict[str, Any] = Field(
        description="The model request in the caller's format (`messages`, or `input` / "
        "`contents`, with the system prompt under the format's own key): the window sent before, "
        "up to `through`, and the instruction. Send it as is, with the same tools and settings."
    )


class SummaryUsedOut(BaseModel):
    from_: int = Field(alias="from")
    through: int


class SummaryIgnoredOut(BaseModel):
    index: int = Field(description="Index into `summaries`.")
    reason: IgnoredReason


class PlanResponse(BaseModel):
    """The window plan."""

    format: UsedFormat
    strategy: StrategyKind
    engaged: bool
    current_request: CurrentRequestOut | None
    turns: list[TurnOut] | None = Field(None, description="Left out when `include_turns` is false.")
    kept: list[int] | None = Field(None, description="Left out when `include_turns` is false.")
    evicted: list[int] | None = Field(None, description="Left out when `include_turns` is false.")
    evicted_messages: list[int]
    pins: PinsOut
    refusals: list[RefusalOut]
    notice: NoticeOut | None
    stats: StatsOut
    budget: BudgetOut | None = Field(None, description="Under the `fit` strategy only.")
    dropped_tool_names: list[str]
    dropped_standings: list[DroppedStandingOut] | None
    shaped: list[ShapedOut] | None = Field(
        None,
        description="With `collapse`, `cap` or `clear` (or when `fit`'s caps shaped something): "
        "every result whose text the window replaces (a ticket, a clear placeholder or a cap "
        "marker), every message whose images were replaced, and every message (a Responses "
        "reasoning item) whose reasoning left, by caller message: its results, then its images, "
        "then its reasoning.",
    )
    summary_request: SummaryRequestOut | None = Field(
        None,
        description="With `summarize` or `summaries` only: what to ask the agent's own model to "
        "summarize (null when nothing is due).",
    )
    summary_used: SummaryUsedOut | None = Field(
        None,
        description="With `summarize` or `summaries` only: the entry whose summary is in the "
        "window (null: none).",
    )
    summaries_ignored: list[SummaryIgnoredOut] | None = Field(
        None,
        description="With `summarize` or `summaries` only: every other entry and why it did not "
        "apply.",
    )
    recall_tool: dict[str, Any] | None = Field(
        None,
        description="With `recall` only: the recall tool's declaration in the request's format "
        "(a Chat Completions function tool for `native` and `openai`, an Anthropic tool, a "
        "Responses function tool, a Gemini `functionDeclarations` entry, a Converse `toolSpec` "
        "entry), ready to append to the agent's tools.",
    )
    diagnostics: list[DiagnosticOut] = Field(
        description="What in the transcript as sent a provider would refuse, or looks like a "
        "mistake; [] when nothing. Never changes a decision."
    )
    record: RecordOut | None
    window: list[Any] | None = Field(
        None, description="The new window in the caller's format (left out when not asked for)."
    )
