"""`python -m app` serves with the options the reliability and performance documents rest on."""

from __future__ import annotations

import gc
import logging
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.__main__ import main
from app.api.connections import DeadlineH11Protocol


@pytest.fixture
def served_with(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    captured: dict[str, Any] = {}
    thresholds = gc.get_threshold()  # `main` raises them for the server; this process is not one

    def fake_run(app_path: str, **options: Any) -> None:
        captured.update(options, app_path=app_path)

    monkeypatch.setattr(uvicorn, "run", fake_run)
    monkeypatch.setenv("CWP_MAX_HEADER_BYTES", "12345")
    monkeypatch.setenv("CWP_LIMIT_CONCURRENCY", "7")
    monkeypatch.setenv("CWP_READ_TIMEOUT_SECONDS", "2.5")
    handlers = logging.getLogger().handlers[:]
    try:
        main()
    finally:
        logging.getLogger().handlers[:] = handlers
        gc.set_threshold(*thresholds)
    return captured


def test_h11_bounds_the_request_head(served_with: dict[str, Any]) -> None:
    # uvicorn's h11 protocol, extended with the read deadline and the ceiling.
    assert issubclass(served_with["http"], DeadlineH11Protocol)
    assert issubclass(served_with["http"], H11Protocol)
    assert served_with["h11_max_incomplete_event_size"] == 12345


def test_the_protocol_holds_the_read_deadline_and_the_ceiling(served_with: dict[str, Any]) -> None:
    assert served_with["http"].read_timeout == 2.5
    assert served_with["http"].ceiling == 7
    # uvicorn's own limit would answer first, in plain text.
    assert served_with["limit_concurrency"] is None


def test_asyncio_loop_and_no_websockets(served_with: dict[str, Any]) -> None:
    assert served_with["loop"] == "asyncio"
    assert served_with["ws"] == "none"


def test_one_worker_with_the_configured_limits(served_with: dict[str, Any]) -> None:
    assert served_with["app_path"] == "app.main:serve_app"
    assert served_with["factory"] is True
    assert served_with["workers"] == 1
