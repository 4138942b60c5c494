"""Slow and hostile clients against the real server (`python -m app`), with a read deadline of 1 s.

A head that never ends is closed (after a 408 problem+json when the client can still read it); a
body that stops half way is answered 408 problem+json (or closed), counted under its route and
logged with its request id; a well-behaved request beside them is answered 200; past the
connection ceiling a request gets a 503 problem+json with `Retry-After` while readiness stays
true; a keep-alive connection paused between requests for longer than the deadline serves its next
one, and left idle is closed by the keep-alive timeout as before. No timing is asserted: every wait
polls its condition or reads with a generous timeout.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import orjson
import pytest

from tests.e2e.serving import HOST, PLAN_BODY, Server, wait_until

READ_TIMEOUT = "1"
KEEP_ALIVE = "2.5"
# How long the test waits for the server to act on a 1 s deadline before giving up on it.
PATIENCE_SECONDS = 15.0


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server(
        {
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
            "CWP_READ_TIMEOUT_SECONDS": READ_TIMEOUT,
            "CWP_KEEP_ALIVE_SECONDS": KEEP_ALIVE,
            "CWP_LOG_FORMAT": "json",
        }
    )
    try:
        yield running
    finally:
        running.stop()


def plan(server: Server, client: httpx.Client) -> httpx.Response:
    return client.post(
        f"{server.url}/v1/window/plan",
        content=PLAN_BODY,
        headers={"content-type": "application/json"},
    )


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a reset counts as closed)."""
    sock.settimeout(PATIENCE_SECONDS)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def read_one_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One whole answer on a connection that stays open (its body is `Content-Length` long)."""
    raw = b""
    while b"\r\n\r\n" not in raw:
        chunk = sock.recv(65536)
        assert chunk, "the connection was closed before the answer"
        raw += chunk
    status, headers, body = split_answer(raw)
    while len(body) < int(headers["content-length"]):
        chunk = sock.recv(65536)
        assert chunk, "the connection was closed during the answer"
        body += chunk
    return status, headers, body


def split_answer(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


class HeadTrickler(threading.Thread):
    """Sends a request head one byte every `interval` seconds and never ends it."""

    def __init__(self, port: int, interval: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_connection((HOST, port))
        self.interval = interval
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            self.sock.sendall(b"POST /v1/window/plan HTTP/1.1\r\nHost: slow\r\nX-Slow: ")
            while not self.stop.wait(self.interval):
                self.sock.sendall(b"s")
        except OSError:
            pass  # the server closed the connection: what the test waits for

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def test_a_head_that_never_ends_is_closed(server):
    trickler = HeadTrickler(server.port)
    trickler.start()
    try:
        received = read_until_closed(trickler.sock)
    finally:
        trickler.close()
    if received:  # the 408 arrived before the close; a reset may have dropped it, which is fine
        status, headers, body = split_answer(received)
        assert status == 408
        assert headers["content-type"] == "application/problem+json"
        problem = orjson.loads(body)
        assert problem["status"] == 408
        assert problem["instance"] == headers["x-request-id"]
    wait_until(
        lambda: 'route="unmatched",status="408"' in httpx.get(f"{server.url}/metrics").text,
        "the closed head to be counted under `unmatched`",
    )


def test_a_body_that_stops_half_way_gets_a_408_problem_or_a_close(server):
    with socket.create_connection((HOST, server.port)) as sock:
        sock.sendall(
            b"POST /v1/window/plan HTTP/1.1\r\nHost: slow\r\nX-Request-ID: half-a-body\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % len(PLAN_BODY)
            + PLAN_BODY[: len(PLAN_BODY) // 2]
        )
        received = read_until_closed(sock)
    if received:
        status, headers, body = split_answer(received)
        assert status == 408
        assert headers["content-type"] == "application/problem+json"
        assert headers["connection"] == "close"
        problem = orjson.loads(body)
        assert problem["status"] == 408
        assert problem["instance"] == "half-a-body"
        assert problem["errors"][0]["loc"] == ["body"]
    metrics = wait_until(
        lambda: (
            text
            if 'route="/v1/window/plan",status="408"'
            in (text := httpx.get(f"{server.url}/metrics").text)
            else None
        ),
        "the 408 to be counted under its route",
    )
    assert "cwp_http_requests_total" in metrics
    wait_until(lambda: "half-a-body" in server.output()[1], "the 408 to be logged with its id")


def test_a_well_behaved_request_beside_slow_clients_is_answered(server):
    tricklers = [HeadTrickler(server.port) for _ in range(5)]
    for trickler in tricklers:
        trickler.start()
    half = socket.create_connection((HOST, server.port))
    try:
        half.sendall(
            b"POST /v1/window/plan HTTP/1.1\r\nHost: slow\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n{" % len(PLAN_BODY)
        )
        server.wait_accepted(half, *(trickler.sock for trickler in tricklers))
        with httpx.Client(timeout=PATIENCE_SECONDS) as client:
            for _ in range(10):
                answer = plan(server, client)
                assert answer.status_code == 200
                assert answer.json()["stats"]["messages_before"] == 3
        # The slow body is let go by the server on its own: a 408, or a close.
        received = read_until_closed(half)
        assert not received or received.startswith(b"HTTP/1.1 408"), received[:200]
    finally:
        half.close()
        for trickler in tricklers:
            trickler.close()
    assert httpx.get(f"{server.url}/readyz").status_code == 200


def test_a_keep_alive_connection_serves_a_second_request_after_a_pause(server):
    # The read deadline counts from a request's first byte, not from the previous request: a
    # connection idle for less than the keep-alive timeout serves its next request on the same
    # connection.
    request = (
        b"POST /v1/window/plan HTTP/1.1\r\nHost: planner\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(PLAN_BODY) + PLAN_BODY
    )
    with socket.create_connection((HOST, server.port), timeout=PATIENCE_SECONDS) as sock:
        for _ in range(2):
            sock.sendall(request)
            status, _, _ = read_one_answer(sock)
            assert status == 200
            time.sleep(1.5)  # longer than the read deadline, shorter than the keep-alive timeout
        # Left idle, it is closed by the keep-alive timeout, as before.
        assert read_until_closed(sock) == b""


def test_past_the_ceiling_a_503_problem_with_retry_after_and_readiness_stays_true():
    limited = Server(
        {
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
            "CWP_LIMIT_CONCURRENCY": "4",
            "CWP_READ_TIMEOUT_SECONDS": "60",  # the slow clients hold their slots for the test
            "CWP_GRACEFUL_SHUTDOWN_SECONDS": "70",  # read timeout + deadline, as start-up requires
        }
    )
    tricklers = [HeadTrickler(limited.port, interval=0.2) for _ in range(4)]
    try:
        for trickler in tricklers:
            trickler.start()
        limited.wait_accepted(*(trickler.sock for trickler in tricklers))
        with httpx.Client(timeout=PATIENCE_SECONDS) as client:
            refused = plan(limited, client)
            assert refused.status_code == 503
            assert refused.headers["content-type"] == "application/problem+json"
            assert int(refused.headers["retry-after"]) >= 1
            problem = refused.json()
            assert problem["status"] == 503
            assert problem["instance"] == refused.headers["x-request-id"]
            assert client.get(f"{limited.url}/readyz").status_code == 200
            assert client.get(f"{limited.url}/healthz").status_code == 200
            metrics = client.get(f"{limited.url}/metrics").text
            assert 'route="/v1/window/plan",status="503"' in metrics
            for trickler in tricklers:
                trickler.close()
            wait_until(
                lambda: plan(limited, client).status_code == 200,
                "a slot to come free",
                timeout=PATIENCE_SECONDS,
            )
    finally:
        for trickler in tricklers:
            trickler.close()
        limited.stop()
