"""Reading the transcript and ledger of a request: the message limit, the format, the wire reader.

Shared by the window plan and the offer, which read and refuse `messages`, `format`, `system` and
`ledger` exactly alike (`docs/rules.md#the-offer`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.api.ledger import read_ledger
from app.core.ledger import StandingRow
from app.core.messages import Message
from app.errors import FieldError, InvalidRequest
from app.formats import SYSTEM_FORMATS, detect_format, read_messages, system_problem


def read_transcript(
    body: dict[str, Any], max_messages: int, errors: list[FieldError]
) -> tuple[str, list[Message]] | None:
    """(the format used, the core messages), or None with every violation appended to `errors`.

    Call it only when `messages` is a list and `format` a known name (the schema checks both).
    """
    raw = body["messages"]
    if len(raw) > max_messages:
        errors.append(
            FieldError(
                ("body", "messages"),
                f"holds {len(raw)} messages; at most {max_messages} are accepted",
                "too_long",
            )
        )
        return None
    system = body.get("system")
    format_name = body.get("format") or "auto"
    try:
        if format_name == "auto":
            format_name = detect_format(raw, system)
        already_named = any(error.loc == ("body", "system") for error in errors)
        problem = None if system is None else system_problem(system, format_name)
        if problem is not None and not already_named:
            kind = "system_not_allowed" if format_name not in SYSTEM_FORMATS else "system_type"
            errors.append(FieldError(("body", "system"), problem, kind))
        messages = read_messages(raw, format_name)
    except InvalidRequest as invalid:
        errors.extend(invalid.under("body", "messages").errors)
        return None
    return format_name, messages


TranscriptReader = Callable[
    [dict[str, Any], int, list[FieldError]], tuple[str, list[Message]] | None
]


def read_ledger_and_transcript(
    raw: dict[str, Any],
    max_messages: int,
    errors: list[FieldError],
    read: TranscriptReader = read_transcript,
) -> tuple[tuple[StandingRow, ...] | None, tuple[str, list[Message]] | None]:
    """(the ledger's standing rows, (the format used, the core messages)) of a request body.

    The rows are None unless `ledger` is an array; the transcript is None unless `messages` is an
    array and `format` was not refused. Every violation found is appended to `errors`, located
    under `body`, so the caller can refuse them in one 422 with the schema's own (call it after
    validating the schema: a refused `format` leaves the messages unread). `read` reads the
    transcript (`read_transcript`, or the scanned body's reader of `app.api.scanned`).
    """
    rows: tuple[StandingRow, ...] | None = None
    if isinstance(raw.get("ledger"), list):
        try:
            rows = read_ledger(raw["ledger"])
        except InvalidRequest as invalid:
            errors.extend(invalid.under("body", "ledger").errors)
    transcript = None
    format_refused = any(error.loc[:2] == ("body", "format") for error in errors)
    if isinstance(raw.get("messages"), list) and not format_refused:
        transcript = read(raw, max_messages, errors)
    return rows, transcript
