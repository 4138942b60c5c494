"""The connection layer: uvicorn's h11 protocol with a read deadline and a ceiling that answers
in problem+json.

It decides two things uvicorn leaves open (`docs/decisions/0032-slow-clients.md`):

- **The read deadline.** A request's head and body must have arrived within
  `CWP_READ_TIMEOUT_SECONDS` of its first byte. The clock starts here, at the first byte of a
  request on the connection, and a timer watches it. A head still unfinished when it fires is
  answered `408` problem+json and the connection closed: no request exists yet, so only this layer
  can see it. A head that ends in time hands the same deadline to the app in the request's scope
  (`READ_DEADLINE`), and the app enforces it while it reads the body (`app.api.middleware`), so
  the 408 carries the request id and is counted under its route. This layer remains the backstop
  for a body nobody reads: a body still arriving at the deadline after its answer was sent, or
  more than `BACKSTOP_SECONDS` after it with no answer, gets its connection closed.
  The idle time between requests is not counted: that is the keep-alive timeout, as before.
- **Silent connections.** A connection that has sent no byte yet is closed, with no answer,
  `CWP_READ_TIMEOUT_SECONDS` after it opened: the request clock above only starts at a first
  byte, so without this a socket that never speaks would be held for ever. Until its first byte a
  connection is not counted against the ceiling, so silent sockets cannot make the service refuse
  requests that do arrive; at most `SILENT_PER_SLOT` times `CWP_LIMIT_CONCURRENCY` of them are
  held, and past that the oldest one is closed to make room
  (`docs/decisions/0042-connections-no-client-can-hold.md`).
- **The connection ceiling.** uvicorn's own `limit_concurrency` answers a plain-text 503; this
  protocol counts the same things (connections that have sent a byte, requests in progress) against
  `CWP_LIMIT_CONCURRENCY` and marks a request past the ceiling in its scope (`OVER_CAPACITY`), and
  the app answers it with a 503 problem+json and `Retry-After`. The probes and `/metrics` are
  never refused: a replica full of slow clients is busy, not broken, and a failed liveness probe
  would restart it and drop every request it is serving.
- **Parser errors.** A request h11 cannot read (a malformed request line or header, a bad
  `Content-Length`, a missing `Host`, a malformed chunk, a head over `CWP_MAX_HEADER_BYTES`) is
  answered here, in problem+json like every other refusal (`400`, or `431` for a head over the
  limit) rather than uvicorn's `400 text/plain`, and the connection closed. The detail names
  what was wrong in the service's own words and never echoes the client's bytes.

Events the app cannot see (a head that timed out) reach it through the lifespan state: the app's
lifespan puts a `ConnectionEvents` under `CONNECTION_EVENTS`, which counts them in its metrics and
logs them with the request id the 408 names.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Any, ClassVar

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from app.api.metrics import Metrics, method_label
from app.api.middleware import (
    OVER_CAPACITY,
    PARSE_ERROR,
    READ_DEADLINE,
    read_timeout_problem,
    request_id_var,
)
from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body
from app.errors import FieldError

# The lifespan-state key of the app's `ConnectionEvents`.
CONNECTION_EVENTS = "cwp.connection_events"

# Paths the ceiling never refuses: the kubelet's probes and the metrics scrape.
NEVER_REFUSED = frozenset({"/healthz", "/readyz", "/metrics"})

# Silent connections held per slot of the ceiling before the oldest is closed for a new one. Each
# costs a few KiB until the read deadline closes it; a bound at the ceiling itself would make a
# client that keeps a few more than the ceiling open churn them (every new one closing the oldest)
# as fast as it can reconnect, and could close a well-behaved client's connection in the moment
# between its connect and its first byte.
SILENT_PER_SLOT = 4

# How long past the read deadline the app has to answer a request whose body is unfinished before
# the connection is closed under it: the app's own 408 normally comes at the deadline itself.
BACKSTOP_SECONDS = 1.0


log = logging.getLogger("app.connections")


class ConnectionEvents:
    """What the connection layer reports to the app: counted in its metrics and logged."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def head_timed_out(self, request_id: str, method: str, seconds: float) -> None:
        self.refused_head(method, 408, seconds)
        _log_head_timeout(request_id)

    def refused_head(self, method: str, status: int, seconds: float) -> None:
        """A request this layer answered before the app saw it, counted as `unmatched`."""
        labels = ("unmatched", method_label(method), str(status))
        self.metrics.child(self.metrics.requests, *labels).inc()
        self.metrics.child(self.metrics.latency, *labels).observe(seconds)

    def closed(self, reason: str) -> None:
        """A connection closed with no request on it (`silent`, `evicted`)."""
        self.metrics.child(self.metrics.closed_connections, reason).inc()


def _log_head_timeout(request_id: str) -> None:
    token = request_id_var.set(request_id)  # the log line carries the id the 408 names
    try:
        log.warning("request head not received within the read deadline; answered 408, closed")
    finally:
        request_id_var.reset(token)


def deadline_protocol(read_timeout_seconds: float, limit_concurrency: int) -> type[H11Protocol]:
    """uvicorn's h11 protocol with this read deadline and ceiling (pass it as `http=`)."""

    class Protocol(DeadlineH11Protocol):
        read_timeout = read_timeout_seconds
        ceiling = limit_concurrency
        # This server's connections with no byte yet, oldest first.
        silent: ClassVar[dict[DeadlineH11Protocol, asyncio.TimerHandle]] = {}

    return Protocol


class _WatchedConnection(h11.Connection):
    """h11's connection, telling its protocol when a request's head and its body have ended."""

    def __init__(self, protocol: DeadlineH11Protocol, max_incomplete_event_size: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_incomplete_event_size)
        self.protocol = protocol

    def next_event(self) -> Any:
        reading_body = self.their_state is h11.SEND_BODY
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.protocol.parse_error = (error, reading_body)
            raise
        if isinstance(event, h11.Request):
            self.protocol.head_complete()
        elif isinstance(event, h11.EndOfMessage):
            self.protocol.read_complete()
        return event


class DeadlineH11Protocol(H11Protocol):
    """See the module docstring; `deadline_protocol` sets the two class attributes."""

    read_timeout: float = 10.0
    ceiling: int = 256
    # Insertion-ordered, so the first key is the oldest silent connection.
    silent: ClassVar[dict[DeadlineH11Protocol, asyncio.TimerHandle]] = {}

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        # The same bound on an unfinished head as uvicorn's own connection, watched.
        limit = config.h11_max_incomplete_event_size
        self.head_limit = limit or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        self.conn = _WatchedConnection(self, self.head_limit)
        self.read_timer: asyncio.TimerHandle | None = None
        self.read_deadline: float | None = None  # loop time; None while no request is being read
        self.request_deadline = 0.0  # the read deadline of the request whose head came last
        self.backstop_armed = False
        self.parse_error: tuple[h11.RemoteProtocolError, bool] | None = None
        self.opened = self.loop.time()

    # ---- a connection's first byte ----

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.opened = self.loop.time()
        silent = self.silent
        silent[self] = self.loop.call_later(self.read_timeout, self.close_silent, "silent")
        if len(silent) > SILENT_PER_SLOT * self.ceiling:
            next(iter(silent)).close_silent("evicted")

    def heard(self) -> None:
        """The connection's first byte: it is no longer silent."""
        timer = self.silent.pop(self, None)
        if timer is not None:
            timer.cancel()

    def close_silent(self, reason: str) -> None:
        """Close a connection that has sent nothing: there is no request to answer."""
        self.heard()
        if self.transport.is_closing():
            return
        log.debug("connection %s: no byte within the read deadline; closed", reason)
        events = self.app_state.get(CONNECTION_EVENTS)
        if isinstance(events, ConnectionEvents):
            events.closed(reason)
        with contextlib.suppress(h11.LocalProtocolError):
            self.conn.send(h11.ConnectionClosed())
        self.transport.close()

    def heard_connections(self) -> int:
        """Connections counted against the ceiling: those that have sent a byte."""
        return len(self.connections) - len(self.silent)

    # ---- the clock of one request's read ----

    def start_reading(self) -> None:
        self.read_deadline = self.loop.time() + self.read_timeout
        self.backstop_armed = False
        self.read_timer = self.loop.call_at(self.read_deadline, self.read_timed_out)

    def head_complete(self) -> None:
        if self.read_deadline is None:  # a pipelined head, read from the buffer: its clock starts
            self.start_reading()
        assert self.read_deadline is not None
        self.request_deadline = self.read_deadline

    def read_complete(self) -> None:
        """The request's body has ended: nothing more to wait for until the next request."""
        if self.read_timer is not None:
            self.read_timer.cancel()
        self.read_timer = None
        self.read_deadline = None

    def data_received(self, data: bytes) -> None:
        if self in self.silent:
            self.heard()
        # The first byte of a request, not of a body still arriving nor of a pipelined request
        # behind one being answered (its clock starts when that answer is done).
        if self.read_deadline is None and self.conn.their_state is h11.IDLE:
            self.start_reading()
        super().data_received(data)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is cycle or self.cycle is None:
            return
        # A request's head ended in this call and its task is created but has not run yet.
        extensions = self.scope.setdefault("extensions", {})
        extensions[READ_DEADLINE] = {"deadline": self.request_deadline}
        # The new request's task is already counted among the tasks.
        if (
            self.heard_connections() > self.ceiling or len(self.tasks) > self.ceiling
        ) and self.scope["path"] not in NEVER_REFUSED:
            extensions[OVER_CAPACITY] = {}

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if (
            self.read_deadline is None
            and self.conn.their_state is h11.IDLE
            and not self.transport.is_closing()
            and self.conn.trailing_data[0]
        ):
            self.start_reading()  # a pipelined request whose head is still unfinished

    def connection_lost(self, exc: Exception | None) -> None:
        self.heard()
        self.read_complete()
        super().connection_lost(exc)

    def read_timed_out(self) -> None:
        self.read_timer = None
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            self.refuse_unfinished_head()
        elif state is h11.SEND_BODY:
            answered = self.cycle is None or self.cycle.response_complete
            if answered or self.backstop_armed:
                # Nobody is reading the rest of this body: drop the connection rather than wait.
                log.info("request body unfinished at the read deadline; connection closed")
                self.transport.close()
            else:
                # The app answers this one itself (a 408 from the middleware); give it time to.
                self.backstop_armed = True
                self.read_timer = self.loop.call_later(BACKSTOP_SECONDS, self.read_timed_out)

    def refuse_unfinished_head(self) -> None:
        """Answer 408 problem+json to a head that did not end in time, and close."""
        request_id = uuid.uuid4().hex
        head = self.conn.trailing_data[0]
        method = head.split(b" ", 1)[0].decode("latin-1") if b" " in head[:8] else ""
        detail, errors = read_timeout_problem(self.read_timeout, "head")
        body = problem_body(408, detail, request_id, errors, kind="read-timeout")
        response = h11.Response(
            status_code=408,
            headers=[
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"x-request-id", request_id.encode()),
                (b"connection", b"close"),
            ],
            reason=b"Request Timeout",
        )
        try:
            output = self.conn.send(response) + self.conn.send(h11.Data(data=body))
            output += self.conn.send(h11.EndOfMessage())
        except h11.LocalProtocolError:  # h11 will not answer in this state: closing is enough
            output = b""
        if output:
            self.transport.write(output)
        self.transport.close()
        events = self.app_state.get(CONNECTION_EVENTS)
        if isinstance(events, ConnectionEvents):
            events.head_timed_out(request_id, method, self.read_timeout)
        else:
            _log_head_timeout(request_id)

    # ---- what h11 cannot read ----

    def send_400_response(self, msg: str) -> None:
        """Answer a request h11 refused to parse in problem+json, and close (uvicorn's own answer
        is a `400 text/plain`). Called by uvicorn's `handle_events` on `RemoteProtocolError`."""
        error, in_body = self.parse_error or (h11.RemoteProtocolError(msg), False)
        self.parse_error = None
        status, detail, field = describe_parse_error(error, in_body, self.head_limit)
        cycle = self.cycle
        request_id = None
        if in_body and cycle is not None and not cycle.response_complete:
            # The app is running this request: it must not answer it too, and counts it as this.
            self.scope.setdefault("extensions", {})[PARSE_ERROR] = {"status": status}
            request_id = self.scope.get("state", {}).get("request_id")
            if cycle.response_started:
                self.transport.close()  # half an answer is out: closing is all that is left
                return
            cycle.response_complete = True  # uvicorn's cycle sends nothing more
            cycle.disconnected = True
            cycle.message_event.set()
        request_id = request_id or uuid.uuid4().hex
        body = problem_body(status, detail, request_id, [field])
        response = h11.Response(
            status_code=status,
            headers=[
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"x-request-id", request_id.encode()),
                (b"connection", b"close"),
            ],
            reason=_REASONS.get(status, b"Bad Request"),
        )
        try:
            output = self.conn.send(response) + self.conn.send(h11.Data(data=body))
            output += self.conn.send(h11.EndOfMessage())
        except h11.LocalProtocolError:  # our side cannot answer in this state: close only
            output = b""
        if output:
            self.transport.write(output)
        self.transport.close()
        token = request_id_var.set(request_id)
        try:
            log.info("request not readable as HTTP/1.1 (%s); answered %d, closed", detail, status)
        finally:
            request_id_var.reset(token)
        if not in_body:
            events = self.app_state.get(CONNECTION_EVENTS)
            if isinstance(events, ConnectionEvents):
                head = self.conn.trailing_data[0]
                method = head.split(b" ", 1)[0].decode("latin-1") if b" " in head[:16] else ""
                events.refused_head(method, status, self.loop.time() - self.opened)


_REASONS = {400: b"Bad Request", 431: b"Request Header Fields Too Large"}


def describe_parse_error(
    error: h11.RemoteProtocolError, in_body: bool, limit: int
) -> tuple[int, str, FieldError]:
    """The status, detail and field error of a request h11 could not read.

    h11's own messages can quote the client's bytes; these are the service's words only.
    """
    message = str(error)
    if error.error_status_hint == 431 or message == "Receive buffer too long":
        return (
            431,
            f"The request head is larger than the limit of {limit} bytes.",
            FieldError(("head",), f"larger than {limit} bytes", "head_too_large"),
        )
    if in_body:
        return (
            400,
            "The request body is not valid HTTP/1.1 framing (a malformed chunk).",
            FieldError(("body",), "malformed chunked encoding", "bad_framing"),
        )
    lowered = message.lower()
    if "host" in lowered:
        return (
            400,
            "The request has no Host header, which HTTP/1.1 requires.",
            FieldError(("head", "host"), "missing", "missing_host"),
        )
    if "content-length" in lowered:
        return (
            400,
            "The request's Content-Length header is not a single non-negative integer.",
            FieldError(("head", "content-length"), "not a valid length", "bad_content_length"),
        )
    if "transfer-encoding" in lowered:
        return (
            400,
            "The request's Transfer-Encoding header is not supported (only chunked is).",
            FieldError(("head", "transfer-encoding"), "unsupported", "bad_transfer_encoding"),
        )
    if "request line" in lowered or "http version" in lowered or "method" in lowered:
        return (
            400,
            "The request line is not valid HTTP/1.1 (`METHOD /path HTTP/1.1`).",
            FieldError(("head", "request-line"), "malformed", "bad_request_line"),
        )
    if "header" in lowered:
        return (
            400,
            "A request header line is not valid HTTP/1.1 (`Name: value`).",
            FieldError(("head", "headers"), "malformed", "bad_header"),
        )
    return (
        400,
        "The request is not valid HTTP/1.1.",
        FieldError(("head",), "not valid HTTP/1.1", "bad_request"),
    )
