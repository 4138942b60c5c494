"""Each endpoint's answer over HTTP: the use case called, its content serialized, metrics counted,
and its figures set on the use case's span when traces are on.

The use cases (`app.service`) return the answer's content; this module turns it into the response
(serialized once by orjson, in the key order the service laid out) and counts what `/metrics`
reports of it. The span's figures (`*_span_attributes`) are read from the same content, in this one
place, and only counts, flags and the service's own names: never a text, a tool name, an id or
anything else the caller sent (`app.api.tracing`). The routes hand these functions the parsed
body, within the deadline (`app.api.body.ReceivedBody.answer`); the tests and tools that want an
endpoint's response without a server call them too.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import orjson
from fastapi.responses import Response

from app.api import tracing
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
    if tracing.tracing():
        tracing.note(*plan_span_attributes(answer.content))
    elapsed_ms = (time.perf_counter() - started) * 1000
    return Response(
        payload,
        media_type="application/json",
        headers={"Server-Timing": f"plan;dur={elapsed_ms:.3f}"},
    )


# The `shaped` actions counted on the plan's span (results whose text the window replaced).
SPAN_SHAPE_ACTIONS = ("cleared", "capped", "collapsed")


def plan_span_attributes(
    content: dict[str, Any],
) -> tuple[tracing.Attributes, list[tuple[str, tracing.Attributes]]]:
    """The `cwp.plan` span's attributes and events, from the answer's content (whose blocks are
    dicts or the core's dataclasses, as the service wrote them); each attribute is present when
    its source is."""
    attributes: dict[str, tracing.AttributeValue] = {
        "gen_ai.operation.name": "plan_context",
        "cwp.format": content["format"],
        "cwp.strategy": content["strategy"],
        "cwp.engaged": content["engaged"],
    }
    stats = content["stats"]
    for key, name in (
        ("messages_before", "cwp.messages_before"),
        ("messages_after", "cwp.messages_after"),
        ("removed_message_count", "cwp.removed_messages"),
        ("tokens_before", "cwp.tokens_before"),
        ("tokens_after", "cwp.tokens_after"),
        ("tokenizer", "cwp.tokenizer"),
    ):
        value = _field(stats, key)
        if value is not None:
            attributes[name] = value
    events: list[tuple[str, tracing.Attributes]] = []
    budget = content.get("budget")
    if budget is not None:
        for key in ("max_tokens", "total_after", "met", "stage", "held"):
            attributes[f"cwp.budget.{key}"] = _field(budget, key)
        if not _field(budget, "met"):
            events.append(
                (
                    "cwp.budget.not_met",
                    {
                        "cwp.budget.total_after": _field(budget, "total_after"),
                        "cwp.budget.max_tokens": _field(budget, "max_tokens"),
                    },
                )
            )
    shaped = Counter(_field(entry, "action") for entry in content.get("shaped") or ())
    for action in SPAN_SHAPE_ACTIONS:
        if shaped[action]:
            attributes[f"cwp.shaped.{action}"] = shaped[action]
    if "summary_used" in content:
        attributes["cwp.summary.applied"] = content["summary_used"] is not None
        attributes["cwp.summary.requested"] = content.get("summary_request") is not None
    reasons = list(dict.fromkeys(_field(refusal, "reason") for refusal in content["refusals"]))
    if reasons:
        attributes["cwp.refusals"] = reasons
    return attributes, events


def _field(block: Any, key: str) -> Any:
    """A field of an answer block, a dict or a dataclass; None when absent."""
    if isinstance(block, dict):
        return block.get(key)
    return getattr(block, key, None)


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
    if tracing.tracing():
        tracing.note(
            {
                "cwp.results": len(capped.content["results"]),
                "cwp.truncated": capped.content["truncated_count"],
            }
        )
    return json_response(capped.content)


def offer_answer(raw: Any, max_messages: int, limits: ListLimits = DEFAULT_LIST_LIMITS) -> Response:
    content = offer_request(raw, max_messages, limits)
    if tracing.tracing():
        tracing.note({"cwp.offered": len(content.offered)})
    return json_response(content)


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
    if tracing.tracing():
        attributes: dict[str, tracing.AttributeValue] = {
            "cwp.recall.kind": recalled.kind,
            "cwp.recall.found": recalled.found,
        }
        if recalled.content.get("hits") is not None:
            attributes["cwp.recall.hits"] = recalled.content["hits"]
        tracing.note(attributes)
    return json_response(recalled.content)
