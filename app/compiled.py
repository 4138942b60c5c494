"""The compiled reader (`compiled_reader/`, the `cwp_compiled_reader` module), when it is there.

It is optional: where it is not built the service reads every request in Python, and
`CWP_COMPILED_READER=0` (`Settings.compiled_reader`) turns it off where it is. It decides nothing
the rules (docs/rules.md) define; `app.api.scanned` says what it reads and when the Python path
answers instead. `survey` here is `app.core.turns.survey` computed by the module, `findings` is
`app.core.diagnostics.findings`: the same `Survey` and the same findings for every transcript,
which the differential tests check.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from app.core.diagnostics import Finding
from app.core.messages import Message
from app.core.turns import Segment, Survey

module: ModuleType | None
try:
    module = importlib.import_module("cwp_compiled_reader")
except ImportError:  # not built: the Python path reads everything
    module = None


def available() -> bool:
    return module is not None


def survey(messages: Sequence[Message]) -> Survey:
    """`app.core.turns.survey`, by the compiled module (which must be available)."""
    assert module is not None
    found: Survey = module.survey(messages, Segment, Survey)
    return found


def findings(messages: Sequence[Message]) -> list[Finding]:
    """`app.core.diagnostics.findings`, by the compiled module (which must be available)."""
    assert module is not None
    found: list[Finding] = module.findings(messages, Finding)
    return found


def scan(body: bytes | bytearray, max_depth: int) -> Any:
    """The module's scan of `body`; ValueError when the Python path must read it."""
    assert module is not None
    return module.Scan(body, max_depth)
