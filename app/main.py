"""The ASGI application, built by `create_app(settings)`; the server builds it through the
`app.main:serve_app` factory.

The app wires the HTTP layer together (middleware, problem handlers, routers, the offline Swagger
UI and the OpenAPI document); it holds no state between requests beyond its settings and metrics.

Nothing is built at import (nor are settings read), and building an app leaves the garbage
collector alone: its thresholds and its freeze (`app.api.collector`) are process-wide, so they are
the server's to apply. `python -m app` raises the thresholds itself and serves `serve_app`, whose
app freezes what start-up built; an app a test or a tool builds keeps the interpreter's collector.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from fastapi.telemetry import TelemetryConfig

from app import __version__
from app.api.budget import BodyBudget
from app.api.collector import freeze_start_up_objects
from app.api.connections import CONNECTION_EVENTS, ConnectionEvents
from app.api.metrics import create_metrics
from app.api.middleware import ServiceMiddleware
from app.api.openapi_doc import build_openapi, register_schema
from app.api.pages import relative_slash_redirects
from app.api.problems import Problem, install_problem_handlers
from app.api.routes import include_routes
from app.api.tracing import install_tracing
from app.core.window import plan_window
from app.lifecycle import Lifecycle
from app.logs import stamp_request_ids
from app.service.plan import PlanCore
from app.settings import Settings, load_settings
from app.tokenizers import MEMO

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

DESCRIPTION = """\
A stateless planner an LLM agent calls before every model request to decide what stays in its
context window: which turns are kept and which leave (never splitting a tool call from its results,
never dropping the current request or an unanswered call), which turns are pinned and why, how an
oversized tool result is replaced by a marker, which tool-result ids the model may still cite, and a
person's answers kept for the next call of the same tool.

Every error is `application/problem+json` (RFC 9457) naming the offending field in `errors[].loc`.

The [plan viewer](/viewer) draws a plan turn by turn: paste a transcript in any format, set the
options, and see which turns are kept, which leave, and what holds each one.
"""

TAGS = [
    {"name": "window", "description": "The window plan: kept and evicted turns, pins, refusals."},
    {"name": "cap", "description": "The tool-result cap and its marker."},
    {"name": "offer", "description": "Which tool results the model may still cite."},
    {"name": "kept-answers", "description": "A person's answers kept for the next call."},
    {"name": "service", "description": "Health, readiness, info, metrics and the plan viewer."},
]


NO_FRAMEWORK_TELEMETRY: TelemetryConfig = {
    "tracing": False,
    "metrics": False,
    "logs": False,
    "operation_spans": False,
    "auto_configure": False,
}


class PlannerApp(FastAPI):
    """The service's app: FastAPI with its own OpenAPI document (every documented body model in
    its components, `app.api.openapi_doc.build_openapi`)."""

    def openapi(self) -> dict[str, Any]:
        return build_openapi(self)


def create_app(
    settings: Settings | None = None,
    *,
    server: bool = False,
    plan_core: PlanCore = plan_window,
    tracer_provider: TracerProvider | None = None,
) -> FastAPI:
    """The app for `settings` (read from the environment when absent).

    `server` is for the serving process only: its lifespan then freezes what start-up built.
    `plan_core` is the core's plan entry point the plan route calls (the benchmark hands a timed
    one, a test one that waits). Traces are on when the standard `OTEL_*` environment asks for
    them (`app.api.tracing`), or with a `tracer_provider` (the tests hand one with an in-memory
    exporter).
    """
    settings = settings or load_settings()
    stamp_request_ids()
    lifecycle = Lifecycle()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        lifecycle.install(settings.shutdown_drain_seconds)
        if server:
            freeze_start_up_objects()
        try:
            # The lifespan state reaches the server's protocol: what it alone sees (a request head
            # that never ended) is counted in this app's metrics.
            yield {CONNECTION_EVENTS: ConnectionEvents(app.state.metrics)}
        finally:
            lifecycle.shutting_down = True
            lifecycle.restore()

    app = PlannerApp(
        title="Context Window Planner",
        version=__version__,
        description=DESCRIPTION,
        openapi_tags=TAGS,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        # FastAPI's own telemetry is off: it would trace through the process's global provider,
        # or one FastAPI sets up from the environment, with validation failures and exception
        # messages, which quote the body. The service's spans are `app.api.tracing`'s.
        telemetry=NO_FRAMEWORK_TELEMETRY,
    )
    app.state.settings = settings
    # The memo is the process's; an app built with another bound resizes it (and empties it).
    MEMO.resize(settings.token_memo_entries)
    app.state.metrics = create_metrics()
    app.state.lifecycle = lifecycle
    app.state.plan_core = plan_core
    app.state.body_budget = BodyBudget(
        settings.body_budget_bytes, settings.body_budget_wait_seconds
    )

    install_problem_handlers(app)
    app.add_middleware(
        ServiceMiddleware,
        metrics=app.state.metrics,
        max_body_bytes=settings.max_body_bytes,
        read_timeout_seconds=settings.read_timeout_seconds,
        body_budget=app.state.body_budget,
    )
    # Outermost, so the server span times the whole request and sees the X-Request-ID answered.
    app.state.tracer_provider = install_tracing(app, os.environ, tracer_provider)
    include_routes(app)
    relative_slash_redirects(app.router)

    register_schema(Problem)
    return app


def serve_app() -> FastAPI:
    """The app `python -m app` serves: uvicorn calls this factory (`factory=True`)."""
    return create_app(load_settings(), server=True)
