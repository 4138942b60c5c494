"""The compiled module (`compiled_reader/`, `cwp_compiled_reader`), when it is there, and its scan.

It is optional: where it is not built the service reads every request in Python, and
`CWP_COMPILED_READER=0` (`Settings.compiled_reader`) turns it off where it is. `survey` here is
`app.core.turns.survey` computed by the module, `findings` is `app.core.diagnostics.findings`: the
same `Survey` and the same findings for every transcript, which the differential tests check.
`Scan` names what the Python side asks of a scan, so the rest of the package is typed.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol

from app.core.diagnostics import Finding
from app.core.messages import Message, ToolCall
from app.core.turns import Segment, Survey

module: ModuleType | None
try:
    module = importlib.import_module("cwp_compiled_reader")
except ImportError:  # not built: the Python path reads everything
    module = None


class Scan(Protocol):
    """The module's scan of one request body (`compiled_reader/src/scan.rs`)."""

    def message_count(self) -> int | None:
        """How many caller messages `messages` holds; None when it is no array (or absent)."""
        ...

    def fields(self) -> list[tuple[str, int, int]]:
        """The top-level fields in order: (key, start, end) of each value's bytes."""
        ...

    def span(self, index: int) -> tuple[int, int, bool]:
        """Caller message `index`'s (start, end) bytes and whether orjson writes them back as they
        are (no whitespace, no escape orjson writes otherwise, no float, no repeated key)."""
        ...

    def block_count(self, index: int) -> int:
        """How many items the message's `content` array holds, else its `parts` array; -1 when
        the first of those it has is no array."""
        ...

    def detection_samples(self) -> list[int]:
        """The first message of each distinct shape `auto` reads, in order."""
        ...

    def read_surveyed(
        self,
        format: str,
        message: type[Message],
        tool_call: type[ToolCall],
        segment: type[Segment],
        survey: type[Survey],
    ) -> tuple[list[Any] | None, Survey | None]:
        """The core messages in `format`, a caller index (an int) where the module left that
        message to Python (None: the whole list is left), and their survey when it read every
        message (then the list holds core messages only)."""
        ...

    def release(self) -> None:
        """Frees what only reading needs; the spans and block counts stay."""
        ...


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


def scan(body: bytes | bytearray, max_depth: int) -> Scan:
    """The module's scan of `body`; ValueError when the Python path must read it."""
    assert module is not None
    found: Scan = module.Scan(body, max_depth)
    return found
