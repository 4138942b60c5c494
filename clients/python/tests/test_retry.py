"""Retries: a 503 and a broken connection are retried with a bounded exponential backoff, other
answers are not; against scripted answers (httpx's mock transport) and against the real service."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time

import httpx
import pytest
from tests.e2e.serving import Server

from cwp_client import (
    AsyncPlanner,
    AsyncRetryTransport,
    Planner,
    PlannerConnectionError,
    RetryPolicy,
    RetryTransport,
    ServerError,
    ServiceUnavailableError,
)

FAST = RetryPolicy(attempts=3, initial_delay=0.01, max_delay=0.05)
PLAN_OK = b'{"status": "ok"}'


def scripted(*statuses: int) -> tuple[httpx.MockTransport, list[int]]:
    """A transport answering `statuses` in turn (the last one from then on), and the list of the
    statuses it actually sent."""
    sent: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        status = statuses[min(len(sent), len(statuses) - 1)]
        sent.append(status)
        return httpx.Response(status, headers={"Retry-After": "0"}, content=PLAN_OK)

    return httpx.MockTransport(answer), sent


def test_backoff_doubles_up_to_the_cap():
    policy = RetryPolicy(initial_delay=0.1, multiplier=2.0, max_delay=0.5)
    assert [policy.delay(n) for n in (1, 2, 3, 4, 5)] == [0.1, 0.2, 0.4, 0.5, 0.5]


def test_retry_after_replaces_the_backoff_within_the_cap():
    policy = RetryPolicy(initial_delay=0.1, max_delay=2.0)
    assert policy.delay(1, httpx.Response(503, headers={"Retry-After": "1"})) == 1.0
    assert policy.delay(1, httpx.Response(503, headers={"Retry-After": "30"})) == 2.0
    assert policy.delay(1, httpx.Response(503)) == 0.1
    ignoring = RetryPolicy(initial_delay=0.1, respect_retry_after=False)
    assert ignoring.delay(1, httpx.Response(503, headers={"Retry-After": "1"})) == 0.1


@pytest.mark.parametrize("bad", [{"attempts": 0}, {"initial_delay": -1}, {"multiplier": 0.5}])
def test_a_policy_that_cannot_work_is_refused(bad):
    with pytest.raises(ValueError):
        RetryPolicy(**bad)


def test_503_is_retried_until_an_answer():
    transport, sent = scripted(503, 503, 200)
    with httpx.Client(transport=RetryTransport(FAST, transport)) as http:
        assert http.post("http://planner/v1/info").status_code == 200
    assert sent == [503, 503, 200]


def test_503_on_every_attempt_is_returned_after_the_last():
    transport, sent = scripted(503)
    with httpx.Client(transport=RetryTransport(FAST, transport)) as http:
        assert http.post("http://planner/v1/info").status_code == 503
    assert sent == [503, 503, 503]


@pytest.mark.parametrize("status", [200, 400, 413, 415, 422, 500])
def test_other_statuses_are_not_retried(status):
    transport, sent = scripted(status)
    with httpx.Client(transport=RetryTransport(FAST, transport)) as http:
        http.post("http://planner/v1/info")
    assert sent == [status]


def test_the_async_transport_retries_the_same_way():
    transport, sent = scripted(503, 200)

    async def call() -> int:
        async with httpx.AsyncClient(transport=AsyncRetryTransport(FAST, transport)) as http:
            return (await http.post("http://planner/v1/info")).status_code

    assert asyncio.run(call()) == 200
    assert sent == [503, 200]


def test_a_500_is_a_server_error_at_once():
    transport, sent = scripted(500)
    http = httpx.Client(base_url="http://planner", transport=RetryTransport(FAST, transport))
    with Planner(http_client=http) as planner, pytest.raises(ServerError) as raised:
        planner.plan([])
    assert sent == [500] and raised.value.status == 500
    # Not a problem+json body: the status still says what happened.
    assert raised.value.problem is None and raised.value.title == "Internal Server Error"


def plan_503_count(server: Server) -> float:
    metrics = httpx.get(server.url + "/metrics").text
    found = re.search(
        r'^cwp_http_requests_total\{method="POST",route="/v1/window/plan",status="503"\} (\S+)$',
        metrics,
        re.MULTILINE,
    )
    return float(found.group(1)) if found else 0.0


def test_the_services_503_is_retried_then_raised_with_its_problem(strict_server):
    before = plan_503_count(strict_server)
    with (
        Planner(strict_server.url, retry=FAST) as planner,
        pytest.raises(ServiceUnavailableError) as raised,
    ):
        planner.plan([{"role": "user", "content": "hi"}])
    assert plan_503_count(strict_server) - before == FAST.attempts
    error = raised.value
    assert error.status == 503 and error.problem is not None
    assert error.response.headers["retry-after"] == "1"
    assert [problem.type for problem in error.errors] == ["deadline_exceeded"]
    assert error.errors[0].loc == ("body",)


def test_the_async_planner_retries_the_services_503(strict_server):
    before = plan_503_count(strict_server)

    async def call() -> None:
        async with AsyncPlanner(strict_server.url, retry=FAST) as planner:
            await planner.plan([{"role": "user", "content": "hi"}])

    with pytest.raises(ServiceUnavailableError):
        asyncio.run(call())
    assert plan_503_count(strict_server) - before == FAST.attempts


def test_no_retry_policy_sends_once(strict_server):
    before = plan_503_count(strict_server)
    with (
        Planner(strict_server.url, retry=None) as planner,
        pytest.raises(ServiceUnavailableError),
    ):
        planner.plan([{"role": "user", "content": "hi"}])
    assert plan_503_count(strict_server) - before == 1


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_service_is_a_connection_error_after_the_backoff():
    policy = RetryPolicy(attempts=3, initial_delay=0.05, max_delay=1.0)
    started = time.monotonic()
    with (
        Planner(f"http://127.0.0.1:{free_port()}", retry=policy) as planner,
        pytest.raises(PlannerConnectionError) as raised,
    ):
        planner.plan([])
    assert time.monotonic() - started >= 0.05 + 0.1
    assert isinstance(raised.value.__cause__, httpx.ConnectError)


class CountingTransport(httpx.HTTPTransport):
    """The real transport, counting the connections it could not make."""

    refused = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return super().handle_request(request)
        except httpx.ConnectError:
            self.refused += 1
            raise


def test_a_planner_started_before_the_service_is_answered_once_it_is_up(long_transcript):
    port = free_port()
    result: dict[str, object] = {}
    inner = CountingTransport()
    patient = RetryTransport(RetryPolicy(attempts=200, initial_delay=0.05, max_delay=0.1), inner)
    http = httpx.Client(base_url=f"http://127.0.0.1:{port}", transport=patient)

    def plan() -> None:
        with Planner(http_client=http) as planner:
            try:
                result["plan"] = planner.plan(long_transcript)
            except Exception as error:  # reported below
                result["error"] = error

    caller = threading.Thread(target=plan)
    caller.start()
    server = Server(CWP_SHUTDOWN_DRAIN_SECONDS="0", CWP_PORT=str(port))
    try:
        caller.join(timeout=30)
    finally:
        server.stop()
    assert "error" not in result, result.get("error")
    assert inner.refused >= 1, "the service was up before the first attempt"
    assert result["plan"].stats.messages_before == len(long_transcript)
