"""`POST /v1/window/plan`: translate the request, call the core planner, write the window back.

This module decides nothing about windows: it validates the body, reads the transcript through the
wire format, hands both to `app.core.window.plan_window`, and serializes the plan in the key order
of `api.md` together with the new window in the caller's format.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from app import compiled
from app.api.body import raise_if_any, require_object, validate_model
from app.api.dependencies import JsonBody, MetricsDep, SettingsDep
from app.api.examples import PLAN_EXAMPLES, plan_answer_examples
from app.api.metrics import Metrics
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS, pydantic_errors
from app.api.scanned import Unanswered, scan_request
from app.api.schemas.plan_request import (
    PlanRequest,
    SlidingWindowStrategy,
    TokenBudgetStrategy,
    strategy_error_locs,
)
from app.api.schemas.plan_response import PlanResponse
from app.api.transcript import TranscriptReader, read_ledger_and_transcript, read_transcript
from app.api.types import MAX_INT64
from app.core import plan_types as plan
from app.core.diagnostics import FindingsOf, diagnose, findings
from app.core.ledger import StandingRow
from app.core.messages import Message
from app.core.tokens import Calibration, Tokenizer
from app.core.turns import Survey, survey
from app.core.window import SurveyOf, plan_window
from app.errors import FieldError, InvalidRequest
from app.formats import (
    has_system_prompt,
    non_text_part_predicate,
    place_window,
    system_prompt_text,
    write_window,
)
from app.tokenizers import counter

router = APIRouter(tags=["window"])
PLAN_PATH = "/v1/window/plan"
documented_answers(PLAN_PATH, plan_answer_examples)


@router.post(
    "/v1/window/plan",
    summary="Plan the context window",
    description=(
        "Splits the transcript into turns and, when the strategy engages, removes at most one "
        "contiguous span of whole turns from the old end, never a turn that refuses to leave; "
        "reports why every turn is kept (refusals, pins) and returns the new window in the "
        "caller's format. Send each returned non-null `record` back in `prior_records`."
    ),
    response_model=PlanResponse,
    response_model_exclude_none=True,
    responses=BODY_ERRORS,
    openapi_extra=documented_body(PlanRequest, PLAN_EXAMPLES),
)
async def plan_route(body: JsonBody, settings: SettingsDep, metrics: MetricsDep) -> Response:
    max_messages = settings.max_messages
    if not (settings.compiled_reader and compiled.available()):
        return await body.answer(lambda raw: plan_answer(raw, max_messages, metrics))
    depth = settings.max_json_depth
    return await body.answer(
        lambda raw: plan_answer(raw, max_messages, metrics),
        lambda received: scanned_plan_answer(received, depth, max_messages, metrics),
    )


# What writes the window: (removed, notice text, shaped texts by core index) → the new window.
WindowWriter = Callable[[tuple[int, int] | None, str | None, Mapping[int, str]], list[Any]]


def plan_answer(raw: Any, max_messages: int, metrics: Metrics) -> Response:
    """The answer read, planned and written in Python: the reference, and every error's words."""
    started = time.perf_counter()
    body, options, format_name, messages = read_plan_request(raw, max_messages)
    callers = raw["messages"]

    def write(removed: tuple[int, int] | None, notice: str | None, texts: Mapping[int, str]) -> Any:
        return write_window(callers, messages, removed, notice, format_name, texts)

    return planned_answer(started, body, options, format_name, messages, callers, write, metrics)


def scanned_plan_answer(
    received: bytes | bytearray, max_depth: int, max_messages: int, metrics: Metrics
) -> Response:
    """The same answer from the compiled reader's scan of the bytes and the compiled survey;
    `Unanswered` for anything it does not read plainly (then the Python path answers)."""
    started = time.perf_counter()
    request = scan_request(received, max_depth)
    try:
        body, options, format_name, messages = read_plan_request(
            request.fields, max_messages, request.read_transcript
        )
    except InvalidRequest:
        raise Unanswered from None
    callers = request.messages

    def write(removed: tuple[int, int] | None, notice: str | None, texts: Mapping[int, str]) -> Any:
        return callers.window(format_name, messages, removed, notice, texts)

    surveyed = callers.survey

    def survey_of(planned: Sequence[Message]) -> Survey:
        if planned is messages and surveyed is not None:
            return surveyed
        return compiled.survey(planned)

    return planned_answer(
        started,
        body,
        options,
        format_name,
        messages,
        callers,
        write,
        metrics,
        survey_of,
        compiled.findings,
    )


def planned_answer(
    started: float,
    body: PlanRequest,
    options: plan.PlanOptions,
    format_name: str,
    messages: list[Message],
    callers: Sequence[Any],
    write: WindowWriter,
    metrics: Metrics,
    survey_of: SurveyOf = survey,
    findings_of: FindingsOf = findings,
) -> Response:
    """Plan the read request and serialize the answer in the key order of `api.md`."""
    result = plan_window(messages, options, survey_of)
    refuse_unwritable_counts(result)
    result = place_window(callers, messages, result, format_name)  # type: ignore[arg-type]
    has_non_text_part = non_text_part_predicate(callers, format_name)  # type: ignore[arg-type]
    found = diagnose(messages, has_non_text_part, findings_of)
    content: dict[str, Any] = {
        "format": format_name,
        "strategy": result.strategy,
        "engaged": result.engaged,
        "current_request": result.current_request,
    }
    if body.include_turns:
        content["turns"] = result.turns
        content["kept"] = result.kept
        content["evicted"] = result.evicted
    content["evicted_messages"] = result.evicted_messages
    content["pins"] = plan.answered_pins(result.pins)
    content["refusals"] = result.refusals
    content["notice"] = result.notice
    # A count a request has no use for (no shaping, no top-level system prompt, no tokenizer) is
    # left out.
    content["stats"] = {k: v for k, v in vars(result.stats).items() if v is not None}
    if result.budget is not None:
        content["budget"] = result.budget
    content["dropped_tool_names"] = result.dropped_tool_names
    content["dropped_standings"] = result.dropped_standings
    if result.shaped is not None:
        content["shaped"] = result.shaped
    content["diagnostics"] = found
    content["record"] = plan.answered_record(result.record)
    if body.include_window:
        notice = result.notice.content if result.notice else None
        texts = {shaped.index: shaped.content for shaped in result.shaped_results}
        content["window"] = write(result.removed, notice, texts)
    payload = orjson.dumps(content)
    count_plan(metrics, result)
    elapsed_ms = (time.perf_counter() - started) * 1000
    return Response(
        payload,
        media_type="application/json",
        headers={"Server-Timing": f"plan;dur={elapsed_ms:.3f}"},
    )


def refuse_unwritable_counts(result: plan.WindowPlan) -> None:
    """A 422 for token figures no JSON integer of the contract can carry (over 2⁶³ − 1): a
    calibration scaled them there, or `reserve_tokens` took the budget's totals past it."""
    stats, budget = result.stats, result.budget
    counts = (stats.tokens_before, stats.tokens_shaped, stats.tokens_after, stats.system_tokens)
    if max((count or 0 for count in counts), default=0) > MAX_INT64:
        loc: tuple[str, ...] = ("body", "calibration", "measured")
        why = "scales the token counts past"
    elif budget is not None and max(budget.total_before, budget.total_after) > MAX_INT64:
        loc, why = ("body", "strategy", "reserve_tokens"), "takes the budget's totals past"
    else:
        return
    raise InvalidRequest([FieldError(loc, f"{why} {MAX_INT64}, the largest count answered",
                                     "count_too_large")])  # fmt: skip


def read_plan_request(
    raw: Any, max_messages: int, read: TranscriptReader = read_transcript
) -> tuple[PlanRequest, plan.PlanOptions, str, list[Any]]:
    """The validated request, the core options, the format used and the core messages."""
    raw = require_object(raw)
    errors: list[FieldError] = []
    body = validate_model_with_strategy(raw, errors)
    ledger, transcript = read_ledger_and_transcript(raw, max_messages, errors, read)
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
    format_name, messages = transcript
    return body, core_options(body, ledger, format_name, raw.get("system")), format_name, messages


def validate_model_with_strategy(
    raw: dict[str, Any], errors: list[FieldError]
) -> PlanRequest | None:
    found: list[FieldError] = []
    body = validate_model(PlanRequest, raw, found)
    if found:
        fixed = strategy_error_locs(
            [{"loc": e.loc[1:], "msg": e.msg, "type": e.type} for e in found]
        )
        errors.extend(pydantic_errors(fixed, ("body",)))
    return body


def core_options(
    body: PlanRequest, ledger: tuple[StandingRow, ...] | None, format_name: str, system: Any
) -> plan.PlanOptions:
    strategy: plan.Strategy
    requested = body.strategy
    if isinstance(requested, SlidingWindowStrategy):
        strategy = plan.SlidingWindow(keep_recent_turns=requested.keep_recent_turns)
    elif isinstance(requested, TokenBudgetStrategy):
        strategy = plan.TokenBudget(
            threshold_tokens=requested.threshold_tokens,
            keep_recent_turns=requested.keep_recent_turns,
            measured=requested.measured,
        )
    else:
        strategy = plan.Fit(
            max_tokens=requested.max_tokens,
            target_tokens=requested.target_tokens,
            reserve_tokens=requested.reserve_tokens,
            keep_recent_turns=requested.keep_recent_turns,
        )
    system_text = system_prompt_text(system, format_name)
    system_chars = None
    if has_system_prompt(format_name):
        system_chars = 0 if system_text is None else len(system_text)
    calibration = body.calibration
    return plan.PlanOptions(
        strategy=strategy,
        keep_last_tool_results=body.keep_last_tool_results,
        ledger=ledger,
        keep_ledger_facts=body.keep_ledger_facts,
        request_text=body.request_text,
        paused=plan.Paused(body.paused.tool_call_id, body.paused.check_in) if body.paused else None,
        iteration=body.iteration,
        prior_records=tuple(
            plan.PriorRecord(record.removed_message_count, tuple(r.reason for r in record.refusals))
            for record in body.prior_records or ()
        ),
        system_chars=system_chars,
        system_text=system_text,
        tokenizer=None
        if body.tokenizer is None
        else Tokenizer(body.tokenizer, counter(body.tokenizer)),
        calibration=None
        if calibration is None
        else Calibration(calibration.counted, calibration.measured.input_tokens),
        collapse=body.collapse,
        cap=None
        if body.cap is None
        else plan.CapOption(body.cap.max_chars, dict(body.cap.max_chars_by_tool or {})),
    )


def count_plan(metrics: Metrics, result: plan.WindowPlan) -> None:
    metrics.child(metrics.plans, result.strategy, str(result.engaged).lower()).inc()
    if result.stats.removed_message_count:
        metrics.child(metrics.removed_messages, result.strategy).inc(
            result.stats.removed_message_count
        )
    # One increment per reason, not per refusal: each increment takes the counter's lock.
    for reason, count in Counter(refusal.reason for refusal in result.refusals).items():
        metrics.child(metrics.refusals, reason).inc(count)
    by_action = Counter(
        (shaped.action, metrics.tool_label(shaped.tool_name or "other"))
        for shaped in result.shaped_results
    )
    for (action, tool), count in by_action.items():
        counter = metrics.cap_truncations if action == "capped" else metrics.collapsed_results
        metrics.child(counter, tool).inc(count)
