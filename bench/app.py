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
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.responses import Response

from app.api.collector import apply_server_gc_policy
from app.api.dependencies import JsonBody
from app.api.responses import json_response
from app.main import create_app
from app.settings import Settings


async def bare(body: JsonBody) -> Response:
    return await body.answer(lambda raw: json_response({"ok": True}))


def create_bench_app(*, server: bool = True) -> FastAPI:
    """The benchmark's app; uvicorn calls it with no arguments, so the default is the server's."""
    app = create_app(Settings(), server=server)
    app.add_api_route("/bench/bare", bare, methods=["POST"], include_in_schema=False)
    return app


def __getattr__(name: str) -> Any:
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    apply_server_gc_policy()
    # In process no lifespan runs, so there is no start-up to freeze.
    app = create_bench_app(server=False)
    globals()["app"] = app
    return app
