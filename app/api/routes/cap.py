"""`POST /v1/tool-results/cap`: validate the ceilings and the results, cap each one, answer.

This module decides nothing about measuring or markers: `app.core.cap` does. It reads the request
(every violation in one 422), picks each item's ceiling with `cap_for`, hands the item to
`cap_result`, and writes the entries in the key order of `docs/rules.md#cap-response`. A result that
passes is the value orjson read from the request, written back by orjson, so it comes back as the
same JSON value (key order and number spelling of `docs/rules.md#compact-serialization`). Measured
and truncated results are counted per tool on `/metrics`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.body import raise_if_any, require_object, validate_model
from app.api.dependencies import JsonBody, MetricsDep
from app.api.examples import answer_examples
from app.api.metrics import Metrics
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS
from app.api.responses import json_response
from app.api.schemas.cap import CAP_EXAMPLES, CapItem, CapRequest, CapResponse, with_cap_rule
from app.core.cap import ABSENT, CapOutcome, cap_for, cap_result
from app.errors import FieldError

router = APIRouter(tags=["cap"])
CAP_PATH = "/v1/tool-results/cap"
documented_answers(CAP_PATH, answer_examples(CAP_PATH, CAP_EXAMPLES))


@router.post(
    CAP_PATH,
    summary="Cap tool results and replace each over-size one with a marker",
    description=(
        "Measures each result in characters (Unicode code points; a string as itself, any other "
        "value as compact JSON, no value as a fixed sentence) against `max_chars` or its tool's "
        "own ceiling. A result within its ceiling comes back unchanged; one over it is replaced "
        'by a marker `{"truncated": true, "reason", "head"?}` that says which tool overflowed, '
        "by how much, and keeps a verbatim head as long as the ceiling allows."
    ),
    response_model=CapResponse,
    response_model_exclude_none=True,
    responses=BODY_ERRORS,
    openapi_extra=documented_body(CapRequest, CAP_EXAMPLES),
)
async def cap_route(body: JsonBody, metrics: MetricsDep) -> Response:
    return await body.answer(lambda raw: cap_answer(raw, metrics))


def cap_answer(raw: Any, metrics: Metrics) -> Response:
    body = read_cap_request(raw)
    by_tool = body.max_chars_by_tool or {}
    entries: list[dict[str, Any]] = []
    measured: Counter[str] = Counter()
    truncated: Counter[str] = Counter()
    for item in body.results:
        cap = cap_for(item.tool_name, body.max_chars, by_tool)
        outcome = cap_result(item.tool_name, item.result if item.has_result else ABSENT, cap)
        entries.append(result_entry(item, cap, outcome))
        measured[item.tool_name] += 1
        if outcome.truncated:
            truncated[item.tool_name] += 1
    count_results(metrics, measured, truncated)
    return json_response({"results": entries, "truncated_count": truncated.total()})


def read_cap_request(raw: Any) -> CapRequest:
    """The validated request, or one 422 naming every violation."""
    raw = require_object(raw)
    errors: list[FieldError] = []
    body = validate_model(CapRequest, raw, errors)
    raise_if_any(with_cap_rule(errors))
    assert body is not None
    return body


def result_entry(item: CapItem, cap: int, outcome: CapOutcome) -> dict[str, Any]:
    """One entry of the answer, keys in the order of `docs/rules.md#cap-response`."""
    entry: dict[str, Any] = {}
    if item.tool_call_id is not None:
        entry["tool_call_id"] = item.tool_call_id
    entry["tool_name"] = item.tool_name
    entry["truncated"] = outcome.truncated
    entry["chars"] = outcome.chars
    entry["max_chars"] = cap
    if outcome.result is not ABSENT:
        entry["result"] = outcome.result
    return entry


def count_results(metrics: Metrics, measured: Counter[str], truncated: Counter[str]) -> None:
    for tool_name, count in measured.items():
        metrics.child(metrics.cap_results, metrics.tool_label(tool_name)).inc(count)
    for tool_name, count in truncated.items():
        metrics.child(metrics.cap_truncations, metrics.tool_label(tool_name)).inc(count)
