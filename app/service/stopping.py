"""Where a use case learns that its work is abandoned: the stop check of the running request.

The HTTP layer runs a large request's work in a worker thread under the processing deadline
(`app.api.deadline`); at the deadline it answers 503 and sets the request's stop check, which it
installs here for the thread (`stopping_when`). The use cases consult it between their steps
(`checkpoint`) and hand it to the loops that can run long (the exact token counters), so abandoned
work ends within a step, never running on to an answer nobody reads (docs/reliability.md). Work run
anywhere else (on the event loop, in a test, by the audit) has the check `NEVER`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from app.core.stopping import NEVER, Cancelled, StopCheck, stop_if_asked
from app.core.tokens import TokenCounter

_SHOULD_STOP: ContextVar[StopCheck] = ContextVar("should_stop", default=NEVER)

__all__ = ["Cancelled", "checkpoint", "current_check", "stoppable_counter", "stopping_when"]


@contextmanager
def stopping_when(should_stop: StopCheck) -> Iterator[None]:
    """Within the block, the work's stop check is `should_stop`."""
    token = _SHOULD_STOP.set(should_stop)
    try:
        yield
    finally:
        _SHOULD_STOP.reset(token)


def current_check() -> StopCheck:
    """The stop check of the work running here (`NEVER` outside `stopping_when`)."""
    return _SHOULD_STOP.get()


def checkpoint() -> None:
    """Raise `Cancelled` when the work running here was abandoned."""
    stop_if_asked(_SHOULD_STOP.get())


def stoppable_counter(count: TokenCounter) -> TokenCounter:
    """`count`, consulting the stop check of the work running here before each text: exact
    counting is the longest loop of a plan (about 6 s for 30 MB of text never counted before),
    and a check costs about 0.1 µs beside a count's microseconds."""
    should_stop = _SHOULD_STOP.get()
    if should_stop is NEVER:
        return count

    def counted(text: str) -> int:
        if should_stop():
            raise Cancelled
        return count(text)

    return counted
