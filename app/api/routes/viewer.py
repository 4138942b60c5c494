"""The plan viewer: `GET /viewer`, its script and style, and the transcripts it can open.

The page draws what `POST /v1/window/plan` answers and decides nothing about a window; this module
only serves files. Everything the page needs comes from this service (its script and style under
`/viewer/assets`, no CDN, no web fonts), because the service often runs where nothing else can be
reached, and so that a page opened from a sidecar never leaks a transcript to another host.

The transcripts it opens (`GET /viewer/samples`, `GET /viewer/samples/{name}`) are the package's
files, never a path the caller writes: a name is looked up in the listing of two folders, the
viewer's own small examples (`app/viewer/examples/`) and the recorded samples
(`app/audit/samples/`, read when that folder is there), so a name such as `../settings` is simply
not listed and answers 404.

The page is sent with a Content-Security-Policy allowing only this service's own files and
requests, and no framing (`app.api.pages`).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from app.api.pages import VIEWER_HEADERS
from app.api.problems import PLAIN_ERRORS, ProblemError, problem_responses
from app.api.responses import json_response
from app.viewer import ASSETS, VIEWER, transcripts

ASSETS_PATH = "/viewer/assets"

# The file shapes a transcript is read in: a JSON array or object, or one message per line.
MEDIA_TYPES = {".json": "application/json", ".jsonl": "application/jsonl"}

router = APIRouter(tags=["service"], responses=PLAIN_ERRORS)


@router.get("/viewer", response_class=HTMLResponse, summary="The plan viewer page")
async def viewer_page() -> Response:
    """The page that posts a transcript to `POST /v1/window/plan` and draws the answer, turn by
    turn. `?sample=<name>` opens one of `GET /viewer/samples`."""
    return FileResponse(
        VIEWER / "index.html", media_type="text/html; charset=utf-8", headers=VIEWER_HEADERS
    )


@router.get(
    "/viewer/samples",
    summary="The transcripts the viewer can open",
    response_model=list[str],
)
async def sample_names() -> Response:
    """Names of the bundled transcripts: the viewer's examples, one per format, and the recorded
    samples when the package has them."""
    return json_response(list(transcripts()))


@router.get(
    "/viewer/samples/{name}",
    summary="One transcript the viewer can open",
    response_class=Response,
    responses={
        200: {
            "description": "The file as stored: a JSON array of messages, an object "
            '`{"format"?, "system"?, "messages"}`, or JSON Lines, one message per line.',
            "content": {
                "application/json": {"schema": {}},
                "application/jsonl": {"schema": {"type": "string"}},
            },
        },
        **problem_responses(404),
    },
    # The name is read from the path by hand: any text is a name (unknown ones are a 404), so a
    # declared parameter would only add a 422 to the document that no request can get.
    openapi_extra={
        "parameters": [
            {
                "name": "name",
                "in": "path",
                "required": True,
                "schema": {"type": "string"},
                "description": "A name listed by `GET /viewer/samples`.",
            }
        ]
    },
)
async def sample(request: Request) -> Response:
    """The transcript named `name` in `GET /viewer/samples`, as stored; 404 for any other name."""
    name = str(request.path_params["name"])
    path = transcripts().get(name)
    if path is None:
        raise ProblemError(404, f"no transcript named {name!r}; GET /viewer/samples lists them")
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix])


def viewer_assets() -> StaticFiles:
    return StaticFiles(directory=ASSETS)
