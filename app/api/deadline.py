"""The processing deadline: request work runs in a worker thread, watched by the event loop.

Planning is CPU work; run on the event loop it would stall health checks and every other client.
In a thread it can be abandoned at the deadline: the caller gets a 503 at once and the loop keeps
serving. Python cannot kill the thread, so the abandoned work is asked to stop: its stop check
(`app.service.stopping`) turns true with the 503, and the use case ends at its next check, within
a step of its work (docs/decisions/0043-bounded-errors-and-lists.md measures how soon).

Work on a large body also takes one of a few slots (`WorkSlots`), held until its thread ends,
abandoned or not. Parsing multiplies a body in memory (a 32 MiB array of empty objects becomes
more than a gigabyte of Python objects), and the thread pool's own limit lets go of an abandoned
thread at once, so without the slots a client resending such a body could pile up any number of
them. Waiting for a slot counts toward the deadline; small bodies never wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

from app.api.problems import ProblemError
from app.errors import FieldError
from app.service.stopping import Cancelled, stopping_when

T = TypeVar("T")


async def run_with_deadline(
    seconds: float, work: Callable[[], T], slots: WorkSlots | None = None
) -> T:
    """`work()` in a worker thread (in one of `slots` when given); a 503 problem when it runs past
    `seconds`, waiting for a slot included. The abandoned work is then asked to stop
    (`app.service.stopping`): it ends at its next check, its `Cancelled` swallowed here."""
    abandoned = threading.Event()
    stoppable = _stoppable(work, abandoned)
    try:
        with anyio.move_on_after(seconds) as scope:
            if slots is None:
                return await anyio.to_thread.run_sync(stoppable, abandon_on_cancel=True)
            return await slots.run(stoppable)
    except BaseException:
        abandoned.set()  # the waiting side is gone (cancelled, or shutting down): stop the work
        raise
    abandoned.set()
    assert scope.cancelled_caught
    raise ProblemError(
        503,
        f"The request took longer than the {seconds:g} s processing deadline and was abandoned.",
        [FieldError(("body",), f"processing exceeded {seconds:g} s", "deadline_exceeded")],
        kind="deadline-exceeded",
        headers={"Retry-After": "1"},
    )


def _stoppable(work: Callable[[], T], abandoned: threading.Event) -> Callable[[], T]:
    """`work` run with `abandoned` as its stop check; once abandoned its `Cancelled` ends the
    thread quietly (nothing waits for its outcome)."""

    def run() -> T:
        with stopping_when(abandoned.is_set):
            try:
                return work()
            except Cancelled:
                if not abandoned.is_set():
                    raise  # never: only the abandoned work is asked to stop
                raise _Abandoned from None

    return run


class _Abandoned(Exception):
    """The outcome of work stopped after its request was answered 503: read by nobody."""


class WorkSlots:
    """At most `capacity` pieces of work running at once, each holding its slot until its thread
    ends, even after the request that started it was abandoned."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        # One semaphore per event loop: an asyncio semaphore belongs to the loop that first waits.
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._semaphores = weakref.WeakKeyDictionary()

    def _semaphore(self, loop: asyncio.AbstractEventLoop) -> asyncio.Semaphore:
        semaphore = self._semaphores.get(loop)
        if semaphore is None:
            semaphore = self._semaphores[loop] = asyncio.Semaphore(self.capacity)
        return semaphore

    async def run(self, work: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        semaphore = self._semaphore(loop)
        await semaphore.acquire()
        handoff = _Handoff()

        def guarded() -> T:
            if not handoff.start():
                raise asyncio.CancelledError  # abandoned before it began; the slot is back
            try:
                return work()
            finally:
                _release_from_thread(loop, semaphore)

        try:
            return await anyio.to_thread.run_sync(guarded, abandon_on_cancel=True)
        except BaseException:
            if handoff.cancel_if_not_started():
                semaphore.release()
            raise


class _Handoff:
    """Who gives the slot back: the thread once the work began, the waiting side before that."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = "waiting"

    def start(self) -> bool:
        with self._lock:
            if self._state == "cancelled":
                return False
            self._state = "started"
            return True

    def cancel_if_not_started(self) -> bool:
        with self._lock:
            if self._state != "waiting":
                return False
            self._state = "cancelled"
            return True


def _release_from_thread(loop: asyncio.AbstractEventLoop, semaphore: asyncio.Semaphore) -> None:
    # A closed loop raises RuntimeError: then nothing is left to wait for the slot.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(semaphore.release)
