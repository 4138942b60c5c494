"""End to end: the real server (`python -m app`, as `make run` starts it) on a free port."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environment = {**os.environ, "CWP_PORT": str(self.port), "CWP_HOST": "127.0.0.1", **env}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not start: " + self.process.stderr.read())

    def stop(self) -> tuple[str, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            out, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        return out, err


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
        time.sleep(0.3)
        running.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        readiness = httpx.get(running.url + "/readyz", timeout=5)
        assert readiness.status_code == 503
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
