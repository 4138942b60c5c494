"""Everything compiled, on the Python side: the optional module and what the plan route asks of it.

The compiled reader (`compiled_reader/`, Rust) reads a plan request from its bytes; it decides
nothing the rules (docs/rules.md) define, so the Python path is its reference and every answer is
the same bytes on both. `module` loads it and types its scan, `messages` holds the scanned caller
messages (read through each dialect's own reader, written by its one writer), and `request` reads
a scanned plan request or hands it to the Python path (`Unanswered`).
"""

from __future__ import annotations

from app.compiled.messages import Unanswered
from app.compiled.module import available, findings, scan, survey

__all__ = ["Unanswered", "available", "findings", "scan", "survey"]
