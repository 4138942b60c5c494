"""Shared fixtures: an app per test and an httpx client talking to it in process; and the
Hypothesis profiles every property runs under.

Profiles (pick one with `pytest --hypothesis-profile=NAME` or HYPOTHESIS_PROFILE=NAME; the
option wins):
  dev  - the default: few examples, for the edit loop (`make test-fast`)
  ci   - `make test` and CI: enough examples to catch most regressions in a few minutes
  deep - `make test-deep`: many examples, new ones on every run (not derandomized), for before a
         release or after changing a generator
Every profile has no deadline: timings on a loaded machine say nothing about the code.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from hypothesis import settings

from app.main import create_app
from app.settings import Settings

settings.register_profile("dev", max_examples=10, deadline=None, derandomize=True)
settings.register_profile("ci", max_examples=30, deadline=None, derandomize=True)
settings.register_profile("deep", max_examples=400, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def scaled(factor: float, profile: str | None = None, **overrides: Any) -> settings:
    """`factor` times the max_examples of `profile` (the active one unless named), at least one,
    for a test whose budget differs from the profile's; the caller says why."""
    base = settings.get_profile(profile) if profile else settings.default
    return settings(max_examples=max(1, round(base.max_examples * factor)), **overrides)


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
