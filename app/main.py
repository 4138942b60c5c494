"""The ASGI application: `app.main:app`, built by `create_app(settings)`.

The app wires the HTTP layer together (middleware, problem handlers, routers, the offline Swagger
UI and the OpenAPI document); it holds no state between requests beyond its settings and metrics.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from app import __version__
from app.api.metrics import create_metrics
from app.api.middleware import ServiceMiddleware
from app.api.openapi_doc import build_openapi, register_schema
from app.api.problems import Problem, install_problem_handlers
from app.api.routes import cap, kept, offer, service, window
from app.lifecycle import Lifecycle
from app.logs import stamp_request_ids
from app.settings import Settings, load_settings

DESCRIPTION = """\
A stateless planner an LLM agent calls before every model request to decide what stays in its
context window: which turns are kept and which leave (never splitting a tool call from its results,
never dropping the current request or an unanswered call), which turns are pinned and why, how an
oversized tool result is replaced by a marker, which tool-result ids the model may still cite, and a
person's answers kept for the next call of the same tool.

Every error is `application/problem+json` (RFC 9457) naming the offending field in `errors[].loc`.
"""

TAGS = [
    {"name": "window", "description": "The window plan: kept and evicted turns, pins, refusals."},
    {"name": "cap", "description": "The tool-result cap and its marker."},
    {"name": "offer", "description": "Which tool results the model may still cite."},
    {"name": "kept-answers", "description": "A person's answers kept for the next call."},
    {"name": "service", "description": "Health, readiness, info and metrics."},
]


# A plan allocates several objects per message of transcripts of up to 100,000 messages, none of
# them in reference cycles; at the default thresholds the cyclic collector would run hundreds of
# times per large request and walk every live object each time a full collection comes due. While
# request work runs the collector is paused altogether (`app.api.collector`); these thresholds
# govern the rest.
GC_THRESHOLDS = (50_000, 20, 100)


def tune_garbage_collector() -> None:
    gc.set_threshold(*GC_THRESHOLDS)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or load_settings()
    tune_garbage_collector()
    stamp_request_ids()
    lifecycle = Lifecycle()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        lifecycle.install(settings.shutdown_drain_seconds)
        gc.freeze()  # what start-up built lives as long as the process: never scan it again
        try:
            yield
        finally:
            lifecycle.shutting_down = True
            lifecycle.restore()

    app = FastAPI(
        title="Context Window Planner",
        version=__version__,
        description=DESCRIPTION,
        openapi_tags=TAGS,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.metrics = create_metrics()
    app.state.lifecycle = lifecycle

    install_problem_handlers(app)
    app.add_middleware(
        ServiceMiddleware, metrics=app.state.metrics, max_body_bytes=settings.max_body_bytes
    )
    app.include_router(window.router)
    app.include_router(cap.router)
    app.include_router(offer.router)
    app.include_router(kept.router)
    app.include_router(service.router)
    app.mount(service.ASSETS_PATH, service.swagger_assets(), name="swagger-assets")

    register_schema(Problem)

    def openapi() -> dict[str, Any]:
        return build_openapi(app)

    app.openapi = openapi  # type: ignore[method-assign]
    return app


app = create_app()
