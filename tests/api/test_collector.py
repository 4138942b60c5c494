"""The collector pause around request work: off while any work runs, on again once none does."""

from __future__ import annotations

import gc
import threading
from typing import Any

import orjson
import pytest

import app.api.collector as collector
from app.api.collector import collector_paused
from app.core.window import plan_window
from app.main import create_app
from app.settings import Settings
from tests.conftest import client_for


@pytest.fixture(autouse=True)
def collector_enabled():
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


def test_paused_inside_and_enabled_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_work_keeps_it_paused_until_the_last_one_ends() -> None:
    first_in, first_may_end = threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_in.set()
            first_may_end.wait(5)
            seen.append(gc.isenabled())

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with collector_paused():
        pass
    assert not gc.isenabled()  # the first piece of work still runs
    first_may_end.set()
    thread.join(5)
    assert seen == [False]
    assert gc.isenabled()


def test_a_collector_disabled_by_someone_else_stays_disabled() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_a_long_overlap_still_collects_once_objects_pile_up(monkeypatch) -> None:
    monkeypatch.setattr(collector, "PILE_UP_LIMIT", 1_000)
    with collector_paused():
        with collector_paused():
            kept = [[] for _ in range(5_000)]
            assert gc.get_count()[0] > 1_000
        assert gc.get_count()[0] < 1_000  # the inner end collected the young generation
        assert not gc.isenabled()
    assert gc.isenabled() and len(kept) == 5_000


@pytest.mark.anyio
async def test_a_plan_runs_with_the_collector_paused() -> None:
    states: list[bool] = []

    def recording(*args: Any, **kwargs: Any) -> Any:
        states.append(gc.isenabled())
        return plan_window(*args, **kwargs)

    body = orjson.dumps({"messages": [{"role": "user", "content": "hi"}]})
    app = create_app(Settings(inline_body_bytes=0), plan_core=recording)
    async with client_for(app=app) as client:
        answer = await client.post(
            "/v1/window/plan", content=body, headers={"content-type": "application/json"}
        )
    assert answer.status_code == 200
    assert states == [False]
    assert gc.isenabled()
