"""The budget for bodies in flight (docs/reliability.md#bodies-in-flight, all requests together):
taken before a body is read, a body that does not fit waits for room and is then refused 503 with
`Retry-After`, given back however a request ends, grown with a chunked body, never in the way of
the probes.

Requests are driven straight through the ASGI app, so a test decides when each piece of a body
arrives: nothing here waits on a clock, except `fail_after` guards that turn a hang into a failure.
"""

from __future__ import annotations

from typing import Any

import anyio
import orjson
import pytest

from app.api.budget import BodyBudget
from app.main import create_app
from app.settings import Settings
from bench.asgi import http_scope
from tests.conftest import client_for

pytestmark = pytest.mark.anyio

PLAN = "/v1/window/plan"
SMALL_PLAN = orjson.dumps(
    {
        "messages": [
            {"role": "user", "content": "Find the hottest rack."},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "measure"}]},
            {"role": "tool", "tool_call_id": "c1", "tool_name": "measure", "content": "41C"},
        ],
        "format": "native",
    }
)
GUARD_SECONDS = 20  # only ever reached when something hangs


class Exchange:
    """One request through the app whose body arrives piece by piece, when the test says."""

    def __init__(
        self, app: Any, body: bytes, *, path: str = PLAN, chunked: bool = False, pieces: int = 2
    ) -> None:
        self.app = app
        headers = [(b"host", b"planner"), (b"content-type", b"application/json")]
        if chunked:
            headers.append((b"transfer-encoding", b"chunked"))
        else:
            headers.append((b"content-length", str(len(body)).encode()))
        self.scope = http_scope("POST", path, headers)
        step = -(-len(body) // pieces)
        self.pieces = [body[i : i + step] for i in range(0, len(body), step)] or [b""]
        self.sent = 0  # pieces handed to the app
        self.allowed = 0  # pieces the test lets through
        self.more = anyio.Event()
        self.disconnect = anyio.Event()
        self.status = 0
        self.headers: dict[bytes, bytes] = {}
        self.body = b""
        self.done = anyio.Event()

    def allow(self, pieces: int | None = None) -> None:
        self.allowed = len(self.pieces) if pieces is None else self.allowed + pieces
        self.more.set()

    def hang_up(self) -> None:
        self.disconnect.set()
        self.more.set()

    async def receive(self) -> dict[str, Any]:
        while self.sent >= self.allowed and not self.disconnect.is_set():
            self.more = anyio.Event()
            await self.more.wait()
        if self.disconnect.is_set() or self.sent >= len(self.pieces):
            await self.disconnect.wait()
            return {"type": "http.disconnect"}
        piece = self.pieces[self.sent]
        self.sent += 1
        return {"type": "http.request", "body": piece, "more_body": self.sent < len(self.pieces)}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {name: value for name, value in message["headers"]}
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")
            if not message.get("more_body", False):
                self.done.set()

    async def run(self) -> None:
        try:
            await self.app(self.scope, self.receive, self.send)
        finally:
            self.done.set()

    def problem(self) -> dict[str, Any]:
        assert self.headers[b"content-type"] == b"application/problem+json"
        problem: dict[str, Any] = orjson.loads(self.body)
        return problem


def budget_of(app: Any) -> BodyBudget:
    budget: BodyBudget = app.state.body_budget
    return budget


async def until(condition: Any) -> None:
    """Let the other tasks run until `condition()` holds."""
    while not condition():
        await anyio.sleep(0)


def app_with(budget: int, wait: float = 0.0, **settings: Any) -> Any:
    return create_app(Settings(body_budget_bytes=budget, body_budget_wait_seconds=wait, **settings))


# ---- taken before the body is read ---------------------------------------------------------------


async def test_the_declared_length_is_taken_before_any_of_the_body_is_read():
    app = app_with(budget=len(SMALL_PLAN) * 3)
    held = Exchange(app, SMALL_PLAN)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(held.run)
            await until(lambda: budget_of(app).in_flight == len(SMALL_PLAN))
            assert held.sent == 0  # reserved whole while not one byte was read
            held.allow()
    assert held.status == 200
    assert budget_of(app).in_flight == 0


async def test_past_the_budget_a_body_is_503_with_retry_after_and_is_not_read():
    app = app_with(budget=len(SMALL_PLAN) + 10)
    held = Exchange(app, SMALL_PLAN)
    refused = Exchange(app, SMALL_PLAN)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(held.run)
            await until(lambda: budget_of(app).in_flight > 0)
            refused.allow()
            await refused.run()
            held.allow()
    assert held.status == 200
    assert refused.status == 503
    assert refused.headers[b"retry-after"] == b"1"
    assert refused.headers[b"connection"] == b"close"  # the body was never read: not reusable
    assert refused.sent == 0
    problem = refused.problem()
    assert problem["status"] == 503
    assert problem["type"].endswith(":bodies-in-flight")
    assert problem["errors"] == [
        {"loc": ["body"], "msg": "no room in the budget for bodies in flight", "type": "no_room"}
    ]
    assert str(len(SMALL_PLAN) + 10) in problem["detail"]
    assert budget_of(app).in_flight == 0


async def test_a_refusal_is_counted_under_its_route():
    app = app_with(budget=len(SMALL_PLAN) + 10)
    held = Exchange(app, SMALL_PLAN)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(held.run)
            await until(lambda: budget_of(app).in_flight > 0)
            await Exchange(app, SMALL_PLAN).run()
            held.allow()
    metrics = app.state.metrics
    counted = metrics.child(metrics.requests, PLAN, "POST", "503")
    assert counted._value.get() == 1


async def test_a_body_larger_than_the_whole_budget_is_served_when_nothing_else_is_in_flight():
    app = app_with(budget=16)
    async with client_for(app=app) as client:
        response = await client.post(
            PLAN, content=SMALL_PLAN, headers={"content-type": "application/json"}
        )
    assert response.status_code == 200
    assert budget_of(app).in_flight == 0


# ---- waiting for room ----------------------------------------------------------------------------


async def test_a_body_that_does_not_fit_waits_and_is_served_when_room_comes():
    app = app_with(budget=len(SMALL_PLAN) + 10, wait=GUARD_SECONDS * 2)
    held = Exchange(app, SMALL_PLAN)
    waiting = Exchange(app, SMALL_PLAN)
    waiting.allow()
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(held.run)
            await until(lambda: budget_of(app).in_flight > 0)
            group.start_soon(waiting.run)
            await until(lambda: len(budget_of(app)._waiters) == 1)
            assert waiting.status == 0 and waiting.sent == 0
            held.allow()  # the first body is read and answered; its room goes to the waiting one
            await waiting.done.wait()
    assert held.status == waiting.status == 200
    assert waiting.body == held.body
    assert budget_of(app).in_flight == 0


async def test_the_probes_never_wait_for_the_budget():
    app = app_with(budget=len(SMALL_PLAN) + 10, wait=GUARD_SECONDS * 2)
    held = Exchange(app, SMALL_PLAN)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(held.run)
            await until(lambda: budget_of(app).in_flight > 0)
            async with client_for(app=app) as client:
                for path in ("/healthz", "/readyz"):
                    # A body sent to a probe does not count either.
                    response = await client.request("GET", path, content=b"x" * 4096)
                    assert response.status_code == 200, path
            held.allow()
    assert held.status == 200


async def test_waiting_counts_a_waiter_that_is_let_in_as_the_wait_ends():
    budget = BodyBudget(capacity=100, wait_seconds=GUARD_SECONDS * 2)
    assert await budget.take(80)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            results: list[bool] = []

            async def second() -> None:
                results.append(await budget.take(50))

            group.start_soon(second)
            await until(lambda: len(budget._waiters) == 1)
            budget.give(80)
    assert results == [True]
    assert budget.in_flight == 50


async def test_waiters_are_let_in_first_come_first_served():
    budget = BodyBudget(capacity=100, wait_seconds=GUARD_SECONDS * 2)
    assert await budget.take(90)
    order: list[int] = []

    async def take(size: int) -> None:
        assert await budget.take(size)
        order.append(size)

    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(take, 60)
            await until(lambda: len(budget._waiters) == 1)
            group.start_soon(take, 5)  # would fit now, but the 60 came first
            await until(lambda: len(budget._waiters) == 2)
            assert budget.in_flight == 90
            budget.give(90)
    assert order == [60, 5]
    assert budget.in_flight == 65


async def test_with_no_wait_a_body_that_does_not_fit_is_refused_at_once():
    budget = BodyBudget(capacity=100, wait_seconds=0.0)
    assert await budget.take(90)
    assert not await budget.take(20)
    assert budget.in_flight == 90 and not budget._waiters


async def test_a_wait_that_ends_without_room_refuses_and_lets_smaller_waiters_behind_it_in():
    # A short wait, whose length nothing asserts: only that it ends in a refusal.
    budget = BodyBudget(capacity=100, wait_seconds=0.05)
    assert await budget.take(90)
    results: dict[int, bool] = {}
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:

            async def take(size: int) -> None:
                results[size] = await budget.take(size)

            group.start_soon(take, 50)
            await until(lambda: len(budget._waiters) == 1)
            group.start_soon(take, 5)
            await until(lambda: len(budget._waiters) == 2)
            # The 5 would fit, but waits behind the 50; when the 50 gives up, the 5 is let in.
    assert results == {50: False, 5: True}
    assert budget.in_flight == 95 and not budget._waiters


# ---- given back however the request ends ---------------------------------------------------------


async def test_given_back_when_the_answer_is_an_error():
    app = app_with(budget=1024 * 1024)
    async with client_for(app=app) as client:
        for body in (b"{not json", b'{"messages": 3}', b"[" * 100 + b"]" * 100):
            response = await client.post(
                PLAN, content=body, headers={"content-type": "application/json"}
            )
            assert response.status_code in (400, 422)
            assert budget_of(app).in_flight == 0
        refused = await client.post(PLAN, content=SMALL_PLAN, headers={"content-type": "text/x"})
        assert refused.status_code == 415
    assert budget_of(app).in_flight == 0


async def test_given_back_when_the_client_disconnects_mid_body():
    app = app_with(budget=1024 * 1024)
    gone = Exchange(app, SMALL_PLAN, pieces=4)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(gone.run)
            gone.allow(1)
            await until(lambda: gone.sent == 1)
            assert budget_of(app).in_flight == len(SMALL_PLAN)
            gone.hang_up()
    assert budget_of(app).in_flight == 0


async def test_given_back_when_the_client_disconnects_while_it_waits():
    budget = BodyBudget(capacity=100, wait_seconds=GUARD_SECONDS * 2)
    assert await budget.take(90)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:

            async def waits() -> None:
                await budget.take(50)

            group.start_soon(waits)
            await until(lambda: len(budget._waiters) == 1)
            group.cancel_scope.cancel()
    assert budget.in_flight == 90 and not budget._waiters
    budget.give(90)
    assert budget.in_flight == 0


# ---- chunked bodies ------------------------------------------------------------------------------


async def test_a_chunked_body_takes_its_bytes_as_they_arrive():
    app = app_with(budget=1024 * 1024)
    chunked = Exchange(app, SMALL_PLAN, chunked=True, pieces=3)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(chunked.run)
            await until(lambda: budget_of(app).in_flight == 0 and chunked.sent == 0)
            for step in (1, 2):
                arrived = sum(map(len, chunked.pieces[:step]))
                chunked.allow(1)
                await until(lambda arrived=arrived: budget_of(app).in_flight >= arrived)
                assert budget_of(app).in_flight == arrived
            chunked.allow()
    assert chunked.status == 200
    assert budget_of(app).in_flight == 0


async def test_a_chunked_body_that_outgrows_the_room_left_is_503_and_its_connection_closed():
    app = app_with(budget=len(SMALL_PLAN) + len(SMALL_PLAN) // 2)
    held = Exchange(app, SMALL_PLAN)
    chunked = Exchange(app, SMALL_PLAN, chunked=True, pieces=4)
    with anyio.fail_after(GUARD_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(held.run)
            await until(lambda: budget_of(app).in_flight > 0)
            chunked.allow()
            await chunked.run()
            held.allow()
    assert held.status == 200
    assert chunked.status == 503
    assert chunked.headers[b"retry-after"] == b"1"
    assert chunked.headers[b"connection"] == b"close"
    assert chunked.problem()["type"].endswith(":bodies-in-flight")
    assert chunked.sent < len(chunked.pieces)  # refused as it grew, not after it was read
    assert budget_of(app).in_flight == 0


# ---- reported ------------------------------------------------------------------------------------


async def test_info_reports_the_budget_and_its_wait():
    async with client_for(Settings(body_budget_bytes=123456, body_budget_wait_seconds=1.5)) as c:
        limits = (await c.get("/v1/info")).json()["limits"]
    assert limits["body_budget_bytes"] == 123456
    assert limits["body_budget_wait_seconds"] == 1.5


async def test_the_default_budget_is_256_mib_with_a_2_s_wait():
    async with client_for(Settings()) as c:
        limits = (await c.get("/v1/info")).json()["limits"]
    assert limits["body_budget_bytes"] == 256 * 1024 * 1024
    assert limits["body_budget_wait_seconds"] == 2.0
