"""`POST /v1/window/plan`: the body handed to the plan use case, within the deadline.

The use case (`app.service.plan`) reads, plans and writes; `app.api.answers` serializes its answer
and counts it. With the compiled reader built and on, the body's bytes go to it first, and the
Python path reads the same bytes when it leaves them (`Unanswered`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from app import compiled
from app.api.answers import plan_answer, scanned_plan_answer
from app.api.dependencies import JsonBody, MetricsDep, PlanCoreDep, SettingsDep
from app.api.examples import PLAN_EXAMPLES, plan_answer_examples
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS
from app.api.tracing import use_case
from app.schemas.plan_request import PlanRequest
from app.schemas.plan_response import PlanResponse

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
async def plan_route(
    body: JsonBody, settings: SettingsDep, metrics: MetricsDep, core: PlanCoreDep
) -> Response:
    max_messages = settings.max_messages
    limits = settings.list_limits()

    def answer(raw: Any) -> Response:
        return plan_answer(raw, max_messages, metrics, core, limits)

    with use_case("cwp.plan"):
        if not (settings.compiled_reader and compiled.available()):
            return await body.answer(answer)
        depth = settings.max_json_depth
        return await body.answer(
            answer,
            lambda received: scanned_plan_answer(
                received, depth, max_messages, metrics, core, limits
            ),
        )
