"""A plan request read whole: the body validated once into the value the rest of the request uses.

`read_plan_input` is the one place a plan body is read. It checks the schema, reads the ledger and
the transcript (resolving the format to its `Dialect`), applies the rules that join two fields,
and translates the options into the core's `PlanOptions`, so that planning and writing never look
at the body again. Every violation found is refused together, in one 422. Both read paths give it
their body: the Python path its parsed JSON, the compiled reader its parsed top-level fields and
its own transcript reader (`app.compiled.request`); the `PlanInput` they get is the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from app.core import plan_types as plan
from app.core.defaults import DEFAULT_DETECT_FRAMES
from app.core.frames import FrameDetection
from app.core.ledger import StandingRow
from app.core.messages import Message
from app.core.tokens import Calibration, Tokenizer
from app.errors import ErrorList, FieldError
from app.formats import Callers, Dialect
from app.formats.summary_request import key_mismatch
from app.schemas.plan_request import (
    PlanRequest,
    PriorRecord,
    strategy_error_locs,
)
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits, Path, refuse_long_lists
from app.service.reading import pydantic_errors, raise_if_any, require_object
from app.service.stopping import stoppable_counter
from app.service.transcript import TranscriptReader, read_ledger_and_transcript
from app.tokenizers import counter


@dataclass(frozen=True, slots=True)
class PlanInput:
    """What a plan request asks, read: the transcript in its dialect, the core's options, and
    which parts of the plan the answer carries.

    `callers` are the caller's messages as sent (the window is written from them); `messages`
    are the core messages read from them, which the core plans on.
    """

    dialect: Dialect
    callers: Callers
    messages: list[Message]
    options: plan.PlanOptions
    include_turns: bool
    include_window: bool
    # The top-level system prompt as sent (None: none), which a summary request carries.
    system: Any = None


def read_plan_input(
    raw: Any,
    max_messages: int,
    read: TranscriptReader | None = None,
    limits: ListLimits = DEFAULT_LIST_LIMITS,
) -> PlanInput:
    """The request read, or one InvalidRequest with the violations found (a list over its limit
    as one error, its items unread: `app.service.limits`).

    `read` reads the transcript: `read_transcript` (None), or the scanned body's reader.
    """
    raw = require_object(raw)
    errors = ErrorList()
    checked = refuse_long_lists(raw, limits.plan_lists(), errors)
    raw = checked.raw
    body = validate_plan_request(raw, errors, checked.replaced)
    ledger, transcript = read_ledger_and_transcript(raw, max_messages, errors, read, limits)
    if (
        body is not None
        and body.strategy.kind == "fit"
        and body.strategy.target_tokens is not None
        and body.strategy.target_tokens > body.strategy.max_tokens
    ):
        errors.append(
            FieldError(
                ("body", "strategy", "target_tokens"),
                f"must be at most max_tokens ({body.strategy.max_tokens}): the target is what a "
                "cut aims at, under the budget that engages it",
                "less_than_equal",
            )
        )
    if body is not None and body.collapse is not None and raw.get("ledger") is None:
        errors.append(
            FieldError(
                ("body", "collapse"),
                "collapse reads the ledger's standings: send `ledger` (even []) or leave "
                "collapse out",
                "collapse_without_ledger",
            )
        )
    raise_if_any(errors)
    assert body is not None and transcript is not None
    dialect = transcript.dialect
    return PlanInput(
        dialect=dialect,
        callers=transcript.callers,
        messages=transcript.messages,
        options=core_options(
            body, ledger, dialect, raw.get("system"), transcript.messages, transcript.callers
        ),
        include_turns=body.include_turns,
        include_window=body.include_window,
        system=raw.get("system"),
    )


def validate_plan_request(
    raw: dict[str, Any], errors: list[FieldError], replaced: Sequence[Path] = ()
) -> PlanRequest | None:
    """The schema-checked body, or None with its errors appended (located under `body`), each
    strategy error at the path the API names it by (`strategy_error_locs`); none about the
    stand-in of a list `replaced` for being too long."""
    try:
        return PlanRequest.model_validate(raw)
    except ValidationError as error:
        located = strategy_error_locs(error.errors(include_url=False))
        errors.extend(pydantic_errors(located, ("body",), replaced))
        return None


def prior_record(record: PriorRecord) -> plan.PriorRecord:
    """What the core reads back from a record sent in `prior_records`. Its `strategy` is kept
    only as a string: any other value (or none) names no strategy, so it holds no `fit` cut and
    is never an error (a record is sent back as received, and older records may lack it)."""
    strategy = (record.model_extra or {}).get("strategy")
    return plan.PriorRecord(
        record.removed_message_count,
        tuple(refusal.reason for refusal in record.refusals),
        strategy if isinstance(strategy, str) else None,
        record.cleared_results,
    )


def core_options(
    body: PlanRequest,
    ledger: tuple[StandingRow, ...] | None,
    dialect: Dialect,
    system: Any,
    messages: Sequence[Message],
    callers: Callers,
) -> plan.PlanOptions:
    """The request's options as the core takes them; the system prompt's text and characters,
    and where the provider starts reading the core `messages`, come from the dialect, which alone
    knows its format's system prompt and compaction."""
    system_text = dialect.system_prompt_text(system)
    system_chars = None
    if dialect.has_system_prompt:
        system_chars = 0 if system_text is None else len(system_text)
    calibration = body.calibration
    return plan.PlanOptions(
        strategy=body.strategy.core(),
        keep_last_tool_results=body.keep_last_tool_results,
        ledger=ledger,
        keep_ledger_facts=body.keep_ledger_facts,
        request_text=body.request_text,
        frames=FrameDetection(
            # null is absent: the default
            enabled=DEFAULT_DETECT_FRAMES if body.detect_frames is None else body.detect_frames,
            extra_tags=frozenset(body.frame_tags or ()),  # null means []
        ),
        provider_reads_from=dialect.provider_reads_from(messages),
        paused=plan.Paused(body.paused.tool_call_id, body.paused.check_in) if body.paused else None,
        iteration=body.iteration,
        prior_records=tuple(prior_record(record) for record in body.prior_records or ()),
        system_chars=system_chars,
        system_text=system_text,
        tokenizer=None
        if body.tokenizer is None
        else Tokenizer(body.tokenizer, stoppable_counter(counter(body.tokenizer))),
        calibration=None
        if calibration is None
        else Calibration(calibration.counted, calibration.measured.input_tokens),
        collapse=body.collapse,
        cap=None
        if body.cap is None
        else plan.CapOption(body.cap.max_chars, dict(body.cap.max_chars_by_tool or {})),
        clear=None
        if body.clear is None
        else plan.ClearOption(
            body.clear.keep_last,
            body.clear.step,
            frozenset(body.clear.exclude_tools),
            body.clear.trigger_tokens,
            body.clear.images,
            body.clear.thinking,
        ),
        summarize=None
        if body.summarize is None
        else plan.SummarizeOption(body.summarize.instructions, body.summarize.min_span_tokens),
        summaries=tuple(
            plan.SummaryEntry(
                entry.from_,
                entry.through,
                entry.summary,
                key_mismatch(callers, entry.from_, entry.through, entry.key),
            )
            for entry in body.summaries or ()
        ),
        recall=None if body.recall is None else plan.RecallOption(body.recall.tool_name),
    )
