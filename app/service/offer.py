"""The offer use case: the request read, the ledger folded, the core's offer answered.

It decides nothing about the offer: it validates the body (every violation in one 422), reads the
transcript through the wire format exactly as the window plan does, folds the standing rows with
`app.core.ledger.fold_ledger` and hands both to `app.core.offer.offer`, whose answer is the content
in the key order of `docs/rules.md#the-offer`. It never reads `system` beyond the format rules
shared with the window plan.
"""

from __future__ import annotations

from typing import Any

from app.core.ledger import StandingRow, fold_ledger
from app.core.messages import Message
from app.core.offer import BatchEntry, Offer, offer
from app.errors import FieldError
from app.schemas.offer import OfferRequest
from app.service.reading import raise_if_any, require_object, validate_model
from app.service.transcript import read_ledger_and_transcript


def offer_request(raw: Any, max_messages: int) -> Offer:
    """The offer for a parsed request body."""
    body, rows, messages = read_offer_request(raw, max_messages)
    return offer(
        messages,
        fold_ledger(rows),
        previous_batch=[
            BatchEntry(item.tool_call_id, item.tool_name, item.result)
            for item in body.previous_batch or ()
        ],
        limit=body.limit,
    )


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
