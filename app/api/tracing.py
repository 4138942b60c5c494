"""OpenTelemetry traces: whether the service traces, its server span per request and the use-case
span each endpoint opens under it.

Traces are on only when the standard environment asks for them (`traces_requested`):
`OTEL_TRACES_EXPORTER` names `otlp` or `console`, or `OTEL_EXPORTER_OTLP_ENDPOINT` /
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, unless `OTEL_SDK_DISABLED` is `true` or
`OTEL_TRACES_EXPORTER` is `none`. The decision is taken once, when the app is built. Off, nothing
of OpenTelemetry is imported (every import here is inside a function that only runs when on), no
middleware is added, and a request pays one context-variable read per use case.

On, spans go through a `BatchSpanProcessor`: they are exported by its own thread, so a collector
that is slow or unreachable costs spans, never a request. The OTLP exporter speaks HTTP/protobuf
and reads its own endpoint, headers and timeout from the standard variables. The app keeps its own
tracer provider rather than setting the process's global one, so two apps built in one process
(the tests) each trace to their own exporter.

The server span follows OpenTelemetry's HTTP server conventions, continuing the caller's trace
from its W3C `traceparent` (and `tracestate`); it records the method, the route template, the path
(never the query), the status and `cwp.request_id`, the `X-Request-ID` the service answered. It is
an ASGI middleware of its own, which never reads a body: no span records a body, a header other
than those, or any other input value. The use-case spans (`cwp.plan`, `cwp.cap`, `cwp.offer`,
`cwp.recall`) carry only the figures `app.api.answers` computes from the answer, and, when the
request ends in a problem, the problem's `type` and status (`app.api.problems.answered_problem`):
never its detail, which may quote the caller's input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from types import TracebackType
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from fastapi import FastAPI
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span, Tracer

DEFAULT_SERVICE_NAME = "context-window-planner"
TRACER_NAME = "context-window-planner"

# The standard exporter names the service knows; others are not traced to.
EXPORTERS = ("otlp", "console")

# HTTP's own methods; any other token is recorded as `_OTHER` (the semantic conventions' rule).
KNOWN_METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
)

# Attribute values a span may carry: what OpenTelemetry accepts.
AttributeValue = str | bool | int | float | Sequence[str]
Attributes = Mapping[str, AttributeValue]

# The app's tracer while a traced request runs (set by the middleware), and the use case's span.
_tracer: ContextVar[Tracer | None] = ContextVar("cwp_tracer", default=None)
_use_case: ContextVar[Span | None] = ContextVar("cwp_use_case_span", default=None)


def _exporter_names(environ: Mapping[str, str]) -> list[str]:
    return [
        name.strip().lower()
        for name in environ.get("OTEL_TRACES_EXPORTER", "").split(",")
        if name.strip()
    ]


def requested_exporters(environ: Mapping[str, str]) -> list[str]:
    """The exporters the environment asks for (`otlp`, `console`); [] means traces are off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    names = _exporter_names(environ)
    if "none" in names:
        return []
    chosen = [name for name in EXPORTERS if name in names]
    if not names and (
        environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        chosen = ["otlp"]
    return chosen


def traces_requested(environ: Mapping[str, str]) -> bool:
    return bool(requested_exporters(environ))


def provider_from_environment(environ: Mapping[str, str]) -> TracerProvider:
    """A tracer provider exporting, in batches, to the exporters the environment names."""
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
    except ImportError as error:
        # Asked for traces and unable to send them: say so at start-up, not run without them.
        raise ImportError(
            "the OTEL_* environment turns traces on, but the OpenTelemetry SDK is not installed: "
            "install the `otel` extra (pip install 'context-window-planner[otel]')"
        ) from error

    service_name = environ.get("OTEL_SERVICE_NAME", "").strip() or DEFAULT_SERVICE_NAME
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    for name in requested_exporters(environ):
        exporter: SpanExporter
        if name == "console":
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            exporter = ConsoleSpanExporter()
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def install_tracing(
    app: FastAPI, environ: Mapping[str, str], provider: TracerProvider | None = None
) -> TracerProvider | None:
    """Add the tracing middleware when the environment asks for traces (or a provider is given,
    as the tests do); the provider used, or None when traces are off."""
    if provider is None:
        if not traces_requested(environ):
            return None
        provider = provider_from_environment(environ)
    app.add_middleware(TracingMiddleware, tracer=provider.get_tracer(TRACER_NAME))
    return provider


class TracingMiddleware:
    """One server span per HTTP request, the parent of the use case's span."""

    def __init__(self, app: ASGIApp, tracer: Tracer) -> None:
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self.app = app
        self.tracer = tracer
        self.propagator = TraceContextTextMapPropagator()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from opentelemetry import context, trace

        carrier = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope["headers"]
            if name in (b"traceparent", b"tracestate")
        }
        method = scope["method"] if scope["method"] in KNOWN_METHODS else "_OTHER"
        span = self.tracer.start_span(
            method,
            context=self.propagator.extract(carrier),
            kind=trace.SpanKind.SERVER,
            attributes={
                "http.request.method": method,
                "url.path": scope["path"],
                "url.scheme": scope.get("scheme", "http"),
                "network.protocol.version": scope.get("http_version", "1.1"),
            },
        )
        attached = context.attach(trace.set_span_in_context(span))
        tracer_token = _tracer.set(self.tracer)
        status: int | None = None
        request_id: str | None = None

        async def traced_send(message: Message) -> None:
            nonlocal status, request_id
            if message["type"] == "http.response.start":
                status = int(message["status"])
                for name, value in message.get("headers", ()):
                    if name.lower() == b"x-request-id":
                        request_id = value.decode("latin-1")
            await send(message)

        failed: str | None = None
        try:
            await self.app(scope, receive, traced_send)
        except BaseException as error:
            failed = type(error).__qualname__
            raise
        finally:
            route = getattr(scope.get("route"), "path", None)
            if isinstance(route, str):
                span.update_name(f"{method} {route}")
                span.set_attribute("http.route", route)
            if request_id is not None:
                span.set_attribute("cwp.request_id", request_id)
            if status is not None:
                span.set_attribute("http.response.status_code", status)
            # HTTP server conventions: a 5xx (or no answer) is the server's error, a 4xx the
            # client's, which leaves the server span's status unset.
            if status is None or status >= 500:
                span.set_attribute("error.type", str(status) if status else failed or "_OTHER")
                span.set_status(trace.Status(trace.StatusCode.ERROR))
            span.end()
            _tracer.reset(tracer_token)
            context.detach(attached)


class _UseCaseSpan:
    """The span of one use case, current for the figures `note` adds; a problem the use case
    raises marks it as an error with the problem's type and status."""

    __slots__ = ("name", "span", "token", "tracer")

    def __init__(self, tracer: Tracer, name: str) -> None:
        self.tracer = tracer
        self.name = name

    def __enter__(self) -> None:
        self.span = self.tracer.start_span(
            self.name, record_exception=False, set_status_on_exception=False
        )
        self.token = _use_case.set(self.span)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        from opentelemetry.trace import Status, StatusCode

        from app.api.problems import answered_problem

        if isinstance(error, Exception):
            status, problem_type = answered_problem(error)
            self.span.set_attribute("error.type", problem_type)
            self.span.set_attribute("http.response.status_code", status)
            self.span.set_status(Status(StatusCode.ERROR))
        _use_case.reset(self.token)
        self.span.end()


class _Untraced:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


_UNTRACED = _Untraced()


def use_case(name: str) -> _UseCaseSpan | _Untraced:
    """The context in which a route runs its use case: a child span of the request's server span
    when traces are on, nothing at all when off."""
    tracer = _tracer.get()
    return _UNTRACED if tracer is None else _UseCaseSpan(tracer, name)


def tracing() -> bool:
    """Whether a use-case span is open and recording (sampled): only then are its figures worth
    computing."""
    span = _use_case.get()
    return span is not None and span.is_recording()


def note(attributes: Attributes, events: Sequence[tuple[str, Attributes]] = ()) -> None:
    """Set figures on the open use-case span, and add its events."""
    span = _use_case.get()
    if span is None:
        return
    span.set_attributes(attributes)
    for name, event_attributes in events:
        span.add_event(name, event_attributes)
