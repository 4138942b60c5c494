"""A plan request read from its bytes by the compiled reader, or handed to the Python path.

The compiled path answers only what it reads plainly: a body the scan accepts (strict JSON within
the depth limit, no number orjson might read otherwise), an array of `messages`, and a request with
no error anywhere. Everything else raises `Unanswered` and the route reads the same bytes in
Python, which words every 400 and 422; so the two paths differ in speed only. The top-level fields
other than `messages` are parsed from their own bytes and checked by the same schema and readers as
on the Python path, and the transcript is read by the Python path's own `read_transcript` over the
scanned messages.
"""

from __future__ import annotations

from typing import Any

import orjson

from app.compiled.messages import ScannedMessages, Unanswered
from app.compiled.module import Scan, scan
from app.errors import FieldError
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits
from app.service.transcript import ReadTranscript, read_transcript

__all__ = ["ScannedRequest", "Unanswered", "scan_request"]


class ScannedRequest:
    """The body's top-level fields parsed (with `messages` as an empty list, for the schema) and
    its caller messages as scanned."""

    def __init__(self, body: bytes | bytearray, scanned: Scan) -> None:
        if scanned.message_count() is None:  # no `messages` array: the Python path refuses it
            raise Unanswered
        view = memoryview(body)
        try:
            self.fields: dict[str, Any] = {
                key: orjson.loads(view[start:end])
                for key, start, end in scanned.fields()
                if key != "messages"
            }
        except orjson.JSONDecodeError:  # never seen: the scan accepts less than orjson does
            raise Unanswered from None
        self.fields["messages"] = []
        self.messages = ScannedMessages(body, scanned)

    def read_transcript(
        self,
        raw: dict[str, Any],
        max_messages: int,
        errors: list[FieldError],
        limits: ListLimits = DEFAULT_LIST_LIMITS,
    ) -> ReadTranscript:
        """`app.service.transcript.read_transcript` of the scanned messages; `Unanswered` wherever
        that records an error, or when one was recorded before (the Python path then words them
        all)."""
        if errors:
            raise Unanswered
        read = read_transcript(raw, max_messages, errors, self.messages, limits)
        if read is None or errors:
            raise Unanswered
        return read


def scan_request(body: bytes | bytearray, max_depth: int) -> ScannedRequest:
    """The scanned request; `Unanswered` when the scan leaves it to the Python path."""
    try:
        scanned = scan(body, max_depth)
    except ValueError:
        raise Unanswered from None
    return ScannedRequest(body, scanned)
