"""The service endpoints: health, readiness, info, metrics, docs, request ids and the log line."""

from __future__ import annotations

import json
import logging
import re

import pytest

from app.logs import JsonFormatter
from app.settings import Settings
from tests.conftest import client_for

pytestmark = pytest.mark.anyio


async def test_healthz(client):
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_readyz_ready_then_503_while_shutting_down(client):
    assert (await client.get("/readyz")).json() == {"status": "ready"}
    client._transport.app.state.lifecycle.shutting_down = True
    response = await client.get("/readyz")
    assert response.status_code == 503


async def test_info_reports_limits_in_force_and_defaults():
    settings = Settings(
        max_messages=500, max_body_bytes=4096, read_timeout_seconds=2.5, limit_concurrency=40
    )
    async with client_for(settings) as client:
        info = (await client.get("/v1/info")).json()
    assert info["name"] == "context-window-planner"
    assert info["limits"]["max_messages"] == 500
    assert info["limits"]["max_body_bytes"] == 4096
    assert info["limits"]["max_json_depth"] == 64
    assert info["limits"]["request_deadline_seconds"] == 10.0
    assert info["limits"]["read_timeout_seconds"] == 2.5
    assert info["limits"]["limit_concurrency"] == 40
    assert info["defaults"]["window_plan"]["strategy"] == {
        "kind": "sliding-window",
        "keep_recent_turns": 6,
    }
    assert info["defaults"]["offer"]["limit"] == 32


async def test_metrics_count_requests_by_route_and_status(client):
    await client.get("/healthz")
    await client.get("/no/such/path")
    text = (await client.get("/metrics")).text
    assert re.search(
        r'cwp_http_requests_total\{method="GET",route="/healthz",status="200"\} 1\.0', text
    )
    assert 'route="unmatched",status="404"' in text
    assert "cwp_http_request_duration_seconds_bucket" in text


async def test_docs_serve_local_assets_only(client):
    page = await client.get("/docs")
    assert page.status_code == 200
    urls = re.findall(r'(?:src|href)=["\']([^"\']+)["\']', page.text)
    urls += re.findall(r"url: ['\"]([^'\"]+)['\"]", page.text)
    assert urls, page.text
    for url in urls:
        assert url.startswith("/"), f"{url} is not served by the service"
        assert (await client.get(url)).status_code == 200, url


async def test_request_id_is_echoed_or_made(client):
    echoed = await client.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert echoed.headers["x-request-id"] == "abc-123"
    made = await client.get("/healthz")
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers["x-request-id"])
    forged = await client.get("/healthz", headers={"X-Request-ID": "bad\x01id"})
    assert forged.headers["x-request-id"] != "bad\x01id"


async def test_problem_instance_is_the_request_id(client):
    response = await client.get("/missing", headers={"X-Request-ID": "rid-7"})
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["instance"] == "rid-7"


async def test_access_log_line_is_json_with_request_fields(client, caplog):
    caplog.set_level(logging.INFO, logger="app.access")
    await client.get("/healthz", headers={"X-Request-ID": "log-me"})
    records = [r for r in caplog.records if r.name == "app.access"]
    assert records
    line = json.loads(JsonFormatter().format(records[-1]))
    assert line["request_id"] == "log-me"
    assert line["route"] == "/healthz"
    assert line["status"] == 200
    assert line["bytes_out"] == len(b'{"status":"ok"}')
    assert line["bytes_in"] == 0
    assert "duration_ms" in line
