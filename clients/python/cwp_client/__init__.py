"""Python client of the Context Window Planner.

`cwp_client.generated` is generated from `openapi/openapi.json` (`make clients`) and never edited
by hand: its `models` type every request and answer, its `api` has one function per endpoint. The
modules beside it are the small layer on top: `Planner` / `AsyncPlanner` (retries, typed errors,
options passed through as given), `PlannerSession` (records, iteration numbers and summaries of
one run). `cwp_client.hooks` holds the hooks of the agent frameworks, each behind an extra of its
own (`pip install 'context-window-planner-client[langchain]'`, ...); importing this package imports
none of them. `messages` and `system` may hold the providers' SDK objects (pydantic models, sent
as their JSON dump): see `cwp_client.planner`.
"""

from cwp_client.errors import (
    BadRequestError,
    FieldProblem,
    PayloadTooLargeError,
    PlannerConnectionError,
    PlannerError,
    PlannerHTTPError,
    RequestValidationError,
    ServerError,
    ServiceUnavailableError,
    UnexpectedResponseError,
    UnsupportedMediaTypeError,
)
from cwp_client.generated import models
from cwp_client.planner import AsyncKeptAnswers, AsyncPlanner, KeptAnswers, Plan, Planner
from cwp_client.retry import AsyncRetryTransport, RetryPolicy, RetryTransport
from cwp_client.session import AsyncPlannerSession, PlannerSession

__all__ = [
    "AsyncKeptAnswers",
    "AsyncPlanner",
    "AsyncPlannerSession",
    "AsyncRetryTransport",
    "BadRequestError",
    "FieldProblem",
    "KeptAnswers",
    "PayloadTooLargeError",
    "Plan",
    "Planner",
    "PlannerConnectionError",
    "PlannerError",
    "PlannerHTTPError",
    "PlannerSession",
    "RequestValidationError",
    "RetryPolicy",
    "RetryTransport",
    "ServerError",
    "ServiceUnavailableError",
    "UnexpectedResponseError",
    "UnsupportedMediaTypeError",
    "models",
]
