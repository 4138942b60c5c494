"""The bodies `bench.bodies_in_flight` sends: the size asked for, never more, and planned 200."""

from __future__ import annotations

import pytest

from bench.bodies_in_flight import MIB, plan_body
from tests.conftest import client_for

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [MIB - 1024, 3 * MIB + 17])
async def test_a_body_is_at_most_and_just_under_its_size_and_is_planned(size):
    body = plan_body(size)
    assert size - 64 <= len(body) <= size
    async with client_for() as client:
        response = await client.post(
            "/v1/window/plan", content=body, headers={"content-type": "application/json"}
        )
    assert response.status_code == 200, response.text[:300]
