"""A plan request read from its bytes by the compiled reader, or handed to the Python path.

The compiled path answers only what it reads plainly: a body the scan accepts (strict JSON within
the depth limit, no number orjson might read otherwise), an array of `messages` in one of the
formats `app.formats.scanned` reads, and a request with no error anywhere. Everything else raises
`Unanswered` and the route reads the same bytes in Python, which words every 400 and 422; so the
two paths differ in speed only. The top-level fields other than `messages` are parsed from their
own bytes and checked by the same schema and readers as on the Python path.
"""

from __future__ import annotations

from typing import Any

import orjson

from app import compiled
from app.core.defaults import DEFAULT_FORMAT
from app.errors import FieldError
from app.formats import dialect_of, system_prompt_problem
from app.formats.scanned import ScannedMessages, Unanswered
from app.service.transcript import ReadTranscript

__all__ = ["ScannedRequest", "Unanswered", "scan_request"]


class ScannedRequest:
    """The body's top-level fields parsed (with `messages` as an empty list, for the schema) and
    its caller messages as scanned."""

    def __init__(self, body: bytes | bytearray, scan: Any) -> None:
        if scan.message_count() is None:  # no `messages` array: the Python path refuses it
            raise Unanswered
        view = memoryview(body)
        try:
            self.fields: dict[str, Any] = {
                key: orjson.loads(view[start:end])
                for key, start, end in scan.fields()
                if key != "messages"
            }
        except orjson.JSONDecodeError:  # never seen: the scan accepts less than orjson does
            raise Unanswered from None
        self.fields["messages"] = []
        self.messages = ScannedMessages(body, scan)

    def read_transcript(
        self, raw: dict[str, Any], max_messages: int, errors: list[FieldError]
    ) -> ReadTranscript:
        """`app.service.transcript.read_transcript` of the scanned messages; `Unanswered` wherever
        that would record an error."""
        if errors or len(self.messages) > max_messages:
            raise Unanswered
        system = raw.get("system")
        format_name = raw.get("format") or DEFAULT_FORMAT
        if format_name == "auto":
            format_name = self.messages.detect(system)
        dialect = dialect_of(format_name)
        if system is not None and system_prompt_problem(system, dialect) is not None:
            raise Unanswered
        return ReadTranscript(dialect, self.messages, self.messages.read(format_name))


def scan_request(body: bytes | bytearray, max_depth: int) -> ScannedRequest:
    """The scanned request; `Unanswered` when the scan leaves it to the Python path."""
    try:
        scan = compiled.scan(body, max_depth)
    except ValueError:
        raise Unanswered from None
    return ScannedRequest(body, scan)
