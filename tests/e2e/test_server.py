"""End to end: the real server (`python -m app`, as `make run` starts it) on a port the kernel
picks (`tests/e2e/serving.py`)."""

from __future__ import annotations

import re
import signal
import socket
from collections.abc import Iterator

import httpx
import orjson
import pytest

from tests.e2e.serving import ROOT, Server, wait_until


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server(CWP_SHUTDOWN_DRAIN_SECONDS="0")
    yield running
    running.stop()


def test_serves_health_readiness_and_metrics(server):
    assert httpx.get(server.url + "/healthz").json() == {"status": "ok"}
    assert httpx.get(server.url + "/readyz").json() == {"status": "ready"}
    metrics = httpx.get(server.url + "/metrics").text
    assert 'cwp_http_requests_total{method="GET",route="/healthz",status="200"}' in metrics


def test_swagger_ui_loads_its_assets_from_the_service(server):
    page = httpx.get(server.url + "/docs")
    assert page.status_code == 200
    urls = re.findall(r'(?:src|href)=["\']([^"\']+)["\']', page.text)
    assert any(url.endswith("swagger-ui-bundle.js") for url in urls)
    for url in urls:
        assert url.startswith("/"), url
        assert httpx.get(server.url + url).status_code == 200, url


def test_served_openapi_is_the_committed_file(server):
    served = httpx.get(server.url + "/openapi.json").json()
    assert served == orjson.loads((ROOT / "openapi" / "openapi.json").read_bytes())


def test_logs_are_json_lines_with_the_request_id():
    running = Server(CWP_SHUTDOWN_DRAIN_SECONDS="0")
    try:
        httpx.get(running.url + "/healthz", headers={"X-Request-ID": "e2e-log-check"})
    finally:
        out, err = running.stop()
    assert "/docs" in out  # make run prints the Swagger URL
    assert "\x1b" not in err, "terminal colour codes in the log"
    lines = [orjson.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert lines and all(isinstance(line["request_id"], str) for line in lines)
    access = [line for line in lines if line.get("request_id") == "e2e-log-check"]
    assert access and access[0]["route"] == "/healthz" and access[0]["status"] == 200


def test_sigterm_completes_the_request_in_flight_and_turns_readiness_off():
    running = Server(CWP_SHUTDOWN_DRAIN_SECONDS="1.5")
    body = orjson.dumps({"max_chars": 100, "results": [{"tool_name": "t", "result": "x" * 50_000}]})
    head = (
        f"POST /v1/tool-results/cap HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    in_flight = socket.create_connection(("127.0.0.1", running.port))
    try:
        in_flight.sendall(head + body[:1000])
        running.wait_accepted(in_flight)  # the request is the server's before the signal comes
        running.process.send_signal(signal.SIGTERM)
        # Readiness turns 503 at once, and the server keeps answering for the 1.5 s drain.
        wait_until(
            lambda: httpx.get(running.url + "/readyz", timeout=5).status_code == 503,
            "/readyz to answer 503 after SIGTERM",
        )
        in_flight.sendall(body[1000:])
        in_flight.settimeout(10)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = in_flight.recv(65536)
            if not chunk:
                break
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        assert b'"truncated_count":1' in answer
    finally:
        in_flight.close()
        running.stop()
    assert running.process.returncode in (0, -signal.SIGTERM, 143)
