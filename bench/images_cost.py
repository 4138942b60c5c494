"""`python -m bench.images_cost`: what reading image headers costs a plan (docs/rules.md#images).

One body per format (`anthropic`, `openai`): a screen-driving run of 1,000 messages (the task, an
assistant action and its result per step, a last word), 100 of the results each carrying a
different 1280×800 PNG screenshot as base64 (its first `--noise-rows` rows random, so each weighs
what a real screenshot does; the body's size is printed). The same body is planned under `fit`,
with a budget the run stays under whichever way its images count (so both plans make the same
decisions and the difference is the reading alone): with header reading on, and with each image
counted at its rule's unknown size. That switch exists only here: it replaces
`app.core.images.inline_size` with a function that reads nothing. The two are taken in turns,
medians over `--repeats`:
  core - `plan_window` on messages already read (where the headers are read: counting);
  asgi - the whole request through the ASGI app (JSON parsing, reading, planning, the answer).
No timing is asserted anywhere: the figures go to docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import orjson

import app.core.images as images
from app.core.window import plan_window
from app.main import create_app
from app.service.plan_input import read_plan_input
from app.settings import Settings
from bench.asgi import call_asgi
from bench.images import b64, data_url, png

MESSAGES = 1_000
SCREENSHOTS = 100
PATH = "/v1/window/plan"


@contextmanager
def unknown_sizes() -> Iterator[None]:
    """Every image counted at its rule's unknown size: no header is read."""
    reader = images.inline_size
    images.inline_size = lambda data, start=0: None
    try:
        yield
    finally:
        images.inline_size = reader


def run_body(format_name: str, noise_rows: int) -> bytes:
    """The run: the task, 499 steps, a last word (1,000 messages); every fourth result a
    screenshot."""
    messages: list[Any] = [{"role": "user", "content": "Book the cheapest flight to Lisbon."}]
    steps = (MESSAGES - 1) // 2
    every = steps // SCREENSHOTS
    shots = 0
    for k in range(steps):
        screenshot = None
        if k % every == every - 1 and shots < SCREENSHOTS:
            screenshot = png(1280, 800, noise_rows, seed=k)
            shots += 1
        action = f'{{"action":"left_click","coordinate":[{k},{2 * k}]}}'
        if format_name == "anthropic":
            content: list[Any] = [{"type": "text", "text": f"clicked at {k}"}]
            if screenshot is not None:
                source = {"type": "base64", "media_type": "image/png", "data": b64(screenshot)}
                content.append({"type": "image", "source": source})
            messages += [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"Step {k}: clicking the next field."},
                        {"type": "tool_use", "id": f"tu_{k}", "name": "computer", "input": {}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"tu_{k}", "content": content}
                    ],
                },
            ]
        else:
            parts: list[Any] = [{"type": "text", "text": f"clicked at {k}"}]
            if screenshot is not None:
                parts.append({"type": "image_url", "image_url": {"url": data_url(screenshot)}})
            call = {"name": "computer", "arguments": action}
            messages += [
                {
                    "role": "assistant",
                    "content": f"Step {k}: clicking the next field.",
                    "tool_calls": [{"id": f"call_{k}", "type": "function", "function": call}],
                },
                {"role": "tool", "tool_call_id": f"call_{k}", "content": parts},
            ]
    messages.append({"role": "user", "content": "Go on."})
    assert shots == SCREENSHOTS and len(messages) == MESSAGES
    body = {
        "format": format_name,
        "messages": messages,
        "strategy": {"kind": "fit", "max_tokens": 1_000_000},
    }
    return orjson.dumps(body)


def timed(work: Callable[[], Any], loops: int) -> float:
    """Seconds per call of `work`, over `loops` calls in a row."""
    start = time.perf_counter()
    for _ in range(loops):
        work()
    return (time.perf_counter() - start) / loops


def measure(body: bytes, repeats: int) -> dict[str, float]:
    """Medians of each kind with header reading on and off, the two taken in turns (each kind in
    its own loop, so the request's large allocations do not land in the core's samples)."""
    request = read_plan_input(orjson.loads(body), 10**9)
    app = create_app(Settings())

    def core() -> Any:
        return plan_window(request.messages, request.options)

    def asgi() -> Any:
        status, _, _ = asyncio.run(call_asgi(app, "POST", PATH, body))
        assert status == 200

    found: dict[str, float] = {}
    for name, work, loops in (("core", core, 20), ("asgi", asgi, 1)):
        on: list[float] = []
        off: list[float] = []
        timed(work, loops)  # warm
        for _ in range(repeats):
            on.append(timed(work, loops))
            with unknown_sizes():
                off.append(timed(work, loops))
        found[f"{name}_on"] = statistics.median(on)
        found[f"{name}_off"] = statistics.median(off)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--noise-rows", type=int, default=60)
    arguments = parser.parse_args()
    print("format     body MB  core on / off ms (ratio)     asgi on / off ms (ratio)")
    for format_name in ("anthropic", "openai"):
        body = run_body(format_name, arguments.noise_rows)
        found = measure(body, arguments.repeats)
        core = found["core_on"] / found["core_off"]
        asgi = found["asgi_on"] / found["asgi_off"]
        print(
            f"{format_name:<10} {len(body) / 1e6:7.2f}  "
            f"{found['core_on'] * 1e3:6.2f} / {found['core_off'] * 1e3:6.2f} ({core:.3f}×)   "
            f"{found['asgi_on'] * 1e3:7.1f} / {found['asgi_off'] * 1e3:7.1f} ({asgi:.3f}×)"
        )


if __name__ == "__main__":
    main()
