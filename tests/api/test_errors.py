"""Every error status of the service as problem+json, exercised on a small probe route.

The probe route uses the same body machinery as the real endpoints (the `JsonBody` dependency), so
these tests pin the envelope: 400, 413 (declared and chunked), 415, 422 (fields and depth), 500,
503.
"""

from __future__ import annotations

import time

import orjson
import pytest
from fastapi import Request
from pydantic import BaseModel, ConfigDict, StrictInt

from app.api.dependencies import JsonBody
from app.api.responses import json_response
from app.main import create_app
from app.service.reading import raise_if_any, validate_model
from app.settings import Settings
from tests.conftest import client_for

pytestmark = pytest.mark.anyio


class Probe(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: StrictInt
    sleep: float = 0.0


def probe_app(**settings):
    app = create_app(Settings(**settings))

    async def probe(received: JsonBody):
        def handle(raw):
            errors = []
            body = validate_model(Probe, raw, errors)
            raise_if_any(errors)
            time.sleep(body.sleep)
            return json_response({"count": body.count})

        return await received.answer(handle)

    async def explode(request: Request):
        raise RuntimeError("secret internal detail")

    app.add_api_route("/probe", probe, methods=["POST"])
    app.add_api_route("/explode", explode, methods=["GET"])
    return app


def assert_problem(response, status):
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert list(body) == ["type", "title", "status", "detail", "errors", "instance"]
    assert body["status"] == status
    assert body["instance"] == response.headers["x-request-id"]
    return body


async def post(client, content, content_type="application/json", **kwargs):
    return await client.post(
        "/probe", content=content, headers={"content-type": content_type}, **kwargs
    )


async def test_valid_request_passes():
    async with client_for(app=probe_app()) as client:
        response = await post(client, b'{"count": 3}')
    assert response.status_code == 200
    assert response.json() == {"count": 3}


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b"not json",
        b'{"count": NaN}',
        b'{"count": Infinity}',
        b'{"count": 1e400}',
        b'{"count": 1, "x": "\\ud83d"}',
        b'{"count": 1, "x": "\\ude00"}',
        b"\xff\xfe",
    ],
)
async def test_400_for_anything_but_strict_json(body):
    async with client_for(app=probe_app()) as client:
        problem = assert_problem(await post(client, body), 400)
    assert problem["errors"][0]["loc"] == ["body"]


async def test_paired_surrogate_escape_is_one_code_point():
    async with client_for(app=probe_app()) as client:
        response = await post(client, b'{"count": 1}')
        assert response.status_code == 200


async def test_413_when_declared_length_is_over_the_limit():
    async with client_for(app=probe_app(max_body_bytes=64)) as client:
        problem = assert_problem(
            await post(client, b'{"count": 1, "pad": "' + b"x" * 100 + b'"}'), 413
        )
    assert "64" in problem["detail"]


async def test_413_for_a_chunked_body_over_the_limit_before_it_is_read_whole():
    chunks_sent = 0

    async def chunks():
        nonlocal chunks_sent
        yield b'{"count": 1, "pad": "'
        for _ in range(1000):
            chunks_sent += 1
            yield b"x" * 1024
        yield b'"}'

    async with client_for(app=probe_app(max_body_bytes=10_000)) as client:
        response = await post(client, chunks())
    assert_problem(response, 413)


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
async def test_415_for_a_content_type_that_is_not_json(content_type):
    async with client_for(app=probe_app()) as client:
        problem = assert_problem(await post(client, b'{"count": 1}', content_type), 415)
    assert problem["errors"][0]["loc"] == ["header", "content-type"]


async def test_json_with_charset_and_plus_json_are_accepted():
    async with client_for(app=probe_app()) as client:
        for content_type in ["application/json; charset=utf-8", "application/problem+json"]:
            assert (await post(client, b'{"count": 1}', content_type)).status_code == 200


async def test_422_names_every_field():
    async with client_for(app=probe_app()) as client:
        problem = assert_problem(await post(client, b'{"count": "3", "extra": 1}'), 422)
    locs = sorted(tuple(e["loc"]) for e in problem["errors"])
    assert locs == [("body", "count"), ("body", "extra")]
    assert all(e["msg"] and e["type"] for e in problem["errors"])


@pytest.mark.parametrize("depth", [65, 500, 10_000])
async def test_deep_nesting_is_a_4xx_never_a_500(depth):
    body = b'{"count": 1, "x": ' + b"[" * depth + b"]" * depth + b"}"
    async with client_for(app=probe_app()) as client:
        response = await post(client, body)
    assert response.status_code in (400, 422)
    assert response.headers["content-type"] == "application/problem+json"


async def test_nesting_at_the_limit_is_accepted():
    body = orjson.dumps({"count": 1, "sleep": 0})[:-1] + b', "x": ' + b"[" * 63 + b"]" * 63 + b"}"
    async with client_for(app=probe_app()) as client:
        response = await post(client, body)
    assert response.status_code == 422  # depth is fine; the unknown field `x` is refused
    assert response.json()["errors"][0]["loc"] == ["body", "x"]


async def test_500_is_a_problem_without_internals(caplog):
    async with client_for(app=probe_app()) as client:
        problem = assert_problem(await client.get("/explode"), 500)
    assert "secret" not in orjson.dumps(problem).decode()
    assert "Traceback" not in orjson.dumps(problem).decode()
    assert any("secret internal detail" in (r.exc_text or str(r.exc_info)) for r in caplog.records)


async def test_503_past_the_deadline_and_the_next_request_is_served():
    async with client_for(
        app=probe_app(request_deadline_seconds=0.2, inline_body_bytes=0)
    ) as client:
        slow = await post(client, b'{"count": 1, "sleep": 1.0}')
        problem = assert_problem(slow, 503)
        assert problem["type"].endswith("deadline-exceeded")
        fast = await post(client, b'{"count": 2}')
        assert fast.status_code == 200
        assert (await client.get("/healthz")).status_code == 200


async def test_405_is_a_problem(client):
    assert_problem(await client.post("/healthz"), 405)
