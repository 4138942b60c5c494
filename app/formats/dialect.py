"""What every wire format module provides, so the package can serve each one the same way.

A dialect reads the caller's `messages` into core messages and writes a window back from the
caller's own objects; formats whose content has parts say which parts are not text (for
`diagnostics`); formats whose system prompt is outside the transcript count it and say when a
`system` value is not their shape; and a format whose window is laid out differently from its core
messages (Bedrock merges neighbours of one role) places the plan's window figures itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.messages import Message
from app.core.plan_types import WindowPlan

Reader = Callable[[list[Any]], list[Message]]
Writer = Callable[[list[Any], Sequence[Message], tuple[int, int] | None, str | None], list[Any]]
Shaper = Callable[[list[Any], Sequence[Message], Mapping[int, str]], list[Any]]
PartPredicate = Callable[[list[Any], Message], bool]
Placer = Callable[[list[Any], Sequence[Message], WindowPlan], WindowPlan]


@dataclass(frozen=True)
class Dialect:
    """One wire format's readers and writers (see the module docstring)."""

    name: str
    read: Reader
    write: Writer
    with_result_texts: Shaper
    has_non_text_part: PartPredicate | None = None
    # Formats with a top-level system prompt (`docs/rules.md#top-level-system-prompt`): its text
    # (None when none was sent; its characters and tokens are counted from it), and why a value is
    # not this format's shape (None: it is).
    system_text: Callable[[Any], str | None] | None = None
    system_problem: Callable[[Any], str | None] | None = None
    place: Placer | None = None
