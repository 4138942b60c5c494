"""Shared fixtures: an app per test and an httpx client talking to it in process."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from app.main import create_app
from app.settings import Settings


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def client_for(settings: Settings | None = None, app=None) -> httpx.AsyncClient:
    app = app or create_app(settings or Settings())
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://planner.test")


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with client_for() as c:
        yield c
