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
from app.errors import ErrorList
from app.schemas.offer import OfferRequest
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits, refuse_long_lists
from app.service.reading import raise_if_any, require_object, validate_model
from app.service.stopping import checkpoint
from app.service.transcript import read_ledger_and_transcript


def offer_request(raw: Any, max_messages: int, limits: ListLimits = DEFAULT_LIST_LIMITS) -> Offer:
    """The offer for a parsed request body."""
    body, rows, messages = read_offer_request(raw, max_messages, limits)
    checkpoint()
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
    raw: Any, max_messages: int, limits: ListLimits = DEFAULT_LIST_LIMITS
) -> tuple[OfferRequest, tuple[StandingRow, ...], list[Message]]:
    """The validated request, its standing rows and the core messages, or one 422 with the
    violations found (a list over its limit as one error, its items unread)."""
    raw = require_object(raw)
    errors = ErrorList()
    checked = refuse_long_lists(raw, limits.offer_lists(), errors)
    raw = checked.raw
    body = validate_model(OfferRequest, raw, errors)  # an empty stand-in breaks no rule
    rows, transcript = read_ledger_and_transcript(raw, max_messages, errors, limits=limits)
    raise_if_any(errors)
    assert body is not None and transcript is not None
    return body, rows or (), transcript.messages
