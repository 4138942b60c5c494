"""The client's tests run against the real service: `python -m app` of this repository, started
once per session by the e2e helper of the service's own tests (`tests/e2e/serving.py`, on a port
the kernel picks). A second server, `strict_server`, has limits small enough to answer 413 and 503
on demand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from client_support import STRICT_MAX_BODY_BYTES, tool_round
from tests.e2e.serving import Server


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    running = Server(CWP_SHUTDOWN_DRAIN_SECONDS="0")
    yield running
    running.stop()


@pytest.fixture(scope="session")
def strict_server() -> Iterator[Server]:
    running = Server(
        CWP_SHUTDOWN_DRAIN_SECONDS="0",
        CWP_MAX_BODY_BYTES=str(STRICT_MAX_BODY_BYTES),
        CWP_INLINE_BODY_BYTES="0",
        CWP_REQUEST_DEADLINE_SECONDS="0.000001",
    )
    yield running
    running.stop()


@pytest.fixture
def long_transcript() -> list[dict[str, Any]]:
    """A task and four tool rounds: the default sliding window keeps them all, `keep_recent_turns`
    2 removes the first two rounds."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Survey the four stations."}]
    for number in range(1, 5):
        messages += tool_round(f"call_{number}", "read_station", f"station {number}: " + "x" * 400)
    return messages
