"""The app the benchmark serves: the real app plus a bare endpoint to compare throughput against.

`POST /bench/bare` reads and parses the body exactly as the real endpoints do (content type,
strict JSON, depth, the deadline-guarded worker) and answers a small constant, so the ratio of the
two throughputs is what validating, planning and serializing cost.

Like the real app, it is built by a factory and never at import: `python -m bench.serve` hands
`bench.app:create_bench_app` to uvicorn through `app.__main__.main`, which applies the server's
collector policy first, and the factory asks for the freeze after start-up, as `serve_app` does.
`bench.app.app`, the in-process copy `python -m bench` measures beside the server, is built on
first use, after the benchmark has set its `CWP_` variables, and under the server's collector
thresholds, so the in-process and over-HTTP columns compare like with like.

The served app also keeps the thread CPU time the core's `plan_window` takes inside the plan
route (`GET /bench/core-cpu` answers the total and the count since the last call, and starts
again), so a throughput round can say what share of the server's work the core's own passes are
under that very load. The clock costs 0.25 µs a call on the benchmark's machine, against a
core of about 100 µs in a 50-message plan.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from fastapi import FastAPI
from fastapi.responses import Response

from app.api.collector import apply_server_gc_policy
from app.api.dependencies import JsonBody
from app.api.responses import json_response
from app.core.plan_types import WindowPlan
from app.core.window import plan_window
from app.main import create_app
from app.settings import Settings

# [nanoseconds, calls] of the core's `plan_window` in the plan route since the last read.
_core_cpu = [0, 0]
_core_lock = threading.Lock()


async def bare(body: JsonBody) -> Response:
    return await body.answer(lambda raw: json_response({"ok": True}))


async def core_cpu() -> Response:
    """The core's thread CPU time and calls since the last call; starts again."""
    with _core_lock:
        nanoseconds, calls = _core_cpu
        _core_cpu[:] = [0, 0]
    return json_response({"nanoseconds": nanoseconds, "calls": calls})


def timed_core(*args: Any, **kwargs: Any) -> WindowPlan:
    """The core's `plan_window`, its thread CPU time added to the count `/bench/core-cpu` reads."""
    started = time.thread_time_ns()
    try:
        return plan_window(*args, **kwargs)
    finally:
        spent = time.thread_time_ns() - started
        with _core_lock:
            _core_cpu[0] += spent
            _core_cpu[1] += 1


def create_bench_app(*, server: bool = True) -> FastAPI:
    """The benchmark's app; uvicorn calls it with no arguments, so the default is the server's.
    The served app's plan route calls the core through `timed_core`, handed to the app."""
    app = create_app(Settings(), server=server, plan_core=timed_core if server else plan_window)
    app.add_api_route("/bench/bare", bare, methods=["POST"], include_in_schema=False)
    if server:
        app.add_api_route("/bench/core-cpu", core_cpu, methods=["GET"], include_in_schema=False)
    return app


def __getattr__(name: str) -> Any:
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    apply_server_gc_policy()
    # In process no lifespan runs, so there is no start-up to freeze.
    app = create_bench_app(server=False)
    globals()["app"] = app
    return app
