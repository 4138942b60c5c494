"""Service endpoints: the index page, liveness, readiness, info, metrics and the offline Swagger UI.

Swagger UI's script and style sheet (Swagger UI 5, which reads OpenAPI 3.1) are served by the
service itself from the files the `fastapi-offline` package ships, because a sidecar often runs
where no CDN can be reached; its Content-Security-Policy says so (`app.api.pages`).

The probes answer `HEAD` as `GET` (a health check may use either); the document lists `GET` only.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, Field

from app import __version__, compiled
from app.api.dependencies import LifecycleDep, MetricsDep, SettingsDep
from app.api.pages import swagger_page
from app.api.problems import PLAIN_ERRORS, problem_responses
from app.api.responses import json_response
from app.core.defaults import OPTION_DEFAULTS
from app.tokenizers import TOKENIZERS

SWAGGER_ASSETS = str(files("fastapi_offline") / "static")
ASSETS_PATH = "/docs/assets"

router = APIRouter(tags=["service"], responses=PLAIN_ERRORS)


class Health(BaseModel):
    status: str = Field(examples=["ok"])


class Info(BaseModel):
    name: str
    version: str
    limits: dict[str, Any] = Field(description="The limits in force, from the settings.")
    defaults: dict[str, Any] = Field(description="The default of every option, per endpoint.")
    tokenizers: list[str] = Field(description="The tokenizers this process counts with.")
    viewer: str = Field(description="The path of the plan viewer page.")
    compiled_reader: bool = Field(
        description="Whether plan requests are read by the compiled reader (built and not "
        "turned off by CWP_COMPILED_READER); false: every request is read in Python."
    )


INDEX = """\
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Context Window Planner</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<h1>Context Window Planner</h1>
<ul>
<li><a href="/viewer">Plan viewer</a>: paste a transcript, see which turns the plan keeps</li>
<li><a href="/docs">API documentation</a> (Swagger UI) and <a href="/openapi.json">the OpenAPI
document</a></li>
<li><a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a>, <a href="/v1/info">/v1/info</a>,
<a href="/metrics">/metrics</a></li>
</ul>
</body>
</html>
"""


@router.get("/", include_in_schema=False)
async def index() -> HTMLResponse:
    """A person who opens the service's address finds its pages from here."""
    return HTMLResponse(INDEX)


@router.get("/healthz", response_model=Health, summary="Liveness")
async def healthz() -> Response:
    """200 while the process serves requests."""
    return json_response({"status": "ok"})


@router.get(
    "/readyz",
    response_model=Health,
    summary="Readiness",
    responses={503: {"model": Health, "description": "Shutting down: send no new requests."}},
)
async def readyz(lifecycle: LifecycleDep) -> Response:
    """200 once started; 503 from the moment shutdown begins."""
    if lifecycle.shutting_down:
        return Response(b'{"status":"shutting-down"}', 503, media_type="application/json")
    return json_response({"status": "ready"})


for _probe in (healthz, readyz):
    router.add_api_route(f"/{_probe.__name__}", _probe, methods=["HEAD"], include_in_schema=False)


@router.get("/v1/info", response_model=Info, summary="Name, version, limits and option defaults")
async def info(settings: SettingsDep) -> Response:
    return json_response(
        {
            "name": "context-window-planner",
            "version": __version__,
            "limits": settings.reported_limits(),
            "defaults": OPTION_DEFAULTS,
            "tokenizers": TOKENIZERS,
            "viewer": "/viewer",
            "compiled_reader": settings.compiled_reader and compiled.available(),
        }
    )


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}},
)
async def metrics(collected: MetricsDep) -> Response:
    return Response(generate_latest(collected.registry), media_type=CONTENT_TYPE_LATEST)


SWAGGER_PAGE, SWAGGER_HEADERS = swagger_page("Context Window Planner — API", ASSETS_PATH)


@router.get("/docs", include_in_schema=False)
async def swagger_ui() -> HTMLResponse:
    return HTMLResponse(SWAGGER_PAGE, headers=SWAGGER_HEADERS)


def swagger_assets() -> StaticFiles:
    return StaticFiles(directory=SWAGGER_ASSETS)


__all__ = ["ASSETS_PATH", "problem_responses", "router", "swagger_assets"]
