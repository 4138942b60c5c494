"""`POST /v1/offer`: translate the request, fold the ledger, call the core offer, answer.

This module decides nothing about the offer: it validates the body (every violation in one 422),
reads the transcript through the wire format exactly as the window plan does, folds the standing
rows with `app.core.ledger.fold_ledger` and hands both to `app.core.offer.offer`, whose answer is
serialized field by field in the key order of `docs/rules.md#the-offer`. It never reads `system`
beyond the format rules shared with the window plan.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.body import raise_if_any, require_object, validate_model
from app.api.dependencies import JsonBody, SettingsDep
from app.api.examples import answer_examples
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS
from app.api.responses import json_response
from app.api.schemas.offer import OFFER_EXAMPLES, OfferRequest, OfferResponse
from app.api.transcript import read_ledger_and_transcript
from app.core.ledger import StandingRow, fold_ledger
from app.core.messages import Message
from app.core.offer import BatchEntry, offer
from app.errors import FieldError

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
    return await body.answer(lambda raw: offer_answer(raw, settings.max_messages))


def offer_answer(raw: Any, max_messages: int) -> Response:
    body, rows, messages = read_offer_request(raw, max_messages)
    answer = offer(
        messages,
        fold_ledger(rows),
        previous_batch=[
            BatchEntry(item.tool_call_id, item.tool_name, item.result)
            for item in body.previous_batch or ()
        ],
        limit=body.limit,
    )
    return json_response(answer)


def read_offer_request(
    raw: Any, max_messages: int
) -> tuple[OfferRequest, tuple[StandingRow, ...], list[Message]]:
    """The validated request, its standing rows and the core messages, or one 422 with every
    violation found."""
    raw = require_object(raw)
    errors: list[FieldError] = []
    body = validate_model(OfferRequest, raw, errors)
    rows, transcript = read_ledger_and_transcript(raw, max_messages, errors)
    raise_if_any(errors)
    assert body is not None and transcript is not None
    return body, rows or (), transcript.messages
