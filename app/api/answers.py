"""Each endpoint's answer over HTTP: the use case called, its content serialized, metrics counted.

The use cases (`app.service`) return the answer's content; this module turns it into the response
(serialized once by orjson, in the key order the service laid out) and counts what `/metrics`
reports of it. The routes hand these functions the parsed body, within the deadline
(`app.api.body.ReceivedBody.answer`); the tests and tools that want an endpoint's response
without a server call them too.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import orjson
from fastapi.responses import Response

from app.api.metrics import Metrics
from app.api.responses import json_response
from app.core import plan_types as plan
from app.core.window import plan_window
from app.service.cap import cap_request
from app.service.kept import keep_request, lookup_request, use_request
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits
from app.service.offer import offer_request
from app.service.plan import PlanCore, PlannedAnswer, plan_request, plan_scanned
from app.service.recall import recall_request


def plan_answer(
    raw: Any,
    max_messages: int,
    metrics: Metrics,
    core: PlanCore = plan_window,
    limits: ListLimits = DEFAULT_LIST_LIMITS,
) -> Response:
    """The plan of a parsed body, read in Python: the reference, and every error's words."""
    started = time.perf_counter()
    return plan_response(started, plan_request(raw, max_messages, core, limits), metrics)


def scanned_plan_answer(
    received: bytes | bytearray,
    max_depth: int,
    max_messages: int,
    metrics: Metrics,
    core: PlanCore = plan_window,
    limits: ListLimits = DEFAULT_LIST_LIMITS,
) -> Response:
    """The plan of a body's bytes read by the compiled reader; `Unanswered` when it leaves the
    body to the Python path."""
    started = time.perf_counter()
    planned = plan_scanned(received, max_depth, max_messages, core, limits)
    return plan_response(started, planned, metrics)


def plan_response(started: float, answer: PlannedAnswer, metrics: Metrics) -> Response:
    payload = orjson.dumps(answer.content)
    count_plan(metrics, answer.plan)
    elapsed_ms = (time.perf_counter() - started) * 1000
    return Response(
        payload,
        media_type="application/json",
        headers={"Server-Timing": f"plan;dur={elapsed_ms:.3f}"},
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
    budget = result.budget
    if budget is not None and result.engaged:
        metrics.child(metrics.fit_stages, budget.stage, str(budget.met).lower()).inc()
    images = sum(shaped.images for shaped in result.shaped_results)
    if images:
        metrics.cleared_images.inc(images)
    # One per caller message (Responses: per reasoning item), as `shaped` reports them.
    thinking = {
        shaped.caller for shaped in result.shaped_results if shaped.action == "thinking-cleared"
    }
    if thinking:
        metrics.cleared_thinking.inc(len(thinking))
    counters = {
        "capped": metrics.cap_truncations,
        "collapsed": metrics.collapsed_results,
        "cleared": metrics.cleared_results,
    }
    # Per tool, the results whose text was replaced; images and reasoning are counted above.
    by_action = Counter(
        (shaped.action, metrics.tool_label(shaped.tool_name or "other"))
        for shaped in result.shaped_results
        if shaped.action in counters
    )
    for (action, tool), count in by_action.items():
        metrics.child(counters[action], tool).inc(count)
    summaries = result.summaries
    if summaries is not None:
        if summaries.used is not None:
            metrics.summaries_applied.inc()
        if summaries.request is not None:
            metrics.summary_requests.inc()


def cap_answer(raw: Any, metrics: Metrics, limits: ListLimits = DEFAULT_LIST_LIMITS) -> Response:
    capped = cap_request(raw, limits)
    for tool_name, count in capped.measured.items():
        metrics.child(metrics.cap_results, metrics.tool_label(tool_name)).inc(count)
    for tool_name, count in capped.truncated.items():
        metrics.child(metrics.cap_truncations, metrics.tool_label(tool_name)).inc(count)
    return json_response(capped.content)


def offer_answer(raw: Any, max_messages: int, limits: ListLimits = DEFAULT_LIST_LIMITS) -> Response:
    return json_response(offer_request(raw, max_messages, limits))


def keep_answer(raw: Any, limits: ListLimits = DEFAULT_LIST_LIMITS) -> Response:
    return json_response(keep_request(raw, limits))


def use_answer(raw: Any, limits: ListLimits = DEFAULT_LIST_LIMITS) -> Response:
    return json_response(use_request(raw, limits))


def lookup_answer(raw: Any, limits: ListLimits = DEFAULT_LIST_LIMITS) -> Response:
    return json_response(lookup_request(raw, limits))


def recall_answer(
    raw: Any, max_messages: int, metrics: Metrics, limits: ListLimits = DEFAULT_LIST_LIMITS
) -> Response:
    recalled = recall_request(raw, max_messages, limits)
    metrics.child(metrics.recalls, recalled.kind, str(recalled.found).lower()).inc()
    return json_response(recalled.content)
