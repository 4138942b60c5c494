"""`python -m bench.limits`: what a hostile body costs, and how soon abandoned work stops.

Three scenarios, each against a real server (`python -m bench.serve`, a fresh process each time so
its memory high-water mark is the request's own):

- `invalid`: a body of about 1 MB on each route, every item of a list invalid (the list within its
  limit, so every item is checked; `lookup`'s `kept` over its limit). Reported: the 422's size (at
  most 64 KiB), the count it states as left out, and the server's peak memory rise over its
  resident memory before the request (at most 100 MiB).
- `frame_tags`: a 20,000-message plan with 10 and with 256 `frame_tags`, every user text but the
  request a frame of the caller's names (so each is read against them), in process, median of
  repeats: the ratio must be at most 3; and 5,000 tags, answered by one 422.
- `deadline`: a plan that counts exact tokens of about 20 MB of text never counted before, with a
  1 s deadline: its 503, then the server's CPU time sampled every 50 ms until it stops rising
  (under 5 % of a core over 250 ms). Reported: seconds from the 503 to the stop (at most 2).

Figures are printed and written to `bench/results/limits.json`; nothing here is asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson

from bench.generate import plan_body

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PAD = "x" * 100
MIB = 1024 * 1024


class Server:
    """`python -m bench.serve` on a free loopback port with `settings` (CWP_ names)."""

    def __init__(self, **settings: str) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        env = {
            **os.environ,
            "CWP_HOST": "127.0.0.1",
            "CWP_PORT": str(self.port),
            "CWP_LOG_LEVEL": "warning",
            "CWP_SHUTDOWN_DRAIN_SECONDS": "0",
            **settings,
        }
        command = [sys.executable, "-m", "bench.serve"]
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"
        for _ in range(300):
            try:
                httpx.get(self.url + "/healthz", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError("the benchmark server did not start")

    def status_kib(self, field: str) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


def invalid_bodies() -> dict[str, bytes]:
    bad_messages = [{"role": 7, "pad": PAD}] * 10_000
    return {
        "/v1/window/plan": orjson.dumps({"format": "native", "messages": bad_messages}),
        # Dense: 90,000 messages of 12 bytes, each one error.
        "/v1/window/plan ": orjson.dumps({"format": "native", "messages": [{"role": 7}] * 90_000}),
        "/v1/offer": orjson.dumps({"format": "native", "messages": bad_messages}),
        "/v1/tool-results/cap": orjson.dumps(
            {"max_chars": 10, "results": [{"tool_name": 7, "pad": PAD}] * 10_000}
        ),
        "/v1/kept-answers/keep": orjson.dumps(
            {"turn": 0, "tool_name": "t", "answers": [{"pad": PAD}] * 10_000}
        ),
        "/v1/kept-answers/use": orjson.dumps({"turn": 0, "used": [{"pad": PAD}] * 10_000}),
        "/v1/kept-answers/lookup": orjson.dumps(
            {"turn": 0, "tool_name": "t", "argument": "a", "kept": [0] * 500_000}
        ),
    }


def measure_invalid() -> list[dict[str, Any]]:
    rows = []
    for path, body in invalid_bodies().items():
        server = Server()
        try:
            before = server.status_kib("VmRSS")
            response = httpx.post(
                server.url + path.strip(),
                content=body,
                headers={"content-type": "application/json"},
                timeout=60,
            )
            peak = server.status_kib("VmHWM")
        finally:
            server.stop()
        problem = response.json()
        rows.append(
            {
                "route": path,
                "body_bytes": len(body),
                "status": response.status_code,
                "answer_bytes": len(response.content),
                "errors": len(problem.get("errors", [])),
                "errors_left_out": problem.get("errors_left_out", 0),
                "peak_rise_mib": round((peak - before) / 1024, 1),
            }
        )
    return rows


def measure_frame_tags(repeats: int) -> dict[str, Any]:
    from app.service.plan import plan_request

    raw = orjson.loads(plan_body(20_000, "native"))
    raw["include_window"] = False
    # Every user text after the first (the request, named by `request_text`) is a frame of the
    # caller's first name, so the search for the request reads every one against the names.
    users = [
        m for m in raw["messages"] if m["role"] == "user" and isinstance(m.get("content"), str)
    ]
    raw["request_text"] = users[0]["content"]
    for message in users[1:]:
        message["content"] = f"<tag-0>{message['content']}</tag-0>"
    timings: dict[int, float] = {}
    for count in (10, 256):
        raw["frame_tags"] = [f"tag-{n}" for n in range(count)]
        plan_request(raw, 100_000)  # warm
        samples = []
        for _ in range(repeats):
            started = time.perf_counter()
            plan_request(raw, 100_000)
            samples.append(time.perf_counter() - started)
        timings[count] = statistics.median(samples)
    # 20,000 user frames against 5,000 names, the count limit raised: the names are joined once,
    # not once a message (that cost 3.4 s here).
    from app.service.limits import ListLimits

    frames = [{"role": "user", "content": "Find it."}] + [
        {"role": "user", "content": f"<tag-0>x{n}</tag-0>"} for n in range(20_000)
    ]
    many = {
        "format": "native",
        "messages": frames,
        "request_text": "Find it.",
        "frame_tags": [f"tag-{n}" for n in range(5000)],
        "include_window": False,
    }
    started = time.perf_counter()
    plan_request(many, 100_000, limits=ListLimits(frame_tags=10**6))
    many_seconds = time.perf_counter() - started
    server = Server()
    try:
        over = dict(orjson.loads(plan_body(100, "native")))
        over["frame_tags"] = ["tag"] * 5000
        response = httpx.post(
            server.url + "/v1/window/plan",
            content=orjson.dumps(over),
            timeout=60,
            headers={"content-type": "application/json"},
        )
    finally:
        server.stop()
    return {
        "messages": 20_000,
        "ms_10_tags": round(timings[10] * 1000, 1),
        "ms_256_tags": round(timings[256] * 1000, 1),
        "ratio": round(timings[256] / timings[10], 2),
        "s_20000_frames_5000_tags_unlimited": round(many_seconds, 2),
        "5000_tags_status": response.status_code,
        "5000_tags_errors": len(response.json().get("errors", [])),
    }


def measure_deadline() -> dict[str, Any]:
    raw = orjson.loads(plan_body(30_000, "native"))
    raw["strategy"] = {"kind": "fit", "max_tokens": 100_000}
    raw["tokenizer"] = "o200k_base"
    body = orjson.dumps(raw)
    server = Server(CWP_REQUEST_DEADLINE_SECONDS="1", CWP_MAX_BODY_BYTES=str(64 * MIB))
    try:
        idle_cpu = server.cpu_seconds()
        started = time.perf_counter()
        response = httpx.post(
            server.url + "/v1/window/plan",
            content=body,
            timeout=120,
            headers={"content-type": "application/json"},
        )
        answered = time.perf_counter()
        window: list[tuple[float, float]] = []
        stopped_at = None
        while time.perf_counter() - answered < 60:
            window.append((time.perf_counter(), server.cpu_seconds()))
            recent = [sample for sample in window if sample[0] >= window[-1][0] - 0.25]
            if window[-1][0] - window[0][0] >= 0.25 and len(recent) >= 2:
                used = recent[-1][1] - recent[0][1]
                span = recent[-1][0] - recent[0][0]
                if used < 0.05 * span:
                    stopped_at = recent[0][0]
                    break
            time.sleep(0.05)
        cpu_after = server.cpu_seconds() - idle_cpu
    finally:
        server.stop()
    return {
        "body_bytes": len(body),
        "status": response.status_code,
        "answered_after_s": round(answered - started, 2),
        "cpu_stopped_after_503_s": None
        if stopped_at is None
        else round(max(0.0, stopped_at - answered), 2),
        "request_cpu_s": round(cpu_after, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Hostile bodies and abandoned work.")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=("invalid", "frame_tags", "deadline"))
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    if args.only in (None, "invalid"):
        figures["invalid"] = measure_invalid()
        for row in figures["invalid"]:
            print(
                f"{row['route']:26} body {row['body_bytes'] / MIB:5.2f} MiB -> {row['status']} "
                f"{row['answer_bytes']:6d} B, {row['errors']} errors + {row['errors_left_out']} "
                f"left out, peak rise {row['peak_rise_mib']} MiB"
            )
    if args.only in (None, "frame_tags"):
        figures["frame_tags"] = tags = measure_frame_tags(args.repeats)
        print(
            f"frame_tags on {tags['messages']} messages: 10 tags {tags['ms_10_tags']} ms, "
            f"256 tags {tags['ms_256_tags']} ms ({tags['ratio']}x); 5,000 tags -> "
            f"{tags['5000_tags_status']} with {tags['5000_tags_errors']} error; 20,000 frames "
            f"against 5,000 names (limit raised) {tags['s_20000_frames_5000_tags_unlimited']} s"
        )
    if args.only in (None, "deadline"):
        figures["deadline"] = late = measure_deadline()
        print(
            f"deadline 1 s, body {late['body_bytes'] / MIB:.1f} MiB: {late['status']} after "
            f"{late['answered_after_s']} s; CPU stopped {late['cpu_stopped_after_503_s']} s after "
            f"it ({late['request_cpu_s']} s of CPU in all)"
        )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "limits.json").write_text(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
