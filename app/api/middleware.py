"""The request envelope: request id, body-size limit, access log and request metrics.

Written as plain ASGI so it sees every request, including those refused before routing, and so the
body limit can count bytes as they stream in: a body over the limit (declared or chunked) is
answered 413 without ever being held whole in memory, and the connection is closed with the answer,
so the rest of the body is not read either.

A body refused from its declared length is answered before the app routes it (the app is not run:
an endpoint would size its buffer from that length), so the middleware finds the route itself, by
the router's own matching, and counts the refusal under the route as it counts a chunked one.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from contextvars import ContextVar
from typing import Any

from fastapi.routing import APIRoute, iter_route_contexts
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.metrics import Metrics
from app.api.problems import PROBLEM_MEDIA_TYPE, ProblemError, problem_body
from app.errors import FieldError

request_id_var: ContextVar[str] = ContextVar("request_id", default="-")
access_log = logging.getLogger("app.access")
error_log = logging.getLogger("app.errors")

# A caller's id is echoed only when it is short and printable, so it cannot forge log lines.
_SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")


class BodyTooLarge(ProblemError):
    def __init__(self, limit: int) -> None:
        super().__init__(
            413,
            f"The request body is larger than the limit of {limit} bytes.",
            [FieldError(("body",), f"larger than {limit} bytes", "body_too_large")],
        )


class ServiceMiddleware:
    """Wraps every HTTP request of the app."""

    def __init__(self, app: ASGIApp, metrics: Metrics, max_body_bytes: int) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body_bytes = max_body_bytes

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
        limit = self.max_body_bytes

        async def counting_receive() -> Message:
            nonlocal bytes_in, over_limit
            message = await receive()
            if message["type"] == "http.request":
                bytes_in += len(message.get("body", b""))
                if bytes_in > limit:
                    over_limit = True
                    raise BodyTooLarge(limit)
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
            declared = _content_length(scope)
            if declared is not None and declared > limit:
                _select_route(scope)
                error = BodyTooLarge(limit)
                await _send_problem(tracking_send, error, request_id)
            else:
                await self.app(scope, counting_receive, tracking_send)
        except Exception:
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
            elapsed = time.perf_counter() - started
            route = _route_template(scope)
            labels = (route, scope["method"], str(status))
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
    body = problem_body(error.status, error.detail, request_id, error.errors)
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
