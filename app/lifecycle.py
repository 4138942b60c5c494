"""Shutdown that a load balancer can see coming.

On SIGTERM the service first turns `/readyz` to 503 and keeps serving for
`CWP_SHUTDOWN_DRAIN_SECONDS`, so health checks take the replica out of rotation before it stops
accepting connections; then the server's own graceful shutdown runs (in-flight requests complete,
up to `CWP_GRACEFUL_SHUTDOWN_SECONDS`). A second signal skips the drain.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

DRAINED_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@dataclass
class Lifecycle:
    shutting_down: bool = False
    _previous: dict[int, Any] = field(default_factory=dict)

    def install(self, drain_seconds: float) -> None:
        """Wrap the server's signal handlers (call from the startup of the serving loop).

        Startup also makes the app ready again: an app whose lifespan is run a second time (a
        test client opened twice) must not keep answering 503 from the previous shutdown.
        """
        self.shutting_down = False
        if threading.current_thread() is not threading.main_thread():
            return
        loop = asyncio.get_running_loop()
        for sig in DRAINED_SIGNALS:
            previous = signal.getsignal(sig)
            if not callable(previous):
                continue  # no server handler to hand over to: leave the default behaviour
            self._previous[sig] = previous

            def on_signal(signum: int, frame: FrameType | None) -> None:
                handler = self._previous[signum]
                if self.shutting_down or drain_seconds <= 0:
                    self.shutting_down = True
                    handler(signum, frame)
                    return
                self.shutting_down = True
                loop.call_soon_threadsafe(loop.call_later, drain_seconds, handler, signum, frame)

            signal.signal(sig, on_signal)

    def restore(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
