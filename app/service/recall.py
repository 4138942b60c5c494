"""The recall use case: the request read, the history written as recall texts, the core answering.

It decides nothing about what is found (`app.core.recall` does): it validates the body (every
violation in one 422), reads `messages`, `format` and `system` exactly as the window plan and the
offer do (`app.service.transcript`: the same limits, detection and errors), applies the one rule
that joins two fields (exactly one of `ref` and `query`, a non-empty string, refused naming
`ref`), and asks the dialect for each core message's recall text. The answer is the content in the
key order of `docs/rules.md#answering-a-recall`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.core.messages import Message
from app.core.names import first_call_names
from app.core.recall import Recallable, Recalled, recall
from app.errors import ErrorList, FieldError
from app.formats import Callers, Dialect
from app.schemas.recall import RecallRequest
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits
from app.service.reading import raise_if_any, require_object, validate_model
from app.service.stopping import checkpoint
from app.service.transcript import read_ledger_and_transcript

ONE_OF = (
    "send exactly one of `ref` (a tool_call_id) and `query` (words to search for), a non-empty "
    "string"
)


@dataclass(frozen=True, slots=True)
class RecallAnswer:
    """The answer's content, and what `/metrics` counts of it."""

    content: dict[str, Any]
    kind: str  # "ref" or "query"
    found: bool


def recall_request(
    raw: Any, max_messages: int, limits: ListLimits = DEFAULT_LIST_LIMITS
) -> RecallAnswer:
    """The answer to a parsed recall body, or one 422 naming every violation found."""
    raw = require_object(raw)
    errors = ErrorList()
    body = validate_model(RecallRequest, raw, errors)
    one_of_error(raw, errors)
    _, transcript = read_ledger_and_transcript(raw, max_messages, errors, limits=limits)
    raise_if_any(errors)
    assert body is not None and transcript is not None
    checkpoint()
    entries = recallables(transcript.dialect, transcript.callers, transcript.messages, body.ref)
    checkpoint()
    answer = recall(entries, body.ref or None, body.query or None, body.page, body.max_chars)
    return RecallAnswer(content(answer), "ref" if body.ref else "query", answer.found)


def one_of_error(raw: dict[str, Any], errors: list[FieldError]) -> None:
    """The error of a body that sends neither `ref` nor `query`, both, or an empty one (null is
    absent). A value of another type is the schema's error, naming its own field."""
    ref, query = raw.get("ref"), raw.get("query")
    if not all(value is None or isinstance(value, str) for value in (ref, query)):
        return
    sent = [value for value in (ref, query) if value is not None]
    if len(sent) != 1 or not sent[0]:
        errors.append(FieldError(("body", "ref"), ONE_OF, "ref_or_query"))


def recallables(
    dialect: Dialect, callers: Callers, messages: Sequence[Message], ref: str | None = None
) -> list[Recallable]:
    """Every core message but a `system` one, as recall reads it: its caller index (a Responses
    run's first item), role, recall text, and for a result its call and tool name (recovered
    from the call when the wire carries none). With `ref` (not empty), only the results that
    answer it: a `ref` reads no other, so no other's text is written."""
    text_of = dialect.recall_texts(callers)
    call_names = first_call_names(messages)
    entries: list[Recallable] = []
    for index, message in enumerate(messages):
        role = message.role
        if role == "system" or (ref and message.tool_call_id != ref):
            continue
        caller = index if message.source is None else message.source
        if role == "tool":
            call_id = message.tool_call_id
            name = message.tool_name or (call_names.get(call_id) if call_id else None)
            entries.append(Recallable(caller, role, text_of(message), call_id, name))
        else:
            entries.append(Recallable(caller, role, text_of(message)))
    return entries


def content(answer: Recalled) -> dict[str, Any]:
    return {
        "found": answer.found,
        "text": answer.text,
        "page": answer.page,
        "pages": answer.pages,
        "hits": answer.hits,
    }
