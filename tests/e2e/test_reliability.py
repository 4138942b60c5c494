"""End to end under stress: the real server (`python -m app`) loaded, drained, starved and abused.

Short versions of `bench/load.py` (a steady run and SIGTERM under load, every answer checked
against the in-process handlers), slow clients that trickle their headers, a head that never ends,
the concurrency limit, a chunked body over the limit, and hostile bodies: after each the process
is alive, answers correctly and its peak memory stayed small.

The load runs start their server through `bench/load.py`; every other server here is
`tests/e2e/serving.py`'s, on a port the kernel picks, and every wait polls its condition.
"""

from __future__ import annotations

import contextlib
import select
import signal
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from app.settings import Settings
from bench.load import LoadOptions, run
from tests.e2e.serving import HOST, PLAN_BODY, Server, wait_until


def url(server: Server, path: str) -> str:
    return f"http://{HOST}:{server.port}{path}"


def peak_rss_mib(server: Server) -> float:
    return server.memory_kib()["VmHWM"] / 1024


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server(
        {
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
            "CWP_MAX_BODY_BYTES": str(1024 * 1024),
            "CWP_MAX_HEADER_BYTES": str(16 * 1024),
        }
    )
    try:
        yield running
    finally:
        running.stop()


def assert_serving(server: Server) -> None:
    """Alive, and a plan is answered as before."""
    assert server.process.poll() is None
    with httpx.Client(timeout=10) as client:
        assert client.get(url(server, "/healthz")).status_code == 200
        answer = client.post(
            url(server, "/v1/window/plan"),
            content=PLAN_BODY,
            headers={"content-type": "application/json"},
        )
    assert answer.status_code == 200
    assert answer.json()["stats"]["messages_before"] == 3


# ---- load --------------------------------------------------------------------------------------


def test_a_short_load_run_has_no_errors_and_no_wrong_answers():
    report = run(LoadOptions(clients=16, seconds=2.0, pool_size=48, seed=3))
    assert report.errors == 0, report.problems
    assert report.wrong_answers == 0, report.problems
    assert report.requests > 0 and set(report.by_kind) == {"plan", "cap", "offer"}
    assert report.latency_ms["p99"] > 0 and report.server_peak_rss_mib > 0
    assert report.passed


def test_sigterm_under_load_completes_every_request_in_flight():
    options = LoadOptions(
        clients=16,
        seconds=3.0,
        mode="sigterm",
        pool_size=48,
        seed=4,
        drain_seconds=1.5,
        grace_seconds=20.0,  # at least read timeout + deadline (10 + 10), as start-up requires
        stragglers=4,
    )
    report = run(options)
    shutdown = report.shutdown
    assert shutdown is not None
    assert report.errors == 0, report.problems
    assert report.wrong_answers == 0, report.problems
    assert shutdown["readiness_503_seen"]  # readiness turned 503 before the server went away
    assert shutdown["answered_after_sigterm"] > 0  # requests kept being served while draining
    assert shutdown["exit_code"] in (0, 143, -signal.SIGTERM)
    assert shutdown["exit_after_seconds"] <= options.drain_seconds + options.grace_seconds
    assert report.passed


# ---- slow clients ------------------------------------------------------------------------------


class Trickler(threading.Thread):
    """A client that sends its request head one byte at a time, and never the blank line until
    told to finish."""

    def __init__(self, port: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_connection((HOST, port))
        self.interval = interval
        self.finish = threading.Event()
        self.sent = 0
        self.failed: BaseException | None = None

    def run(self) -> None:
        try:
            self.sock.sendall(
                b"POST /v1/window/plan HTTP/1.1\r\nHost: slow\r\n"
                b"Content-Type: application/json\r\nX-Slow: "
            )
            for _ in range(10_000):
                if self.finish.is_set():
                    break
                self.sock.sendall(b"s")
                self.sent += 1
                time.sleep(self.interval)
        except OSError as error:
            self.failed = error

    def complete(self) -> bytes:
        """End the head, send a body and read the answer."""
        self.finish.set()
        self.join(timeout=10)
        self.sock.sendall(b"\r\nContent-Length: %d\r\n\r\n" % len(PLAN_BODY) + PLAN_BODY)
        self.sock.settimeout(10)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer

    def close(self) -> None:
        self.finish.set()
        self.sock.close()


def test_clients_trickling_their_headers_do_not_block_others(server):
    tricklers = [Trickler(server.port, interval=0.02) for _ in range(20)]
    for trickler in tricklers:
        trickler.start()
    try:
        server.wait_accepted(*(trickler.sock for trickler in tricklers))
        wait_until(lambda: all(t.sent > 0 for t in tricklers), "every trickler to be trickling")
        with httpx.Client(timeout=5) as client:
            for _ in range(20):
                answer = client.post(
                    url(server, "/v1/window/plan"),
                    content=PLAN_BODY,
                    headers={"content-type": "application/json"},
                )
                assert answer.status_code == 200
                assert client.get(url(server, "/readyz")).status_code == 200
        assert all(t.sent > 0 and t.failed is None for t in tricklers)
        # Within the read deadline (10 s) a trickler that finally ends its head is answered.
        answer = tricklers[0].complete()
        assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    finally:
        for trickler in tricklers:
            trickler.close()
    assert_serving(server)


def test_past_the_concurrency_limit_new_requests_get_503_until_slow_clients_leave():
    limited = Server({"CWP_SHUTDOWN_DRAIN_SECONDS": "0", "CWP_LIMIT_CONCURRENCY": "4"})
    tricklers = [Trickler(limited.port, interval=0.05) for _ in range(4)]

    def ping(client: httpx.Client) -> httpx.Response:
        return client.get(url(limited, "/v1/info"))

    try:
        for trickler in tricklers:
            trickler.start()
        limited.wait_accepted(*(trickler.sock for trickler in tricklers))
        with httpx.Client(timeout=5) as client:
            refused = ping(client)
            assert refused.status_code == 503  # the slots are all held
            assert refused.headers["content-type"] == "application/problem+json"
            assert "retry-after" in refused.headers
            assert client.get(url(limited, "/healthz")).status_code == 200  # probes never refused
            for trickler in tricklers:
                trickler.close()
            wait_until(  # until the server has seen the connections close
                lambda: ping(client).status_code == 200,
                "a slot to come free",
            )
            assert ping(client).status_code == 200
    finally:
        for trickler in tricklers:
            trickler.close()
        limited.stop()


def test_a_head_that_never_ends_is_cut_off_at_the_header_limit(server):
    before = peak_rss_mib(server)
    sock = socket.create_connection((HOST, server.port))
    sent = 0
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: flood\r\n")
        line = b"X-Flood: " + b"f" * 1000 + b"\r\n"
        with pytest.raises(OSError):  # the server closes the connection; sending then fails
            for _ in range(100_000):  # 100 MB if nothing stopped it
                sock.sendall(line)
                sent += len(line)
    finally:
        sock.close()
    assert sent < 20 * 1024 * 1024  # cut off near the 16 KiB limit (plus socket buffers)
    assert peak_rss_mib(server) < before + 32
    assert_serving(server)


def test_a_request_line_that_never_ends_is_cut_off(server):
    sock = socket.create_connection((HOST, server.port))
    sent = 0
    try:
        sock.sendall(b"GET /")
        with pytest.raises(OSError):
            for _ in range(10_000):  # 640 MB if nothing stopped it
                sock.sendall(b"a" * 65536)
                sent += 65536
    finally:
        sock.close()
    assert sent < 20 * 1024 * 1024
    assert_serving(server)


# ---- bodies --------------------------------------------------------------------------------------


def test_a_chunked_body_over_the_limit_is_refused_while_it_streams(server):
    sock = socket.create_connection((HOST, server.port), timeout=10)
    sock.sendall(
        b"POST /v1/window/plan HTTP/1.1\r\nHost: big\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
    sent = 0
    answer = b""
    try:
        for _ in range(4096):  # 256 MiB if nothing stopped it
            if select.select([sock], [], [], 0)[0]:
                break  # the answer came while the body was still streaming
            try:
                sock.sendall(chunk)
            except OSError:
                break
            sent += 65536
        with contextlib.suppress(OSError):
            answer = sock.recv(65536)
        # The answer closed the connection: the rest of the body is not read (and drained) either.
        with pytest.raises(OSError):
            for _ in range(1024):  # 64 MiB more if the server kept reading
                sock.sendall(chunk)
                sent += 65536
    finally:
        sock.close()
    assert sent < 48 * 1024 * 1024  # stopped soon after the 1 MiB limit, not at 256 MiB
    if answer:  # unless the server's close reset the connection before the answer was read
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b"\r\nconnection: close\r\n" in answer.lower()
    assert_serving(server)


HOSTILE_BODIES = [
    b'{"messages": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    b'{"messages": [' + b",".join([b"{}"] * 20_000) + b"]}",
    b'{"messages": [{"role": "user", "content": "\\ud800"}]}',
    b'{"messages": [{"role": "user", "content": "\xff\xfe"}]}',
    b'{"messages": [{"role": "user", "content": "' + b"a" * 900_000 + b'"}], "x": 1}',
    b'{"messages": [{"role": "user", "content": "x"}], "strategy": {"kind": "nope"}}',
    b'{"messages": [{"role": "user", "content": "x"}]',
]


def test_hostile_bodies_get_a_4xx_and_leave_the_server_alive_and_small(server):
    with httpx.Client(timeout=30) as client:
        for _ in range(3):
            for body in HOSTILE_BODIES:
                answer = client.post(
                    url(server, "/v1/window/plan"),
                    content=body,
                    headers={"content-type": "application/json"},
                )
                assert 400 <= answer.status_code < 500, (answer.status_code, body[:60])
                assert answer.headers["content-type"] == "application/problem+json"
    assert peak_rss_mib(server) < 200
    assert_serving(server)


def test_bodies_that_multiply_in_memory_are_worked_on_a_few_at_a_time():
    # A third of a million empty objects, which the kept-answer reader skips: 1 MB of JSON that
    # parses into some 30 MB of Python objects. Twelve at once would take some 360 MB; two large
    # bodies at a time keep the peak near two. (The list limit is raised so such a list is read.)
    body = b'{"turn": 1, "used": [], "kept": [' + b",".join([b"{}"] * 340_000) + b"]}"
    slotted = Server(
        {
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
            "CWP_LARGE_BODY_BYTES": str(256 * 1024),
            "CWP_LARGE_BODY_SLOTS": "2",
            "CWP_MAX_LIST_ITEMS": "400000",
        }
    )
    answers: list[int] = []

    def post() -> None:
        with httpx.Client(timeout=30) as client:
            answer = client.post(
                url(slotted, "/v1/kept-answers/use"),
                content=body,
                headers={"content-type": "application/json"},
            )
            answers.append(answer.status_code)

    try:
        threads = [threading.Thread(target=post) for _ in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert answers == [200] * 12
        assert peak_rss_mib(slotted) < 200
        assert_serving(slotted)
    finally:
        slotted.stop()


def test_the_server_binds_loopback_by_default():
    assert Settings.model_fields["host"].default == "127.0.0.1"
