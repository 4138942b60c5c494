"""Hostile connections against the real server (`python -m app`), read deadline 1 s and a ceiling
of 8: silent sockets are closed and never make the service refuse a request, the probes answer
beside them; clients that hang up mid-body are counted as 499 with no 5xx and no ERROR logged; a
request h11 cannot parse gets a problem+json; the health probes answer `HEAD`; the viewer's
trailing-slash redirect is relative. No timing is asserted: every wait polls or reads with a
generous timeout.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import orjson
import pytest

from tests.e2e.serving import HOST, PLAN_BODY, Server, wait_until
from tests.e2e.test_slow_clients import PATIENCE_SECONDS, read_until_closed, split_answer

CEILING = 8


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server(
        {
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
            "CWP_READ_TIMEOUT_SECONDS": "1",
            "CWP_LIMIT_CONCURRENCY": str(CEILING),
            "CWP_LOG_FORMAT": "json",
            "CWP_LOG_LEVEL": "info",
        }
    )
    try:
        yield running
    finally:
        running.stop()


def test_silent_connections_are_closed_and_do_not_hold_the_ceiling(server):
    silent = [socket.create_connection((HOST, server.port)) for _ in range(CEILING * 3)]
    try:
        with httpx.Client(timeout=PATIENCE_SECONDS) as client:
            for _ in range(5):
                answer = client.post(
                    f"{server.url}/v1/window/plan",
                    content=PLAN_BODY,
                    headers={"content-type": "application/json"},
                )
                assert answer.status_code == 200
            assert client.get(f"{server.url}/healthz").status_code == 200
            assert client.get(f"{server.url}/readyz").status_code == 200
        for sock in silent:
            assert read_until_closed(sock) == b""  # closed by the server, with nothing sent
    finally:
        for sock in silent:
            sock.close()
    metrics = httpx.get(f"{server.url}/metrics").text
    assert "cwp_http_connections_closed_unheard_total" in metrics


def test_clients_gone_mid_body_are_499_with_no_5xx_and_no_error_logged(server):
    declared = len(PLAN_BODY) * 10
    for n in range(20):
        with socket.create_connection((HOST, server.port)) as sock:
            sock.sendall(
                b"POST /v1/window/plan HTTP/1.1\r\nHost: p\r\nContent-Type: application/json\r\n"
                b"X-Request-ID: gone-%d\r\nContent-Length: %d\r\n\r\n"
                % (n, declared)
                + PLAN_BODY[:20]
            )
            server.wait_accepted(sock)
    metrics = wait_until(
        lambda: (
            text
            if 'route="/v1/window/plan",status="499"} 20.0'
            in (text := httpx.get(f"{server.url}/metrics").text)
            else None
        ),
        "the 20 disconnects to be counted as 499",
        timeout=PATIENCE_SECONDS,
    )
    assert 'status="5' not in metrics
    _, err = server.output()
    records = [orjson.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert not [r for r in records if r.get("level") in ("error", "critical")]
    assert "Traceback" not in err


def test_a_request_line_h11_cannot_parse_is_a_problem(server):
    with socket.create_connection((HOST, server.port)) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        status, headers, body = split_answer(read_until_closed(sock))
    assert status == 400
    assert headers["content-type"] == "application/problem+json"
    assert orjson.loads(body)["status"] == 400


def test_the_probes_answer_head_and_the_viewer_redirect_is_relative(server):
    for path in ("/healthz", "/readyz"):
        answer = httpx.head(server.url + path)
        assert answer.status_code == 200 and answer.content == b""
    redirect = httpx.get(
        server.url + "/viewer/", headers={"host": "attacker.example"}, follow_redirects=False
    )
    assert redirect.status_code == 307
    assert redirect.headers["location"] == "/viewer"
