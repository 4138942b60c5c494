"""The errors a planner call raises: one hierarchy under `PlannerError`, so a caller can catch
everything the planner says with one clause and still tell a refused request from an unreachable
service.

A refused request carries the service's RFC 9457 problem as sent (`status`, `title`, `detail`,
`errors` with each `loc`), parsed into the generated `Problem` model when the body is one. A body
that is not (a proxy's or load balancer's plain-text page, such as a 502 or 503 of its own)
still gives the status, with the reason phrase as title and the body text as detail.
"""

from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import httpx

from cwp_client.generated.models.problem import Problem


class PlannerError(Exception):
    """Anything a planner call raises on purpose."""


class PlannerConnectionError(PlannerError):
    """The service could not be reached, or the connection broke or timed out, on every attempt;
    the httpx error of the last attempt is the `__cause__`."""


class UnexpectedResponseError(PlannerError):
    """A success status whose body is not the answer the OpenAPI document describes."""

    def __init__(self, message: str, response: httpx.Response) -> None:
        super().__init__(message)
        self.response = response


@dataclass(frozen=True)
class FieldProblem:
    """One entry of a problem's `errors`: where (`loc`, FastAPI's path, e.g.
    `("body", "messages", 3, "tool_call_id")`), what (`msg`) and its machine-readable `type`."""

    loc: tuple[str | int, ...]
    msg: str
    type: str


class PlannerHTTPError(PlannerError):
    """The service answered with an error status."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.status = response.status_code
        self.body: Any = _json_or_none(response)
        self.problem: Problem | None = _problem_or_none(self.body)
        if self.problem is not None:
            self.type = self.problem.type_
            self.title = self.problem.title
            self.detail = self.problem.detail
            self.errors = tuple(
                FieldProblem(tuple(item.loc), item.msg, item.type_) for item in self.problem.errors
            )
        else:
            self.type = "about:blank"
            self.title = _reason(self.status)
            self.detail = response.text
            self.errors = ()
        super().__init__(f"{self.status} {self.title}: {self.detail}")


class BadRequestError(PlannerHTTPError):
    """400: the body is not (strict) JSON."""


class PayloadTooLargeError(PlannerHTTPError):
    """413: the body is larger than the service accepts."""


class UnsupportedMediaTypeError(PlannerHTTPError):
    """415: the body was not sent as JSON."""


class RequestValidationError(PlannerHTTPError):
    """422: valid JSON the service refuses; `errors` names each field."""


class ServiceUnavailableError(PlannerHTTPError):
    """503 on every attempt: past the processing deadline, or the service shutting down."""


class ServerError(PlannerHTTPError):
    """A 5xx other than 503: a defect of the service."""


ERRORS_BY_STATUS: dict[int, type[PlannerHTTPError]] = {
    400: BadRequestError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    422: RequestValidationError,
    503: ServiceUnavailableError,
}


def error_for(response: httpx.Response) -> PlannerHTTPError:
    """The typed error for an error response."""
    kind = ERRORS_BY_STATUS.get(response.status_code)
    if kind is None:
        kind = ServerError if response.status_code >= 500 else PlannerHTTPError
    return kind(response)


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _problem_or_none(body: Any) -> Problem | None:
    if not isinstance(body, dict):
        return None
    try:
        return Problem.from_dict(body)
    except (KeyError, TypeError, ValueError):
        return None


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
