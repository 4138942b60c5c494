"""`python -m bench.tracing`: what traces cost a request (docs/observability.md#traces).

Two real servers (`python -m app` on loopback, as `make run` starts it): one with traces off (no
`OTEL_*` variable), one exporting OTLP/HTTP in batches to a stand-in collector on loopback (a tiny
HTTP server in this process that reads each export and answers 200, as a collector would). In
rounds, the two taken in turns (which goes first alternates):
  throughput - a 50-message native plan posted as fast as answered for `--seconds` over
               `--connections` keep-alive connections (`bench.loadgen`, in its own process);
  1,000      - a 1,000-message native plan, `--posts` sequential posts, the median latency.
Medians over the rounds, and the on/off ratio of each round's figures, medianed. Then, in process
(no server, no collector: the spans go to an exporter that drops them, through the same batch
processor), the time one 50-message plan takes through the ASGI app with traces off and on, in
turns, the median of `--calls`: what the spans themselves cost a request. No timing is asserted
anywhere: the figures go to docs/observability.md.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from app.main import create_app
from app.settings import Settings
from bench.asgi import call_asgi
from bench.generate import plan_body
from bench.load import HOST, Server
from bench.loadgen import run_load

PATH = "/v1/window/plan"


class Sink(ThreadingHTTPServer):
    """A stand-in OTLP/HTTP collector: it reads each export whole and answers 200."""

    def __init__(self) -> None:
        self.exports = 0
        self.bytes = 0
        super().__init__((HOST, 0), SinkHandler)


class SinkHandler(BaseHTTPRequestHandler):
    server: Sink
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        self.server.exports += 1
        self.server.bytes += len(body)
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return None


def throughput(server: Server, body: bytes, seconds: float, connections: int) -> float:
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        result = pool.apply(run_load, (HOST, server.port, PATH, body, seconds, connections, None))
    if result.errors:
        raise RuntimeError(f"{result.errors} answers were not 200")
    return result.rps


def latency_ms(server: Server, body: bytes, posts: int) -> float:
    times = []
    with httpx.Client(base_url=f"http://{HOST}:{server.port}", timeout=60) as client:
        for _ in range(posts):
            started = time.perf_counter()
            answer = client.post(PATH, content=body, headers={"content-type": "application/json"})
            times.append(time.perf_counter() - started)
            if answer.status_code != 200:
                raise RuntimeError(f"the plan answered {answer.status_code}")
    return statistics.median(times) * 1000


def in_process_us(body: bytes, calls: int) -> tuple[float, float]:
    """The median time of one plan through the ASGI app, traces off and on, in microseconds."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Dropped(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Dropped()))
    apps = {"off": create_app(Settings()), "on": create_app(Settings(), tracer_provider=provider)}
    times: dict[str, list[float]] = {"off": [], "on": []}

    async def run() -> None:
        for index in range(calls):
            for name in ("off", "on") if index % 2 == 0 else ("on", "off"):
                started = time.perf_counter()
                status, _, _ = await call_asgi(apps[name], "POST", PATH, body)
                times[name].append(time.perf_counter() - started)
                if status != 200:
                    raise RuntimeError(f"the plan answered {status}")

    asyncio.run(run())
    provider.shutdown()
    return statistics.median(times["off"]) * 1e6, statistics.median(times["on"]) * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--posts", type=int, default=30)
    parser.add_argument("--calls", type=int, default=3_000)
    options = parser.parse_args(argv)

    small, large = plan_body(50, "native"), plan_body(1_000, "native")
    sink = Sink()
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    off_env = {"OTEL_SDK_DISABLED": "true"}
    on_env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://{HOST}:{sink.server_address[1]}",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_SDK_DISABLED": "false",
    }
    servers = {"off": Server(off_env), "on": Server(on_env)}
    figures: dict[str, dict[str, list[float]]] = {name: {"rps": [], "ms": []} for name in servers}
    try:
        for server in servers.values():  # warm-up: first requests build caches
            throughput(server, small, 1.0, options.connections)
            latency_ms(server, large, 3)
        for round_index in range(options.rounds):
            order = ["off", "on"] if round_index % 2 == 0 else ["on", "off"]
            for name in order:
                rps = throughput(servers[name], small, options.seconds, options.connections)
                figures[name]["rps"].append(rps)
            for name in order:
                figures[name]["ms"].append(latency_ms(servers[name], large, options.posts))
            print(
                f"round {round_index + 1}: 50-message plan "
                f"{figures['off']['rps'][-1]:.0f} / {figures['on']['rps'][-1]:.0f} req/s, "
                f"1,000-message plan {figures['off']['ms'][-1]:.2f} / "
                f"{figures['on']['ms'][-1]:.2f} ms (off / on)",
                flush=True,
            )
    finally:
        for server in servers.values():
            server.stop()
        sink.shutdown()
    rps_ratio = statistics.median(
        on / off for on, off in zip(figures["on"]["rps"], figures["off"]["rps"], strict=True)
    )
    ms_ratio = statistics.median(
        on / off for on, off in zip(figures["on"]["ms"], figures["off"]["ms"], strict=True)
    )
    print(
        f"50-message plan throughput: off {statistics.median(figures['off']['rps']):.0f}, "
        f"on {statistics.median(figures['on']['rps']):.0f} req/s (on/off {rps_ratio:.3f})"
    )
    print(
        f"1,000-message plan latency: off {statistics.median(figures['off']['ms']):.2f}, "
        f"on {statistics.median(figures['on']['ms']):.2f} ms (on/off {ms_ratio:.3f})"
    )
    print(f"the collector received {sink.exports} exports, {sink.bytes} bytes")
    off_us, on_us = in_process_us(small, options.calls)
    print(
        f"in process, one 50-message plan: off {off_us:.0f}, on {on_us:.0f} µs "
        f"(+{on_us - off_us:.0f} µs)"
    )


if __name__ == "__main__":
    main()
