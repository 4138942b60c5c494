"""RFC 9457 problem+json: the one shape of every error answer, and the handlers that produce it.

A caller in any language tests `status` and reads `errors[].loc` to find the field it got wrong;
`instance` is the request id, so a log line and an error answer can be matched. A 500 says only that
something failed and which request it was: the stack trace goes to the log, never to the caller.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import ErrorList, FieldError, InvalidRequest, bounded
from app.service.reading import pydantic_errors

PROBLEM_MEDIA_TYPE = "application/problem+json"

TITLES = {
    400: "Malformed request body",
    404: "Not found",
    405: "Method not allowed",
    408: "Request timeout",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Invalid request",
    500: "Internal server error",
    503: "Service unavailable",
}


class ProblemItem(BaseModel):
    """One field error."""

    loc: list[str | int] = Field(description="Path of the field; a body field starts with `body`.")
    msg: str = Field(description="What is wrong with it.")
    type: str = Field(description="A machine-readable error kind.")


class Problem(BaseModel):
    """An RFC 9457 problem details object."""

    type: str = Field(description="A URI naming the kind of problem.")
    title: str = Field(description="A short summary of the kind of problem.")
    status: int = Field(description="The HTTP status code.")
    detail: str = Field(description="What went wrong with this request.")
    errors: list[ProblemItem] = Field(
        description="The field errors found, in the order found: at most 100 (may be empty)."
    )
    errors_left_out: int | None = Field(
        None,
        ge=1,
        description="Present only when more than 100 errors were found: how many were left out "
        "of `errors` (only counted, never listed).",
    )
    instance: str = Field(description="The request id (also in the X-Request-ID header).")


class ProblemError(Exception):
    """Raised anywhere in the HTTP layer to answer with a problem."""

    def __init__(
        self,
        status: int,
        detail: str,
        errors: list[FieldError] | None = None,
        kind: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors or []
        self.kind = kind
        self.headers = headers or {}


def _kind_for(status: int) -> str:
    return {
        400: "malformed-json",
        404: "not-found",
        405: "method-not-allowed",
        408: "read-timeout",
        413: "body-too-large",
        415: "unsupported-media-type",
        422: "invalid-request",
        500: "internal-error",
        503: "unavailable",
    }.get(status, "http-error")


def problem_type(status: int, kind: str | None = None) -> str:
    """The problem's `type`: a URN naming its kind."""
    return f"urn:context-window-planner:problem:{kind or _kind_for(status)}"


def answered_problem(error: Exception) -> tuple[int, str]:
    """The status and `type` of the problem the app answers `error` with (the handlers below,
    and `app.api.middleware`'s bare 500 for anything else)."""
    if isinstance(error, ProblemError):
        return error.status, problem_type(error.status, error.kind)
    if isinstance(error, InvalidRequest | RequestValidationError):
        return 422, problem_type(422)
    if isinstance(error, StarletteHTTPException):
        return error.status_code, problem_type(error.status_code)
    return 500, problem_type(500)


def problem_body(
    status: int,
    detail: str,
    request_id: str,
    errors: list[FieldError] | None = None,
    kind: str | None = None,
) -> bytes:
    """The serialized problem document: at most `MAX_ERRORS` entries in `errors`, and
    `errors_left_out` right after them when more were found."""
    listed = bounded(errors or ())
    document: dict[str, Any] = {
        "type": problem_type(status, kind),
        "title": TITLES.get(status, "HTTP error"),
        "status": status,
        "detail": detail,
        "errors": [{"loc": list(e.loc), "msg": e.msg, "type": e.type} for e in listed],
    }
    if listed.left_out:
        document["errors_left_out"] = listed.left_out
    document["instance"] = request_id
    return orjson.dumps(document)


def problem_response(
    request: Request,
    status: int,
    detail: str,
    errors: list[FieldError] | None = None,
    kind: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    request_id = getattr(request.state, "request_id", "")
    return Response(
        problem_body(status, detail, request_id, errors, kind),
        status_code=status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=headers,
    )


def _describe(errors: ErrorList) -> str:
    first = errors[0]
    where = ".".join(str(part) for part in first.loc)
    more = f" (and {errors.total - 1} more)" if errors.total > 1 else ""
    return f"{where}: {first.msg}{more}"


def install_problem_handlers(app: FastAPI) -> None:
    """Make every error the app can raise answer with problem+json."""

    async def on_problem(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ProblemError)
        return problem_response(
            request, exc.status, exc.detail, exc.errors, exc.kind, exc.headers or None
        )

    async def on_invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, InvalidRequest)
        return problem_response(request, 422, _describe(exc.errors), exc.errors)

    async def on_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        errors = pydantic_errors(exc.errors())
        return problem_response(request, 422, _describe(errors), errors)

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        return problem_response(
            request, exc.status_code, str(exc.detail), headers=dict(exc.headers or {}) or None
        )

    app.add_exception_handler(ProblemError, on_problem)
    app.add_exception_handler(InvalidRequest, on_invalid)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for the given error statuses."""
    descriptions = {
        400: "The body is not strict JSON (or nests deeper than orjson reads).",
        404: "Nothing is served under that name.",
        413: "The body is larger than the configured limit; it was not read whole.",
        415: "The content type is not JSON.",
        422: "Valid JSON the service refuses (docs/rules.md#validation); `errors[].loc` names "
        "each field.",
        500: "An unexpected failure; logged with the request id.",
        503: "The request ran past the processing deadline, or the service is shutting down.",
    }
    return {
        status: {
            "description": descriptions[status],
            "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for status in statuses
    }


BODY_ERRORS = problem_responses(400, 413, 415, 422, 500, 503)
PLAIN_ERRORS = problem_responses(500)
