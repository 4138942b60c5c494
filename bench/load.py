"""`python -m bench.load`: many concurrent clients against a real server, every answer checked.

The script starts `python -m app` on a free loopback port (it never targets any other address),
then runs `--clients` keep-alive connections for `--seconds`, each sending a deterministic mix of
window-plan, cap and offer requests in the three wire formats, about one in eight invalid on
purpose. Every answer is checked against the answer the same handler functions give in this
process (`plan_answer`, `cap_answer`, `offer_answer`): a 200 byte for byte (timing headers are
headers, so the body is compared whole), a 422 by status, media type, `errors` and `instance` (the
request id sent). It reports throughput, latency percentiles and the server's peak RSS (VmHWM).

`--mode sigterm` sends SIGTERM half way through. A watcher polls `/readyz`; once it answers 503
the clients stop starting requests, as a load balancer would stop routing to the replica, while
`--stragglers` of them ignore readiness and keep going until the server closes. Every request a
well-behaved client started must be answered correctly; a straggler's request may find the server
gone (counted, not an error) but never gets a wrong or partial answer. The process must exit
within the drain plus the grace period, with status 0 or by SIGTERM (143 / -15).

The exit status is 0 when every check held, 1 otherwise. `--json FILE` writes the report.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from app.api.answers import cap_answer, offer_answer, plan_answer
from app.api.metrics import create_metrics
from app.errors import InvalidRequest
from app.settings import Settings
from bench.generate import to_anthropic, to_openai

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PATHS = {"plan": "/v1/window/plan", "cap": "/v1/tool-results/cap", "offer": "/v1/offer"}
TOOLS = ("read_file", "search", "measure", "list_dir", "run_tests", "fetch_url")
WORDS = ("rack", "sensor", "offline", "reading", "42C", "lab", "ok", "retry", "file", "line")


# ---- the request pool ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    status: int
    body: bytes | None  # the exact body of a 200
    errors: list[dict[str, Any]] | None  # the `errors` of a 422


@dataclass(frozen=True)
class PooledRequest:
    kind: str
    path: str
    body: bytes
    expected: Expected


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def native_transcript(rng: random.Random, turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You operate the lab floor through tools."},
        {"role": "user", "content": "Find the hottest rack and report it."},
    ]
    for turn in range(turns):
        calls = [
            {"id": f"c{turn}_{n}", "name": rng.choice(TOOLS), "arguments": {"n": n}}
            for n in range(rng.randint(1, 3))
        ]
        messages.append({"role": "assistant", "content": words(rng, 3), "tool_calls": calls})
        for call in calls:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "tool_name": call["name"],
                    "content": words(rng, rng.choice((4, 20, 200))),
                }
            )
        if rng.random() < 0.1:
            messages.append({"role": "user", "content": words(rng, 6)})
        elif rng.random() < 0.05:  # a framework frame, or a listed one only with `frame_tags`
            frame = rng.choice(("system-reminder", "lab-note"))
            messages.append({"role": "user", "content": f"<{frame}>{words(rng, 4)}</{frame}>"})
    return messages


def compacted(rng: random.Random, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Anthropic run with a `compaction` block (the provider's summary) in an assistant message
    part way through, and sometimes a failed one (no summary) after it."""
    assistants = [
        index
        for index, message in enumerate(messages)
        if message["role"] == "assistant" and isinstance(message["content"], list)
    ]
    if not assistants:
        return messages
    chosen = sorted(rng.sample(assistants, min(len(assistants), rng.randint(1, 2))))
    for order, index in enumerate(chosen):
        summary: str | None = (
            words(rng, 12) if order == 0 else rng.choice((None, "", words(rng, 6)))
        )
        message = messages[index]
        block = {"type": "compaction", "content": summary}
        messages[index] = {**message, "content": [block, *message["content"]]}
    return messages


# A 2×1 PNG: its header gives the size an image's tokens are counted from.
SCREENSHOT = (
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII="
)


def with_screenshots(rng: random.Random, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Anthropic run with a screenshot in some tool results (their images are counted, and go
    with the result when it is shaped)."""
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": SCREENSHOT},
    }
    out = []
    for message in messages:
        content = message.get("content")
        if message["role"] == "user" and isinstance(content, list) and rng.random() < 0.5:
            content = [
                {
                    **block,
                    "content": [{"type": "text", "text": str(block.get("content", ""))}, image],
                }
                if block.get("type") == "tool_result"
                else block
                for block in content
            ]
            message = {**message, "content": content}
        out.append(message)
    return out


def transcript_fields(rng: random.Random, turns: int) -> dict[str, Any]:
    native = native_transcript(rng, turns)
    wire = rng.choice(("native", "openai", "anthropic"))
    if wire == "native":
        return {"messages": native, "format": rng.choice(("native", "auto"))}
    if wire == "openai":
        return {"messages": to_openai(native), "format": rng.choice(("openai", "auto"))}
    system, messages = to_anthropic(native)
    if rng.random() < 0.3:
        messages = compacted(rng, messages)
    if rng.random() < 0.3:
        messages = with_screenshots(rng, messages)
    return {"messages": messages, "format": rng.choice(("anthropic", "auto")), "system": system}


def ledger_rows(rng: random.Random, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = [m["tool_call_id"] for m in messages if m.get("role") == "tool" and "tool_call_id" in m]
    ids += [
        block["tool_use_id"]
        for m in messages
        if isinstance(m.get("content"), list)
        for block in m["content"]
        if block.get("type") == "tool_result"
    ]
    standings = ("fact", "open", "ruled-out", "noise")
    return [
        {"tool_call_id": rng.choice(ids), "standing": rng.choice(standings)}
        for _ in range(min(len(ids), rng.randint(0, 8)))
    ]


def turns_for(rng: random.Random) -> int:
    return rng.choices((3, 10, 40, 150, 600), weights=(30, 30, 20, 15, 5))[0]


def plan_body(rng: random.Random) -> dict[str, Any]:
    body = transcript_fields(rng, turns_for(rng))
    if rng.random() < 0.7:
        body["strategy"] = {"kind": "sliding-window", "keep_recent_turns": rng.randint(1, 8)}
    else:
        body["strategy"] = {
            "kind": "token-budget",
            "threshold_tokens": rng.choice((1000, 50_000)),
            "measured": {"input_tokens": rng.randint(1, 90_000), "output_tokens": 10},
        }
    body["keep_last_tool_results"] = rng.randint(0, 3)
    if rng.random() < 0.5:
        body["ledger"] = ledger_rows(rng, body["messages"])
    body["iteration"] = rng.randint(1, 20)
    body["include_window"] = rng.random() < 0.8
    if rng.random() < 0.3:
        body["detect_frames"] = rng.choice((True, False, None))
    if rng.random() < 0.3:
        body["frame_tags"] = rng.choice((["lab-note"], [], None))
    if rng.random() < 0.3:  # old results as placeholders (docs/rules.md#clear)
        body["clear"] = rng.choice(
            ({}, {"keep_last": 1, "step": 2}, {"exclude_tools": [TOOLS[0]], "trigger_tokens": 1})
        )
    if rng.random() < 0.3:  # token figures, images counted among them (docs/rules.md#images)
        body["tokenizer"] = "estimate"
    return body


def offer_body(rng: random.Random) -> dict[str, Any]:
    body = transcript_fields(rng, turns_for(rng))
    body["ledger"] = ledger_rows(rng, body["messages"])
    body["limit"] = rng.randint(1, 40)
    return body


def cap_body(rng: random.Random) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for n in range(rng.randint(1, 40)):
        item: dict[str, Any] = {"tool_name": rng.choice(TOOLS), "tool_call_id": f"r{n}"}
        shape = rng.random()
        if shape < 0.6:
            item["result"] = words(rng, rng.choice((2, 50, 2000)))
        elif shape < 0.9:
            item["result"] = {"rows": [rng.randint(0, 99) for _ in range(rng.randint(0, 60))]}
        results.append(item)
    return {
        "max_chars": rng.choice((50, 200, 1000, 20_000)),
        "max_chars_by_tool": {rng.choice(TOOLS): rng.choice((10, 500))},
        "results": results,
    }


def broken(rng: random.Random, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """The body with one invalid field (a 422 naming it)."""
    if kind == "cap":
        body["max_chars"] = rng.choice((0, -5, 1.5, "200", True))
        return body
    if kind == "offer" and rng.random() < 0.5:
        body["limit"] = 0
        return body
    choice = rng.random()
    if choice < 0.4:
        body["unexpected_option"] = 1
    elif choice < 0.7:
        body["keep_last_tool_results"] = -1
    else:
        body["messages"].append({"content": "no role here"})
    return body


def expected_answer(kind: str, raw: Any, settings: Settings) -> Expected:
    """The answer the handler functions give in process."""
    metrics = create_metrics()
    handlers: dict[str, Callable[[Any], Any]] = {
        "plan": lambda value: plan_answer(value, settings.max_messages, metrics),
        "cap": lambda value: cap_answer(value, metrics),
        "offer": lambda value: offer_answer(value, settings.max_messages),
    }
    try:
        response = handlers[kind](raw)
    except InvalidRequest as invalid:
        errors = [{"loc": list(e.loc), "msg": e.msg, "type": e.type} for e in invalid.errors]
        return Expected(422, None, errors)
    return Expected(response.status_code, bytes(response.body), None)


def build_pool(size: int, seed: int) -> list[PooledRequest]:
    """`size` requests, about 45% plans, 30% cap, 25% offers, one in eight broken."""
    rng = random.Random(seed)
    settings = Settings()
    builders = {"plan": plan_body, "cap": cap_body, "offer": offer_body}
    pool: list[PooledRequest] = []
    for _ in range(size):
        kind = rng.choices(("plan", "cap", "offer"), weights=(45, 30, 25))[0]
        body = builders[kind](rng)
        if rng.random() < 0.125:
            body = broken(rng, kind, body)
        encoded = orjson.dumps(body)
        expected = expected_answer(kind, orjson.loads(encoded), settings)
        pool.append(PooledRequest(kind, PATHS[kind], encoded, expected))
    return pool


# ---- the server ----------------------------------------------------------------------------------


def free_loopback_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def require_loopback(host: str) -> None:
    if not ipaddress.ip_address(host).is_loopback:
        raise SystemExit(f"refusing to load {host}: only loopback addresses are targeted")


class Server:
    """`python -m app` on a free loopback port, as `make run` starts it."""

    def __init__(self, env: dict[str, str]) -> None:
        require_loopback(HOST)
        self.port = free_loopback_port()
        environment = {
            **os.environ,
            "CWP_HOST": HOST,
            "CWP_PORT": str(self.port),
            "CWP_LOG_LEVEL": "warning",
            **env,
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}")
            try:
                with socket.create_connection((HOST, self.port), timeout=1) as sock:
                    sock.sendall(
                        b"GET /healthz HTTP/1.1\r\nHost: load\r\nConnection: close\r\n\r\n"
                    )
                    if sock.recv(64).startswith(b"HTTP/1.1 200"):
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the server did not start")

    def memory_kib(self) -> dict[str, int]:
        """VmHWM (peak RSS) and VmRSS of the server process, in KiB."""
        found: dict[str, int] = {}
        status = Path(f"/proc/{self.process.pid}/status")
        for line in status.read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                found[name] = int(value.split()[0])
        return found

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


# ---- the clients ---------------------------------------------------------------------------------


class ServerGone(Exception):
    """The connection was refused or closed before any byte of the answer arrived."""


@dataclass
class Tally:
    requests: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    wrong: int = 0
    refused_after_shutdown: int = 0
    answered_after_sigterm: int = 0
    problems: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, dict[bytes, bytes], bytes]:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as error:
        if not error.partial:
            raise ServerGone from None
        raise
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name:
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
    return status, headers, body


def check_answer(
    request: PooledRequest, request_id: str, status: int, headers: dict[bytes, bytes], body: bytes
) -> str | None:
    """What is wrong with this answer, or None."""
    expected = request.expected
    if status != expected.status:
        return f"{request.kind}: status {status}, expected {expected.status}: {body[:300]!r}"
    if expected.body is not None:
        if body != expected.body:
            return f"{request.kind}: the body differs from the in-process answer"
        return None
    if headers.get(b"content-type") != b"application/problem+json":
        return f"{request.kind}: a {status} that is not problem+json"
    problem = orjson.loads(body)
    if problem.get("errors") != expected.errors or problem.get("instance") != request_id:
        return f"{request.kind}: problem {problem} differs from {expected.errors}"
    return None


@dataclass
class Shutdown:
    """What the clients know about a shutdown in progress."""

    signalled: asyncio.Event = field(default_factory=asyncio.Event)  # SIGTERM sent
    not_ready: asyncio.Event = field(default_factory=asyncio.Event)  # /readyz answered 503


async def client(
    number: int,
    port: int,
    pool: list[PooledRequest],
    until: float,
    tally: Tally,
    shutdown: Shutdown,
    straggler: bool,
    stride: int,
) -> None:
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    position = number
    sent = 0
    while time.perf_counter() < until:
        if shutdown.not_ready.is_set() and not straggler:
            break
        request = pool[position % len(pool)]
        position += stride
        sent += 1
        request_id = f"load-{number}-{sent}"
        wire = (
            f"POST {request.path} HTTP/1.1\r\nHost: {HOST}\r\n"
            f"Content-Type: application/json\r\nX-Request-ID: {request_id}\r\n"
            f"Content-Length: {len(request.body)}\r\n\r\n"
        ).encode() + request.body
        started = time.perf_counter()
        try:
            if writer is None:
                try:
                    reader, writer = await asyncio.open_connection(HOST, port)
                except OSError:
                    raise ServerGone from None
            assert reader is not None
            writer.write(wire)
            await writer.drain()
            status, headers, body = await read_answer(reader)
        except (ServerGone, ConnectionResetError, BrokenPipeError) as error:
            if straggler and shutdown.signalled.is_set():
                tally.refused_after_shutdown += 1
                break
            tally.errors += 1
            tally.note(f"{request.kind}: no answer ({type(error).__name__})")
            break
        except (asyncio.IncompleteReadError, OSError, ValueError) as error:
            tally.errors += 1
            tally.note(f"{request.kind}: broken answer ({type(error).__name__}: {error})")
            break
        tally.latencies.append(time.perf_counter() - started)
        tally.requests += 1
        if shutdown.signalled.is_set():
            tally.answered_after_sigterm += 1
        tally.by_kind[request.kind] = tally.by_kind.get(request.kind, 0) + 1
        problem = check_answer(request, request_id, status, headers, body)
        if problem is not None:
            tally.wrong += 1
            tally.note(problem)
        if headers.get(b"connection", b"").lower() == b"close":
            writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


async def probe_readiness(port: int) -> int | None:
    """The status of one GET /readyz on a fresh connection, None when no answer came."""
    try:
        reader, writer = await asyncio.open_connection(HOST, port)
    except OSError:
        return None
    try:
        writer.write(b"GET /readyz HTTP/1.1\r\nHost: load\r\nConnection: close\r\n\r\n")
        await writer.drain()
        status, _, _ = await read_answer(reader)
        return status
    except (ServerGone, OSError, asyncio.IncompleteReadError, ValueError):
        return None
    finally:
        writer.close()


# ---- the runs ------------------------------------------------------------------------------------


@dataclass
class LoadOptions:
    clients: int = 64
    seconds: float = 60.0
    mode: str = "steady"  # or "sigterm"
    pool_size: int = 240
    seed: int = 1
    drain_seconds: float = 2.0
    grace_seconds: float = 20.0
    stragglers: int = 8
    readiness_poll_seconds: float = 0.02


@dataclass
class Report:
    mode: str
    clients: int
    seconds: float
    requests: int
    by_kind: dict[str, int]
    requests_per_second: float
    errors: int
    wrong_answers: int
    latency_ms: dict[str, float]
    server_peak_rss_mib: float
    server_rss_mib: float
    problems: list[str]
    shutdown: dict[str, Any] | None = None
    passed: bool = False


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(options: LoadOptions) -> Report:
    """One load run against a fresh server; the report says whether every check held."""
    pool = build_pool(options.pool_size, options.seed)
    env = {
        "CWP_SHUTDOWN_DRAIN_SECONDS": str(options.drain_seconds),
        "CWP_GRACEFUL_SHUTDOWN_SECONDS": str(options.grace_seconds),
    }
    server = Server(env)
    try:
        tally, elapsed, memory, shutdown = asyncio.run(drive(server, pool, options))
    finally:
        exit_code = server.stop()
    if shutdown is not None:
        shutdown["exit_code"] = exit_code
    latencies = tally.latencies
    report = Report(
        mode=options.mode,
        clients=options.clients,
        seconds=round(elapsed, 3),
        requests=tally.requests,
        by_kind=tally.by_kind,
        requests_per_second=round(tally.requests / elapsed, 1) if elapsed else 0.0,
        errors=tally.errors,
        wrong_answers=tally.wrong,
        latency_ms={
            "p50": round(percentile(latencies, 0.50) * 1000, 2),
            "p90": round(percentile(latencies, 0.90) * 1000, 2),
            "p99": round(percentile(latencies, 0.99) * 1000, 2),
            "max": round(max(latencies, default=0.0) * 1000, 2),
            "mean": round(statistics.fmean(latencies) * 1000, 2) if latencies else 0.0,
        },
        server_peak_rss_mib=round(memory.get("VmHWM", 0) / 1024, 1),
        server_rss_mib=round(memory.get("VmRSS", 0) / 1024, 1),
        problems=tally.problems,
        shutdown=shutdown,
    )
    report.passed = passed(report, options)
    return report


def passed(report: Report, options: LoadOptions) -> bool:
    if report.errors or report.wrong_answers or not report.requests:
        return False
    if report.shutdown is None:
        return True
    outcome = report.shutdown
    limit = options.drain_seconds + options.grace_seconds
    return bool(
        outcome["readiness_503_seen"]
        and outcome["exit_code"] in (0, 143, -signal.SIGTERM)
        and outcome["exit_after_seconds"] is not None
        and outcome["exit_after_seconds"] <= limit
    )


async def drive(
    server: Server, pool: list[PooledRequest], options: LoadOptions
) -> tuple[Tally, float, dict[str, int], dict[str, Any] | None]:
    tally = Tally()
    shutdown = Shutdown()
    started = time.perf_counter()
    until = started + options.seconds
    stragglers = options.stragglers if options.mode == "sigterm" else 0
    clients = [
        asyncio.create_task(
            client(
                n,
                server.port,
                pool,
                until,
                tally,
                shutdown,
                straggler=n < stragglers,
                stride=options.clients,
            )
        )
        for n in range(options.clients)
    ]
    outcome: dict[str, Any] | None = None
    if options.mode == "sigterm":
        outcome = await terminate_under_load(server, options, shutdown, started)
        memory = outcome.pop("memory")
    else:
        await asyncio.sleep(max(0.0, options.seconds - 0.2))
        memory = server.memory_kib()
    await asyncio.gather(*clients)
    elapsed = time.perf_counter() - started
    if outcome is not None:
        outcome["answered_after_sigterm"] = tally.answered_after_sigterm
        outcome["straggler_requests_refused_after_close"] = tally.refused_after_shutdown
        outcome["exit_after_seconds"] = await wait_for_exit(server, outcome, options)
    return tally, elapsed, memory, outcome


async def terminate_under_load(
    server: Server, options: LoadOptions, shutdown: Shutdown, started: float
) -> dict[str, Any]:
    """SIGTERM half way through, then watch readiness until the server stops answering."""
    await asyncio.sleep(options.seconds / 2)
    memory = server.memory_kib()
    server.process.send_signal(signal.SIGTERM)
    signalled_at = time.perf_counter()
    shutdown.signalled.set()
    first_503: float | None = None
    answered_after_503 = 0
    while True:
        status = await probe_readiness(server.port)
        if status is None:
            break
        if status == 503:
            if first_503 is None:
                first_503 = time.perf_counter()
                shutdown.not_ready.set()
            answered_after_503 += 1
        await asyncio.sleep(options.readiness_poll_seconds)
    shutdown.not_ready.set()
    return {
        "memory": memory,
        "sigterm_at_seconds": round(signalled_at - started, 3),
        "signalled_at": signalled_at,
        "readiness_503_seen": first_503 is not None,
        "readiness_503_after_ms": None
        if first_503 is None
        else round((first_503 - signalled_at) * 1000, 1),
        "readiness_polls_answered_503": answered_after_503,
        "listener_closed_after_seconds": round(time.perf_counter() - signalled_at, 3),
    }


async def wait_for_exit(server: Server, outcome: dict[str, Any], options: LoadOptions) -> float:
    signalled_at = outcome.pop("signalled_at")
    limit = options.drain_seconds + options.grace_seconds + 10
    while server.process.poll() is None and time.perf_counter() - signalled_at < limit:
        await asyncio.sleep(0.01)
    return round(time.perf_counter() - signalled_at, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--mode", choices=("steady", "sigterm"), default="steady")
    parser.add_argument("--pool", type=int, default=240, help="distinct requests in the mix")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drain", type=float, default=2.0, help="CWP_SHUTDOWN_DRAIN_SECONDS")
    parser.add_argument("--grace", type=float, default=20.0, help="CWP_GRACEFUL_SHUTDOWN_SECONDS")
    parser.add_argument("--stragglers", type=int, default=8, help="clients that ignore readiness")
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    options = LoadOptions(
        clients=args.clients,
        seconds=args.seconds,
        mode=args.mode,
        pool_size=args.pool,
        seed=args.seed,
        drain_seconds=args.drain,
        grace_seconds=args.grace,
        stragglers=min(args.stragglers, args.clients),
    )
    report = run(options)
    print(orjson.dumps(asdict(report), option=orjson.OPT_INDENT_2).decode())
    if args.json:
        args.json.write_bytes(orjson.dumps(asdict(report), option=orjson.OPT_INDENT_2))
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
