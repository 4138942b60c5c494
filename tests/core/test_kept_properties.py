"""Properties of kept answers (docs/rules.md#kept-answers) over lists mixing valid, invalid and
other turns' entries."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.core.kept import Answer, UsedPair, answer_for, keep, this_turn, use

TOOLS = st.sampled_from(["purge_logs", "search_logs", "Purge_Logs", ""])
ARGUMENTS = st.sampled_from(["window", "limit", "Window", ""])
TURNS = st.sampled_from([0, 1, 2, 1.0, 2.0, 1.5])
ANSWER_VALUES = st.one_of(
    st.text(max_size=5),
    st.integers(min_value=-(2**63), max_value=2**64),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)
VALID_ENTRIES = st.fixed_dictionaries(
    {"turn": TURNS, "tool_name": TOOLS, "argument": ARGUMENTS, "value": ANSWER_VALUES},
    optional={"extra": st.integers()},
)
INVALID_ENTRIES = st.one_of(
    st.none(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.fixed_dictionaries(
        {
            "turn": st.sampled_from([True, False, "1", None]),
            "tool_name": TOOLS,
            "argument": ARGUMENTS,
            "value": ANSWER_VALUES,
        }
    ),
    st.fixed_dictionaries(
        {
            "turn": TURNS,
            "tool_name": TOOLS,
            "argument": ARGUMENTS,
            "value": st.sampled_from([None, {"h": 24}, [24]]),
        }
    ),
    st.fixed_dictionaries(
        {"turn": TURNS, "toolName": TOOLS, "argument": ARGUMENTS, "value": st.just(1)}
    ),
)
KEPT = st.lists(st.one_of(VALID_ENTRIES, INVALID_ENTRIES), max_size=12)
REQUEST_TURNS = st.sampled_from([0, 1, 2])
ANSWERS = st.lists(st.builds(Answer, ARGUMENTS, ANSWER_VALUES), max_size=4)
USED = st.lists(st.builds(UsedPair, TOOLS, ARGUMENTS), max_size=4)


def of_turn(entry: dict[str, Any], turn: int) -> bool:
    return not isinstance(entry["turn"], bool) and entry["turn"] == turn


@given(kept=KEPT, turn=REQUEST_TURNS, tool_name=TOOLS, answers=ANSWERS)
def test_keep_never_returns_another_turns_entry(
    kept: list[Any], turn: int, tool_name: str, answers: list[Answer]
) -> None:
    result = keep(kept, turn, tool_name, answers)
    assert isinstance(result, list)
    assert all(of_turn(entry, turn) for entry in result)
    new = result[len(result) - len(answers) :]
    assert new == [
        {"turn": turn, "tool_name": tool_name, "argument": a.argument, "value": a.value}
        for a in answers
    ]
    named = {a.argument for a in answers}
    assert result[: len(result) - len(answers)] == [
        entry
        for entry in this_turn(kept, turn)
        if not (entry["tool_name"] == tool_name and entry["argument"] in named)
    ]


@given(kept=KEPT, turn=REQUEST_TURNS, tool_name=TOOLS, answers=ANSWERS)
def test_using_every_kept_pair_leaves_nothing(
    kept: list[Any], turn: int, tool_name: str, answers: list[Answer]
) -> None:
    stored = keep(kept, turn, tool_name, answers)
    every_pair = [UsedPair(entry["tool_name"], entry["argument"]) for entry in stored]
    assert use(stored, turn, every_pair) is None


@given(kept=KEPT, turn=REQUEST_TURNS, used=USED)
def test_use_drops_exactly_the_used_pairs(kept: list[Any], turn: int, used: list[UsedPair]) -> None:
    result = use(kept, turn, used)
    spent = {(u.tool_name, u.argument) for u in used}
    left = [e for e in this_turn(kept, turn) if (e["tool_name"], e["argument"]) not in spent]
    assert result == (left or None)
    for entry in result or []:
        assert of_turn(entry, turn)
        assert (entry["tool_name"], entry["argument"]) not in spent


@given(kept=KEPT, turn=REQUEST_TURNS, tool_name=TOOLS, argument=ARGUMENTS)
def test_answer_for_is_the_first_match_of_this_turn(
    kept: list[Any], turn: int, tool_name: str, argument: str
) -> None:
    entries = this_turn(kept, turn)
    matches = [e for e in entries if e["tool_name"] == tool_name and e["argument"] == argument]
    assert answer_for(entries, tool_name, argument) == (matches[0] if matches else None)


@given(
    kept=KEPT,
    turn=REQUEST_TURNS,
    tool_name=TOOLS,
    argument=ARGUMENTS,
    answers=ANSWERS,
    used=USED,
)
def test_returned_entries_are_copies(
    kept: list[Any],
    turn: int,
    tool_name: str,
    argument: str,
    answers: list[Answer],
    used: list[UsedPair],
) -> None:
    before = copy.deepcopy(kept)
    entries = this_turn(kept, turn)
    outputs = [
        *entries,
        *keep(kept, turn, tool_name, answers),
        *(use(kept, turn, used) or []),
    ]
    found = answer_for(entries, tool_name, argument)
    if found is not None:
        outputs.append(found)
    for entry in outputs:
        assert all(entry is not original for original in kept)
        entry["turn"] = "changed"
        entry["extra"] = "added"
    assert kept == before
