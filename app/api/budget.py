"""The budget for bodies in flight: how many body bytes all requests together may hold at once.

A body is held whole before it is parsed, so without a bound the bodies being read at once set
the process's memory: 12 concurrent 30 MiB bodies peaked at 586 MiB, 24 at 1,014 MiB, past the
manifests' limit (`docs/decisions/0044-bodies-in-flight.md`). The middleware takes a body's share
before any of it is read: its declared `Content-Length`, or, for a chunked body, each piece as it
arrives; the share goes back when the request ends, answered, failed or disconnected.

A body that does not fit waits up to `wait_seconds` for room, first come first served, so a large
body is not passed over forever by small ones; past the wait it is refused (a 503 the client is
told to retry). A body that finds nothing else in flight is always let in, whatever its size: a
budget set below the body limit then serves such bodies one at a time instead of never.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from dataclasses import dataclass, field


@dataclass(eq=False)
class _Waiter:
    size: int
    admitted: asyncio.Future[None] = field(repr=False)


class BodyBudget:
    """At most `capacity` body bytes held at once, by every request of the app together."""

    def __init__(self, capacity: int, wait_seconds: float) -> None:
        self.capacity = capacity
        self.wait_seconds = wait_seconds
        self.in_flight = 0
        self._waiters: deque[_Waiter] = deque()

    def _fits(self, size: int) -> bool:
        return self.in_flight == 0 or self.in_flight + size <= self.capacity

    async def take(self, size: int) -> bool:
        """Reserve `size` bytes, waiting up to `wait_seconds` for room; False when none came.

        Cancelled while waiting (the client went away), it leaves nothing reserved.
        """
        if size <= 0:
            return True
        if not self._waiters and self._fits(size):
            self.in_flight += size
            return True
        if self.wait_seconds <= 0:
            return False
        waiter = _Waiter(size, asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(self.wait_seconds):
                await asyncio.shield(waiter.admitted)
        except TimeoutError:
            pass
        except BaseException:  # cancelled: the client went away while it waited
            self._leave(waiter, keep=False)
            raise
        # Let in just as the wait ended, it keeps the room it was given.
        return self._leave(waiter, keep=True)

    def _leave(self, waiter: _Waiter, keep: bool) -> bool:
        """Stop waiting: True when `waiter` was let in and keeps its room."""
        if waiter.admitted.done():
            if keep:
                return True
            self.give(waiter.size)
            return False
        waiter.admitted.cancel()
        with contextlib.suppress(ValueError):
            self._waiters.remove(waiter)
        self._admit_waiting()  # the one that left may have been holding up smaller ones
        return False

    def give(self, size: int) -> None:
        """Return `size` bytes taken before, and let in those now waiting that fit."""
        if size <= 0:
            return
        self.in_flight -= size
        self._admit_waiting()

    def _admit_waiting(self) -> None:
        while self._waiters and self._fits(self._waiters[0].size):
            waiter = self._waiters.popleft()
            if waiter.admitted.done():
                continue
            self.in_flight += waiter.size
            _let_in(waiter.admitted)


def _let_in(admitted: asyncio.Future[None]) -> None:
    loop = admitted.get_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if loop is running:
        admitted.set_result(None)
    else:  # an app served by several loops in turn (a test client's); the waiter's loop wakes it
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_set_if_waiting, admitted)


def _set_if_waiting(admitted: asyncio.Future[None]) -> None:
    if not admitted.done():
        admitted.set_result(None)
