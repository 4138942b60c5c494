"""The plan use case: a plan request read, planned by the core, placed and written by its dialect.

It decides nothing about windows; it wires one pipeline that reads top to bottom:
`read_plan_input` reads the body once into a `PlanInput` (the dialect, the core messages, the core
options), the core (`app.core.window.plan_window`) plans, the dialect places the window figures,
the diagnostics are found beside the plan, and `answer_content` lays the answer out in the key
order of docs/rules.md#the-plans-answer, writing the window through the dialect's one writer. The
compiled reader (`plan_scanned`) replaces only the first step and the survey and findings passes
with compiled equals; when it does not answer, the Python path (`plan`) reads the same bytes.

The core is a parameter (`core`) so that the benchmark can time it and the tests can hold it, each
by handing the service another function, never by replacing a module's attribute.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app import compiled
from app.compiled.request import Unanswered, scan_request
from app.core import plan_types as plan
from app.core.diagnostics import Diagnostic, FindingsOf, diagnose, findings
from app.core.messages import Message
from app.core.transcript import SurveyOf
from app.core.turns import Survey, survey
from app.core.window import plan_window
from app.errors import FieldError, InvalidRequest
from app.formats.dialect import Removed
from app.formats.summary_request import messages_key, write_summary_request
from app.schemas.types import MAX_INT64
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits
from app.service.plan_input import PlanInput, read_plan_input
from app.service.stopping import checkpoint

# The core's entry point, `app.core.window.plan_window`, or a function that calls it.
PlanCore = Callable[..., plan.WindowPlan]
# What writes the window: (removed, notice text, shaped texts by core index, the core messages
# whose images are replaced, those whose reasoning leaves) → the new window.
WindowWriter = Callable[
    [Removed, str | None, Mapping[int, str], Collection[int], Collection[int]], list[Any]
]


@dataclass(frozen=True, slots=True)
class PlannedAnswer:
    """The answer's content, in its key order, and the plan it was written from (for metrics)."""

    content: dict[str, Any]
    plan: plan.WindowPlan


def plan_request(
    raw: Any,
    max_messages: int,
    core: PlanCore = plan_window,
    limits: ListLimits = DEFAULT_LIST_LIMITS,
) -> PlannedAnswer:
    """The answer read, planned and written in Python: the reference, and every error's words.

    Abandoned work (`app.service.stopping`) stops between the steps and while counting tokens,
    raising `Cancelled`."""
    request = read_plan_input(raw, max_messages, limits=limits)
    checkpoint()
    dialect, callers, messages = request.dialect, request.callers, request.messages

    def write(
        removed: Removed,
        notice: str | None,
        texts: Mapping[int, str],
        images: Collection[int],
        thinking: Collection[int],
    ) -> Any:
        return dialect.write_window(callers, messages, removed, notice, texts, images, thinking)

    return answered(request, write, core)


def plan_scanned(
    received: bytes | bytearray,
    max_depth: int,
    max_messages: int,
    core: PlanCore = plan_window,
    limits: ListLimits = DEFAULT_LIST_LIMITS,
) -> PlannedAnswer:
    """The same answer from the compiled reader's scan of the bytes, its survey and its findings;
    `Unanswered` for anything it does not read plainly (then the Python path answers)."""
    scanned = scan_request(received, max_depth)
    fields = scanned.fields
    if fields.get("summaries") or fields.get("summarize") is not None:
        # Keys are hashes of the caller's messages as parsed values, which the scan does not
        # build: the Python path answers.
        raise Unanswered
    try:
        request = read_plan_input(scanned.fields, max_messages, scanned.read_transcript, limits)
    except InvalidRequest:
        raise Unanswered from None
    checkpoint()
    # What is read goes as soon as it is read: the parsed fields (a ledger's rows) and, once the
    # plan has it, the survey are not held while the answer is written (memory, decision 0036).
    dialect, callers, messages = request.dialect, scanned.messages, request.messages
    del scanned, fields
    surveyed, callers.survey = callers.survey, None

    def write(
        removed: Removed,
        notice: str | None,
        texts: Mapping[int, str],
        images: Collection[int],
        thinking: Collection[int],
    ) -> Any:
        return dialect.write_window(callers, messages, removed, notice, texts, images, thinking)

    def survey_of(planned: Sequence[Message]) -> Survey:
        # The survey the module took while reading, handed to the plan once, unless the core
        # plans a shaped transcript. Kept here rather than on the scanned request: a request
        # object holding the core messages measured 4 to 13% slower on 10,000-message plans.
        nonlocal surveyed
        if planned is messages and surveyed is not None:
            taken, surveyed = surveyed, None
            return taken
        return compiled.survey(planned)

    return answered(request, write, core, survey_of, compiled.findings)


def answered(
    request: PlanInput,
    write: WindowWriter,
    core: PlanCore,
    survey_of: SurveyOf = survey,
    findings_of: FindingsOf = findings,
) -> PlannedAnswer:
    """Plan the read request, place its window figures, find the diagnostics, write the answer."""
    dialect, callers, messages = request.dialect, request.callers, request.messages
    carries_parts = dialect.result_parts_predicate(callers)
    reasoning_of = dialect.reasoning_predicate(callers)
    result = core(messages, request.options, survey_of, carries_parts, reasoning_of)
    checkpoint()
    refuse_unwritable_counts(result)
    result = dialect.place_window(callers, messages, result)
    has_non_text_part = dialect.non_text_part_predicate(callers)
    found = diagnose(messages, has_non_text_part, findings_of)
    checkpoint()
    content = answer_content(request, result, found, write)
    checkpoint()
    return PlannedAnswer(content, result)


def answer_content(
    request: PlanInput,
    result: plan.WindowPlan,
    found: tuple[Diagnostic, ...],
    write: WindowWriter,
) -> dict[str, Any]:
    """The answer in the key order of docs/rules.md#the-plans-answer, the window written only
    when asked for."""
    content: dict[str, Any] = {
        "format": request.dialect.name,
        "strategy": result.strategy,
        "engaged": result.engaged,
        "current_request": result.current_request,
    }
    if request.include_turns:
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
        content["budget"] = plan.answered_budget(result.budget)
    content["dropped_tool_names"] = result.dropped_tool_names
    content["dropped_standings"] = result.dropped_standings
    if result.shaped is not None:
        content["shaped"] = result.shaped
    texts: dict[int, str] = {}
    images: list[int] = []
    thinking: set[int] = set()
    for shaped in result.shaped_results:
        if shaped.action == "image-cleared":
            images.append(shaped.index)
        elif shaped.action == "thinking-cleared":
            thinking.add(shaped.index)
        else:
            texts[shaped.index] = shaped.content
    if result.summaries is not None:
        content.update(summary_fields(request, result.summaries, texts))
    recall_tool = request.options.recall_tool
    if recall_tool is not None:
        content["recall_tool"] = request.dialect.recall_tool(recall_tool)
    content["diagnostics"] = found
    content["record"] = plan.answered_record(result.record)
    if request.include_window:
        notice = result.notice.content if result.notice else None
        content["window"] = write(result.removed, notice, texts, images, thinking)
    return content


def summary_fields(
    request: PlanInput, outcome: plan.SummaryOutcome, texts: Mapping[int, str]
) -> dict[str, Any]:
    """`summary_request` (written in the caller's format), `summary_used` and
    `summaries_ignored`, in that order (docs/rules.md#summaries)."""
    wanted = outcome.request
    summary_request = None
    if wanted is not None:
        summary_request = {
            "from": wanted.first,
            "through": wanted.through,
            "key": messages_key(request.callers, wanted.first, wanted.through),
            "request": write_summary_request(
                request.dialect,
                request.callers,
                request.messages,
                wanted,
                texts,
                request.system,
            ),
        }
    used = outcome.used
    return {
        "summary_request": summary_request,
        "summary_used": None if used is None else {"from": used[0], "through": used[1]},
        "summaries_ignored": [
            {"index": index, "reason": reason} for index, reason in outcome.ignored
        ],
    }


def refuse_unwritable_counts(result: plan.WindowPlan) -> None:
    """A 422 for token figures no JSON integer of the answer can carry (over 2⁶³ − 1): a
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
