"""`python -m bench.recall`: what answering a recall costs, against the plan of the same body.

A recall reads the whole history, writes every message's recall text and searches each for the
query's terms, so it grows with the transcript as a plan does. For each size (`--sizes`, default
1,000, 10,000 and 100,000 messages) and format (`--formats`, default native, anthropic, bedrock),
over the benchmark's generated transcript (`bench.generate`), timed in process through the use
case's answer (`app.api.answers`), median over `--repeats` (default 5):

- `ref`: a `ref` naming a result in the middle of the transcript;
- `query`: a query of four terms, two of which occur in many messages;
- `plan`: the plain sliding-window plan of the same messages, for scale.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import orjson

from app.api.answers import plan_answer, recall_answer
from app.api.metrics import create_metrics
from bench.generate import plan_body

METRICS = create_metrics()
MAX_MESSAGES = 10**6


def timed(run: Callable[[], Any], repeats: int) -> float:
    """The median seconds of `repeats` runs."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def bodies(size: int, format_name: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(the plan body, a ref recall, a query recall) over the same generated transcript."""
    plan = orjson.loads(plan_body(size, format_name))
    history = {key: plan[key] for key in ("messages", "format", "system") if key in plan}
    ledger = plan["ledger"]
    middle = ledger[len(ledger) // 2]["tool_call_id"]
    return (
        plan,
        {**history, "ref": middle},
        {**history, "query": "rack temperature lab2-rack-a c42"},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--formats", nargs="+", default=["native", "anthropic", "bedrock"])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{'format':<10} {'messages':>9} {'ref ms':>9} {'query ms':>9} {'plan ms':>9}")
    for format_name in args.formats:
        for size in args.sizes:
            plan, ref, query = bodies(size, format_name)
            assert recall_answer(ref, MAX_MESSAGES, METRICS).status_code == 200
            figures = [
                timed(lambda body=body: recall_answer(body, MAX_MESSAGES, METRICS), args.repeats)
                for body in (ref, query)
            ]
            figures.append(
                timed(lambda plan=plan: plan_answer(plan, MAX_MESSAGES, METRICS), args.repeats)
            )
            shown = " ".join(f"{seconds * 1000:>9.1f}" for seconds in figures)
            print(f"{format_name:<10} {size:>9} {shown}")


if __name__ == "__main__":
    main()
