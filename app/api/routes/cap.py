"""`POST /v1/tool-results/cap`: the body handed to the cap use case (`app.service.cap`).

Measured and truncated results are counted per tool on `/metrics` (`app.api.answers`).
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.answers import cap_answer
from app.api.dependencies import JsonBody, MetricsDep, SettingsDep
from app.api.examples import answer_examples
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS
from app.api.tracing import use_case
from app.schemas.cap import CAP_EXAMPLES, CapRequest, CapResponse

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
async def cap_route(body: JsonBody, metrics: MetricsDep, settings: SettingsDep) -> Response:
    limits = settings.list_limits()
    with use_case("cwp.cap"):
        return await body.answer(lambda raw: cap_answer(raw, metrics, limits))
