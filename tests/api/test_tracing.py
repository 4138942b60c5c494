"""OpenTelemetry traces (docs/observability.md#traces): when they are on, the server span and the
use-case spans with every attribute from the answer's values, the caller's trace continued,
errors, no caller data in any span, an unreachable collector costing no request; once end to
end, the real server exporting OTLP/HTTP to a stand-in collector; and off, nothing of the SDK
imported."""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from app.api.tracing import requested_exporters, traces_requested
from app.main import create_app
from app.schemas.cap import CAP_EXAMPLES
from app.schemas.offer import OFFER_EXAMPLES
from app.schemas.recall import RECALL_EXAMPLES
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
PLAN = "/v1/window/plan"
MARK = "ZZMARKZZ"
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
PARENT_ID = "b7ad6b7169203331"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"


@pytest.fixture
def traced() -> Iterator[tuple[TestClient, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with TestClient(create_app(Settings(), tracer_provider=provider)) as client:
        yield client, exporter
    provider.shutdown()


def spans(exporter: InMemorySpanExporter) -> dict[str, ReadableSpan]:
    found = {span.name: span for span in exporter.get_finished_spans()}
    assert len(found) == len(exporter.get_finished_spans()), "one span of each name"
    return found


def A(i: int, mark: str = "") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": mark,
        "tool_calls": [{"id": f"c{mark}{i}", "name": f"look{mark}", "arguments": {"q": mark}}],
    }


def T(i: int, mark: str = "", size: int = 600) -> dict[str, Any]:
    text = (mark or "x") * (size // max(1, len(mark)))
    call = f"c{mark}{i}"
    return {"role": "tool", "tool_call_id": call, "tool_name": f"look{mark}", "content": text}


def transcript(results: int, mark: str = "") -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": f"You look things up.{mark}"},
        {"role": "user", "content": f"Look everything up.{mark}"},
    ]
    for i in range(results):
        messages += [A(i, mark), T(i, mark)]
    return messages


FIT_BODY: dict[str, Any] = {
    "format": "native",
    "messages": transcript(8),
    "strategy": {"kind": "fit", "max_tokens": 600, "keep_recent_turns": 1},
    "clear": {"keep_last": 2, "step": 1},
    "cap": {"max_chars": 300},
    "tokenizer": "estimate",
    "keep_last_tool_results": 0,
}


# ---- on/off, from the standard environment ----------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "exporters"),
    [
        ({}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": "console"}, ["console"]),
        ({"OTEL_TRACES_EXPORTER": "otlp, console"}, ["otlp", "console"]),
        ({"OTEL_TRACES_EXPORTER": "zipkin"}, []),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, ["otlp"]),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, ["otlp"]),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "TRUE"}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "false"}, ["otlp"]),
    ],
)
def test_the_standard_environment_turns_traces_on(environ: dict[str, str], exporters: list[str]):
    assert requested_exporters(environ) == exporters
    assert traces_requested(environ) is bool(exporters)


def test_off_nothing_of_the_sdk_is_imported_and_no_middleware_added():
    script = """
import sys
import fastapi
from fastapi.testclient import TestClient
framework = {name for name in sys.modules if name.startswith("opentelemetry")}
from app.api.tracing import TracingMiddleware
from app.main import create_app
from app.settings import Settings
app = create_app(Settings())
body = {"messages": [{"role": "user", "content": "hello"}]}
with TestClient(app) as client:
    assert client.post("/v1/window/plan", json=body).status_code == 200
assert app.state.tracer_provider is None
assert not [m for m in app.user_middleware if m.cls is TracingMiddleware]
print(sorted({name for name in sys.modules if name.startswith("opentelemetry")} - framework))
print(sorted(name for name in sys.modules if name.startswith(SDK)))
""".replace("SDK", repr(("opentelemetry.sdk", "opentelemetry.exporter", "opentelemetry.proto")))
    environment = {
        "PATH": "/usr/bin:/bin",
        "OTEL_SERVICE_NAME": "ignored-when-off",
    }
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # FastAPI itself imports OpenTelemetry's API (its own telemetry, which the app turns off).
    assert done.stdout.splitlines() == ["[]", "[]"]


def test_on_the_environment_builds_batched_exporters(monkeypatch):
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp,console")
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    app = create_app(Settings())
    provider = app.state.tracer_provider
    try:
        assert provider.resource.attributes["service.name"] == "context-window-planner"
        processors = provider._active_span_processor._span_processors
        assert all(isinstance(p, BatchSpanProcessor) for p in processors)
        exporters = [type(p._batch_processor._exporter) for p in processors]
        assert exporters == [OTLPSpanExporter, ConsoleSpanExporter]
    finally:
        provider.shutdown()
    monkeypatch.setenv("OTEL_SERVICE_NAME", "planner-eu")
    app = create_app(Settings())
    try:
        assert app.state.tracer_provider.resource.attributes["service.name"] == "planner-eu"
    finally:
        app.state.tracer_provider.shutdown()


# ---- the spans and their attributes ------------------------------------------------------------


def test_a_fit_plan_with_clear_and_cap_has_every_attribute_from_the_answer(traced):
    client, exporter = traced
    answer = client.post(PLAN, json=FIT_BODY, headers={"traceparent": TRACEPARENT})
    assert answer.status_code == 200
    plan = answer.json()
    shaped = [entry["action"] for entry in plan["shaped"]]
    assert shaped.count("cleared") and shaped.count("capped")  # the case shapes both ways
    found = spans(exporter)
    assert set(found) == {"POST /v1/window/plan", "cwp.plan"}
    stats, budget = plan["stats"], plan["budget"]
    assert dict(found["cwp.plan"].attributes) == {
        "gen_ai.operation.name": "plan_context",
        "cwp.format": "native",
        "cwp.strategy": "fit",
        "cwp.engaged": plan["engaged"],
        "cwp.messages_before": stats["messages_before"],
        "cwp.messages_after": stats["messages_after"],
        "cwp.removed_messages": stats["removed_message_count"],
        "cwp.tokens_before": stats["tokens_before"],
        "cwp.tokens_after": stats["tokens_after"],
        "cwp.tokenizer": "estimate",
        "cwp.budget.max_tokens": 600,
        "cwp.budget.total_after": budget["total_after"],
        "cwp.budget.met": budget["met"],
        "cwp.budget.stage": budget["stage"],
        "cwp.budget.held": budget["held"],
        "cwp.shaped.cleared": shaped.count("cleared"),
        "cwp.shaped.capped": shaped.count("capped"),
        "cwp.refusals": tuple(dict.fromkeys(r["reason"] for r in plan["refusals"])),
    }
    assert budget["met"] and not found["cwp.plan"].events
    assert found["cwp.plan"].status.status_code is StatusCode.UNSET


def test_the_server_span_follows_the_http_conventions_and_joins_the_callers_trace(traced):
    client, exporter = traced
    answer = client.post(
        PLAN + "?debug=" + MARK, json=FIT_BODY, headers={"traceparent": TRACEPARENT}
    )
    found = spans(exporter)
    server, use_case = found["POST /v1/window/plan"], found["cwp.plan"]
    assert server.kind is SpanKind.SERVER and use_case.kind is SpanKind.INTERNAL
    assert dict(server.attributes) == {
        "http.request.method": "POST",
        "http.route": PLAN,
        "url.path": PLAN,
        "url.scheme": "http",
        "network.protocol.version": "1.1",
        "http.response.status_code": 200,
        "cwp.request_id": answer.headers["x-request-id"],
    }
    assert format(server.context.trace_id, "032x") == TRACE_ID
    assert format(server.parent.span_id, "016x") == PARENT_ID and server.parent.is_remote
    assert use_case.context.trace_id == server.context.trace_id
    assert use_case.parent.span_id == server.context.span_id


def test_without_traceparent_the_server_span_starts_a_trace(traced):
    client, exporter = traced
    client.post(PLAN, json=FIT_BODY, headers={"x-request-id": "req-7"})
    server = spans(exporter)["POST /v1/window/plan"]
    assert server.parent is None
    assert server.attributes["cwp.request_id"] == "req-7"


def test_an_unmet_budget_adds_the_event(traced):
    client, exporter = traced
    body = {
        "format": "native",
        "messages": [{"role": "user", "content": "x" * 4000}],
        "strategy": {"kind": "fit", "max_tokens": 100},
    }
    plan = client.post(PLAN, json=body).json()
    assert plan["budget"]["met"] is False
    span = spans(exporter)["cwp.plan"]
    assert span.attributes["cwp.budget.met"] is False
    assert span.attributes["cwp.tokens_after"] == plan["stats"]["tokens_after"]
    assert [(event.name, dict(event.attributes)) for event in span.events] == [
        (
            "cwp.budget.not_met",
            {
                "cwp.budget.total_after": plan["budget"]["total_after"],
                "cwp.budget.max_tokens": 100,
            },
        )
    ]


def test_a_summary_request_and_a_plan_without_budget(traced):
    client, exporter = traced
    body = {
        "format": "native",
        "messages": transcript(4),
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
        "keep_last_tool_results": 0,
        "summarize": {"min_span_tokens": 0},
    }
    plan = client.post(PLAN, json=body).json()
    assert plan["summary_request"] is not None and plan["summary_used"] is None
    attributes = dict(spans(exporter)["cwp.plan"].attributes)
    assert attributes["cwp.summary.requested"] is True
    assert attributes["cwp.summary.applied"] is False
    assert attributes["cwp.strategy"] == "sliding-window"
    assert "tokens_before" not in plan["stats"]  # no tokenizer, no token figures
    assert not [
        name
        for name in attributes
        if name.startswith(("cwp.budget.", "cwp.shaped.", "cwp.tokens", "cwp.tokenizer"))
    ]


def test_a_plan_without_summaries_or_refusals_leaves_those_out(traced):
    client, exporter = traced
    body = {"messages": [{"role": "user", "content": "hi"}], "format": "native"}
    plan = client.post(PLAN, json=body).json()
    assert plan["refusals"] == [] and "summary_used" not in plan
    attributes = dict(spans(exporter)["cwp.plan"].attributes)
    assert "cwp.summary.requested" not in attributes and "cwp.summary.applied" not in attributes
    assert "cwp.refusals" not in attributes


def test_cap_offer_and_recall_spans(traced):
    client, exporter = traced
    cap = client.post("/v1/tool-results/cap", json=CAP_EXAMPLES["three_results"]["value"]).json()
    offer_body = next(iter(OFFER_EXAMPLES.values()))["value"]
    offer = client.post("/v1/offer", json=offer_body).json()
    ref = client.post("/v1/recall", json=RECALL_EXAMPLES["ref"]["value"]).json()
    query = client.post("/v1/recall", json=RECALL_EXAMPLES["query"]["value"]).json()
    names = [span.name for span in exporter.get_finished_spans()]
    assert names == [
        "cwp.cap",
        "POST /v1/tool-results/cap",
        "cwp.offer",
        "POST /v1/offer",
        "cwp.recall",
        "POST /v1/recall",
        "cwp.recall",
        "POST /v1/recall",
    ]
    finished = exporter.get_finished_spans()
    assert dict(finished[0].attributes) == {
        "cwp.results": len(cap["results"]),
        "cwp.truncated": cap["truncated_count"],
    }
    assert cap["truncated_count"] == 1
    assert dict(finished[2].attributes) == {"cwp.offered": len(offer["offered"])}
    assert dict(finished[4].attributes) == {"cwp.recall.kind": "ref", "cwp.recall.found": True}
    assert ref["hits"] is None
    assert dict(finished[6].attributes) == {
        "cwp.recall.kind": "query",
        "cwp.recall.found": query["found"],
        "cwp.recall.hits": query["hits"],
    }


def test_other_routes_have_the_server_span_alone(traced):
    client, exporter = traced
    assert client.get("/healthz").status_code == 200
    assert client.get("/nowhere?x=" + MARK).status_code == 404
    found = exporter.get_finished_spans()
    assert [span.name for span in found] == ["GET /healthz", "GET"]
    assert found[1].attributes["url.path"] == "/nowhere"
    assert "http.route" not in found[1].attributes


# ---- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "status"),
    [
        (json.dumps({"messages": "no"}), 422),
        ("{not json", 400),
        (json.dumps({"messages": [{"role": "user", "content": "hi"}], "strategy": 3}), 422),
    ],
)
def test_an_error_answer_marks_the_use_case_span(traced, content: str, status: int):
    client, exporter = traced
    answer = client.post(PLAN, content=content, headers={"content-type": "application/json"})
    assert answer.status_code == status
    found = spans(exporter)
    use_case, server = found["cwp.plan"], found["POST /v1/window/plan"]
    assert use_case.status.status_code is StatusCode.ERROR
    assert dict(use_case.attributes) == {
        "error.type": answer.json()["type"],
        "http.response.status_code": status,
    }
    assert not use_case.events  # no exception event: its message may quote the body
    # A client's error leaves the server span's status unset.
    assert server.status.status_code is StatusCode.UNSET
    assert server.attributes["http.response.status_code"] == status
    assert "error.type" not in server.attributes


def test_a_failure_is_a_5xx_on_both_spans(traced, monkeypatch):
    client, exporter = traced

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(MARK)

    monkeypatch.setattr("app.api.answers.offer_request", fail)
    answer = client.post("/v1/offer", json=next(iter(OFFER_EXAMPLES.values()))["value"])
    assert answer.status_code == 500
    found = spans(exporter)
    use_case, server = found["cwp.offer"], found["POST /v1/offer"]
    assert use_case.status.status_code is StatusCode.ERROR
    assert use_case.attributes["error.type"] == answer.json()["type"]
    assert use_case.attributes["http.response.status_code"] == 500
    assert server.status.status_code is StatusCode.ERROR
    assert server.attributes["error.type"] == "500"
    assert_no_mark(exporter)


# ---- nothing from the transcript ---------------------------------------------------------------


def values_of(span: ReadableSpan) -> list[str]:
    found = [span.name, span.status.description or ""]
    for attributes in [span.attributes, *(event.attributes for event in span.events)]:
        for name, value in (attributes or {}).items():
            found.append(name)
            found.extend(str(item) for item in (value if isinstance(value, tuple) else [value]))
    found.extend(event.name for event in span.events)
    return found


def assert_no_mark(exporter: InMemorySpanExporter) -> None:
    finished = exporter.get_finished_spans()
    assert finished
    for span in finished:
        for value in values_of(span):
            assert MARK not in value, (span.name, value)


def marked_plan_bodies() -> list[dict[str, Any]]:
    messages = transcript(6, MARK)
    ledger = [
        {
            "tool_call_id": f"c{MARK}0",
            "standing": "fact",
            "tool_name": f"look{MARK}",
            "assertions": [MARK],
        },
        {"tool_call_id": f"c{MARK}1", "standing": "noise", "tool_name": f"look{MARK}"},
    ]
    native = {
        "format": "native",
        "messages": messages,
        "ledger": ledger,
        "collapse": "ledger-and-facts",
        "strategy": {"kind": "fit", "max_tokens": 300, "keep_recent_turns": 1},
        "clear": {"keep_last": 1, "step": 1, "exclude_tools": [f"other{MARK}"]},
        "cap": {"max_chars": 100, "max_chars_by_tool": {f"look{MARK}": 120}},
        "tokenizer": "estimate",
        "summarize": {"min_span_tokens": 0, "instructions": MARK},
        "recall": {"tool_name": f"recall{MARK}"},
    }
    anthropic = {
        "format": "anthropic",
        "system": f"System {MARK}",
        "messages": [
            {"role": "user", "content": f"Do it {MARK}"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": f"t{MARK}", "name": f"n{MARK}", "input": {"a": MARK}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{MARK}", "content": MARK * 50}
                ],
            },
            {"role": "user", "content": f"Next {MARK}"},
        ],
        "strategy": {"kind": "fit", "max_tokens": 50, "keep_recent_turns": 1},
    }
    return [native, anthropic]


def test_no_span_carries_caller_data(traced):
    client, exporter = traced
    for body in marked_plan_bodies():
        answer = client.post(PLAN, json=body, headers={"traceparent": TRACEPARENT})
        assert answer.status_code == 200, answer.text
        assert MARK in answer.text  # the marker did reach the answer
    cap = copy.deepcopy(CAP_EXAMPLES["three_results"]["value"])
    for result in cap["results"]:
        result["tool_name"] += MARK
        result["tool_call_id"] += MARK
        if "result" in result:
            result["result"] = MARK * 40
    cap["max_chars_by_tool"] = {f"read_file{MARK}": 1000}
    assert client.post("/v1/tool-results/cap", json=cap).status_code == 200
    offer = {
        "format": "native",
        "messages": transcript(3, MARK),
        "ledger": marked_plan_bodies()[0]["ledger"],
        "previous_batch": [{"tool_call_id": f"p{MARK}", "tool_name": MARK, "result": MARK}],
    }
    assert client.post("/v1/offer", json=offer).status_code == 200
    for recall in ({"ref": f"c{MARK}1"}, {"query": f"{MARK} look"}):
        body = {"format": "native", "messages": transcript(3, MARK), **recall}
        answer = client.post("/v1/recall", json=body)
        assert answer.status_code == 200 and answer.json()["found"], answer.text
    # An invalid value is quoted in the problem's detail: never in a span.
    refused = {"messages": [{"role": MARK, "content": MARK}], "format": "native"}
    assert client.post(PLAN, json=refused).status_code == 422
    names = {span.name for span in exporter.get_finished_spans()}
    assert {"cwp.plan", "cwp.cap", "cwp.offer", "cwp.recall"} <= names
    assert_no_mark(exporter)


# ---- an unreachable collector ------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_collector_never_fails_a_request(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
    app = create_app(Settings())
    assert app.state.tracer_provider is not None
    try:
        with TestClient(app) as client:
            for _ in range(20):
                assert client.post(PLAN, json=FIT_BODY).status_code == 200
    finally:
        app.state.tracer_provider.shutdown()


# ---- end to end: the real server and a stand-in OTLP/HTTP collector ----------------------------


class Collector(ThreadingHTTPServer):
    """Receives OTLP/HTTP protobuf exports on loopback and keeps the spans decoded."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, Any], Any]] = []  # (resource attributes, span)
        self.paths: list[str] = []
        super().__init__(("127.0.0.1", 0), CollectorHandler)


class CollectorHandler(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        assert self.headers["content-type"] == "application/x-protobuf"
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.paths.append(self.path)
        for resource_spans in request.resource_spans:
            resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    self.server.received.append((resource, span))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return None


@pytest.mark.e2e
def test_the_server_exports_its_spans_to_an_otlp_collector():
    from tests.e2e.serving import Server, wait_until

    collector = Collector()
    thread = threading.Thread(target=collector.serve_forever, daemon=True)
    thread.start()
    server = Server(
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{collector.server_address[1]}",
        OTEL_BSP_SCHEDULE_DELAY="50",
        OTEL_SERVICE_NAME="",
        OTEL_TRACES_EXPORTER="",
        OTEL_SDK_DISABLED="",
    )
    try:
        import httpx

        answer = httpx.post(
            server.url + PLAN, json=FIT_BODY, headers={"traceparent": TRACEPARENT}, timeout=10
        )
        assert answer.status_code == 200

        def plan_spans() -> list[Any]:
            return [s for _, s in collector.received if s.name in ("cwp.plan", f"POST {PLAN}")]

        received = wait_until(lambda: len(plan_spans()) == 2 and plan_spans(), "the spans", 20)
    finally:
        server.stop()
        collector.shutdown()
        collector.server_close()
    assert set(collector.paths) == {"/v1/traces"}
    by_name = {span.name: span for span in received}
    server_span, use_case = by_name[f"POST {PLAN}"], by_name["cwp.plan"]
    assert server_span.trace_id.hex() == TRACE_ID
    assert server_span.parent_span_id.hex() == PARENT_ID
    assert use_case.parent_span_id == server_span.span_id
    attributes = {a.key: a.value for a in use_case.attributes}
    assert attributes["gen_ai.operation.name"].string_value == "plan_context"
    assert attributes["cwp.budget.max_tokens"].int_value == 600
    server_attributes = {a.key: a.value for a in server_span.attributes}
    assert server_attributes["cwp.request_id"].string_value == answer.headers["x-request-id"]
    resources = {resource["service.name"] for resource, _ in collector.received}
    assert resources == {"context-window-planner"}
