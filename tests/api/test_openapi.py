"""The committed OpenAPI document is the one the app serves, and it documents every error."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from app.export_openapi import DEFAULT_PATH, render

pytestmark = pytest.mark.anyio

REGENERATE = "python -m app.export_openapi  (or: make openapi)"


def test_committed_openapi_matches_the_app():
    committed = Path(DEFAULT_PATH).read_bytes() if Path(DEFAULT_PATH).exists() else b""
    assert committed == render(), f"openapi/openapi.json is stale; regenerate it with: {REGENERATE}"


async def test_served_openapi_equals_committed(client):
    served = (await client.get("/openapi.json")).json()
    assert served == orjson.loads(Path(DEFAULT_PATH).read_bytes()), f"regenerate: {REGENERATE}"


def test_every_body_route_documents_every_error_status():
    spec = orjson.loads(render())
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            statuses = set(operation["responses"])
            assert "500" in statuses, (method, path)
            if method == "post":
                assert {"400", "413", "415", "422", "500", "503"} <= statuses, (method, path)
                assert "requestBody" in operation, (method, path)
                media = operation["requestBody"]["content"]["application/json"]
                assert media.get("examples"), f"{method} {path} has no Swagger example"
            for status in statuses - {"200"}:
                content = operation["responses"][status].get("content", {})
                if status != "503" or path != "/readyz":
                    assert "application/problem+json" in content, (method, path, status)
