"""Kept answers: a person's answers to a refused call, held for the next call of the same tool.

A resumed batch has room for one question to a person, so a call that needs the person again after
being answered is refused; dropping the answer then would ask the same question every batch. The
caller stores the kept list and sends it back; these functions read it, add to it and spend it, and
never change it in place. An answer is read only in the turn it was kept in, and is spent by the
first batch that fills from it, so it never fills calls the person was not asked about.

The stored list is the caller's state and is read leniently: an entry of the wrong shape is skipped
silently, never an error. Entries that come back are copies with every key the caller sent, in its
order. The request's own fields (`turn`, `answers`, `used`) are validated by the request reader.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

AnswerValue = str | int | float | bool
Entry = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Answer:
    """A person's value for one argument of a refused call."""

    argument: str
    value: AnswerValue


@dataclass(frozen=True, slots=True)
class UsedPair:
    """A (tool, argument) pair a batch filled from a kept answer."""

    tool_name: str
    argument: str


def _is_number(value: object) -> bool:
    # `True == 1` in Python; a boolean is never a number in JSON.
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_answer_value(value: object) -> bool:
    if isinstance(value, str | bool):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int)


def is_valid_entry(entry: object) -> TypeGuard[Entry]:
    """Whether a stored entry can be read: a number turn, string names, a scalar value."""
    return (
        isinstance(entry, dict)
        and _is_number(entry.get("turn"))
        and isinstance(entry.get("tool_name"), str)
        and isinstance(entry.get("argument"), str)
        and "value" in entry
        and _is_answer_value(entry["value"])
    )


def this_turn(kept: Iterable[object] | None, turn: int) -> list[Entry]:
    """The valid entries kept in `turn` (compared numerically: `2.0` is turn 2), as copies.

    `None` stands for a caller that holds no list. Duplicate pairs are all returned, in list order.
    """
    if not _is_number(turn):
        raise TypeError(f"turn must be a number, not {type(turn).__name__}")
    if kept is None:
        return []
    return [dict(entry) for entry in kept if is_valid_entry(entry) and entry["turn"] == turn]


def answer_for(entries: Iterable[Mapping[str, Any]], tool_name: str, argument: str) -> Entry | None:
    """A copy of the first entry for (`tool_name`, `argument`), matched exactly; else None.

    No turn filter of its own: it is given `this_turn`'s list.
    """
    for entry in entries:
        if entry["tool_name"] == tool_name and entry["argument"] == argument:
            return dict(entry)
    return None


def _as_answer(answer: Answer | tuple[str, AnswerValue]) -> Answer:
    if isinstance(answer, Answer):
        return answer
    argument, value = answer
    return Answer(argument, value)


def _as_used_pair(pair: UsedPair | tuple[str, str]) -> UsedPair:
    if isinstance(pair, UsedPair):
        return pair
    tool_name, argument = pair
    return UsedPair(tool_name, argument)


def keep(
    kept: Iterable[object] | None,
    turn: int,
    tool_name: str,
    answers: Iterable[Answer | tuple[str, AnswerValue]],
) -> list[Entry]:
    """This turn's list with a refused call's answers kept.

    A pair kept again replaces its earlier entries, and the new entry goes to the end; answers are
    not de-duplicated, so two answers for one argument give two entries. Always a list.
    """
    new_answers = [_as_answer(answer) for answer in answers]
    named = {answer.argument for answer in new_answers}
    others = [
        entry
        for entry in this_turn(kept, turn)
        if not (entry["tool_name"] == tool_name and entry["argument"] in named)
    ]
    return others + [
        {"turn": turn, "tool_name": tool_name, "argument": answer.argument, "value": answer.value}
        for answer in new_answers
    ]


def use(
    kept: Iterable[object] | None,
    turn: int,
    used: Iterable[UsedPair | tuple[str, str]],
) -> list[Entry] | None:
    """This turn's list without every entry of the pairs a batch filled from.

    None when nothing is left, so the caller clears its stored copy instead of keeping `[]`.
    """
    spent = {(pair.tool_name, pair.argument) for pair in (_as_used_pair(item) for item in used)}
    left = [
        entry
        for entry in this_turn(kept, turn)
        if (entry["tool_name"], entry["argument"]) not in spent
    ]
    return left or None
