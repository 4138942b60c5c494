"""`/metrics` labels a refused body by its route, however it was refused.

A body over the limit is refused two ways (`app.api.middleware`): from its declared length, before
the app routes it, or while it streams in (chunked), inside the route. Both are counted under the
route's template; a path no route matches is still `unmatched`.
"""

from __future__ import annotations

import re

import pytest

from app.main import create_app
from app.settings import Settings
from tests.api.test_limits import chunked_request
from tests.conftest import client_for

pytestmark = pytest.mark.anyio

LIMIT = 4096
PLAN = "/v1/window/plan"


def requests_counted(text: str, route: str, method: str, status: str) -> float:
    """The value of the `cwp_http_requests_total` line for these labels, 0 when absent."""
    for line in text.splitlines():
        if not line.startswith("cwp_http_requests_total{"):
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}", 1)[0]))
        if labels == {"route": route, "method": method, "status": status}:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def test_a_declared_and_a_chunked_body_over_the_limit_count_under_their_route():
    app = create_app(Settings(max_body_bytes=LIMIT))
    status, _, _ = await chunked_request(app, PLAN, b" " * 1024, chunks=10)
    assert status == 413
    async with client_for(app=app) as client:
        declared = await client.post(
            PLAN, content=b" " * (LIMIT + 1), headers={"content-type": "application/json"}
        )
        assert declared.status_code == 413
        text = (await client.get("/metrics")).text
    assert requests_counted(text, PLAN, "POST", "413") == 2.0, text
    assert requests_counted(text, "unmatched", "POST", "413") == 0.0, text
    assert re.search(
        r'cwp_http_request_duration_seconds_count\{method="POST",route="/v1/window/plan",'
        r'status="413"\} 2\.0',
        text,
    )


async def test_a_declared_body_over_the_limit_on_a_path_of_no_route_is_unmatched():
    async with client_for(Settings(max_body_bytes=LIMIT)) as client:
        response = await client.post(
            "/no/such/path",
            content=b" " * (LIMIT + 1),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 413
        text = (await client.get("/metrics")).text
    assert requests_counted(text, "unmatched", "POST", "413") == 1.0, text
    assert requests_counted(text, "/no/such/path", "POST", "413") == 0.0, text


async def test_a_declared_body_over_the_limit_with_the_wrong_method_counts_under_the_route():
    # The router would have chosen the route and answered 405; the refusal comes first, and is
    # labelled as the routed answer would have been.
    async with client_for(Settings(max_body_bytes=LIMIT)) as client:
        response = await client.put(
            PLAN, content=b" " * (LIMIT + 1), headers={"content-type": "application/json"}
        )
        assert response.status_code == 413
        text = (await client.get("/metrics")).text
    assert requests_counted(text, PLAN, "PUT", "413") == 1.0, text
