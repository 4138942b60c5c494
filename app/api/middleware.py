"""The request envelope: request id, body-size limit, read deadline, connection ceiling, access log
and request metrics.

Written as plain ASGI so it sees every request, including those refused before routing, and so the
body limit can count bytes as they stream in: a body over the limit (declared or chunked) is
answered 413 without ever being held whole in memory, and the connection is closed with the answer,
so the rest of the body is not read either.

The body must also be in by the request's read deadline (`CWP_READ_TIMEOUT_SECONDS` from its first
byte, which the server's protocol, `app.api.connections`, stamps in the scope; from the moment the
app sees the request when served otherwise): each wait for more of it is bounded by what is left,
and a body unfinished at the deadline is answered 408 and its connection closed. A request the
protocol marks as past the connection ceiling is answered 503 with `Retry-After` and not run.

Every body's bytes count toward the budget for bodies in flight (`app.api.budget`) before they
are read: a declared `Content-Length` is taken whole before the app is run, a chunked body's bytes
as each piece arrives; the share goes back when the request ends, however it ends. A body that
finds no room within the budget's wait is answered 503 with `Retry-After` and its connection
closed, unread. `/healthz`, `/readyz` and `/metrics` never wait for it.

A body refused from its declared length or for want of room, and a request past the ceiling, are
answered before the app routes them (the app is not run: an endpoint would size its buffer from
that length), so the middleware finds the route itself, by the router's own matching, and counts
the refusal under the route as it counts a chunked one.

A client that closes its connection before its body is in is counted as `499` and logged at INFO,
never as a 5xx, since it is no defect of the service (a body the server's protocol found malformed
is counted with the status the protocol answered). A request the server cancels because the
graceful-shutdown time ran out is answered `503` problem+json with `Retry-After`, not uvicorn's
bare text 500. Methods are labelled as `app.api.metrics.method_label` says, so odd method tokens
cannot grow the metrics.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from contextvars import ContextVar
from typing import Any

from fastapi.routing import APIRoute, iter_route_contexts
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.budget import BodyBudget
from app.api.metrics import Metrics, method_label
from app.api.problems import PROBLEM_MEDIA_TYPE, ProblemError, problem_body
from app.errors import FieldError

request_id_var: ContextVar[str] = ContextVar("request_id", default="-")
access_log = logging.getLogger("app.access")
error_log = logging.getLogger("app.errors")

# Keys of a request's scope["extensions"], set by the server's protocol (`app.api.connections`).
READ_DEADLINE = "cwp.read_deadline"  # {"deadline": loop time by which the body must be in}
OVER_CAPACITY = "cwp.over_capacity"  # present when the request came past the connection ceiling
PARSE_ERROR = "cwp.parse_error"  # {"status": int}: the body was unreadable, the protocol answered

# The status a request is counted with when its client went away before its body was in (nginx's
# convention): the client's doing, so never a 5xx that alerts would page on.
CLIENT_CLOSED_STATUS = 499

# What a request cut off at the end of the graceful-shutdown time is told to wait before retrying
# (on another replica: this one is going away).
SHUTDOWN_RETRY_AFTER_SECONDS = 1

# What a client refused at the ceiling is told to wait: slots come free as requests end, and slow
# clients' within the read deadline.
CEILING_RETRY_AFTER_SECONDS = 1

# Room in the budget for bodies in flight comes back as the bodies in it are answered: a 32 MiB
# body is read and planned in well under a second.
BUDGET_RETRY_AFTER_SECONDS = 1

# Routes that never wait for the body budget: the probes and the metrics carry no body to hold.
BUDGET_EXEMPT = frozenset({"/healthz", "/readyz", "/metrics"})

# A caller's id is echoed only when it is short and printable, so it cannot forge log lines.
_SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")


class BodyTooLarge(ProblemError):
    def __init__(self, limit: int) -> None:
        super().__init__(
            413,
            f"The request body is larger than the limit of {limit} bytes.",
            [FieldError(("body",), f"larger than {limit} bytes", "body_too_large")],
        )


class NoRoomForBody(ProblemError):
    def __init__(self, budget: BodyBudget) -> None:
        super().__init__(
            503,
            f"The bodies being read and worked on already hold the {budget.capacity}-byte "
            f"budget for bodies in flight, and no room came within {budget.wait_seconds:g} s; "
            "retry shortly.",
            [FieldError(("body",), "no room in the budget for bodies in flight", "no_room")],
            kind="bodies-in-flight",
            headers={"Retry-After": str(BUDGET_RETRY_AFTER_SECONDS)},
        )


class ReadTimeout(ProblemError):
    def __init__(self, seconds: float) -> None:
        detail, errors = read_timeout_problem(seconds, "body")
        super().__init__(408, detail, errors, kind="read-timeout")


def read_timeout_problem(seconds: float, where: str) -> tuple[str, list[FieldError]]:
    """The detail and field error of a 408: `where` is `head` or `body`."""
    return (
        f"The request {where} did not arrive within the {seconds:g} s read deadline.",
        [FieldError((where,), f"not received within {seconds:g} s", "read_timeout")],
    )


def shutting_down() -> ProblemError:
    return ProblemError(
        503,
        "The service stopped before this request was done (its graceful-shutdown time ran out); "
        "retry it.",
        kind="shutting-down",
        headers={"Retry-After": str(SHUTDOWN_RETRY_AFTER_SECONDS)},
    )


def over_capacity() -> ProblemError:
    return ProblemError(
        503,
        "The service is serving as many connections as it is configured for; retry shortly.",
        kind="over-capacity",
        headers={"Retry-After": str(CEILING_RETRY_AFTER_SECONDS)},
    )


class ServiceMiddleware:
    """Wraps every HTTP request of the app."""

    def __init__(
        self,
        app: ASGIApp,
        metrics: Metrics,
        max_body_bytes: int,
        read_timeout_seconds: float,
        body_budget: BodyBudget | None = None,
    ) -> None:
        self.app = app
        self.body_budget = body_budget
        self.metrics = metrics
        self.max_body_bytes = max_body_bytes
        self.read_timeout_seconds = read_timeout_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = _request_id(scope)
        token = request_id_var.set(request_id)
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500
        started_response = False
        bytes_in = 0
        bytes_out = 0
        over_limit = False
        client_gone = False  # the client closed its connection before its body was in
        limit = self.max_body_bytes
        budget = None if scope["path"] in BUDGET_EXEMPT else self.body_budget
        declared = _content_length(scope)
        reserved = 0  # the bytes this request holds of the budget, given back at its end
        extensions = scope.get("extensions") or {}
        stamped = extensions.get(READ_DEADLINE)
        read_timeout = self.read_timeout_seconds
        deadline: float | None = (
            stamped["deadline"]
            if stamped and stamped.get("deadline") is not None
            else asyncio.get_running_loop().time() + read_timeout
        )

        async def counting_receive() -> Message:
            nonlocal bytes_in, over_limit, deadline, reserved, client_gone
            if deadline is None:  # the body is in: what is awaited now is a disconnect
                message = await receive()
            else:
                try:
                    async with asyncio.timeout_at(deadline):
                        message = await receive()
                except TimeoutError:
                    over_limit = True  # the rest of the body is not to be read either
                    error_log.warning(
                        "request body not received within the %g s read deadline", read_timeout
                    )
                    raise ReadTimeout(read_timeout) from None
            if message["type"] == "http.disconnect" and deadline is not None:
                client_gone = True
            elif message["type"] == "http.request":
                bytes_in += len(message.get("body", b""))
                if bytes_in > limit:
                    over_limit = True
                    raise BodyTooLarge(limit)
                if budget is not None and bytes_in > reserved:  # a chunked body grows
                    if not await budget.take(bytes_in - reserved):
                        over_limit = True
                        _log_no_room(budget, bytes_in)
                        raise NoRoomForBody(budget)
                    reserved = bytes_in
                if not message.get("more_body", False):
                    deadline = None
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal status, bytes_out, started_response
            if message["type"] == "http.response.start":
                started_response = True
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                if over_limit:
                    # The rest of the body is still on its way; closing is the only way not to
                    # read it (the server would otherwise drain it to reuse the connection).
                    headers.append((b"connection", b"close"))
                message = {**message, "headers": headers}
            elif message["type"] == "http.response.body":
                bytes_out += len(message.get("body", b""))
            await send(message)

        try:
            if OVER_CAPACITY in extensions:
                _select_route(scope)
                await _send_problem(tracking_send, over_capacity(), request_id)
            elif declared is not None and declared > limit:
                _select_route(scope)
                error = BodyTooLarge(limit)
                await _send_problem(tracking_send, error, request_id)
            elif budget is not None and declared and not await budget.take(declared):
                _select_route(scope)
                _log_no_room(budget, declared)
                await _send_problem(tracking_send, NoRoomForBody(budget), request_id)
            else:
                if budget is not None and declared:
                    reserved = declared
                await self.app(scope, counting_receive, tracking_send)
        except asyncio.CancelledError:
            # The server cancels what is still running when its graceful-shutdown time ends;
            # the client gets a problem it can retry on, not the server's bare text 500.
            if started_response or client_gone:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            error_log.warning(
                "request still running at the end of the graceful shutdown; answered 503"
            )
            await _send_problem(tracking_send, shutting_down(), request_id)
        except Exception:
            if client_gone and not started_response:
                # Not a defect: the client went away while sending its body.
                status = _gone_status(extensions)
                _log_gone(status, scope["path"], bytes_in)
                return
            # The app's own handlers answer every expected error; this is a defect. Log it with
            # the request id and answer a bare 500 problem, unless the answer had already begun.
            error_log.exception("unexpected error while serving %s", scope["path"])
            if started_response:
                raise
            await _send_problem(
                tracking_send,
                ProblemError(500, "The service failed on this request; it is logged."),
                request_id,
            )
        finally:
            if budget is not None:
                budget.give(reserved)
            if client_gone and not started_response:
                status = _gone_status(extensions)  # an app that returned without answering
            elapsed = time.perf_counter() - started
            route = _route_template(scope)
            labels = (route, method_label(scope["method"]), str(status))
            self.metrics.child(self.metrics.requests, *labels).inc()
            self.metrics.child(self.metrics.latency, *labels).observe(elapsed)
            access_log.info(
                "request",
                extra={
                    "route": route,
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round(elapsed * 1000, 3),
                    "bytes_in": bytes_in,
                    "bytes_out": bytes_out,
                },
            )
            request_id_var.reset(token)


def _log_no_room(budget: BodyBudget, size: int) -> None:
    error_log.warning(
        "a body of %d bytes found no room in the %d-byte budget for bodies in flight "
        "(%d held) within %g s",
        size,
        budget.capacity,
        budget.in_flight,
        budget.wait_seconds,
    )


def _gone_status(extensions: dict[str, Any]) -> int:
    """499, or the status the server's protocol answered an unreadable body with."""
    answered = extensions.get(PARSE_ERROR)
    return int(answered["status"]) if answered else CLIENT_CLOSED_STATUS


def _log_gone(status: int, path: str, bytes_in: int) -> None:
    if status == CLIENT_CLOSED_STATUS:
        access_log.info("client closed the connection after %d body bytes of %s", bytes_in, path)
    # An unreadable body was logged by the protocol that answered it.


def _request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            candidate: str = value.decode("latin-1")
            if _SAFE_REQUEST_ID.fullmatch(candidate):
                return candidate
            break
    return uuid.uuid4().hex


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _select_route(scope: Scope) -> None:
    """Put in `scope["route"]` the route the app's router would choose for this request (the first
    full match, else the first whose path matches but not its method), without running it.

    Only what the router itself records is recorded: a path operation (an `APIRoute`), so the
    label is the one the request would have had if routed. Matching reads a copy of the scope.
    """
    routes = getattr(getattr(scope.get("app"), "router", None), "routes", None)
    if not routes:
        return
    probe = dict(scope)
    chosen: Any = None
    for context in iter_route_contexts(routes):
        match, _ = context.matches(probe)
        if match == Match.FULL:
            chosen = context.original_route
            break
        if match == Match.PARTIAL and chosen is None:
            chosen = context.original_route
    if isinstance(chosen, APIRoute):
        scope["route"] = chosen


def _route_template(scope: Scope) -> str:
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


async def _send_problem(send: Send, error: ProblemError, request_id: str) -> None:
    body = problem_body(error.status, error.detail, request_id, error.errors, error.kind)
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *((name.lower().encode(), value.encode()) for name, value in error.headers.items()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
