"""`POST /v1/recall`: the body handed to the recall use case (`app.service.recall`).

Each answer is counted on `/metrics` by kind and whether anything was found (`app.api.answers`).
The body is read by the Python path alone: the compiled reader serves the window plan, whose
transcripts are the large and frequent ones; a recall is one call now and then.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.answers import recall_answer
from app.api.dependencies import JsonBody, MetricsDep, SettingsDep
from app.api.examples import answer_examples
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS
from app.api.tracing import use_case
from app.schemas.recall import RECALL_EXAMPLES, RecallRequest, RecallResponse

router = APIRouter(tags=["recall"])
RECALL_PATH = "/v1/recall"
documented_answers(RECALL_PATH, answer_examples(RECALL_PATH, RECALL_EXAMPLES))


@router.post(
    RECALL_PATH,
    summary="Find text the planner took out of a window in the history the caller sends",
    description=(
        "Answers a model's recall call from the agent's whole history (never a planned window): "
        "`ref` gives every result answering that `tool_call_id`, whole; `query` searches every "
        "earlier message but the system prompt for its terms and lists the matching messages, "
        "most terms first, then newest, each with a header line and a snippet. The text comes in "
        "pages of `max_chars` characters. `messages`, `format` and `system` are read as the "
        "window plan reads them. The service keeps nothing: the same request, the same answer."
    ),
    response_model=RecallResponse,
    responses=BODY_ERRORS,
    openapi_extra=documented_body(RecallRequest, RECALL_EXAMPLES),
)
async def recall_route(body: JsonBody, metrics: MetricsDep, settings: SettingsDep) -> Response:
    limits = settings.list_limits()
    with use_case("cwp.recall"):
        return await body.answer(
            lambda raw: recall_answer(raw, settings.max_messages, metrics, limits)
        )
