"""Connections and requests a hostile or careless client sends, in process: the server's protocol
(`app.api.connections`) fed bytes through the stand-in transport of `test_connections`, and the
app called straight through ASGI.

A connection that sends nothing is closed at the read deadline and never holds the ceiling; what
h11 cannot parse is answered in problem+json; a client gone mid-body is a 499, not a 500; a request
cancelled by the end of the graceful shutdown is a 503 problem; an unknown method is `other`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import string
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from app.api.connections import OVER_CAPACITY, SILENT_PER_SLOT
from app.main import create_app
from app.settings import Settings
from bench.asgi import http_scope
from tests.api.test_connections import (
    BODY,
    PLAN,
    Served,
    problem_of,
    request,
    settle,
    status_of,
)

pytestmark = pytest.mark.anyio


# ---- silent connections ----


async def test_a_connection_that_sends_nothing_is_closed_at_the_read_deadline():
    served = Served()
    protocol, transport = served.connect()
    await settle(transport)
    assert transport.closed
    assert transport.written == b""  # no request, nothing to answer
    assert 'cwp_http_connections_closed_unheard_total{reason="silent"} 1.0' in served.metrics()
    protocol.connection_lost(None)
    assert protocol not in protocol.silent


async def test_a_first_byte_stops_the_silent_clock_and_starts_the_request_clock():
    served = Served(read_timeout=0.3)
    protocol, transport = served.connect()
    protocol.data_received(b"GET /healthz HTTP/1.1\r\n")
    assert protocol not in protocol.silent
    await settle(transport, seconds=2.0)
    assert status_of(transport.written) == 408  # the head's own deadline, not the silent close
    assert 'reason="silent"' not in served.metrics()


async def test_silent_connections_do_not_hold_the_ceiling():
    served = Served(read_timeout=5.0, ceiling=2)
    silent = [served.connect() for _ in range(4)]
    protocol, transport = served.connect()  # twice the ceiling is silent; this one asks
    protocol.data_received(request())
    assert OVER_CAPACITY not in protocol.scope["extensions"]
    await settle(transport, until=b"}")
    assert status_of(transport.written) == 200
    for other, _ in silent:
        other.connection_lost(None)
    protocol.connection_lost(None)


async def test_past_the_bound_on_silent_connections_the_oldest_is_closed():
    served = Served(read_timeout=5.0, ceiling=2)
    held = [served.connect() for _ in range(SILENT_PER_SLOT * 2)]
    assert not any(transport.closed for _, transport in held)
    newest, newest_transport = served.connect()
    _, oldest_transport = held[0]
    assert oldest_transport.closed and oldest_transport.written == b""
    assert not newest_transport.closed
    assert not any(transport.closed for _, transport in held[1:])
    assert 'reason="evicted"} 1.0' in served.metrics()
    for protocol, _ in [*held, (newest, newest_transport)]:
        protocol.connection_lost(None)
    assert not newest.silent


# ---- what h11 cannot parse ----

HEAD_LIMIT = 2048

UNREADABLE = [
    (b"GARBAGE\r\n\r\n", 400, ["head", "request-line"]),
    (b"GET /healthz HTTP/1.1\r\n\r\n", 400, ["head", "host"]),
    (
        b"POST /v1/window/plan HTTP/1.1\r\nHost: p\r\nContent-Length: zzqq\r\n\r\n",
        400,
        ["head", "content-length"],
    ),
    (
        b"POST /v1/window/plan HTTP/1.1\r\nHost: p\r\n"
        b"Content-Length: 1\r\nContent-Length: 2\r\n\r\n",
        400,
        ["head", "content-length"],
    ),
    (b"GET /healthz HTTP/1.1\r\nHost: p\r\nBad Header\r\n\r\n", 400, ["head", "headers"]),
    (b"GET /healthz HTTP/1.1\r\nHost: p\r\nX-Big: " + b"a" * HEAD_LIMIT * 2, 431, ["head"]),
]


@pytest.mark.parametrize(("sent", "status", "loc"), UNREADABLE)
async def test_an_unreadable_head_is_answered_in_problem_json(sent, status, loc):
    served = Served(read_timeout=5.0)
    served.config.h11_max_incomplete_event_size = HEAD_LIMIT
    protocol, transport = served.connect()
    protocol.data_received(sent)
    assert transport.closed
    head, _, _ = transport.written.partition(b"\r\n\r\n")
    assert status_of(transport.written) == status
    assert b"content-type: application/problem+json" in head
    assert b"connection: close" in head
    problem = problem_of(transport.written)
    assert problem["status"] == status
    assert problem["errors"][0]["loc"] == loc
    assert b"x-request-id: " + problem["instance"].encode() in head
    assert b"GARBAGE" not in transport.written and b"zzqq" not in transport.written
    assert f'route="unmatched",status="{status}"' in served.metrics()
    protocol.connection_lost(None)


async def test_a_malformed_chunk_is_answered_400_and_counted_under_the_route():
    served = Served(read_timeout=5.0)
    protocol, transport = served.connect()
    protocol.data_received(
        b"POST /v1/window/plan HTTP/1.1\r\nHost: p\r\nContent-Type: application/json\r\n"
        b"X-Request-ID: bad-chunk\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    await asyncio.sleep(0.05)  # the app starts reading the body
    protocol.data_received(b"zz-not-hex\r\n")
    assert transport.closed
    assert status_of(transport.written) == 400
    problem = problem_of(transport.written)
    assert problem["errors"][0]["loc"] == ["body"]
    assert problem["instance"] == "bad-chunk"
    protocol.connection_lost(None)
    metrics = ""
    for _ in range(100):
        metrics = served.metrics()
        if 'route="/v1/window/plan"' in metrics:
            break
        await asyncio.sleep(0.01)
    assert 'route="/v1/window/plan",status="400"' in metrics
    assert 'status="499"' not in metrics and 'status="500"' not in metrics


# ---- a client gone mid-body, a request cancelled at shutdown ----


def plan_scope() -> dict[str, Any]:
    return http_scope(
        "POST",
        PLAN,
        [
            (b"host", b"planner"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(BODY)).encode()),
        ],
    )


def metrics_text(app: Any) -> str:
    from prometheus_client import generate_latest

    return generate_latest(app.state.metrics.registry).decode()


async def test_a_client_gone_mid_body_is_a_499_logged_without_a_traceback(caplog):
    app = create_app(Settings())
    calls = 0

    async def receive() -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls == 1:
            return {"type": "http.request", "body": BODY[:5], "more_body": True}
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    with caplog.at_level(logging.INFO):
        await app(plan_scope(), receive, send)
    assert sent == []  # nobody to answer
    metrics = metrics_text(app)
    assert 'route="/v1/window/plan",status="499"' in metrics
    assert 'status="500"' not in metrics
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not [r for r in caplog.records if r.exc_info]
    assert any("client closed the connection" in r.getMessage() for r in caplog.records)


async def test_a_request_cancelled_at_the_end_of_the_grace_period_is_answered_503():
    app = create_app(Settings(read_timeout_seconds=60))
    reading = asyncio.Event()

    async def receive() -> dict[str, Any]:
        reading.set()
        await asyncio.sleep(60)  # still arriving when the server gives up on it
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    task = asyncio.ensure_future(app(plan_scope(), receive, send))
    await reading.wait()
    task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
    await task  # answered, not cancelled
    assert sent[0]["status"] == 503
    headers = dict(sent[0]["headers"])
    assert headers[b"content-type"] == b"application/problem+json"
    assert int(headers[b"retry-after"]) >= 1
    problem = orjson.loads(sent[1]["body"])
    assert problem["status"] == 503 and problem["type"].endswith("shutting-down")
    assert 'route="/v1/window/plan",status="503"' in metrics_text(app)


# ---- method labels ----


def test_random_methods_share_one_label_and_metrics_stay_small():
    client = TestClient(create_app(Settings()))
    before = len(client.get("/metrics").content)
    rng = random.Random(41)
    alphabet = string.ascii_uppercase + string.digits + "!#$%&'*+-.^_`|~"
    for _ in range(2000):
        method = "".join(rng.choice(alphabet) for _ in range(rng.randint(3, 24)))
        client.request(method, rng.choice(["/v1/window/plan", "/healthz", "/nowhere"]))
    text = client.get("/metrics").text
    assert len(text.encode()) - before <= 20 * 1024
    assert 'method="other"' in text
    client.request("PATCH", "/healthz")
    assert 'method="PATCH"' in client.get("/metrics").text
