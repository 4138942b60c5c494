"""The examples run against the real service: `python -m app` of this repository, started once
per session on a port the kernel picks (`tests/e2e/serving.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.serving import Server


@pytest.fixture(scope="session")
def planner_url() -> Iterator[str]:
    running = Server(CWP_SHUTDOWN_DRAIN_SECONDS="0")
    yield running.url
    running.stop()
