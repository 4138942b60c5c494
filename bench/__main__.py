"""`python -m bench` (or `make bench`): the benchmark, printed as a table and written to JSON.

For each transcript size and format, in one run and side by side:
  (a) floor  - orjson.loads of the request body plus orjson.dumps of the response body;
  (b) core   - the core plan alone (`plan_window` on messages already read);
  (c) asgi   - the full request through the ASGI app, in process;
  (d) http   - the same over HTTP against a real uvicorn process.
Medians over repeats, the four columns taken in turns within each repeat, and the ratios c/a and
d/a as medians of each repeat's ratios; growth from 10,000 to 100,000 messages, throughput
of small requests against a bare endpoint of the same app, and the server's peak RSS. The same is
done for the cap (1,000 results) and the offer, and for the plan with both shaping options
(`collapse` and `cap`) at 1,000 and 10,000 messages, and the plan counting tokens with each
tokenizer at 100, 1,000 and 10,000 native messages, each with its cost over the plain plan, and
the `fit` plan of an agent run with `o200k_base` against `estimate` (`bench.agent_tokens`), and
`fit`'s further stages against the single span of the same body (`bench.within_limit`).
Targets are in docs/performance.md; the prompt-cache benchmark is `python -m bench.cache`.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson

from bench.agent_tokens import measure_agent_run
from bench.asgi import call_asgi
from bench.generate import cap_body, offer_body, plan_body
from bench.loadgen import run_load
from bench.within_limit import SIZES as WITHIN_LIMIT_SIZES
from bench.within_limit import measure as measure_within_limit

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
FORMATS = ("native", "openai", "anthropic", "responses", "gemini", "bedrock")
# The dialects added after the first three are measured from 1,000 messages.
SIZES_BY_FORMAT = {
    "responses": (1_000, 10_000, 100_000),
    "gemini": (1_000, 10_000, 100_000),
    "bedrock": (1_000, 10_000, 100_000),
}
SIZES = (100, 1_000, 10_000, 100_000)
SHAPED_SIZES = (1_000, 10_000)
TOKEN_SIZES = (100, 1_000, 10_000)
TOKENIZERS = ("estimate", "cl100k_base", "o200k_base")
BENCH_BODY_LIMIT = 512 * 1024 * 1024


async def asgi_request(app: Any, path: str, body: bytes) -> tuple[int, bytes]:
    """One POST through the ASGI app: (status, body)."""
    status, _, answer = await call_asgi(app, "POST", path, body)
    return status, answer


def asgi_call(app: Any, path: str, body: bytes) -> tuple[int, bytes]:
    return asyncio.run(asgi_request(app, path, body))


def floor_in_a_loop(floor: Callable[[], Any], budget: float) -> list[float]:
    """Wall times of `floor()` run back to back: 3 to 50 runs, about `budget` seconds."""
    times: list[float] = []
    while len(times) < 3 or (sum(times) < budget and len(times) < 50):
        started = time.perf_counter()
        floor()
        times.append(time.perf_counter() - started)
    return times


def interleaved_seconds(
    floor: Callable[[], Any],
    core: Callable[[], Any] | None,
    in_process: Callable[[], Any],
    over_http: Callable[[], Any],
    budget: float,
) -> list[tuple[float, float | None, float, float]]:
    """(floor, core, asgi, http) wall times of each repeat, the four taken back to back.

    A shared machine's speed drifts over seconds, so the columns are not measured one after the
    other but in turns, and each repeat's ratios compare times taken moments apart. All repeats
    run inside ONE event loop, as a server serves all its requests under one long-lived task, so
    the worker threads are started once, not charged to a request. 3 to 50 repeats, until about
    four times `budget` is spent.
    """

    async def repeat() -> list[tuple[float, float | None, float, float]]:
        runs: list[tuple[float, float | None, float, float]] = []
        spent = 0.0
        while len(runs) < 3 or (spent < 4 * budget and len(runs) < 50):
            started = time.perf_counter()
            floor()
            floor_done = time.perf_counter()
            if core is not None:
                core()
            core_done = time.perf_counter()
            await in_process()
            asgi_done = time.perf_counter()
            over_http()
            http_done = time.perf_counter()
            runs.append(
                (
                    floor_done - started,
                    core_done - floor_done if core is not None else None,
                    asgi_done - core_done,
                    http_done - asgi_done,
                )
            )
            spent += http_done - started
        return runs

    return asyncio.run(repeat())


class Server:
    """`python -m bench.serve` (the deployed server's options) on a free loopback port, pinned to
    core 0 when there are two."""

    def __init__(self) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        env = {
            **os.environ,
            "CWP_HOST": "127.0.0.1",
            "CWP_PORT": str(self.port),
            "CWP_MAX_BODY_BYTES": str(BENCH_BODY_LIMIT),
            "CWP_REQUEST_DEADLINE_SECONDS": "120",
            "CWP_GRACEFUL_SHUTDOWN_SECONDS": "130",  # read timeout + deadline at least
            "CWP_LOG_LEVEL": "warning",
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
        }
        command = [sys.executable, "-m", "bench.serve"]
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) >= 2:
            os.sched_setaffinity(self.process.pid, {0})
        self.url = f"http://127.0.0.1:{self.port}"
        for _ in range(300):
            try:
                httpx.get(self.url + "/healthz", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError("the benchmark server did not start")

    def peak_rss_bytes(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        return 0

    def rss_bytes(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


def process_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of process `pid` (fields 14 and 15 of `/proc/<pid>/stat`)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the name before ")" may itself hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_endpoint(
    label: str,
    path: str,
    body: bytes,
    core: Callable[[], Any] | None,
    app: Any,
    client: httpx.Client,
    server: Server,
    budget: float,
) -> dict[str, Any]:
    status, answer = asgi_call(app, path, body)
    if status != 200:
        raise RuntimeError(f"{label}: {status} {answer[:300]!r}")
    answer_value = orjson.loads(answer)

    def floor() -> None:
        orjson.loads(body)
        orjson.dumps(answer_value)

    def over_http() -> None:
        response = client.post(
            server.url + path, content=body, headers={"content-type": "application/json"}
        )
        if response.status_code != 200:
            raise RuntimeError(f"{label} over HTTP: {response.status_code}")

    async def in_process() -> None:
        await asgi_request(app, path, body)

    warm_floor = statistics.median(floor_in_a_loop(floor, budget))
    runs = interleaved_seconds(floor, core, in_process, over_http, budget)
    floors, cores, asgis, https = zip(*runs, strict=True)
    row: dict[str, Any] = {"case": label, "body_bytes": len(body), "repeats": len(runs)}
    row["floor_s"] = statistics.median(floors)
    row["core_s"] = statistics.median(cores) if core else None
    row["asgi_s"] = statistics.median(asgis)
    row["http_s"] = statistics.median(https)
    row["asgi_over_floor"] = statistics.median(a / f for a, f in zip(asgis, floors, strict=True))
    row["http_over_floor"] = statistics.median(h / f for h, f in zip(https, floors, strict=True))
    # The floor parsed again and again with nothing in between, its caches warm: reported beside
    # the interleaved one, which is what a request meets.
    row["warm_floor_s"] = warm_floor
    row["asgi_over_warm_floor"] = row["asgi_s"] / warm_floor
    print_row(row)
    return row


def plan_core(body: bytes) -> Callable[[], Any]:
    from app.core.window import plan_window
    from app.service.plan_input import read_plan_input

    request = read_plan_input(orjson.loads(body), 10**9)
    messages, options = request.messages, request.options
    return lambda: plan_window(messages, options)


def offer_core(body: bytes) -> Callable[[], Any]:
    from app.core.ledger import fold_ledger
    from app.core.offer import offer
    from app.service.offer import read_offer_request

    request, ledger, messages = read_offer_request(orjson.loads(body), 10**9)
    fold = fold_ledger(ledger)
    return lambda: offer(messages, fold, (), request.limit)


def cap_core(body: bytes) -> Callable[[], Any]:
    from app.core.cap import ABSENT, cap_for, cap_result

    raw = orjson.loads(body)

    def work() -> None:
        for item in raw["results"]:
            cap = cap_for(item["tool_name"], raw["max_chars"], raw["max_chars_by_tool"])
            cap_result(item["tool_name"], item.get("result", ABSENT), cap)

    return work


def print_header() -> None:
    print(
        f"{'case':<28}{'body MB':>9}{'floor ms':>10}{'core ms':>10}{'asgi ms':>10}"
        f"{'http ms':>10}{'c/a':>7}{'d/a':>7}{'warm a':>9}{'c/warm':>8}",
        flush=True,
    )


def print_row(row: dict[str, Any]) -> None:
    core = f"{row['core_s'] * 1000:10.2f}" if row["core_s"] is not None else f"{'-':>10}"
    print(
        f"{row['case']:<28}{row['body_bytes'] / 1e6:9.2f}{row['floor_s'] * 1000:10.2f}{core}"
        f"{row['asgi_s'] * 1000:10.2f}{row['http_s'] * 1000:10.2f}"
        f"{row['asgi_over_floor']:7.2f}{row['http_over_floor']:7.2f}"
        f"{row['warm_floor_s'] * 1000:9.2f}{row['asgi_over_warm_floor']:8.2f}",
        flush=True,
    )


def throughput(
    server: Server, path: str, body: bytes, seconds: float, connections: int
) -> dict[str, Any]:
    """Requests per second against `path` and against the bare endpoint, in alternating rounds.

    The machine's speed drifts over seconds when it is shared, so the two are measured in short
    rounds taken in turn (about 2 s each) rather than one after the other; the ratio reported is
    the median of the rounds' ratios, with their spread. Beside it, the server's own CPU time per
    request in each round (from `/proc`), whose ratio is what the server's work alone allows:
    it moves less than requests per second when the load generator competes for the machine.
    """
    core = 1 if (os.cpu_count() or 1) >= 2 else None
    rounds = max(1, round(seconds / 2))
    target = ("127.0.0.1", server.port)
    real: list[Any] = []
    bare: list[Any] = []
    cpu: dict[str, list[float]] = {"real": [], "bare": []}

    core_cpu: list[float] = []

    def measured(pool: Any, kind: str, load_path: str, load: tuple[Any, ...]) -> Any:
        httpx.get(server.url + "/bench/core-cpu")  # starts the core's count again
        before = process_cpu_seconds(server.process.pid)
        result = pool.apply(run_load, (*target, load_path, *load))
        after = process_cpu_seconds(server.process.pid)
        if before is not None and after is not None and result.requests:
            cpu[kind].append((after - before) / result.requests)
        core = httpx.get(server.url + "/bench/core-cpu").json()
        if kind == "real" and core["calls"] and result.requests:
            core_cpu.append(core["nanoseconds"] / 1e9 / result.requests)
        return result

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        for _ in range(rounds):
            load = (body, seconds / rounds, connections, core)
            real.append(measured(pool, "real", path, load))
            bare.append(measured(pool, "bare", "/bench/bare", load))
    ratios = sorted(r.rps / b.rps for r, b in zip(real, bare, strict=True) if b.rps)
    cpu_real = statistics.median(cpu["real"]) if cpu["real"] else None
    cpu_bare = statistics.median(cpu["bare"]) if cpu["bare"] else None
    rps = sum(r.requests for r in real) / sum(r.seconds for r in real)
    bare_rps = sum(b.requests for b in bare) / sum(b.seconds for b in bare)
    latencies = [latency for r in real for latency in r.latencies]
    result = {
        "path": path,
        "body_bytes": len(body),
        "rounds": rounds,
        "rps": rps,
        "bare_rps": bare_rps,
        "ratio": statistics.median(ratios) if ratios else None,
        "ratio_min": ratios[0] if ratios else None,
        "ratio_max": ratios[-1] if ratios else None,
        "errors": sum(r.errors for r in real) + sum(b.errors for b in bare),
        "p50_ms": statistics.median(latencies) * 1000 if latencies else None,
        "server_cpu_us_per_request": cpu_real * 1e6 if cpu_real else None,
        "bare_server_cpu_us_per_request": cpu_bare * 1e6 if cpu_bare else None,
        "cpu_ratio": cpu_bare / cpu_real if cpu_real and cpu_bare else None,
    }
    cpu_text = (
        f"   server CPU/request {cpu_real * 1e6:.0f} vs bare {cpu_bare * 1e6:.0f} us "
        f"(ratio {cpu_bare / cpu_real:.2f})"
        if cpu_real and cpu_bare
        else ""
    )
    if core_cpu and cpu_bare:
        # What a ratio of 0.8 lets the endpoint add to the bare request's work, beside what the
        # core's own passes took of it under this load.
        core = statistics.median(core_cpu)
        result["core_cpu_us_per_request"] = core * 1e6
        result["added_cpu_us_at_0_8"] = cpu_bare * (1 / 0.8 - 1) * 1e6
        cpu_text += (
            f"   core {core * 1e6:.0f} us of it (0.8 leaves "
            f"{result['added_cpu_us_at_0_8']:.0f} us beside the bare request)"
        )
    print(
        f"throughput {path:<24} {rps:8.0f} req/s   bare {bare_rps:8.0f} req/s   "
        f"ratio {result['ratio']:.2f} ({result['ratio_min']:.2f}-{result['ratio_max']:.2f} "
        f"over {rounds} rounds)   errors {result['errors']}{cpu_text}",
        flush=True,
    )
    return result


def peak_rss_for_body(body: bytes) -> dict[str, Any]:
    """A fresh server plans one body; its peak RSS against the body size."""
    server = Server()
    try:
        baseline = server.rss_bytes()
        response = httpx.post(
            server.url + "/v1/window/plan",
            content=body,
            headers={"content-type": "application/json"},
            timeout=300,
        )
        response.raise_for_status()
        peak = server.peak_rss_bytes()
    finally:
        server.stop()
    result = {
        "body_bytes": len(body),
        "baseline_rss_bytes": baseline,
        "peak_rss_bytes": peak,
        "peak_over_body": peak / len(body),
        "growth_over_body": (peak - baseline) / len(body),
    }
    print(
        f"peak RSS planning a {len(body) / 2**20:.1f} MiB body: {peak / 2**20:.0f} MiB "
        f"({result['peak_over_body']:.2f}x the body; {baseline / 2**20:.0f} MiB before)",
        flush=True,
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--formats", nargs="+", default=list(FORMATS), choices=FORMATS)
    parser.add_argument(
        "--budget", type=float, default=2.0, help="about a quarter of the seconds spent per case"
    )
    parser.add_argument("--load-seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--output", type=Path, default=RESULTS / "latest.json")
    parser.add_argument("--skip-rss", action="store_true")
    args = parser.parse_args()

    os.environ["CWP_MAX_BODY_BYTES"] = str(BENCH_BODY_LIMIT)
    os.environ["CWP_REQUEST_DEADLINE_SECONDS"] = "120"
    from bench.app import app

    report: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "plan": [],
        "plan_shaped": [],
        "plan_tokens": [],
        "offer": [],
        "cap": [],
        "growth": {},
        "throughput": [],
        "agent_tokens": [],
        "within_limit": [],
    }
    server = Server()
    try:
        with httpx.Client(timeout=300) as client:
            print_header()
            endpoints = (
                ("plan", "/v1/window/plan", plan_body, plan_core),
                ("offer", "/v1/offer", offer_body, offer_core),
            )
            for name, path, make_body, core_of in endpoints:
                for format_name in args.formats:
                    allowed = SIZES_BY_FORMAT.get(format_name, args.sizes)
                    for size in (size for size in args.sizes if size in allowed):
                        body = make_body(size, format_name)
                        row = measure_endpoint(
                            f"{name} {format_name} {size}",
                            path,
                            body,
                            core_of(body),
                            app,
                            client,
                            server,
                            args.budget,
                        )
                        report[name].append({"format": format_name, "messages": size, **row})
            variants = [
                ("plan_shaped", "shaped", format_name, size, {"shaped": True})
                for format_name in args.formats
                if format_name not in SIZES_BY_FORMAT
                for size in args.sizes
                if size in SHAPED_SIZES
            ]
            if "native" in args.formats:
                variants += [
                    ("plan_tokens", tokenizer, "native", size, {"tokenizer": tokenizer})
                    for size in args.sizes
                    if size in TOKEN_SIZES
                    for tokenizer in TOKENIZERS
                ]
            for section, label, format_name, size, option in variants:
                body = plan_body(size, format_name, **option)
                row = measure_endpoint(
                    f"plan {label} {format_name} {size}",
                    "/v1/window/plan",
                    body,
                    plan_core(body),
                    app,
                    client,
                    server,
                    args.budget,
                )
                plain = next(
                    r
                    for r in report["plan"]
                    if r["format"] == format_name and r["messages"] == size
                )
                row["asgi_over_plain"] = row["asgi_s"] / plain["asgi_s"]
                row["core_over_plain"] = row["core_s"] / plain["core_s"]
                print(
                    f"  {label} over plain: asgi {row['asgi_over_plain']:.2f}x, "
                    f"core {row['core_over_plain']:.2f}x",
                    flush=True,
                )
                report[section].append(
                    {"format": format_name, "messages": size, "variant": label, **row}
                )
            body = cap_body(1_000)
            row = measure_endpoint(
                "cap 1000 results",
                "/v1/tool-results/cap",
                body,
                cap_core(body),
                app,
                client,
                server,
                args.budget,
            )
            report["cap"].append({"results": 1_000, **row})
            report["agent_tokens"].append(measure_agent_run(app))
        for size in WITHIN_LIMIT_SIZES:
            row = measure_within_limit(size, 15)
            report["within_limit"].append(row)
            print(
                f"fit within the limit, {size:,} messages: stage 1 {row['stage 1 ms']:.2f} ms, "
                f"single span {row['single span ms']:.2f} ms, {row['ratio']:.2f}x"
            )
        for name in ("plan", "offer"):
            for format_name in args.formats:
                rows = {r["messages"]: r for r in report[name] if r["format"] == format_name}
                if 10_000 in rows and 100_000 in rows:
                    growth = rows[100_000]["asgi_s"] / rows[10_000]["asgi_s"]
                    floor = rows[100_000]["floor_s"] / rows[10_000]["floor_s"]
                    report["growth"][f"{name} {format_name}"] = growth
                    report["growth"][f"{name} {format_name} floor"] = floor
                    print(
                        f"growth {name} {format_name}: 100,000 / 10,000 messages = {growth:.2f}x"
                        f" (the floor's own {floor:.2f}x: {growth / floor:.2f} of it)"
                    )
        for path, body in (
            ("/v1/window/plan", plan_body(50, "native")),
            ("/v1/tool-results/cap", cap_body(1_000)),
            ("/v1/offer", offer_body(50, "native")),
        ):
            report["throughput"].append(
                throughput(server, path, body, args.load_seconds, args.connections)
            )
        report["server_peak_rss_bytes"] = server.peak_rss_bytes()
        print(f"server peak RSS over the run: {report['server_peak_rss_bytes'] / 2**20:.0f} MiB")
    finally:
        server.stop()
    if not args.skip_rss:
        messages = 1_000
        body = plan_body(messages, "native")
        while len(body) < 32 * 2**20 * 0.97:
            messages = int(messages * 32 * 2**20 / len(body))
            body = plan_body(messages, "native")
        report["rss_32mib"] = peak_rss_for_body(body)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
