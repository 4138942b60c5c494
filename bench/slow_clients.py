"""`python -m bench.slow_clients`: well-behaved clients beside slow ones, on a real server.

The script starts `python -m app` on a free loopback port (it never targets any other address)
twice. The first run is the reference: `--clients` keep-alive clients (8) plan a 50-message
transcript over and over for `--seconds` (15). The second run is the same with `--slow` (200)
connections opened first that send one byte a second: half never end their request head, half
send a whole head declaring a body and then trickle the body. Each slow connection is opened once
and lives until the server closes it or `--seconds` end, so the scenario is bounded in count and in
time and stops by itself.

Reported, against the targets of `docs/reliability.md#slow-clients` (nothing is asserted; the exit
status is 0 unless the server failed to start):

- the well-behaved clients' errors (a non-200 answer or a broken connection; target 0) and their
  latency percentiles with and without the slow clients (target: p99 at most twice the reference
  plus 50 ms);
- how long each slow connection lived, from its first byte to the server's close (target: every
  one closed by the read deadline plus 1 s), and how it ended (a 408, or a close with no answer);
- the server's VmRSS before the slow clients connect and after they are gone (target: within
  10%), and its peak (VmHWM).

`--read-timeout` sets the server's `CWP_READ_TIMEOUT_SECONDS` (10); `--json FILE` writes the
report.

`--scenario silent` runs instead the silent-connection scenario of
`docs/decisions/0042-connections-no-client-can-hold.md`: `--silent` (300) TCP connections that
never send a byte are held open for `--seconds` (20) against a server at its default ceiling of
256 (each one the server closes is opened again at once, so the count never drops), while one
client sends a 50-message plan every 200 ms on a fresh connection and `/healthz` and `/readyz`
are asked every second. Reported: every plan's status (target: all 200), how long each silent
connection lived before the server closed it (target: every one within the read timeout plus
3 s), the probes' statuses (target: all 200), the connections the server counted as `silent` and
`evicted`, and the server's VmRSS and peak.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bench.load import HOST, Server, ServerGone, percentile, read_answer, require_loopback

PLAN_PATH = "/v1/window/plan"


def transcript(messages: int) -> bytes:
    """A native plan request of `messages` messages: user and assistant turns with tool calls."""
    items: list[dict[str, Any]] = []
    while len(items) < messages - 2:
        n = len(items)
        items.append({"role": "user", "content": f"Check sensor {n} in rack {n % 7}."})
        items.append(
            {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{n}", "name": "measure"}]}
        )
        items.append(
            {"role": "tool", "tool_call_id": f"c{n}", "tool_name": "measure", "content": "41C ok"}
        )
    while len(items) < messages:
        items.append({"role": "user", "content": "And the next one?"})
    return orjson.dumps(
        {"messages": items, "strategy": {"kind": "sliding-window", "keep_recent_turns": 4}}
    )


@dataclass
class Clients:
    requests: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        ms = sorted(value * 1000 for value in self.latencies)
        return {
            "requests": self.requests,
            "errors": self.errors,
            "p50_ms": round(percentile(ms, 0.50), 2) if ms else None,
            "p99_ms": round(percentile(ms, 0.99), 2) if ms else None,
            "max_ms": round(ms[-1], 2) if ms else None,
            "problems": self.problems[:10],
        }


async def well_behaved(port: int, body: bytes, until: float, tally: Clients) -> None:
    request = (
        f"POST {PLAN_PATH} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        while time.monotonic() < until:
            started = time.perf_counter()
            try:
                writer.write(request)
                status, _, _ = await read_answer(reader)
            except (OSError, ServerGone, asyncio.IncompleteReadError) as error:
                tally.errors += 1
                tally.problems.append(f"connection: {error!r}")
                writer.close()
                reader, writer = await asyncio.open_connection(HOST, port)
                continue
            tally.requests += 1
            if status != 200:
                tally.errors += 1
                tally.problems.append(f"status {status}")
            tally.latencies.append(time.perf_counter() - started)
    finally:
        writer.close()


@dataclass
class SlowOutcome:
    kind: str
    lived: float | None  # seconds from the first byte to the close; None: still open at the end
    answer: int | None  # the status the server answered with before closing, if any


async def slow_client(port: int, kind: str, until: float) -> SlowOutcome:
    """One connection sending a byte a second: `head` never ends its head, `body` its body."""
    reader, writer = await asyncio.open_connection(HOST, port)
    if kind == "head":
        opening = b"POST /v1/window/plan HTTP/1.1\r\nHost: slow\r\nX-Slow: "
    else:
        opening = (
            b"POST /v1/window/plan HTTP/1.1\r\nHost: slow\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000\r\n\r\n"
        )
    started = time.monotonic()
    received = bytearray()

    async def read_to_close() -> None:
        try:
            while chunk := await reader.read(65536):
                received.extend(chunk)
        except OSError:
            pass

    reading = asyncio.ensure_future(read_to_close())
    try:
        writer.write(opening)
        while time.monotonic() < until and not reading.done():
            try:
                writer.write(b"s")
                await writer.drain()
            except OSError:
                break
            await asyncio.wait({reading}, timeout=1.0)
        if not reading.done():
            await asyncio.wait({reading}, timeout=max(0.0, until - time.monotonic()))
        lived = time.monotonic() - started if reading.done() else None
    finally:
        reading.cancel()
        writer.close()
    answer = int(received.split(b" ", 2)[1]) if received.startswith(b"HTTP/1.1 ") else None
    return SlowOutcome(kind, lived, answer)


async def scenario(port: int, options: argparse.Namespace, slow: int) -> dict[str, Any]:
    body = transcript(50)
    until = time.monotonic() + options.seconds
    slow_tasks = [
        asyncio.ensure_future(slow_client(port, "head" if i % 2 == 0 else "body", until))
        for i in range(slow)
    ]
    await asyncio.sleep(0.5 if slow else 0)  # the slow connections are open before the clients
    tally = Clients()
    await asyncio.gather(*(well_behaved(port, body, until, tally) for _ in range(options.clients)))
    outcomes = await asyncio.gather(*slow_tasks)
    lived = sorted(o.lived for o in outcomes if o.lived is not None)
    answers: dict[str, int] = {}
    for outcome in outcomes:
        key = f"{outcome.kind}:{outcome.answer or 'closed'}"
        answers[key] = answers.get(key, 0) + 1
    report: dict[str, Any] = {"clients": tally.summary()}
    if slow:
        report["slow"] = {
            "connections": slow,
            "closed_by_server": len(lived),
            "still_open_at_end": slow - len(lived),
            "lived_min_s": round(lived[0], 2) if lived else None,
            "lived_max_s": round(lived[-1], 2) if lived else None,
            "closed_within_deadline_plus_1s": sum(
                1 for value in lived if value <= options.read_timeout + 1
            ),
            "endings": answers,
        }
    return report


def run_once(options: argparse.Namespace, slow: int) -> dict[str, Any]:
    server = Server(
        {
            "CWP_READ_TIMEOUT_SECONDS": str(options.read_timeout),
            "CWP_GRACEFUL_SHUTDOWN_SECONDS": str(options.read_timeout + 10),
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
        }
    )
    try:
        time.sleep(1.0)  # start-up settles before the first reading
        before = server.memory_kib()
        report = asyncio.run(scenario(server.port, options, slow))
        time.sleep(1.0)  # the last closes are processed
        after = server.memory_kib()
    finally:
        server.stop()
    report["rss_mib"] = {
        "before": round(before["VmRSS"] / 1024, 1),
        "after": round(after["VmRSS"] / 1024, 1),
        "change_percent": round((after["VmRSS"] - before["VmRSS"]) / before["VmRSS"] * 100, 1),
        "peak": round(after["VmHWM"] / 1024, 1),
    }
    return report


async def one_request(port: int, request: bytes) -> int:
    """Send `request` on a fresh connection; the answer's status (0 when the connection failed)."""
    try:
        reader, writer = await asyncio.open_connection(HOST, port)
    except OSError:
        return 0
    try:
        writer.write(request)
        status, _, _ = await asyncio.wait_for(read_answer(reader), 30)
        return status
    except (OSError, ServerGone, asyncio.IncompleteReadError, TimeoutError):
        return 0
    finally:
        writer.close()


async def silent_holder(port: int, until: float, lived: list[float], cut: list[float]) -> None:
    """Keep one silent connection open until `until`, opening another each time one is closed."""
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        opened = time.monotonic()
        try:
            await asyncio.wait_for(reader.read(1), timeout=max(0.0, until - opened))
            lived.append(time.monotonic() - opened)  # the server closed it
        except TimeoutError:
            cut.append(time.monotonic() - opened)  # still open when the scenario ended
        except OSError:
            lived.append(time.monotonic() - opened)
        finally:
            writer.close()


async def silent_scenario(port: int, options: argparse.Namespace) -> dict[str, Any]:
    body = transcript(50)
    plan = (
        f"POST {PLAN_PATH} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    until = time.monotonic() + options.seconds
    lived: list[float] = []
    cut: list[float] = []
    holders = [
        asyncio.ensure_future(silent_holder(port, until, lived, cut)) for _ in range(options.silent)
    ]
    await asyncio.sleep(1.0)  # the silent connections are all open before the first plan
    plans: dict[int, int] = {}
    probes: dict[str, dict[int, int]] = {"/healthz": {}, "/readyz": {}}
    latencies: list[float] = []
    next_probe = 0.0
    while time.monotonic() < until:
        started = time.perf_counter()
        status = await one_request(port, plan)
        latencies.append(time.perf_counter() - started)
        plans[status] = plans.get(status, 0) + 1
        if time.monotonic() >= next_probe:
            next_probe = time.monotonic() + 1.0
            for path, tally in probes.items():
                probe = f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"
                got = await one_request(port, probe.encode())
                tally[got] = tally.get(got, 0) + 1
        await asyncio.sleep(max(0.0, 0.2 - (time.perf_counter() - started)))
    await asyncio.gather(*holders)
    lived.sort()
    ms = sorted(value * 1000 for value in latencies)
    limit = options.read_timeout + 3
    return {
        "plans": {str(status): count for status, count in sorted(plans.items())},
        "plan_p50_ms": round(percentile(ms, 0.50), 2) if ms else None,
        "plan_p99_ms": round(percentile(ms, 0.99), 2) if ms else None,
        "probes": {
            path: {str(status): count for status, count in sorted(tally.items())}
            for path, tally in probes.items()
        },
        "silent": {
            "held_at_once": options.silent,
            "closed_by_server": len(lived),
            "open_at_end": len(cut),
            "open_at_end_longest_s": round(max(cut), 2) if cut else None,
            "lived_min_s": round(lived[0], 2) if lived else None,
            "lived_median_s": round(lived[len(lived) // 2], 2) if lived else None,
            "lived_max_s": round(lived[-1], 2) if lived else None,
            "closed_within_read_timeout_plus_3s": sum(1 for value in lived if value <= limit),
            "longer_than_read_timeout_plus_3s": sum(1 for value in lived + cut if value > limit),
        },
    }


def run_silent(options: argparse.Namespace) -> dict[str, Any]:
    server = Server(
        {
            "CWP_READ_TIMEOUT_SECONDS": str(options.read_timeout),
            "CWP_GRACEFUL_SHUTDOWN_SECONDS": str(options.read_timeout + 10),
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
            "CWP_LOG_LEVEL": "warning",
        }
    )
    try:
        time.sleep(1.0)
        before = server.memory_kib()
        report = asyncio.run(silent_scenario(server.port, options))
        time.sleep(1.0)
        after = server.memory_kib()
        metrics = asyncio.run(metrics_text(server.port))
    finally:
        server.stop()
    report["server_closed"] = {
        reason: _counter(metrics, f'cwp_http_connections_closed_unheard_total{{reason="{reason}"}}')
        for reason in ("silent", "evicted")
    }
    report["rss_mib"] = {
        "before": round(before["VmRSS"] / 1024, 1),
        "after": round(after["VmRSS"] / 1024, 1),
        "peak": round(after["VmHWM"] / 1024, 1),
    }
    return report


async def metrics_text(port: int) -> str:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
        _, _, body = await read_answer(reader)
        return body.decode()
    finally:
        writer.close()


def _counter(metrics: str, series: str) -> float:
    for line in metrics.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--scenario", choices=("slow", "silent"), default="slow")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--silent", type=int, default=300)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--read-timeout", type=float, default=10.0)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    require_loopback(HOST)
    if options.seconds is None:
        options.seconds = 20.0 if options.scenario == "silent" else 15.0
    if options.scenario == "silent":
        silent_report = {
            "options": {key: str(value) for key, value in vars(options).items()},
            **run_silent(options),
        }
        text = orjson.dumps(silent_report, option=orjson.OPT_INDENT_2).decode()
        print(text)
        if options.json:
            options.json.write_text(text + "\n")
        return 0
    reference = run_once(options, slow=0)
    loaded = run_once(options, slow=options.slow)
    p99_ref = reference["clients"]["p99_ms"] or 0.0
    p99 = loaded["clients"]["p99_ms"] or 0.0
    report = {
        "options": {key: str(value) for key, value in vars(options).items()},
        "reference": reference,
        "with_slow_clients": loaded,
        "targets": {
            "errors": loaded["clients"]["errors"],
            "p99_ms": p99,
            "p99_limit_ms": round(2 * p99_ref + 50, 2),
            "slow_closed_within_deadline_plus_1s": loaded["slow"]["closed_within_deadline_plus_1s"],
            "slow_connections": options.slow,
            "rss_change_percent": loaded["rss_mib"]["change_percent"],
        },
    }
    text = orjson.dumps(report, option=orjson.OPT_INDENT_2).decode()
    print(text)
    if options.json:
        options.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
