"""The read deadline and the connection ceiling, in process: the server's protocol
(`app.api.connections`) fed bytes through a stand-in transport, and the middleware's half of the
deadline on the ASGI app.

`tests/e2e/test_slow_clients.py` shows the same on the real server; these are the unit tests that
reach every branch. Deadlines here are a few hundredths of a second; nothing asserts a duration.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import orjson
import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from app.api.connections import (
    CONNECTION_EVENTS,
    OVER_CAPACITY,
    READ_DEADLINE,
    ConnectionEvents,
    deadline_protocol,
)
from app.main import create_app
from app.settings import Settings
from bench.asgi import http_scope

pytestmark = pytest.mark.anyio

PLAN = "/v1/window/plan"
BODY = orjson.dumps(
    {"messages": [{"role": "user", "content": "Hello."}], "strategy": {"kind": "sliding-window"}}
)
SHORT = 0.05


class Transport(asyncio.Transport):
    """What the protocol writes, and whether it closed the connection."""

    def __init__(self) -> None:
        super().__init__()
        self.written = b""
        self.closed = False
        self.reading = True

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8080), "peername": ("127.0.0.1", 50000)}.get(
            name, default
        )


class Served:
    """The app served by the deadline protocol, one connection at a time."""

    def __init__(self, read_timeout: float = SHORT, ceiling: int = 8) -> None:
        self.app = create_app(Settings(read_timeout_seconds=read_timeout))
        self.state = ServerState()
        self.app_state = {CONNECTION_EVENTS: ConnectionEvents(self.app.state.metrics)}
        self.config = Config(app=self.app, http="h11", lifespan="off", log_config=None)
        self.config.load()
        self.protocol_class = deadline_protocol(read_timeout, ceiling)

    def connect(self, app_state: dict[str, Any] | None = None) -> tuple[Any, Transport]:
        protocol = self.protocol_class(
            config=self.config,
            server_state=self.state,
            app_state=self.app_state if app_state is None else app_state,
        )
        transport = Transport()
        protocol.connection_made(transport)
        return protocol, transport

    def metrics(self) -> str:
        from prometheus_client import generate_latest

        return generate_latest(self.app.state.metrics.registry).decode()


def request(body: bytes = BODY, path: str = PLAN, declared: int | None = None) -> bytes:
    length = len(body) if declared is None else declared
    return (
        f"POST {path} HTTP/1.1\r\nHost: planner\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode() + body


async def settle(transport: Transport, seconds: float = 2.0, until: bytes = b"") -> None:
    """Let the loop run until the transport is closed or has `until` written (or time is up)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        if transport.closed or (until and until in transport.written):
            return
        await asyncio.sleep(0.005)


def status_of(written: bytes) -> int:
    return int(written.split(b" ", 2)[1]) if written else 0


def problem_of(written: bytes) -> dict[str, Any]:
    return orjson.loads(written.split(b"\r\n\r\n", 1)[1])  # type: ignore[no-any-return]


async def test_a_whole_request_is_answered_and_its_clock_stopped():
    served = Served()
    protocol, transport = served.connect()
    protocol.data_received(request())
    await settle(transport, until=b"}")
    assert status_of(transport.written) == 200
    assert protocol.read_deadline is None and protocol.read_timer is None
    await asyncio.sleep(SHORT * 3)  # past the deadline: nothing happens to an answered request
    assert not transport.closed
    protocol.connection_lost(None)


async def test_a_head_that_never_ends_is_answered_408_and_closed():
    served = Served()
    protocol, transport = served.connect()
    protocol.data_received(b"POST /v1/window/plan HTTP/1.1\r\nHost: pl")
    await settle(transport)
    assert transport.closed
    assert status_of(transport.written) == 408
    head, _, _ = transport.written.partition(b"\r\n\r\n")
    problem = problem_of(transport.written)
    assert problem["status"] == 408 and problem["errors"][0]["loc"] == ["head"]
    assert b"x-request-id: " + problem["instance"].encode() in head
    assert 'route="unmatched",status="408"' in served.metrics()
    assert 'method="POST"' in served.metrics()


async def test_a_head_cut_off_without_the_apps_events_is_still_closed():
    served = Served()
    protocol, transport = served.connect(app_state={})
    protocol.data_received(b"G")
    await settle(transport)
    assert transport.closed and status_of(transport.written) == 408
    assert 'status="408"' not in served.metrics()  # no app to count it in


async def test_a_body_that_stops_is_answered_408_by_the_app_and_closed():
    served = Served()
    protocol, transport = served.connect()
    protocol.data_received(request(BODY[:5], declared=len(BODY)))
    await settle(transport, until=b"}")
    assert status_of(transport.written) == 408
    problem = problem_of(transport.written)
    assert problem["errors"][0]["loc"] == ["body"]
    assert b"connection: close" in transport.written
    await settle(transport)
    assert transport.closed
    assert 'route="/v1/window/plan",status="408"' in served.metrics()


async def test_a_body_nobody_reads_is_closed_at_the_deadline():
    served = Served()
    protocol, transport = served.connect()
    protocol.data_received(b"GET /healthz HTTP/1.1\r\nHost: planner\r\nContent-Length: 10\r\n\r\n{")
    await settle(transport, until=b"}")
    assert status_of(transport.written) == 200
    await settle(transport)
    assert transport.closed


async def test_an_app_that_does_not_answer_an_unfinished_body_is_cut_off_after_a_backstop():
    served = Served()
    protocol, transport = served.connect()

    async def never_reads(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.sleep(60)

    protocol.app = never_reads
    protocol.data_received(request(BODY[:5], declared=len(BODY)))
    await settle(transport, seconds=5.0)
    assert transport.closed and transport.written == b""
    protocol.connection_lost(None)


async def test_a_pipelined_request_gets_its_own_clock():
    served = Served(read_timeout=1.0)
    protocol, transport = served.connect()
    protocol.data_received(request() + b"GET /healthz HTTP/1.1\r\nHo")
    await settle(transport, until=b"}")
    assert status_of(transport.written) == 200
    assert protocol.read_deadline is not None  # the second head's clock started
    protocol.data_received(b"st: planner\r\n\r\n")
    await settle(transport, until=b'"ok"')
    assert transport.written.count(b"HTTP/1.1 200") == 2
    protocol.connection_lost(None)


async def test_the_scope_carries_the_deadline_and_past_the_ceiling_a_503_problem():
    served = Served(read_timeout=5.0, ceiling=1)
    first, first_transport = served.connect()
    second, second_transport = served.connect()
    first.data_received(b"POST /v1/window/plan HTTP/1.1\r\nHost: pl")  # holds its slot
    second.data_received(request())
    assert READ_DEADLINE in second.scope["extensions"]
    assert OVER_CAPACITY in second.scope["extensions"]
    await settle(second_transport, until=b"}")
    assert status_of(second_transport.written) == 503
    assert b"retry-after: 1" in second_transport.written.lower()
    assert problem_of(second_transport.written)["type"].endswith("over-capacity")
    # The probes are never refused.
    probe, probe_transport = served.connect()
    probe.data_received(b"GET /readyz HTTP/1.1\r\nHost: planner\r\n\r\n")
    assert OVER_CAPACITY not in probe.scope["extensions"]
    await settle(probe_transport, until=b"}")
    assert status_of(probe_transport.written) == 200
    assert 'route="/v1/window/plan",status="503"' in served.metrics()
    for protocol in (first, second, probe):
        protocol.connection_lost(None)
    assert first_transport.closed or first.read_timer is None


async def test_the_middleware_alone_times_out_a_stalled_body():
    # Served without the protocol (no deadline in the scope), the app starts the clock itself.
    app = create_app(Settings(read_timeout_seconds=SHORT))
    scope = http_scope(
        "POST",
        PLAN,
        [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())],
    )
    sent: list[dict[str, Any]] = []
    first = True

    async def receive() -> dict[str, Any]:
        nonlocal first
        if first:
            first = False
            return {"type": "http.request", "body": BODY[:3], "more_body": True}
        await asyncio.sleep(60)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]


def test_h11_may_answer_before_the_request_head_ends():
    # What `refuse_unfinished_head` rests on: h11 lets a server send a response while the client
    # is still IDLE (no complete request yet).
    connection = h11.Connection(h11.SERVER)
    connection.receive_data(b"GET / HT")
    assert connection.next_event() is h11.NEED_DATA
    assert connection.send(h11.Response(status_code=408, headers=[("content-length", "0")]))


async def test_two_whole_pipelined_requests_are_both_answered():
    served = Served(read_timeout=1.0)
    protocol, transport = served.connect()
    protocol.data_received(request() + b"GET /healthz HTTP/1.1\r\nHost: planner\r\n\r\n")
    await settle(transport, until=b'"ok"')
    assert transport.written.count(b"HTTP/1.1 200") == 2
    assert protocol.read_deadline is None  # both read whole: no clock left running
    protocol.connection_lost(None)
