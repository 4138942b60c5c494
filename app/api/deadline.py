"""The processing deadline: request work runs in a worker thread, watched by the event loop.

Planning is CPU work; run on the event loop it would stall health checks and every other client.
In a thread it can be abandoned at the deadline: the caller gets a 503 at once and the loop keeps
serving. What it deliberately does not do is kill the thread (Python cannot): an abandoned plan
finishes in the background and its answer is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

from app.api.problems import ProblemError
from app.errors import FieldError

T = TypeVar("T")


async def run_with_deadline(seconds: float, work: Callable[[], T]) -> T:
    """`work()` in a worker thread; a 503 problem when it runs past `seconds`."""
    with anyio.move_on_after(seconds) as scope:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    assert scope.cancelled_caught
    raise ProblemError(
        503,
        f"The request took longer than the {seconds:g} s processing deadline and was abandoned.",
        [FieldError(("body",), f"processing exceeded {seconds:g} s", "deadline_exceeded")],
        kind="deadline-exceeded",
        headers={"Retry-After": "1"},
    )
