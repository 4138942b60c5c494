"""Reading the transcript and ledger of a request: the message limit, the format, the wire reader.

Shared by the window plan and the offer, which read and refuse `messages`, `format`, `system` and
`ledger` exactly alike (`docs/rules.md#the-offer`), and by the compiled reader, whose scanned
messages it reads the same way (`SentMessages`). The format is resolved here, once, to its
`Dialect`; what follows asks that object, never the name again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from app.core.ledger import StandingRow
from app.core.messages import Message
from app.errors import ErrorList, FieldError, InvalidRequest
from app.formats import Callers, Dialect, detect_format, dialect_of, system_prompt_problem
from app.service.ledger import read_ledger
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits, message_list_errors


@dataclass(frozen=True, slots=True)
class ReadTranscript:
    """A request's transcript as read: the dialect it is in, the caller's `messages` as sent (a
    list, or the compiled reader's scanned messages, `app.compiled.messages`) and the core
    messages read from them."""

    dialect: Dialect
    callers: Callers
    messages: list[Message]


class SentMessages(Protocol):
    """The caller's `messages` as a read path holds them: the parsed list (`ParsedMessages`), or
    the compiled reader's scan (`app.compiled.messages.ScannedMessages`)."""

    def __len__(self) -> int: ...

    def detect(self, system: Any) -> str:
        """Their format under `auto` (raises InvalidRequest as `detect_format` does)."""
        ...

    def read(self, dialect: Dialect) -> list[Message]:
        """Their core transcript (raises InvalidRequest as `Dialect.read` does)."""
        ...

    def callers(self) -> Callers:
        """The messages as the window is written from them."""
        ...

    def long_lists(self, dialect: Dialect, limits: ListLimits) -> ErrorList:
        """One error for each message's list over its limit (`app.service.limits`), located
        under the messages array; asked before `read`, which reads no message when any is."""
        ...


@dataclass(frozen=True, slots=True)
class ParsedMessages:
    """The body's parsed `messages` list."""

    raw: list[Any]

    def __len__(self) -> int:
        return len(self.raw)

    def detect(self, system: Any) -> str:
        return detect_format(self.raw, system)

    def read(self, dialect: Dialect) -> list[Message]:
        return dialect.read(self.raw)

    def callers(self) -> Callers:
        return self.raw

    def long_lists(self, dialect: Dialect, limits: ListLimits) -> ErrorList:
        return message_list_errors(self.raw, dialect.name, limits)


def read_transcript(
    body: dict[str, Any],
    max_messages: int,
    errors: list[FieldError],
    sent: SentMessages | None = None,
    limits: ListLimits = DEFAULT_LIST_LIMITS,
) -> ReadTranscript | None:
    """The transcript read, or None with every violation appended to `errors`.

    Call it only when `messages` is a list and `format` a known name (the schema checks both).
    `sent` is the messages as the read path holds them; by default the body's parsed list. A
    message list over its limit (`limits`) is refused with one error each, and then no message is
    read: its items are never checked.
    """
    if sent is None:
        sent = ParsedMessages(body["messages"])
    if len(sent) > max_messages:
        errors.append(
            FieldError(
                ("body", "messages"),
                f"holds {len(sent)} messages; at most {max_messages} are accepted",
                "too_long",
            )
        )
        return None
    system = body.get("system")
    format_name = body.get("format") or "auto"
    try:
        if format_name == "auto":
            format_name = sent.detect(system)
        dialect = dialect_of(format_name)
        already_named = any(error.loc == ("body", "system") for error in errors)
        problem = None if system is None else system_prompt_problem(system, dialect)
        if problem is not None and not already_named:
            kind = "system_type" if dialect.has_system_prompt else "system_not_allowed"
            errors.append(FieldError(("body", "system"), problem, kind))
        too_long = sent.long_lists(dialect, limits)
        if too_long:
            errors.extend(too_long.under("body", "messages"))
            return None
        messages = sent.read(dialect)
    except InvalidRequest as invalid:
        errors.extend(invalid.under("body", "messages").errors)
        return None
    return ReadTranscript(dialect, sent.callers(), messages)


TranscriptReader = Callable[
    [dict[str, Any], int, list[FieldError], ListLimits], ReadTranscript | None
]


def read_ledger_and_transcript(
    raw: dict[str, Any],
    max_messages: int,
    errors: list[FieldError],
    read: TranscriptReader | None = None,
    limits: ListLimits = DEFAULT_LIST_LIMITS,
) -> tuple[tuple[StandingRow, ...] | None, ReadTranscript | None]:
    """(the ledger's standing rows, the transcript read) of a request body.

    The rows are None unless `ledger` is an array; the transcript is None unless `messages` is an
    array and `format` was not refused. Every violation found is appended to `errors`, located
    under `body`, so the caller can refuse them in one 422 with the schema's own (call it after
    validating the schema: a refused `format` leaves the messages unread). `read` reads the
    transcript (`read_transcript`, or the scanned body's reader of `app.compiled.request`).
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
        if read is None:
            transcript = read_transcript(raw, max_messages, errors, limits=limits)
        else:
            transcript = read(raw, max_messages, errors, limits)
    return rows, transcript
