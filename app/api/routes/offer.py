"""`POST /v1/offer`: the body handed to the offer use case (`app.service.offer`)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.answers import offer_answer
from app.api.dependencies import JsonBody, SettingsDep
from app.api.examples import answer_examples
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS
from app.api.tracing import use_case
from app.schemas.offer import OFFER_EXAMPLES, OfferRequest, OfferResponse

router = APIRouter(tags=["offer"])
OFFER_PATH = "/v1/offer"
documented_answers(OFFER_PATH, answer_examples(OFFER_PATH, OFFER_EXAMPLES))


@router.post(
    OFFER_PATH,
    summary="Offer the tool results the model may still name",
    description=(
        "From the committed transcript (`not_dispatched` marks included) and the findings ledger, "
        "answers which tool-result ids the model may still name (`offered`, newest first, and the "
        "first `limit` of them in `listed` with the sentence that says so), which results it has "
        "not judged yet, the ledger fold, and the identity source each id resolves against. The "
        "answer is advice for the model's schema and prompt, not a permission."
    ),
    response_model=OfferResponse,
    response_model_exclude_none=True,
    responses=BODY_ERRORS,
    openapi_extra=documented_body(OfferRequest, OFFER_EXAMPLES),
)
async def offer_route(body: JsonBody, settings: SettingsDep) -> Response:
    limits = settings.list_limits()
    with use_case("cwp.offer"):
        return await body.answer(lambda raw: offer_answer(raw, settings.max_messages, limits))
