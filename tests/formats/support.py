"""Helpers the format tests share: error locations, turns and the planner's message count."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import pytest

from app.core.messages import Message
from app.errors import FieldError, InvalidRequest
from app.formats import read_messages


def errors_of(raw: list[Any], format: str) -> list[FieldError]:
    with pytest.raises(InvalidRequest) as caught:
        read_messages(raw, format)
    return caught.value.errors


def error_locs(raw: list[Any], format: str) -> list[tuple[str | int, ...]]:
    return [error.loc for error in errors_of(raw, format)]


def turn_bounds(core: Sequence[Message]) -> list[tuple[int, int]]:
    """(start, end) of each turn: a non-tool message starts one, tool messages join it."""
    starts = [i for i, message in enumerate(core) if i == 0 or message.role != "tool"]
    return list(zip(starts, [*starts[1:], len(core)], strict=True))


def run_count(core: Sequence[Message], removed: tuple[int, int], has_notice: bool) -> int:
    """How the planner counts `messages_after`: runs of equal consecutive source among the kept
    core messages, the notice one message that breaks a run."""
    start, end = removed
    notice = [None] if has_notice else []
    sources = chain(
        (core[i].source for i in range(start)),
        notice,
        (core[i].source for i in range(end, len(core))),
    )
    count = 0
    previous: object = object()
    for source in sources:
        if source is None or source != previous:
            count += 1
        previous = source
    return count
