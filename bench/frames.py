"""`python -m bench.frames`: framework-frame detection stays linear in the text.

A user text is read once to decide whether it is a framework frame (app/core/frames.py), and the
current request reads the user texts from the last one back. Both run on every plan, so a text
built to be slow must cost no more than an ordinary one of its length. Timed, median over
`--repeats` runs (default 21), for `--count` elements (default 10,000):

- `elements then words`: `count` reminder elements followed by the person's words (every element
  is read before the words make the text a person's);
- `elements only`: the same elements without the words (a frame);
- `unclosed openers`: `count` reminder openers and no closing tag (the adversarial case: a
  scanner that looked for each opener's closing tag in turn would be quadratic);
- `openers without >`: `count` openers with an attribute that never ends;
- `current request`: `current_request_index` on the person's task followed by the first text and
  the second, as three user messages (the task stays the request).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from app.core.current_request import current_request_index
from app.core.defaults import DEFAULT_FRAME_DETECTION
from app.core.frames import is_frame
from app.core.messages import Message

REMINDER = "<system-reminder>Remember the style guide.</system-reminder>\n"
WORDS = "Now fix the failing test in tests/core and tell me what broke."
TASK = "Audit every deployment from last week and tell me which one touched the payment path."


def median_ms(work: Callable[[], object], repeats: int) -> float:
    times: list[float] = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def cases(count: int) -> dict[str, Callable[[], object]]:
    elements = REMINDER * count
    then_words = elements + WORDS
    unclosed = "<system-reminder>" * count
    no_end = '<system-reminder note="' * count
    transcript = [Message("user", TASK), Message("user", then_words), Message("user", elements)]
    return {
        "elements then words": lambda: is_frame(then_words),
        "elements only": lambda: is_frame(elements),
        "unclosed openers": lambda: is_frame(unclosed),
        "openers without >": lambda: is_frame(no_end),
        "current request": lambda: current_request_index(
            transcript, None, frames=DEFAULT_FRAME_DETECTION
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Time framework-frame detection.")
    parser.add_argument("--count", type=int, default=10_000, help="elements per text")
    parser.add_argument("--repeats", type=int, default=21, help="runs per case")
    arguments = parser.parse_args()
    print(f"{'case':<22} {'chars':>9} {'median ms':>10}")
    texts = {
        "elements then words": len(REMINDER) * arguments.count + len(WORDS),
        "elements only": len(REMINDER) * arguments.count,
        "unclosed openers": len("<system-reminder>") * arguments.count,
        "openers without >": len('<system-reminder note="') * arguments.count,
        "current request": 2 * len(REMINDER) * arguments.count + len(WORDS),
    }
    for name, work in cases(arguments.count).items():
        print(f"{name:<22} {texts[name]:>9,} {median_ms(work, arguments.repeats):>10.2f}")


if __name__ == "__main__":
    main()
