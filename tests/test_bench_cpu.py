"""The benchmark reads a process's CPU time from /proc: it grows with work, and a missing process
reads as unknown rather than failing the run."""

from __future__ import annotations

import os
import sys
import time

import pytest

from bench.__main__ import process_cpu_seconds

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_cpu_time_grows_with_work():
    before = process_cpu_seconds(os.getpid())
    assert before is not None
    started = time.process_time()
    while time.process_time() - started < 0.2:
        pass
    after = process_cpu_seconds(os.getpid())
    assert after is not None
    assert 0.15 <= after - before < 5


def test_a_missing_process_reads_as_unknown():
    assert process_cpu_seconds(2**22 + 1) is None  # above the kernel's largest pid


def test_the_served_bench_app_counts_the_cores_cpu_per_plan():
    import asyncio

    import orjson

    from bench.app import create_bench_app
    from bench.asgi import call_asgi
    from bench.generate import plan_body

    app = create_bench_app(server=True)
    body = plan_body(50, "native")

    def call(method: str, path: str, content: bytes = b"") -> bytes:
        status, _, payload = asyncio.run(call_asgi(app, method, path, content))
        assert status == 200, payload
        return payload

    call("GET", "/bench/core-cpu")
    call("POST", "/v1/window/plan", body)
    call("POST", "/v1/window/plan", body)
    call("POST", "/bench/bare", body)
    counted = orjson.loads(call("GET", "/bench/core-cpu"))
    assert counted["calls"] == 2
    assert counted["nanoseconds"] > 0
    assert orjson.loads(call("GET", "/bench/core-cpu")) == {"nanoseconds": 0, "calls": 0}
    app = create_bench_app(server=True)  # a second app serves the count, and times once
    call("POST", "/v1/window/plan", body)
    assert orjson.loads(call("GET", "/bench/core-cpu"))["calls"] == 1
