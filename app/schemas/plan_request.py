"""The request schema of `POST /v1/window/plan` (docs/rules.md#validation).

The schema checks option types and ranges; messages are checked by the wire-format readers and
ledger rows by `app.service.ledger`, because both report the caller's own field paths. A provider's
usage report is read by `app.schemas.usage_report`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    StrictBool,
    StrictStr,
    ValidationInfo,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from app.core import defaults
from app.core.collapse import CollapseMode
from app.core.plan_types import StrategyKind
from app.core.recall_tool import MAX_TOOL_NAME_CHARS, TOOL_NAME_PATTERN, is_tool_name
from app.core.strategies import Fit, Overflow, SlidingWindow, TokenBudget
from app.core.strategies import Strategy as CoreStrategy
from app.schemas.cap import CapChars
from app.schemas.common import (
    FORMAT_DESCRIPTION,
    MESSAGES_DESCRIPTION,
    NO_SYSTEM_FOR_MESSAGE_FORMATS,
    SYSTEM_DESCRIPTION,
    FormatName,
    LedgerRows,
    SystemPrompt,
)
from app.schemas.types import NonNegativeWhole, PositiveWhole, json_number
from app.schemas.usage_report import CalibrationUsage, UsageReport
from app.tokenizers import TOKENIZERS

STRICT = ConfigDict(extra="forbid")


class SlidingWindowStrategy(BaseModel):
    """Engages when there are more turns than `keep_recent_turns`."""

    model_config = STRICT
    kind: Literal["sliding-window"]
    keep_recent_turns: PositiveWhole = defaults.DEFAULT_KEEP_RECENT_TURNS

    def core(self) -> CoreStrategy:
        """The core's strategy this option asks for."""
        return SlidingWindow(keep_recent_turns=self.keep_recent_turns)


class TokenBudgetStrategy(BaseModel):
    """Engages when the last call's measured input tokens exceed `threshold_tokens`."""

    model_config = STRICT
    kind: Literal["token-budget"]
    # The bound before the validator, so the document shows it (`exclusiveMinimum`).
    threshold_tokens: Annotated[float, Field(gt=0), BeforeValidator(json_number)]
    keep_recent_turns: PositiveWhole = defaults.DEFAULT_KEEP_RECENT_TURNS
    measured: UsageReport = Field(
        None,
        description="The last call's usage: the service's own counts or the provider's usage "
        "object as its SDK returns it (pass `response.usage` on unchanged). null: nothing was "
        "counted yet, so the strategy does not engage.",
    )

    def core(self) -> CoreStrategy:
        """The core's strategy this option asks for."""
        return TokenBudget(
            threshold_tokens=self.threshold_tokens,
            keep_recent_turns=self.keep_recent_turns,
            measured=self.measured,
        )


def refuse_null(value: Any) -> Any:
    """A field whose default is computed: absent means the default, null is refused."""
    if value is None:
        raise PydanticCustomError(
            "int_type", "must be a whole number (leave it out for the default)"
        )
    return value


TargetTokens = Annotated[PositiveWhole, BeforeValidator(refuse_null)]


def without_default(schema: dict[str, Any]) -> None:
    """A default computed from another field is written in the description, not as a value."""
    schema.pop("default", None)


class FitStrategy(BaseModel):
    """Engages when the counted window (system prompt, transcript and `reserve_tokens`) is over
    `max_tokens`; removes the fewest turns that bring it to `target_tokens`
    (docs/rules.md#the-fit-strategy)."""

    model_config = STRICT
    kind: Literal["fit"]
    max_tokens: PositiveWhole = Field(description="The budget that engages the strategy.")
    # No null: absent means the default. Defaults are not validated, so None stands for it.
    target_tokens: TargetTokens = Field(  # type: ignore[assignment]
        None,
        json_schema_extra=without_default,
        description="What a cut aims at, at most `max_tokens`; default max(1, floor(0.8 × "
        "max_tokens)), which leaves the window room to grow with the same prefix (prompt caches).",
    )
    reserve_tokens: NonNegativeWhole = Field(
        defaults.DEFAULT_FIT_RESERVE_TOKENS,
        description="What the next call adds outside the transcript (tool schemas, instructions, "
        "the reply's room), counted in every total.",
    )
    keep_recent_turns: PositiveWhole = defaults.DEFAULT_FIT_KEEP_RECENT_TURNS
    overflow: Overflow = Field(
        defaults.DEFAULT_FIT_OVERFLOW,
        description="When the span leaves the window over `target_tokens`, `fit` goes on: further "
        "spans, then pinned turns, then the keep window's turns, then (`cap`) the kept results "
        "capped and images replaced; `report` stops before the caps "
        "(docs/rules.md#within-the-limit).",
    )

    def core(self) -> CoreStrategy:
        """The core's strategy this option asks for."""
        return Fit(
            max_tokens=self.max_tokens,
            target_tokens=self.target_tokens,
            reserve_tokens=self.reserve_tokens,
            keep_recent_turns=self.keep_recent_turns,
            overflow=self.overflow,
        )


Strategy = Annotated[
    SlidingWindowStrategy | TokenBudgetStrategy | FitStrategy, Field(discriminator="kind")
]


def check_tokenizer(value: Any) -> str:
    if type(value) is not str or value not in TOKENIZERS:
        raise PydanticCustomError(
            "literal_error", f"must be one of {', '.join(TOKENIZERS)} or null"
        )
    result: str = value
    return result


TokenizerName = Annotated[
    str, PlainValidator(check_tokenizer), WithJsonSchema({"enum": list(TOKENIZERS)})
]


class Calibration(BaseModel):
    """Scale every count to what the provider measured for the window last sent
    (docs/rules.md#calibration):
    `scale = (input_tokens(measured) − reserve_tokens) / counted`, at least 0.1."""

    model_config = STRICT
    counted: PositiveWhole = Field(
        description="The `stats.tokens_counted` this service returned for the window last sent."
    )
    measured: CalibrationUsage = Field(
        description="That call's usage, in any shape `strategy.measured` accepts."
    )


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
    """A `record` returned by an earlier plan of this run, sent back exactly as received. Its
    `strategy` is read too (the `fit` strategy's held cut); another value, or none, holds no
    cut. `cleared_results`, on the records of a request with `clear` on, is the clear boundary
    the next `fit` plan may hold (docs/rules.md#holding-the-boundary)."""

    model_config = ConfigDict(extra="allow")
    removed_message_count: NonNegativeWhole
    refusals: list[PriorRefusal]
    cleared_results: NonNegativeWhole | None = Field(
        None,
        description="The clear boundary's position among the read results (0: none), on a record "
        "of a request with `clear` on; absent or null: the record holds no boundary.",
    )


# `collapse` reads the ledger's standings, so a request that turns it on must send `ledger` (the
# rule of `app.service.plan_input`), stated in the document.
COLLAPSE_NEEDS_LEDGER: dict[str, Any] = {
    "if": {"properties": {"collapse": {"type": "string"}}, "required": ["collapse"]},
    "then": {"properties": {"ledger": {"type": "array"}}, "required": ["ledger"]},
}


class PlanCap(BaseModel):
    """The plan's `cap` (docs/rules.md#shaping): a result whose text is over its ceiling is
    replaced by the cap's marker, written as compact JSON."""

    model_config = STRICT
    max_chars: CapChars = Field(
        description="The ceiling on one result's text, in characters (Unicode code points)."
    )
    max_chars_by_tool: dict[str, CapChars] | None = Field(
        default_factory=dict,
        description="Per-tool ceilings overriding `max_chars` (the result's tool name, exact); "
        "null means {}, as on `POST /v1/tool-results/cap`.",
    )


class PlanClear(BaseModel):
    """The plan's `clear` (docs/rules.md#clear): results the model has read, older than the newest
    `keep_last`, are sent as a short placeholder, the boundary moving by `step` read results at a
    time so the window's prefix stays the same between moves (a provider prompt cache keeps
    hitting). `{}` is all defaults."""

    model_config = STRICT
    keep_last: NonNegativeWhole = Field(
        defaults.DEFAULT_CLEAR_KEEP_LAST,
        description="The newest read results never cleared (the boundary's distance from them).",
    )
    step: PositiveWhole = Field(
        defaults.DEFAULT_CLEAR_STEP,
        description="The boundary moves every `step` read results (1: with every result).",
    )
    exclude_tools: list[StrictStr] = Field(
        list(defaults.DEFAULT_CLEAR_EXCLUDE_TOOLS),
        description="Tool names whose results are never cleared.",
    )
    trigger_tokens: PositiveWhole | None = Field(
        defaults.DEFAULT_CLEAR_TRIGGER_TOKENS,
        description="Clear only when the total before clearing (system prompt, transcript and "
        "`fit`'s reserve, in tokens) is over this. null: under `fit` when that total is over "
        "`max_tokens`, under any other strategy always.",
    )
    images: StrictBool = Field(
        defaults.DEFAULT_CLEAR_IMAGES,
        description="Replace the images of the user messages and results at or before the "
        "boundary by the text `[image removed from the context window]` (never the current "
        "request's, a spared result's, or a Responses computer screenshot).",
    )
    thinking: StrictBool = Field(
        defaults.DEFAULT_CLEAR_THINKING,
        description="Remove the model's reasoning (Anthropic thinking, Bedrock reasoning content, "
        "Responses reasoning items, Gemini thought parts) from the assistant messages at or before "
        "the boundary (never the last assistant message's).",
    )


class PlanSummarize(BaseModel):
    """The plan's `summarize` (docs/rules.md#summaries): when a span leaves at the front, the
    answer carries a summary request, ready to send to the agent's own model. `{}` is all
    defaults."""

    model_config = STRICT
    instructions: Annotated[StrictStr, Field(min_length=1)] = Field(
        defaults.DEFAULT_SUMMARY_INSTRUCTIONS,
        description="The instruction the summary request ends with, as a user text.",
    )
    min_span_tokens: NonNegativeWhole = Field(
        defaults.DEFAULT_SUMMARY_MIN_SPAN_TOKENS,
        description="A span under this many tokens (the request's tokenizer, `estimate` when "
        "none) gets no summary request: it is not worth a model call.",
    )


def check_recall_tool_name(name: str) -> str:
    """The whole name matches the recall tool's pattern (`re.fullmatch`: a trailing newline is
    refused, which a `$` anchor would let through)."""
    if not is_tool_name(name):
        raise PydanticCustomError(
            "string_pattern_mismatch",
            "must match {pattern}, at most {max_chars} characters: a function tool name every "
            "provider accepts",
            {"pattern": TOOL_NAME_PATTERN, "max_chars": MAX_TOOL_NAME_CHARS},
        )
    return name


RecallToolName = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=MAX_TOOL_NAME_CHARS,
        json_schema_extra={"pattern": f"^{TOOL_NAME_PATTERN}$"},
    ),
    AfterValidator(check_recall_tool_name),
]


class PlanRecall(BaseModel):
    """The plan's `recall` (docs/rules.md#the-recall-option): the window's texts name a tool the
    model can call to get back what the plan took out, and the answer declares it
    (`recall_tool`). `{}` is all defaults."""

    model_config = STRICT
    tool_name: RecallToolName = Field(
        defaults.DEFAULT_RECALL_TOOL_NAME,
        description="The recall tool's name: 1 to 64 characters, a letter or `_` first, then "
        "letters, digits, `_` or `-`.",
    )


def through_not_before_from(through: int, info: ValidationInfo) -> int:
    """`through` ≥ `from`, named at `through` (the second of the two read)."""
    first = info.data.get("from_")
    if first is not None and through < first:
        raise PydanticCustomError(
            "greater_than_equal",
            "must be at least from ({first}): an entry covers from … through, both included",
            {"first": first},
        )
    return through


class PlanSummary(BaseModel):
    """A summary the agent obtained for an earlier summary request: `from`, `through` and `key`
    exactly as that request gave them, and the model's text."""

    model_config = ConfigDict(extra="forbid", populate_by_name=False)
    from_: NonNegativeWhole = Field(
        alias="from", description="The first caller message summarized."
    )
    through: Annotated[NonNegativeWhole, AfterValidator(through_not_before_from)] = Field(
        description="The last caller message summarized (included)."
    )
    key: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")] = Field(
        description="The summary request's `key`: the SHA-256 of messages from … through, as "
        "sent. When they changed, the entry is ignored (`changed`)."
    )
    summary: Annotated[StrictStr, Field(min_length=1)] = Field(
        description="The text the model answered."
    )


# An element name that makes a framework frame (docs/rules.md#framework-frames); the pattern is
# `app.core.frames.valid_frame_tag`'s, anchored at both ends.
# At most 64 characters: no framework's element name comes near it.
FrameTag = Annotated[
    StrictStr,
    Field(pattern=r"^[A-Za-z][A-Za-z0-9_.:-]*$", max_length=defaults.MAX_FRAME_TAG_CHARS),
]


class PlanRequest(BaseModel):
    """What to plan: the transcript, the strategy and the pin options."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"allOf": [NO_SYSTEM_FOR_MESSAGE_FORMATS, COLLAPSE_NEEDS_LEDGER]},
    )
    messages: list[Any] = Field(description=MESSAGES_DESCRIPTION)
    format: FormatName = Field(defaults.DEFAULT_FORMAT, description=FORMAT_DESCRIPTION)
    system: SystemPrompt = Field(None, description=SYSTEM_DESCRIPTION)
    strategy: Strategy = Field(
        default_factory=lambda: SlidingWindowStrategy(kind="sliding-window"),
        description="`sliding-window` (default, keep 6 turns), `token-budget` or `fit`.",
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
    detect_frames: StrictBool | None = Field(
        defaults.DEFAULT_DETECT_FRAMES,
        description="Tell framework frames from a person's words: a user text made only of listed "
        "framework elements (`<system-reminder>…</system-reminder>`, a command echo), starting "
        "with a known framework sentence (`Stop hook feedback:`) or an interruption line "
        "(`[Request interrupted by user]`) is never the current request, unless `request_text` "
        "names it. false turns detection off; null means true.",
    )
    frame_tags: list[FrameTag] | None = Field(
        list(defaults.DEFAULT_FRAME_TAGS),
        description="More element names that make a frame, besides the listed ones (each "
        "`[A-Za-z][A-Za-z0-9_.:-]*`, at most 64 characters; at most 256 names by default, "
        "`CWP_MAX_FRAME_TAGS`); null means [].",
    )
    paused: Paused | None = Field(None, description="The call the run is paused on.")
    iteration: PositiveWhole = Field(
        defaults.DEFAULT_ITERATION, description="Written into the drop notice and the record."
    )
    prior_records: list[PriorRecord] | None = Field(
        None,
        description="The records this run received from earlier plans, oldest first (the last two "
        "are read, for the stand-down; the last, for the `fit` strategy's held cut); null means "
        "[].",
    )
    include_window: StrictBool = Field(
        defaults.DEFAULT_INCLUDE_WINDOW, description="Return the new window, ready to send."
    )
    collapse: CollapseMode | None = Field(
        None,
        description="Send results the ledger set aside as short tickets: `ledger-and-facts` "
        "collapses `noise` and `ruled-out`, `ledger-only` also `fact`. Needs `ledger`. Off when "
        "absent or null.",
    )
    cap: PlanCap | None = Field(
        None,
        description="Replace every result whose text is over its ceiling by the cap's marker "
        "(the same as `POST /v1/tool-results/cap`). Off when absent or null.",
    )
    clear: PlanClear | None = Field(
        None,
        description="Send results the model has already read, older than the newest few, as a "
        "short placeholder, the boundary moving forward in steps (observation masking). Each "
        "tool's latest result, excluded tools, ledger `fact` and `open` results and results not "
        "yet read stay whole. Under `fit`, clearing comes first and removal takes only what it "
        "could not free. Off when absent or null; `{}` is every default.",
    )
    summarize: PlanSummarize | None = Field(
        None,
        description="Ask for a summary of what a plan removes at the front: the answer then "
        "carries `summary_request`, a ready-to-send request to the agent's own model (the window "
        "sent before, up to the end of the removed span, and an instruction, so a provider prompt "
        "cache serves most of it). Send the text it answers in `summaries`. Off when absent or "
        "null; `{}` is every default.",
    )
    summaries: Annotated[list[PlanSummary], Field(max_length=defaults.MAX_SUMMARIES)] | None = (
        Field(
            None,
            description="Summaries obtained for earlier summary requests (the newest "
            f"{defaults.MAX_SUMMARIES} at most). One that still matches the messages it covers "
            "and starts the removed span takes the notice's place; the others are reported in "
            "`summaries_ignored`. Read whether `summarize` is on or not; null is [].",
        )
    )
    recall: PlanRecall | None = Field(
        None,
        description="Let the model get back what the plan takes out: the placeholder, the cap "
        "marker (its `ref`), the drop notice and the summary message name the tool `tool_name`, "
        "the answer carries its declaration in the request's format (`recall_tool`, ready to "
        "append to the agent's tools), and a result of that tool is never capped. Answer its "
        "calls from the whole history with `POST /v1/recall`. Off when absent or null; `{}` is "
        "every default.",
    )
    include_turns: StrictBool = Field(
        defaults.DEFAULT_INCLUDE_TURNS,
        description="false leaves `turns`, `kept` and `evicted` out of the answer: they grow with "
        "the transcript, while `evicted_messages`, the pins and the refusals say what an agent "
        "needs.",
    )
    tokenizer: TokenizerName | None = Field(
        defaults.DEFAULT_TOKENIZER,
        description="Count tokens: `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series) and "
        "`cl100k_base` (GPT-4, GPT-3.5) exactly, `estimate` (a quarter of the UTF-8 bytes) for "
        "any other model. null: no token figures, unless the strategy is `fit`, which then counts "
        "with `estimate`.",
    )
    calibration: Calibration | None = Field(
        None, description="Scale the counts to the provider's last measurement. Off when null."
    )


STRATEGY_KINDS = get_args(StrategyKind)


def strategy_error_locs(errors: list[Any]) -> list[Any]:
    """Pydantic names a strategy error under its tag (`strategy.token-budget.x`); the answer
    names it `strategy.x` (docs/rules.md#validation), and a missing or unknown tag is an error of
    `strategy.kind`."""
    fixed = []
    for error in errors:
        loc = tuple(error["loc"])
        if len(loc) >= 2 and loc[0] == "strategy":
            if loc[1] in STRATEGY_KINDS:
                loc = (loc[0], *loc[2:])
            elif error["type"] in ("union_tag_invalid", "union_tag_not_found") and len(loc) == 1:
                loc = ("strategy", "kind")
        elif loc == ("strategy",) and error["type"] in ("union_tag_invalid", "union_tag_not_found"):
            loc = ("strategy", "kind")
        fixed.append({**error, "loc": loc})
    return fixed
