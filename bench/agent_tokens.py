"""`python -m bench.agent_tokens` (also part of `python -m bench`): exact counting on an agent run.

The full-history agent of `bench.cache` (its system prompt, task and model turns, seed 11) is
grown to `--messages` messages; then each of `--requests` requests is the previous transcript plus
the model's next turn, as an agent sends its whole transcript on every step. Each request is a
`fit` plan (the limit of `bench.cache`, 24,000 tokens, so it cuts) sent through the ASGI app in
process twice, with `tokenizer: "o200k_base"` and with `"estimate"`, the two taken in turns (which
goes first alternates). From the second request on, the o200k plan finds in the token-count memo
(`app.tokenizers.MEMO`) every text but the new turn's, so its cost over the estimate's is the
memo's; the first request counts everything. Reported: medians from the second request on, the
median of the requests' own ratios, the first request, and the same o200k plans with the memo off.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Iterator
from typing import Any

import orjson

from bench.asgi import call_asgi
from bench.cache import SYSTEM, TASK, model_turns

PLAN = "/v1/window/plan"
LIMIT = 24_000


def agent_bodies(messages: int, requests: int, tokenizer: str, seed: int = 11) -> Iterator[bytes]:
    """The run's request bodies, in order: the first has at least `messages` messages."""
    turns = model_turns(seed)
    history: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    while len(history) < messages:
        history.extend(next(turns))
    for iteration in range(1, requests + 1):
        yield orjson.dumps(
            {
                "messages": history,
                "format": "native",
                "strategy": {"kind": "fit", "max_tokens": LIMIT},
                "tokenizer": tokenizer,
                "request_text": TASK,
                "iteration": iteration,
                "include_turns": False,
            }
        )
        history = [*history, *next(turns)]


async def timed(app: Any, body: bytes) -> float:
    started = time.perf_counter()
    status, _, answer = await call_asgi(app, "POST", PLAN, body)
    elapsed = time.perf_counter() - started
    if status != 200:
        raise RuntimeError(f"agent run: {status} {answer[:300]!r}")
    return elapsed


def measure_agent_run(app: Any, messages: int = 1_000, requests: int = 41) -> dict[str, Any]:
    """The run's figures (seconds), printed as one line."""
    from app.tokenizers import MEMO, exact_counter

    exact_counter("o200k_base")  # the vocabulary loaded first, not charged to the first request
    exact = list(agent_bodies(messages, requests, "o200k_base"))
    estimate = list(agent_bodies(messages, requests, "estimate"))

    async def run() -> tuple[list[float], list[float], list[float]]:
        exact_s: list[float] = []
        estimate_s: list[float] = []
        for number, (counted, estimated) in enumerate(zip(exact, estimate, strict=True)):
            if number % 2:
                estimate_s.append(await timed(app, estimated))
                exact_s.append(await timed(app, counted))
            else:
                exact_s.append(await timed(app, counted))
                estimate_s.append(await timed(app, estimated))
        bound = MEMO.entries
        MEMO.resize(0)
        try:
            off_s = [await timed(app, body) for body in exact[1:6]]
        finally:
            MEMO.resize(bound)
        return exact_s, estimate_s, off_s

    MEMO.resize(0)  # an empty memo, so the first request counts every text
    MEMO.resize(app.state.settings.token_memo_entries)
    exact_s, estimate_s, off_s = asyncio.run(run())
    ratios = [e / s for e, s in zip(exact_s[1:], estimate_s[1:], strict=True)]
    row = {
        "messages": messages,
        "requests": requests,
        "body_bytes": len(exact[0]),
        "first_o200k_s": exact_s[0],
        "first_estimate_s": estimate_s[0],
        "o200k_s": statistics.median(exact_s[1:]),
        "estimate_s": statistics.median(estimate_s[1:]),
        "o200k_over_estimate": statistics.median(ratios),
        "o200k_over_estimate_min": min(ratios),
        "o200k_over_estimate_max": max(ratios),
        "o200k_memo_off_s": statistics.median(off_s),
    }
    print(
        f"agent run, fit, {messages} messages + 1 turn a request ({requests} requests): "
        f"o200k {row['o200k_s'] * 1000:.2f} ms, estimate {row['estimate_s'] * 1000:.2f} ms, "
        f"ratio {row['o200k_over_estimate']:.2f} ({min(ratios):.2f}-{max(ratios):.2f}); "
        f"first request o200k {exact_s[0] * 1000:.1f} ms; memo off "
        f"{row['o200k_memo_off_s'] * 1000:.1f} ms",
        flush=True,
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.agent_tokens", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--messages", type=int, nargs="+", default=[1_000])
    parser.add_argument("--requests", type=int, default=41)
    args = parser.parse_args()
    from bench.app import app

    for messages in args.messages:
        measure_agent_run(app, messages, args.requests)


if __name__ == "__main__":
    main()
