"""`Planner` and `AsyncPlanner`: one method per endpoint, on httpx, with retries and typed errors.

Requests are sent as the caller gives them: `plan(messages, **options)` puts each option into the
JSON body under its own name, unchecked here, so an option the service learns later needs no new
client (the service itself refuses an unknown or misspelt one with a 422, raised as
`RequestValidationError` naming the field). An option may be plain JSON data or a generated model
(anything with `to_dict()`, e.g. `cwp_client.models.SlidingWindowStrategy`).

`messages` and `system` may hold the providers' SDK objects as they are: a pydantic model (a
`google.genai.types.Content`, an `openai`/`anthropic` message param built as a model) is sent as
its `model_dump(mode="json", by_alias=True, exclude_none=True)`, inside lists and dicts too. Pass
message params, not response objects: a response (e.g. `anthropic.types.Message`) carries fields
a provider refuses in a request (`id`, `model`, `usage`, ...), and the planner returns a kept
message's extra fields verbatim. Turn a response into a param first, e.g.
`{"role": msg.role, "content": [b.model_dump(exclude_none=True) for b in msg.content]}`.

Answers are parsed into the models generated from the OpenAPI document. The plan comes wrapped in
a `Plan`, which also keeps the JSON as received: its `window` goes to the model and its `record`
back to the next plan, both exactly as the service wrote them. Fields a `Plan` reads from that JSON
(`shaped`, `summary_request`, ...) are read there rather than from the typed model, so they work
with a service newer than the generated code, and read as absent from an older one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar, cast

import httpx

from cwp_client.errors import PlannerConnectionError, UnexpectedResponseError, error_for
from cwp_client.generated.models.cap_response import CapResponse
from cwp_client.generated.models.info import Info
from cwp_client.generated.models.keep_response import KeepResponse
from cwp_client.generated.models.lookup_response import LookupResponse
from cwp_client.generated.models.notice_out import NoticeOut
from cwp_client.generated.models.offer_response import OfferResponse
from cwp_client.generated.models.plan_response import PlanResponse
from cwp_client.generated.models.recall_response import RecallResponse
from cwp_client.generated.models.stats_out import StatsOut
from cwp_client.generated.models.use_response import UseResponse
from cwp_client.generated.types import Unset
from cwp_client.retry import AsyncRetryTransport, RetryPolicy, RetryTransport
from cwp_client.session import AsyncPlannerSession, PlannerSession

DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT = 30.0


class _FromDict(Protocol):
    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Any: ...


M = TypeVar("M", bound=_FromDict)


@dataclass(frozen=True)
class Plan:
    """The answer of `POST /v1/window/plan`: `response` typed, `raw` as received."""

    response: PlanResponse
    raw: dict[str, Any]
    # The plan a session made first for the same model request, whose `summary_request` it
    # answered before planning again with the summary (`PlannerSession`); None otherwise.
    replaces: Plan | None = None

    def replacing(self, first: Plan) -> Plan:
        """This plan, marked as the re-plan of `first`."""
        return Plan(self.response, self.raw, first)

    @property
    def window(self) -> list[Any]:
        """The new window in the caller's format, ready to send to the model."""
        if "window" not in self.raw:
            raise KeyError("window: the plan was asked for with include_window=false")
        window: list[Any] = self.raw["window"]
        return window

    @property
    def record(self) -> dict[str, Any] | None:
        """What this plan files, to send back in `prior_records`; None when it files none (a
        plan that did not engage, except the clear-only record of `fit` with `clear`)."""
        record: dict[str, Any] | None = self.raw["record"]
        return record

    @property
    def engaged(self) -> bool:
        return self.response.engaged

    @property
    def evicted_messages(self) -> list[int]:
        """Indices, in the transcript as sent, of the messages that leave."""
        return self.response.evicted_messages

    @property
    def shaped(self) -> list[dict[str, Any]]:
        """Each result whose text the window replaces (`collapse`, `cap`), as received: its
        `message_index` as sent, its `window_index` (None when it left), `action`, ...; empty
        when the plan was asked for no shaping."""
        shaped: list[dict[str, Any]] = self.raw.get("shaped") or []
        return shaped

    @property
    def summary_request(self) -> dict[str, Any] | None:
        """What to summarize (`from`, `through`, `key`) and the model request that asks for it
        (`request`, in the plan's wire format, ready to send); None when the plan asked for none.
        """
        request: dict[str, Any] | None = self.raw.get("summary_request")
        return request

    @property
    def summary_used(self) -> dict[str, Any] | None:
        """`from` and `through` of the summary the window holds; None when it holds none."""
        used: dict[str, Any] | None = self.raw.get("summary_used")
        return used

    @property
    def summaries_ignored(self) -> list[dict[str, Any]]:
        """Each summary sent that the window does not hold: its `index` and the `reason`."""
        ignored: list[dict[str, Any]] = self.raw.get("summaries_ignored") or []
        return ignored

    @property
    def recall_tool(self) -> dict[str, Any] | None:
        """The recall tool's declaration in the plan's format, to add to the tools sent with the
        window; None when the plan was asked for without `recall`."""
        tool: dict[str, Any] | None = self.raw.get("recall_tool")
        return tool

    @property
    def notice(self) -> NoticeOut | None:
        return self.response.notice

    @property
    def stats(self) -> StatsOut:
        return self.response.stats


def to_json(value: Any) -> Any:
    """`value` as JSON data: generated models through their `to_dict()`, pydantic models (the
    providers' SDK objects) through `model_dump(mode="json", by_alias=True, exclude_none=True)`,
    containers item by item, unset values of generated models left out."""
    if hasattr(value, "to_dict") and callable(value.to_dict):
        return cast(dict[str, Any], value.to_dict())
    if not isinstance(value, type) and callable(getattr(value, "model_dump", None)):
        return to_json(value.model_dump(mode="json", by_alias=True, exclude_none=True))
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items() if not isinstance(v, Unset)}
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    return value


def _body(fields: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    given = {name: value for name, value in fields.items() if value is not None}
    body: dict[str, Any] = to_json({**given, **options})
    return body


def _parse(response: httpx.Response, model: type[M]) -> tuple[M, dict[str, Any]]:
    if response.status_code != 200:
        raise error_for(response)
    try:
        data = response.json()
        return model.from_dict(data), data
    except (ValueError, KeyError, TypeError) as error:
        raise UnexpectedResponseError(
            f"{response.request.url.path} answered 200 with a body that is not a "
            f"{model.__name__}: {error!r}",
            response,
        ) from error


def _plan(response: httpx.Response) -> Plan:
    parsed, raw = _parse(response, PlanResponse)
    return Plan(parsed, raw)


def _transport_error(error: httpx.TransportError, url: httpx.URL | str) -> PlannerConnectionError:
    return PlannerConnectionError(f"the planner at {url} could not answer: {error!r}")


class Planner:
    """A synchronous client of one planner service.

    `retry` bounds the retries of a 503 or a broken connection (`RetryPolicy`; `None` turns them
    off). `http_client` replaces the httpx client built here (its transport then decides about
    retries). Use it as a context manager, or call `close()`.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008 - immutable
        headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.http = http_client or httpx.Client(
            base_url=base_url,
            timeout=timeout,
            headers=dict(headers or {}),
            transport=RetryTransport(retry or RetryPolicy(attempts=1)),
        )
        self.kept_answers = KeptAnswers(self)

    def _post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        try:
            return self.http.post(path, json=body)
        except httpx.TransportError as error:
            raise _transport_error(error, self.http.base_url) from error

    def plan(self, messages: Sequence[Any], **options: Any) -> Plan:
        """`POST /v1/window/plan`: which messages stay; `options` as in the API (`format`,
        `system`, `strategy`, `iteration`, `prior_records`, ...), sent as given."""
        return _plan(self._post("/v1/window/plan", _body({"messages": messages}, options)))

    def cap(
        self, results: Sequence[Any], *, max_chars: int | None = None, **options: Any
    ) -> CapResponse:
        """`POST /v1/tool-results/cap`: each result measured against `max_chars` (or
        `max_chars_by_tool`)."""
        body = _body({"results": results, "max_chars": max_chars}, options)
        return _parse(self._post("/v1/tool-results/cap", body), CapResponse)[0]

    def offer(self, messages: Sequence[Any], **options: Any) -> OfferResponse:
        """`POST /v1/offer`: the result ids the model may still cite."""
        body = _body({"messages": messages}, options)
        return _parse(self._post("/v1/offer", body), OfferResponse)[0]

    def recall(
        self,
        messages: Sequence[Any],
        *,
        ref: str | None = None,
        query: str | None = None,
        page: int | None = None,
        **options: Any,
    ) -> RecallResponse:
        """`POST /v1/recall`: one page of what `ref` (a result's tool call id) or `query` (words
        to search for) finds in `messages`, the whole history; `options` as in the API (`format`,
        `system`, `max_chars`)."""
        body = _body({"messages": messages, "ref": ref, "query": query, "page": page}, options)
        return _parse(self._post("/v1/recall", body), RecallResponse)[0]

    def info(self) -> Info:
        """`GET /v1/info`: name, version, limits and option defaults."""
        try:
            response = self.http.get("/v1/info")
        except httpx.TransportError as error:
            raise _transport_error(error, self.http.base_url) from error
        return _parse(response, Info)[0]

    def session(self, **defaults: Any) -> PlannerSession:
        """A `PlannerSession` for one agent run; `defaults` are sent with every plan."""
        return PlannerSession(self, **defaults)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class KeptAnswers:
    """`POST /v1/kept-answers/{keep,use,lookup}` (`docs/rules.md#kept-answers`); `kept` is the
    caller's list as last returned (absent for none yet)."""

    def __init__(self, planner: Planner) -> None:
        self._planner = planner

    def keep(
        self,
        *,
        turn: int,
        tool_name: str,
        answers: Sequence[Any],
        kept: Sequence[Any] | None = None,
        **options: Any,
    ) -> KeepResponse:
        body = _body(
            {"kept": kept, "turn": turn, "tool_name": tool_name, "answers": answers}, options
        )
        return _parse(self._planner._post("/v1/kept-answers/keep", body), KeepResponse)[0]

    def use(
        self, *, turn: int, used: Sequence[Any], kept: Sequence[Any] | None = None, **options: Any
    ) -> UseResponse:
        body = _body({"kept": kept, "turn": turn, "used": used}, options)
        return _parse(self._planner._post("/v1/kept-answers/use", body), UseResponse)[0]

    def lookup(
        self,
        *,
        turn: int,
        tool_name: str,
        argument: str,
        kept: Sequence[Any] | None = None,
        **options: Any,
    ) -> LookupResponse:
        body = _body(
            {"kept": kept, "turn": turn, "tool_name": tool_name, "argument": argument}, options
        )
        return _parse(self._planner._post("/v1/kept-answers/lookup", body), LookupResponse)[0]


class AsyncPlanner:
    """The asynchronous `Planner` (same methods, awaited; `aclose()` or `async with`)."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008 - immutable
        headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.http = http_client or httpx.AsyncClient(
            base_url=base_url,
            timeout=timeout,
            headers=dict(headers or {}),
            transport=AsyncRetryTransport(retry or RetryPolicy(attempts=1)),
        )
        self.kept_answers = AsyncKeptAnswers(self)

    async def _post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        try:
            return await self.http.post(path, json=body)
        except httpx.TransportError as error:
            raise _transport_error(error, self.http.base_url) from error

    async def plan(self, messages: Sequence[Any], **options: Any) -> Plan:
        """See `Planner.plan`."""
        return _plan(await self._post("/v1/window/plan", _body({"messages": messages}, options)))

    async def cap(
        self, results: Sequence[Any], *, max_chars: int | None = None, **options: Any
    ) -> CapResponse:
        """See `Planner.cap`."""
        body = _body({"results": results, "max_chars": max_chars}, options)
        return _parse(await self._post("/v1/tool-results/cap", body), CapResponse)[0]

    async def offer(self, messages: Sequence[Any], **options: Any) -> OfferResponse:
        """See `Planner.offer`."""
        body = _body({"messages": messages}, options)
        return _parse(await self._post("/v1/offer", body), OfferResponse)[0]

    async def recall(
        self,
        messages: Sequence[Any],
        *,
        ref: str | None = None,
        query: str | None = None,
        page: int | None = None,
        **options: Any,
    ) -> RecallResponse:
        """See `Planner.recall`."""
        body = _body({"messages": messages, "ref": ref, "query": query, "page": page}, options)
        return _parse(await self._post("/v1/recall", body), RecallResponse)[0]

    async def info(self) -> Info:
        try:
            response = await self.http.get("/v1/info")
        except httpx.TransportError as error:
            raise _transport_error(error, self.http.base_url) from error
        return _parse(response, Info)[0]

    def session(self, **defaults: Any) -> AsyncPlannerSession:
        """An `AsyncPlannerSession` for one agent run; `defaults` are sent with every plan."""
        return AsyncPlannerSession(self, **defaults)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()


class AsyncKeptAnswers:
    """The asynchronous `KeptAnswers`."""

    def __init__(self, planner: AsyncPlanner) -> None:
        self._planner = planner

    async def keep(
        self,
        *,
        turn: int,
        tool_name: str,
        answers: Sequence[Any],
        kept: Sequence[Any] | None = None,
        **options: Any,
    ) -> KeepResponse:
        body = _body(
            {"kept": kept, "turn": turn, "tool_name": tool_name, "answers": answers}, options
        )
        return _parse(await self._planner._post("/v1/kept-answers/keep", body), KeepResponse)[0]

    async def use(
        self, *, turn: int, used: Sequence[Any], kept: Sequence[Any] | None = None, **options: Any
    ) -> UseResponse:
        body = _body({"kept": kept, "turn": turn, "used": used}, options)
        return _parse(await self._planner._post("/v1/kept-answers/use", body), UseResponse)[0]

    async def lookup(
        self,
        *,
        turn: int,
        tool_name: str,
        argument: str,
        kept: Sequence[Any] | None = None,
        **options: Any,
    ) -> LookupResponse:
        body = _body(
            {"kept": kept, "turn": turn, "tool_name": tool_name, "argument": argument}, options
        )
        return _parse(await self._planner._post("/v1/kept-answers/lookup", body), LookupResponse)[0]
