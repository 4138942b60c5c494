"""`python -m bench.compare --base REV`: this tree's requests timed against another revision's.

A change that should not change speed (a restructuring) is held to that by timing the old and the
new code in ONE run: the revision `REV` is checked out into a temporary git worktree, and two
worker processes are started, one importing the app from that worktree and one from this tree,
each with the same interpreter and packages (so the compiled reader, when built, is the same
module for both). Every case's body is made once, here, and sent to both. The workers then take
turns: one round of a case in the old worker, one in the new, again and again, so a shared
machine's drift falls on both alike. Each round times `--batch` requests through the app in
process (the whole request: reading, planning, writing, serializing; `bench.asgi.call_asgi`), and
for the plan also the core alone (`plan_window` on messages already read). The report gives each
case's median per request, old and new, and the median of the rounds' new/old ratios.

The answer bytes of the two revisions are compared first: a restructuring answers byte for byte
as before, and a case whose answers differ is reported (and makes the exit status 1).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

from bench.generate import cap_body, offer_body, plan_body

ROOT = Path(__file__).resolve().parent.parent
PATHS = {"plan": "/v1/window/plan", "offer": "/v1/offer", "cap": "/v1/tool-results/cap"}

# The worker: reads one JSON command a line, answers one JSON line. It imports the app from its
# working directory (PYTHONPATH), so the same code times either revision.
WORKER = r"""
import asyncio, sys, time, orjson
import app
from app.main import create_app
from app.settings import Settings
from bench.asgi import call_asgi
from app.core.window import plan_window
try:
    from app.service.plan_input import read_plan_input
except ImportError:
    from app.api.plan_input import read_plan_input

application = create_app(Settings(max_body_bytes=1 << 30))
bodies, cores = {}, {}
loop = asyncio.new_event_loop()
print(orjson.dumps({"app": app.__file__}).decode(), flush=True)
for line in sys.stdin:
    command = orjson.loads(line)
    name = command["case"]
    if command["do"] == "load":
        bodies[name] = (command["path"], open(command["file"], "rb").read())
        if command["core"]:
            read = read_plan_input(orjson.loads(bodies[name][1]), 10**9)
            cores[name] = (read.messages, read.options)
        status, _, answer = loop.run_until_complete(call_asgi(application, "POST", *bodies[name]))
        print(orjson.dumps({"status": status, "answer": answer.decode()}).decode(), flush=True)
        continue
    batch = command["batch"]
    if command["do"] == "core":
        messages, options = cores[name]
        started = time.perf_counter()
        for _ in range(batch):
            plan_window(messages, options)
    else:
        path, body = bodies[name]
        started = time.perf_counter()
        for _ in range(batch):
            loop.run_until_complete(call_asgi(application, "POST", path, body))
    print(orjson.dumps({"seconds": (time.perf_counter() - started) / batch}).decode(), flush=True)
"""


class Worker:
    """A process serving one revision's app, answering the commands above."""

    def __init__(self, tree: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree), "CWP_LOG_LEVEL": "warning"}
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.app = self.read()["app"]

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("a worker stopped; its error is above")
        answer: dict[str, Any] = orjson.loads(line)
        return answer

    def ask(self, **command: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(orjson.dumps(command).decode() + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def cases(quick: bool) -> list[tuple[str, str, bytes, int]]:
    """(name, kind, body, batch): the plan in every format, the offer and the cap."""
    sizes = (1_000,) if quick else (50, 1_000, 10_000)
    found: list[tuple[str, str, bytes, int]] = []
    for size in sizes:
        batch = max(1, 20_000 // size)
        for format_name in ("native", "openai", "anthropic", "responses", "gemini", "bedrock"):
            if size == 10_000 and format_name not in ("native", "anthropic", "bedrock"):
                continue
            body = plan_body(size, format_name)
            found.append((f"plan {format_name} {size:,}", "plan", body, batch))
    found.append(("plan native 1,000 shaped", "plan", plan_body(1_000, "native", shaped=True), 20))
    found.append(("offer native 1,000", "offer", offer_body(1_000, "native"), 20))
    found.append(("offer anthropic 1,000", "offer", offer_body(1_000, "anthropic"), 20))
    found.append(("cap 1,000 results", "cap", cap_body(1_000), 20))
    return found


def compare(base: str, rounds: int, quick: bool, only: str | None = None) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        old_tree = Path(scratch) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old_tree), base],
            check=True,
        )
        try:
            chosen = [case for case in cases(quick) if only is None or only in case[0]]
            return timed(Worker(old_tree), Worker(ROOT), Path(scratch), rounds, chosen)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old_tree)],
                check=False,
            )


def timed(
    old: Worker, new: Worker, scratch: Path, rounds: int, chosen: list[tuple[str, str, bytes, int]]
) -> int:
    print(f"old: {old.app}\nnew: {new.app}")
    print(f"{'case':34} {'old ms':>9} {'new ms':>9} {'new/old':>8}")
    differing = 0
    rows: list[dict[str, Any]] = []
    for name, kind, body, batch in chosen:
        file = scratch / f"{len(rows)}.json"
        file.write_bytes(body)
        load = {"do": "load", "case": name, "path": PATHS[kind], "file": str(file)}
        answers = [worker.ask(**load, core=kind == "plan") for worker in (old, new)]
        same = answers[0] == answers[1]
        differing += not same
        steps = ["request", "core"] if kind == "plan" else ["request"]
        for step in steps:
            times: dict[str, list[float]] = {"old": [], "new": []}
            for _ in range(rounds):
                for label, worker in (("old", old), ("new", new)):
                    seconds = worker.ask(do=step, case=name, batch=batch)["seconds"]
                    times[label].append(seconds)
            ratio = statistics.median(
                n / o for o, n in zip(times["old"], times["new"], strict=True)
            )
            row = {
                "case": name if step == "request" else f"{name} (core)",
                "old_ms": statistics.median(times["old"]) * 1000,
                "new_ms": statistics.median(times["new"]) * 1000,
                "ratio": ratio,
                "same_answer": same,
            }
            rows.append(row)
            flag = "" if same else "  ANSWERS DIFFER"
            print(
                f"{row['case']:34} {row['old_ms']:9.3f} {row['new_ms']:9.3f} {ratio:8.3f}{flag}",
                flush=True,
            )
    old.close()
    new.close()
    worst = max(rows, key=lambda row: row["ratio"])
    print(f"slowest relative to old: {worst['case']} at {worst['ratio']:.3f}")
    return 1 if differing else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the revision to compare against")
    parser.add_argument("--rounds", type=int, default=15, help="turns per case (default 15)")
    parser.add_argument("--quick", action="store_true", help="1,000-message cases only")
    parser.add_argument("--only", help="the cases whose name holds this text")
    args = parser.parse_args()
    raise SystemExit(compare(args.base, args.rounds, args.quick, args.only))


if __name__ == "__main__":
    main()
