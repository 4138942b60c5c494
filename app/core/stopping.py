"""Stopping work nobody waits for any more: the check the long loops consult, and what they raise.

The HTTP layer answers 503 at the processing deadline and stops waiting, but a thread cannot be
killed, so the work behind it must stop itself. The core knows no clock and no request: it is
handed a `StopCheck`, a function answering whether the work should stop, and the loops that can
run long consult it, raising `Cancelled`. Whoever handed the check decides what stopping means;
`NEVER` is the check of work that always runs to its end.
"""

from __future__ import annotations

from collections.abc import Callable

StopCheck = Callable[[], bool]


class Cancelled(Exception):
    """The work was abandoned: its answer would be dropped, so it stopped early."""


def never() -> bool:
    return False


NEVER: StopCheck = never


def stop_if_asked(should_stop: StopCheck) -> None:
    """Raise `Cancelled` when `should_stop` says so."""
    if should_stop():
        raise Cancelled
