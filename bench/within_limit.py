"""`python -m bench.within_limit`: what `fit`'s further stages cost
(docs/rules.md#within-the-limit).

A body of `N` native messages (a system prompt, the task, then a loop of calls and results with the
person's follow-up in its middle, so the span ends there) is planned twice by the service's use
case (`app.service.plan.plan_request`: reading, planning and writing the answer with its window):

- **single span**: at a budget the span alone serves (`max_tokens` just under the total, so the
  span is shortened to the target inside the loop's first half);
- **stage 1**: at a budget a quarter of the total, so the whole span leaves and the first stage
  takes further spans after the follow-up.

Both are timed interleaved in one run (`--rounds` of each, default 15), and the ratio of their
medians is what the target reads: at most 1.2.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from app.service.plan import plan_request

SIZES = (1_000, 10_000)
RESULT = "line of a build log: compiled module and checked its types\n" * 8
TASK = "Find out why the nightly build is slow and make it faster."
FOLLOW_UP = "Also keep the cache warm between the two stages."


def body(size: int) -> list[dict[str, Any]]:
    """`size` native messages: the system prompt, the task, then calls and results, the person's
    follow-up in the middle."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a build engineer."},
        {"role": "user", "content": TASK},
    ]
    number = 0
    while len(messages) < size:
        if len(messages) == size // 2:
            messages.append({"role": "user", "content": FOLLOW_UP})
            continue
        number += 1
        call_id = f"c{number}"
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call_id, "name": "run", "arguments": {"step": number}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": RESULT})
    return messages[:size]


def request(messages: list[dict[str, Any]], max_tokens: int) -> dict[str, Any]:
    return {
        "format": "native",
        "messages": messages,
        "keep_last_tool_results": 0,
        "strategy": {"kind": "fit", "max_tokens": max_tokens, "keep_recent_turns": 2},
    }


def measure(size: int, rounds: int) -> dict[str, Any]:
    messages = body(size)
    total = plan_request(request(messages, 1), size + 10).content["budget"].total_before
    budgets = {"single span": total - 1, "stage 1": total // 4}
    stages = {
        name: plan_request(request(messages, budget), size + 10).content["budget"].stage
        for name, budget in budgets.items()
    }
    assert stages == {"single span": "span", "stage 1": "further-spans"}, stages
    times: dict[str, list[float]] = {name: [] for name in budgets}
    for _ in range(rounds):
        for name, budget in budgets.items():
            body_of = request(messages, budget)
            started = time.perf_counter()
            plan_request(body_of, size + 10)
            times[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    return {
        "messages": size,
        "total": total,
        **{f"{name} ms": value for name, value in medians.items()},
        "ratio": medians["stage 1"] / medians["single span"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Time fit's further stages.")
    parser.add_argument("--rounds", type=int, default=15, help="timed plans of each budget")
    arguments = parser.parse_args()
    print(f"{'messages':>8} {'tokens':>10} {'single span ms':>15} {'stage 1 ms':>11} {'ratio':>6}")
    for size in SIZES:
        row = measure(size, arguments.rounds)
        print(
            f"{row['messages']:>8,} {row['total']:>10,} {row['single span ms']:>15.2f} "
            f"{row['stage 1 ms']:>11.2f} {row['ratio']:>6.2f}"
        )


if __name__ == "__main__":
    main()
