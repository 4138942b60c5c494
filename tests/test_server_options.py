"""`python -m app` serves with the options the reliability and performance documents rest on."""

from __future__ import annotations

import gc
import logging
from typing import Any

import pytest
import uvicorn

from app.__main__ import main


@pytest.fixture
def served_with(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    captured: dict[str, Any] = {}
    thresholds = gc.get_threshold()  # `main` raises them for the server; this process is not one

    def fake_run(app_path: str, **options: Any) -> None:
        captured.update(options, app_path=app_path)

    monkeypatch.setattr(uvicorn, "run", fake_run)
    monkeypatch.setenv("CWP_MAX_HEADER_BYTES", "12345")
    monkeypatch.setenv("CWP_LIMIT_CONCURRENCY", "7")
    handlers = logging.getLogger().handlers[:]
    try:
        main()
    finally:
        logging.getLogger().handlers[:] = handlers
        gc.set_threshold(*thresholds)
    return captured


def test_h11_bounds_the_request_head(served_with: dict[str, Any]) -> None:
    assert served_with["http"] == "h11"
    assert served_with["h11_max_incomplete_event_size"] == 12345


def test_asyncio_loop_and_no_websockets(served_with: dict[str, Any]) -> None:
    assert served_with["loop"] == "asyncio"
    assert served_with["ws"] == "none"


def test_one_worker_with_the_configured_limits(served_with: dict[str, Any]) -> None:
    assert served_with["app_path"] == "app.main:serve_app"
    assert served_with["factory"] is True
    assert served_with["workers"] == 1
    assert served_with["limit_concurrency"] == 7
