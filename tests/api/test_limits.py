"""The limits (docs/rules.md#validation) on the real endpoints: body size, messages, nesting depth,
the deadline, and the slots that bound work on large bodies.

`tests/api/test_errors.py` pins the problem envelope on a probe route; these tests send real
requests to every body endpoint and check the limit holds there, with the field it names.
"""

from __future__ import annotations

import threading
from typing import Any

import anyio
import orjson
import pytest

from app.core.window import plan_window
from app.main import create_app
from app.settings import Settings
from bench.asgi import http_scope
from tests.conftest import client_for

pytestmark = pytest.mark.anyio

PLAN = "/v1/window/plan"
BODY_PATHS = [
    PLAN,
    "/v1/tool-results/cap",
    "/v1/offer",
    "/v1/kept-answers/keep",
    "/v1/kept-answers/use",
    "/v1/kept-answers/lookup",
]
SMALL_PLAN = {
    "messages": [
        {"role": "user", "content": "Find the hottest rack."},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "measure"}]},
        {"role": "tool", "tool_call_id": "c1", "tool_name": "measure", "content": "41C"},
    ],
    "format": "native",
}


def transcript(count: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": f"message {n}"} for n in range(count)]


def assert_problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text[:500]
    assert response.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = response.json()
    assert problem["status"] == status
    return problem


async def post(client: Any, path: str, body: bytes, **headers: str) -> Any:
    return await client.post(
        path, content=body, headers={"content-type": "application/json", **headers}
    )


# ---- body size -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", BODY_PATHS)
async def test_a_declared_body_over_the_limit_is_413_on_every_endpoint(path):
    body = orjson.dumps({"messages": transcript(100)})
    async with client_for(Settings(max_body_bytes=len(body) - 1)) as client:
        problem = assert_problem(await post(client, path, body), 413)
    assert problem["errors"][0]["loc"] == ["body"]
    assert str(len(body) - 1) in problem["detail"]


async def test_a_body_exactly_at_the_limit_is_read():
    body = orjson.dumps(SMALL_PLAN)
    async with client_for(Settings(max_body_bytes=len(body))) as client:
        assert (await post(client, PLAN, body)).status_code == 200


async def chunked_request(
    app: Any, path: str, chunk: bytes, chunks: int
) -> tuple[int, list[tuple[bytes, bytes]], int]:
    """POST a chunked body (no Content-Length) straight to the ASGI app; (status, headers, chunks
    read)."""
    headers = [
        (b"host", b"limits"),
        (b"content-type", b"application/json"),
        (b"transfer-encoding", b"chunked"),
    ]
    scope = http_scope("POST", path, headers)
    pulled = 0
    status = 0
    headers: list[tuple[bytes, bytes]] = []
    answered = anyio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        if pulled < chunks:
            pulled += 1
            return {"type": "http.request", "body": chunk, "more_body": pulled < chunks}
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            headers.extend(message["headers"])
        elif not message.get("more_body", False):
            answered.set()

    await app(scope, receive, send)
    return status, headers, pulled


@pytest.mark.parametrize("path", BODY_PATHS)
async def test_a_chunked_body_over_the_limit_is_413_after_reading_only_the_limit(path):
    limit = 64 * 1024
    app = create_app(Settings(max_body_bytes=limit))
    status, headers, pulled = await chunked_request(app, path, b" " * 1024, chunks=10_000)
    assert status == 413
    assert pulled == limit // 1024 + 1  # the chunk that crossed the limit, and not one more
    # The rest is still coming: the answer closes the connection so the server never reads it.
    assert (b"connection", b"close") in headers


# ---- messages ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("path", [PLAN, "/v1/offer"])
async def test_100000_messages_are_accepted(path):
    body = {"messages": transcript(100_000), "format": "native"}
    if path == PLAN:
        body["include_window"] = False
    async with client_for() as client:
        response = await post(client, path, orjson.dumps(body))
    assert response.status_code == 200, response.text[:500]
    if path == PLAN:
        assert response.json()["stats"]["messages_before"] == 100_000


@pytest.mark.parametrize("path", [PLAN, "/v1/offer"])
@pytest.mark.parametrize("wire", ["native", "openai", "anthropic"])
async def test_100001_messages_are_422_naming_messages(path, wire):
    body = {"messages": transcript(100_001), "format": wire}
    async with client_for() as client:
        problem = assert_problem(await post(client, path, orjson.dumps(body)), 422)
    assert problem["errors"] == [
        {
            "loc": ["body", "messages"],
            "msg": "holds 100001 messages; at most 100000 are accepted",
            "type": "too_long",
        }
    ]


async def test_the_message_limit_is_a_setting():
    async with client_for(Settings(max_messages=3)) as client:
        assert (await post(client, PLAN, orjson.dumps(SMALL_PLAN))).status_code == 200
        grown = {**SMALL_PLAN, "messages": [*SMALL_PLAN["messages"], {"role": "user"}]}
        problem = assert_problem(await post(client, PLAN, orjson.dumps(grown)), 422)
    assert problem["errors"][0]["loc"] == ["body", "messages"]


# ---- nesting depth -------------------------------------------------------------------------------


def nested_plan(depth: int) -> bytes:
    """A valid plan whose deepest value sits at `depth` (a message's extra field holds it)."""
    # body object (1) > messages array (2) > message object (3) > the extra field's arrays
    extra = b"[" * (depth - 3) + b"]" * (depth - 3)
    message = b'{"role":"user","content":"hi","extra":' + extra + b"}"
    return b'{"format":"native","messages":[' + message + b"]}"


async def test_nesting_at_the_limit_is_planned_and_one_deeper_is_422():
    async with client_for() as client:
        at_limit = await post(client, PLAN, nested_plan(64))
        assert at_limit.status_code == 200, at_limit.text[:300]
        problem = assert_problem(await post(client, PLAN, nested_plan(65)), 422)
    assert problem["type"].endswith("too-deep")


# ---- the deadline --------------------------------------------------------------------------------


class BlockedPlanner:
    """`plan_window` that blocks its first call until released, then plans as usual."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()
        self.calls = 0
        self.real = plan_window

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            self.release.wait(timeout=30)
        return self.real(*args, **kwargs)


async def test_a_plan_past_the_deadline_is_503_and_the_next_request_is_served():
    blocked = BlockedPlanner()
    # Every body goes to a worker: a small one is otherwise planned on the event loop.
    settings = Settings(request_deadline_seconds=1.0, inline_body_bytes=0)
    async with client_for(app=create_app(settings, plan_core=blocked)) as client:
        try:
            late = await post(client, PLAN, orjson.dumps(SMALL_PLAN))
            problem = assert_problem(late, 503)
            assert problem["type"].endswith("deadline-exceeded")
            assert late.headers["retry-after"] == "1"
            assert blocked.entered.is_set() and not blocked.release.is_set()
            # The abandoned plan still runs in its thread; the service answers meanwhile.
            assert (await client.get("/healthz")).status_code == 200
            served = await post(client, PLAN, orjson.dumps(SMALL_PLAN))
            assert served.status_code == 200
        finally:
            blocked.release.set()
        again = await post(client, PLAN, orjson.dumps(SMALL_PLAN))
    assert again.status_code == 200
    assert again.content == served.content


# ---- large-body slots ----------------------------------------------------------------------------


def padded_plan(size: int) -> bytes:
    """SMALL_PLAN padded (in a message's extra field) to at least `size` bytes."""
    messages = [*SMALL_PLAN["messages"]]
    messages[0] = {**messages[0], "padding": "x" * size}
    return orjson.dumps({**SMALL_PLAN, "messages": messages})


@pytest.mark.slow
@pytest.mark.serial
async def test_abandoned_work_on_a_large_body_keeps_its_slot_until_it_ends():
    blocked = BlockedPlanner()
    settings = Settings(
        request_deadline_seconds=1.0, inline_body_bytes=0, large_body_bytes=4096, large_body_slots=1
    )
    large = padded_plan(8192)
    async with client_for(app=create_app(settings, plan_core=blocked)) as client:
        try:
            assert_problem(await post(client, PLAN, large), 503)  # blocked, then abandoned
            # Its thread still runs, so the one slot is taken: a second large body waits for
            # it until its own deadline and never starts.
            assert_problem(await post(client, PLAN, large), 503)
            assert blocked.calls == 1
            # Small bodies take no slot.
            assert (await post(client, PLAN, orjson.dumps(SMALL_PLAN))).status_code == 200
        finally:
            blocked.release.set()
        for _ in range(50):  # the abandoned thread gives its slot back when it ends
            response = await post(client, PLAN, large)
            if response.status_code == 200:
                break
            await anyio.sleep(0.05)
    assert response.status_code == 200


async def test_large_bodies_are_answered_one_slot_at_a_time():
    settings = Settings(large_body_bytes=4096, large_body_slots=1)
    large = padded_plan(8192)
    async with client_for(settings) as client:
        answers = []

        async def one() -> None:
            answers.append(await post(client, PLAN, large))

        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(one)
    assert [a.status_code for a in answers] == [200] * 8
    assert len({a.content for a in answers}) == 1


# ---- where the work runs -------------------------------------------------------------------------


async def test_small_bodies_are_planned_on_the_event_loop_and_larger_ones_in_a_worker():
    threads: list[threading.Thread] = []

    def recording(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread())
        return plan_window(*args, **kwargs)

    small = orjson.dumps(SMALL_PLAN)
    settings = Settings(inline_body_bytes=len(small) + 1)
    async with client_for(app=create_app(settings, plan_core=recording)) as client:
        inline = await post(client, PLAN, small)
        in_worker = await post(client, PLAN, padded_plan(len(small) + 1))
    assert inline.status_code == in_worker.status_code == 200
    loop_thread = threading.current_thread()
    assert threads[0] is loop_thread
    assert threads[1] is not loop_thread
