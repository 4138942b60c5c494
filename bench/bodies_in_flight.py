"""`python -m bench.bodies_in_flight`: many large bodies at once, on a real server, and its memory.

The script starts `python -m app` on a free loopback port (it never targets any other address),
as `bench.slow_clients` does, once per scenario, with its connection ceiling above the scenario's
connections, and sends every body of the scenario at once, each
on its own connection, while one more connection asks `/healthz` every 100 ms:

- `under-large`: `--under-large-count` (256) plan bodies just under `CWP_LARGE_BODY_BYTES` (1 MiB,
  so none takes a large-body slot: each is planned in a worker thread of its own);
- `large`: `--large-count` (16) plan bodies of `--large-mib` (24) MiB each.

Reported per scenario, against the targets of `docs/reliability.md#bodies-in-flight` (nothing is
asserted; the exit status is 0 unless the server failed to start): the statuses (every accepted
body 200, every other one 503 with `Retry-After`), whether every 503 was problem+json with
`Retry-After`, the `/healthz` answers (all 200), the server's VmRSS at rest before the bodies and
its peak (VmHWM; target at most 512 MiB), and the wall time. `--budget BYTES` sets the server's
`CWP_BODY_BUDGET_BYTES` (a very large one shows the peak without the budget); `--json FILE` writes
the report.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from bench.load import HOST, Server, ServerGone, read_answer, require_loopback

PLAN_PATH = "/v1/window/plan"
MIB = 1024 * 1024
RESULT_TEXT = "rack 4 inlet 41C, fan 3 at 7,200 rpm, within limits; " * 20  # about 1 KiB


def plan_body(size: int) -> bytes:
    """A native plan request of about `size` bytes, never more: turns of a user question, a tool
    call and a result of about 1 KiB of text, the last result trimmed to the size."""
    messages: list[dict[str, Any]] = []
    envelope = {"format": "native", "strategy": {"kind": "sliding-window", "keep_recent_turns": 4}}
    used = len(orjson.dumps({**envelope, "messages": []}))
    n = 0
    while True:
        turn = [
            {"role": "user", "content": f"Check rack {n}."},
            {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{n}", "name": "probe"}]},
            {"role": "tool", "tool_call_id": f"c{n}", "tool_name": "probe", "content": RESULT_TEXT},
        ]
        cost = sum(len(orjson.dumps(message)) + 1 for message in turn)
        if used + cost > size:
            break
        messages.extend(turn)
        used += cost
        n += 1
    body = orjson.dumps({**envelope, "messages": messages})
    room = size - len(body) - len(orjson.dumps({"role": "user", "content": ""})) - 1
    if room > 0:
        messages.append({"role": "user", "content": "z" * room})
        body = orjson.dumps({**envelope, "messages": messages})
    assert len(body) <= size, (len(body), size)
    return body


async def send_body(port: int, body: bytes) -> dict[str, Any]:
    """POST `body` on a connection of its own; the status, Retry-After and content type."""
    reader, writer = await asyncio.open_connection(HOST, port)
    head = (
        f"POST {PLAN_PATH} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()

    async def write() -> None:
        try:
            writer.write(head)
            view = memoryview(body)
            for start in range(0, len(body), MIB):
                writer.write(view[start : start + MIB])
                await writer.drain()
        except OSError:
            pass  # answered and closed before the whole body went: the answer says why

    writing = asyncio.ensure_future(write())
    started = time.perf_counter()
    try:
        status, headers, answer = await read_answer(reader)
    except (ServerGone, asyncio.IncompleteReadError, OSError) as error:
        return {"status": None, "error": repr(error)}
    finally:
        writing.cancel()
        writer.close()
    return {
        "status": status,
        "retry_after": headers.get(b"retry-after", b"").decode() or None,
        "problem": headers.get(b"content-type") == b"application/problem+json",
        "seconds": time.perf_counter() - started,
        "kind": orjson.loads(answer).get("type", "").rsplit(":", 1)[-1] if status != 200 else None,
    }


async def watch_health(port: int, stop: asyncio.Event, statuses: dict[str, int]) -> None:
    request = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        while not stop.is_set():
            try:
                writer.write(request)
                status, _, _ = await read_answer(reader)
                key = str(status)
            except (ServerGone, asyncio.IncompleteReadError, OSError) as error:
                key = type(error).__name__
                writer.close()
                reader, writer = await asyncio.open_connection(HOST, port)
            statuses[key] = statuses.get(key, 0) + 1
            await asyncio.sleep(0.1)
    finally:
        writer.close()


async def scenario(port: int, body: bytes, count: int) -> dict[str, Any]:
    stop = asyncio.Event()
    health: dict[str, int] = {}
    watcher = asyncio.ensure_future(watch_health(port, stop, health))
    await asyncio.sleep(0.3)
    started = time.perf_counter()
    answers = await asyncio.gather(*(send_body(port, body) for _ in range(count)))
    wall = time.perf_counter() - started
    stop.set()
    await watcher
    statuses: dict[str, int] = {}
    for answer in answers:
        key = " ".join(str(part) for part in (answer["status"], answer.get("kind")) if part)
        statuses[key] = statuses.get(key, 0) + 1
    refused = [answer for answer in answers if answer["status"] == 503]
    accepted = [answer["seconds"] for answer in answers if answer["status"] == 200]
    return {
        "bodies": count,
        "body_bytes": len(body),
        "statuses": statuses,
        "every_503_problem_with_retry_after": all(
            answer["problem"] and answer["retry_after"] for answer in refused
        ),
        "errors": [answer["error"] for answer in answers if answer["status"] is None][:5],
        "slowest_200_s": round(max(accepted), 2) if accepted else None,
        "healthz": health,
        "wall_s": round(wall, 2),
    }


def run(name: str, body: bytes, count: int, options: argparse.Namespace) -> dict[str, Any]:
    # The connection ceiling is raised above the bodies and the health watcher, so what is
    # measured is the budget, not the ceiling (256 by default: the watcher's own connection would
    # take one body's place).
    env = {"CWP_SHUTDOWN_DRAIN_SECONDS": "0", "CWP_LIMIT_CONCURRENCY": str(count + 16)}
    if options.budget is not None:
        env["CWP_BODY_BUDGET_BYTES"] = str(options.budget)
    server = Server(env)
    try:
        time.sleep(1.0)  # start-up settles before the first reading
        before = server.memory_kib()
        report = asyncio.run(scenario(server.port, body, count))
        after = server.memory_kib()
    finally:
        server.stop()
    report["rss_mib"] = {
        "at_rest": round(before["VmRSS"] / 1024, 1),
        "peak": round(after["VmHWM"] / 1024, 1),
    }
    return {"scenario": name, **report}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--under-large-count", type=int, default=256)
    parser.add_argument("--large-count", type=int, default=16)
    parser.add_argument("--large-mib", type=float, default=24.0)
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--only", choices=("under-large", "large"), default=None)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    require_loopback(HOST)
    reports = []
    if options.only in (None, "under-large"):
        # Just under the default CWP_LARGE_BODY_BYTES (1 MiB): no large-body slot is taken.
        body = plan_body(MIB - 1024)
        reports.append(run("under-large", body, options.under_large_count, options))
    if options.only in (None, "large"):
        body = plan_body(int(options.large_mib * MIB))
        reports.append(run("large", body, options.large_count, options))
    report = {"options": {key: str(value) for key, value in vars(options).items()}, "runs": reports}
    text = orjson.dumps(report, option=orjson.OPT_INDENT_2).decode()
    print(text)
    if options.json:
        options.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
