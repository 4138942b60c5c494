"""Request and response schemas of `POST /v1/window/plan` (`api.md`, `window.md` §11).

The request schema checks option types and ranges; messages are checked by the wire-format readers
and ledger rows by `app.api.ledger`, because both report the caller's own field paths. Response
models document the answer; the route serializes the core's plan directly.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    StrictBool,
    StrictStr,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.api.schemas.cap import CapChars
from app.api.schemas.common import (
    FORMAT_DESCRIPTION,
    MESSAGES_DESCRIPTION,
    NO_SYSTEM_FOR_MESSAGE_FORMATS,
    SYSTEM_DESCRIPTION,
    FormatName,
    LedgerRows,
    SystemPrompt,
    UsedFormat,
)
from app.api.types import NonNegativeWhole, PositiveWhole, json_number
from app.core import defaults, usage
from app.core.collapse import CollapseMode
from app.core.diagnostics import DiagnosticCode
from app.core.ledger import Standing
from app.core.plan_types import Fate, HeldBy, RefusalReason, Rung, ShapeAction, StrategyKind
from app.core.plan_types import Measured as MeasuredCounts
from app.tokenizers import TOKENIZERS

STRICT = ConfigDict(extra="forbid")


# ---- strategy.measured: the counts, or a provider's usage object (window.md §8.4) ---------------

# The document's integers are the request's integers (`app.api.types`).
COUNT_SCHEMA = TypeAdapter(NonNegativeWhole).json_schema()
COUNT_OR_NULL_SCHEMA = TypeAdapter(NonNegativeWhole | None).json_schema()

USAGE_SOURCES = {
    usage.OWN: "The service's own counts.",
    usage.ANTHROPIC: "`message.usage` of the Anthropic Messages API.",
    usage.OPENAI_RESPONSES: "`response.usage` of the OpenAI Responses API.",
    usage.OPENAI_CHAT: "`completion.usage` of the OpenAI Chat Completions API.",
    usage.GEMINI: "`usageMetadata` of a Gemini response, as the REST API writes it.",
    usage.GEMINI_SNAKE: "`usage_metadata` of a Gemini response, as the Python SDK's "
    "`model_dump()` writes it.",
    usage.BEDROCK: "`usage` of a Bedrock Converse response.",
}


def _absent(*keys: str) -> dict[str, Any]:
    return {"properties": {key: False for key in keys}}


def usage_groups() -> list[tuple[usage.UsageShape, ...]]:
    """The shapes as the document lists them: provider shapes that share their required keys
    (Anthropic's and Responses' input_tokens and output_tokens) are one branch.

    One branch accepts exactly what its shapes accept when each count a shape does not read is a
    key that identifies a shape before it in the branch (an object read as Responses has no key
    of Anthropic's `any_of`, so the cache counts the branch also checks are absent from it), and
    the counts they share are read alike. Checked here, so an edit of the table that breaks it
    fails when the document is built rather than documenting what the service does not do.
    """
    groups: dict[tuple[str, ...], list[usage.UsageShape]] = {}
    for shape in usage.PROVIDER_SHAPES:
        groups.setdefault(shape.keys, []).append(shape)
    for group in groups.values():
        for index, shape in enumerate(group):
            before = {key for earlier in group[:index] for key in earlier.any_of}
            for other in group:
                extra = set(other.counts) - set(shape.counts)
                alike = other.inputs[0] == shape.inputs[0] and other.output == shape.output
                if not extra <= before or not alike:
                    raise ValueError(f"{other.name} and {shape.name} cannot share a branch")
    return [(usage.OWN,), *(tuple(group) for group in groups.values())]


def _lacks_keys_of(
    groups: list[tuple[usage.UsageShape, ...]], keys: tuple[str, ...]
) -> list[dict[str, Any]]:
    """JSON Schema conditions meaning "has the identifying keys of no shape in `groups`", for an
    object that has `keys`.

    Written small, because schemathesis expands the document into cases and gives up on an
    operation past a budget: with absent keys rather than `not` (which it cannot draw from below
    the document root), and without the options the object's own required keys rule out.
    """
    conditions: list[dict[str, Any]] = []
    for group in groups:
        options = [_absent(key) for key in group[0].keys if key not in keys]
        if all(shape.any_of for shape in group):
            options.append(_absent(*(key for shape in group for key in shape.any_of)))
        conditions.append({"anyOf": options} if len(options) > 1 else options[0])
    return conditions


def _reads(shape: usage.UsageShape) -> str:
    keys = " and ".join(shape.keys)
    if shape.any_of:
        keys += " and any of " + ", ".join(shape.any_of)
    if shape.strict:
        return (
            f"{USAGE_SOURCES[shape]} Recognised by {keys}. Both counts are required and read as "
            "given; any other key is refused."
        )
    inputs = " + ".join(shape.inputs)
    return (
        f"{USAGE_SOURCES[shape]} Recognised by {keys}. Read as input_tokens = {inputs}, "
        f"output_tokens = {shape.output}; {shape.inputs[0]} is required, the other counts may be "
        "absent or null (0)."
    )


def usage_group_schema(
    group: tuple[usage.UsageShape, ...], earlier: list[tuple[usage.UsageShape, ...]]
) -> dict[str, Any]:
    """One branch of `measured` as JSON Schema: exactly what `read_usage` accepts as its shapes.

    An object is read as the first shape whose keys it has, so a branch excludes the objects an
    earlier branch takes (the service's own shape needs no exclusion: it has no other key). One
    condition is §8.2's "not both counts 0", on the counts the shapes yield.
    """
    first = group[0]
    counts = tuple(dict.fromkeys(key for shape in group for key in shape.counts))
    conditions: list[dict[str, Any]] = []
    if all(shape.any_of for shape in group):
        any_of = dict.fromkeys(key for shape in group for key in shape.any_of)
        conditions.append({"anyOf": [{"required": [key]} for key in any_of]})
    conditions.append(
        {
            "anyOf": [
                {"required": [key], "properties": {key: {"type": "integer", "minimum": 1}}}
                for key in counts
            ]
        }
    )
    conditions.extend(_lacks_keys_of(earlier, first.keys))
    description = " ".join(_reads(shape) for shape in group)
    if not first.strict:
        description += " Keys not listed are ignored."
    if earlier:
        description += " An object with the keys of a shape listed before is read as that shape."
    title = " or ".join(shape.name for shape in group)
    return {
        "title": title[:1].upper() + title[1:],
        "description": description,
        "type": "object",
        "properties": {
            key: COUNT_SCHEMA if first.strict or key == first.inputs[0] else COUNT_OR_NULL_SCHEMA
            for key in counts
        },
        "required": list(first.keys),
        "additionalProperties": not first.strict,
        "allOf": conditions,
    }


def _document_usage_shapes(schema: dict[str, Any]) -> None:
    groups = usage_groups()
    schema.pop("properties", None)
    schema["anyOf"] = [
        usage_group_schema(group, groups[1:index]) for index, group in enumerate(groups)
    ]


class Measured(BaseModel):
    """The provider's usage report for the last model call: the service's own counts, or the
    provider's usage object exactly as its SDK returns it. The first shape whose keys the object
    has is the one it is read as; the counts it yields are not both 0."""

    # Documentation only: `measured` is read by `read_measured` (`app.core.usage.read_usage`).
    model_config = ConfigDict(json_schema_extra=_document_usage_shapes)


def read_measured(value: Any) -> MeasuredCounts | None:
    """`strategy.measured`: null (nothing counted yet), or the counts its usage object yields.

    Every problem `read_usage` finds becomes a validation error at the key it names, so the 422
    locates it under `strategy.measured`.
    """
    if value is None:
        return None
    read = usage.read_usage(value)
    if isinstance(read, MeasuredCounts):
        return read
    raise usage_error(value, read)


def usage_error(value: Any, problems: list[usage.UsageProblem]) -> ValidationError:
    """The problems `read_usage` found, each at the key it names (under the field read)."""
    return ValidationError.from_exception_data(
        "Measured",
        [
            InitErrorDetails(
                type=PydanticCustomError(problem.type, problem.message),
                loc=problem.path,
                input=value.get(problem.path[0], value) if problem.path else value,
            )
            for problem in problems
        ],
    )


def read_calibration_usage(value: Any) -> MeasuredCounts:
    """`calibration.measured`: a usage object (§8.4) whose input count is not 0 (a scale is a
    ratio to it)."""
    if value is None:
        raise PydanticCustomError(
            "dict_type", "must be the provider's usage object of the call the window was sent in"
        )
    read = usage.read_usage(value)
    if not isinstance(read, MeasuredCounts):
        raise usage_error(value, read)
    if read.input_tokens == 0:
        raise PydanticCustomError(
            "calibration_input_zero",
            "its input count is 0: the provider reported no input, so nothing can be calibrated",
        )
    return read


UsageReport = Annotated[
    MeasuredCounts | None,
    PlainValidator(read_measured, json_schema_input_type=Measured | None),
]


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
    measured: UsageReport = Field(
        None,
        description="The last call's usage: the service's own counts or the provider's usage "
        "object as its SDK returns it (pass `response.usage` on unchanged). null: nothing was "
        "counted yet, so the strategy does not engage.",
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
    `max_tokens`; removes the fewest turns that bring it to `target_tokens` (tokens.md §3)."""

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


CalibrationUsage = Annotated[
    MeasuredCounts, PlainValidator(read_calibration_usage, json_schema_input_type=Measured)
]


class Calibration(BaseModel):
    """Scale every count to what the provider measured for the window last sent (tokens.md §1.2):
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
    """A `record` returned by an earlier plan of this run, sent back exactly as received."""

    model_config = ConfigDict(extra="allow")
    removed_message_count: NonNegativeWhole
    refusals: list[PriorRefusal]


# `collapse` reads the ledger's standings, so a request that turns it on must send `ledger` (the
# rule of `app.api.routes.window`), stated in the document.
COLLAPSE_NEEDS_LEDGER: dict[str, Any] = {
    "if": {"properties": {"collapse": {"type": "string"}}, "required": ["collapse"]},
    "then": {"properties": {"ledger": {"type": "array"}}, "required": ["ledger"]},
}


class PlanCap(BaseModel):
    """The plan's `cap` (shaping.md §1): a result whose text is over its ceiling is replaced by
    the cap's marker, written as compact JSON."""

    model_config = STRICT
    max_chars: CapChars = Field(
        description="The ceiling on one result's text, in characters (Unicode code points)."
    )
    max_chars_by_tool: dict[str, CapChars] | None = Field(
        default_factory=dict,
        description="Per-tool ceilings overriding `max_chars` (the result's tool name, exact); "
        "null means {}, as on `POST /v1/tool-results/cap`.",
    )


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
    """Pydantic names a strategy error under its tag (`strategy.token-budget.x`); the contract
    names it `strategy.x`, and a missing or unknown tag is an error of `strategy.kind`."""
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


# ---- response documentation -------------------------------------------------------------------


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
        description="With `collapse` or `cap` only: characters of the shaped transcript, before "
        "removal.",
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
        description="With a tokenizer and `collapse` or `cap`: the shaped transcript, before "
        "removal.",
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
        description="Engaged: `total_after <= target_tokens`. Not engaged: true (the window is "
        "within `max_tokens`)."
    )


class DroppedStandingOut(BaseModel):
    tool_call_id: str
    standing: Standing | None


class ShapedOut(BaseModel):
    message_index: int = Field(description="Caller index of the result's message.")
    window_index: int | None = Field(
        description="Its position in the new window; null when it was evicted."
    )
    tool_call_id: str
    action: ShapeAction
    chars_before: int
    chars_after: int


class DiagnosticOut(BaseModel):
    code: DiagnosticCode = Field(
        description="`orphan-result`, `result-outside-its-turn`, `duplicate-result`, "
        "`unanswered-call`, `empty-message`; `more-diagnostics` closes a list cut at 100."
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
        description="With `collapse` or `cap` only: every result whose text the window replaces "
        "(a ticket or a cap marker), in transcript order.",
    )
    diagnostics: list[DiagnosticOut] = Field(
        description="What in the transcript as sent a provider would refuse, or looks like a "
        "mistake; [] when nothing. Never changes a decision."
    )
    record: RecordOut | None
    window: list[Any] | None = Field(
        None, description="The new window in the caller's format (left out when not asked for)."
    )
