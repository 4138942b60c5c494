"""The cyclic garbage collector's policy, all of it: raised thresholds, a freeze after start-up,
and a pause while request work runs.

Reading and planning a transcript allocate several objects per message (about 6 per message of a
100,000-message transcript) and none in reference cycles: a plan worked inline, one worked in a
worker thread and a refused request were each measured to leave no cyclic garbage at all (200
requests each, collector off, then one collection: nothing to collect). Yet at the default
thresholds the collector would run hundreds of times per large request, each time a full
collection comes due it walks every live object, and one that falls in the middle of a
100,000-message plan walks all of that plan's objects and frees nothing; measured, that was 13% of
a 100,000-message native plan and 26% of an Anthropic one (a middle-generation collection alone
took 0.36 s). Hence three measures:

- `collector_paused` turns automatic collection off while any request's body is being worked on
  and back on as soon as none is, restoring the collector's state after each request. It does not
  leave the collector off for good: should overlapping requests keep it paused for long, a
  young-generation collection still runs once `PILE_UP_LIMIT` tracked objects have accumulated, so
  cycles made elsewhere (closed connections, say) are still collected.
- `GC_THRESHOLDS` govern the time between requests (`apply_server_gc_policy`).
- `freeze_start_up_objects` moves what start-up built, which lives as long as the process, out of
  the collector's sight, so no collection scans it again.

The thresholds and the freeze are process-wide, so only the server applies them (`python -m app`
before uvicorn builds the app, the freeze in the lifespan of the app it serves), never an import of
`app.main` nor an app built by a test or a tool: those keep the interpreter's own collector. The
pause is the one part every app uses, since it leaves the collector as it found it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Outside the pause (reading a body, sending an answer, between requests) a young collection
# every 50,000 net allocations instead of 700 keeps a large request from setting off hundreds of
# them (`docs/performance.md` has the measured gain).
GC_THRESHOLDS = (50_000, 20, 100)

# Far above the live objects of the largest request, so a pile-up is only ever reached when
# requests overlap for long.
PILE_UP_LIMIT = 2_000_000

_lock = threading.Lock()
_running = 0
_paused_here = False


def apply_server_gc_policy() -> None:
    """Raise the collector's thresholds for the serving process (call before the app is built)."""
    gc.set_threshold(*GC_THRESHOLDS)


def freeze_start_up_objects() -> None:
    """Exclude everything alive now from future collections (call once start-up is over)."""
    gc.freeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body of the `with` with automatic collection off (re-entrant across threads)."""
    global _running, _paused_here
    with _lock:
        _running += 1
        if _running == 1 and gc.isenabled():
            gc.disable()
            _paused_here = True
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _paused_here:
                _paused_here = False
                gc.enable()
            elif _paused_here and gc.get_count()[0] > PILE_UP_LIMIT:
                gc.collect(0)
