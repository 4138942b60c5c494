"""The collector's process-wide policy is the server's alone: importing `app.main` or building an
app leaves the interpreter's thresholds and freezes nothing, while `python -m app` applies both
through the factory it serves."""

from __future__ import annotations

import asyncio
import gc
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

import app.main
from app.__main__ import main
from app.api.collector import GC_THRESHOLDS
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[1]

# A fresh interpreter: in this one, other tests (or an earlier server test) may already have moved
# the thresholds or frozen objects, which would hide an import that does the same.
IMPORT_AND_BUILD = """
import gc
default = gc.get_threshold()
import app.main
from app.settings import Settings
after_import = (gc.get_threshold(), gc.get_freeze_count())
app.main.create_app(Settings())
after_build = (gc.get_threshold(), gc.get_freeze_count())
assert after_import == (default, 0), (default, after_import)
assert after_build == (default, 0), (default, after_build)
assert not hasattr(app.main, "app")
print("ok")
"""


@pytest.mark.slow
def test_importing_and_building_the_app_leave_the_collector_alone() -> None:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_AND_BUILD],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.fixture
def interpreter_thresholds() -> Iterator[tuple[int, ...]]:
    before = gc.get_threshold()
    try:
        yield before
    finally:
        gc.set_threshold(*before)


def serve(monkeypatch: pytest.MonkeyPatch, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """What `main` hands uvicorn, with the thresholds in force at that moment."""
    captured: dict[str, Any] = {}

    def fake_run(app_path: str, **options: Any) -> None:
        captured.update(options, app_path=app_path, thresholds=gc.get_threshold())

    monkeypatch.setattr(uvicorn, "run", fake_run)
    handlers = logging.getLogger().handlers[:]
    try:
        main(*args, **kwargs)
    finally:
        logging.getLogger().handlers[:] = handlers
    return captured


def test_the_server_applies_the_thresholds_and_serves_the_factory(
    monkeypatch: pytest.MonkeyPatch, interpreter_thresholds: tuple[int, ...]
) -> None:
    served = serve(monkeypatch)
    assert served["thresholds"] == GC_THRESHOLDS
    assert served["app_path"] == "app.main:serve_app"
    assert served["factory"] is True


def test_the_benchmark_serves_its_factory_the_same_way(
    monkeypatch: pytest.MonkeyPatch, interpreter_thresholds: tuple[int, ...]
) -> None:
    served = serve(monkeypatch, "bench.app:create_bench_app", factory=True)
    assert served["app_path"] == "bench.app:create_bench_app"
    assert served["factory"] is True
    assert served["thresholds"] == GC_THRESHOLDS


def test_only_the_served_app_freezes_at_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[bool] = []
    monkeypatch.setattr(app.main, "freeze_start_up_objects", lambda: frozen.append(True))

    async def start_and_stop(built: Any) -> None:
        async with built.router.lifespan_context(built):
            pass

    asyncio.run(start_and_stop(app.main.create_app(Settings())))
    assert frozen == []
    asyncio.run(start_and_stop(app.main.serve_app()))
    assert frozen == [True]
