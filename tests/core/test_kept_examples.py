"""The worked examples E1–E10 of kept answers (docs/rules.md#kept-answers) that are about the
functions (the request rejections of E10 are the request reader's), plus the read rule of a valid
entry case by case."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.core.kept import (
    Answer,
    UsedPair,
    answer_for,
    is_valid_entry,
    keep,
    this_turn,
    use,
)


def k(tool: str, argument: str, value: Any, turn: Any = 1) -> dict[str, Any]:
    return {"turn": turn, "tool_name": tool, "argument": argument, "value": value}


def lookup(kept: Any, turn: int, tool_name: str, argument: str) -> dict[str, Any]:
    entries = this_turn(kept, turn)
    return {"answer": answer_for(entries, tool_name, argument), "this_turn": entries}


# --- E1 -------------------------------------------------------------------------------------------

E1_KEPT = [
    k("purge_logs", "window", "24h", 1),
    k("purge_logs", "window", "7d", 2),
    {"turn": 1, "tool_name": "x", "argument": "y", "value": {"raw": True}},
    {"turn": 1, "tool_name": "x"},
    None,
]


def test_E1_turn_1() -> None:
    assert lookup(E1_KEPT, 1, "purge_logs", "window") == {
        "answer": k("purge_logs", "window", "24h", 1),
        "this_turn": [k("purge_logs", "window", "24h", 1)],
    }


def test_E1_turn_2() -> None:
    assert lookup(E1_KEPT, 2, "purge_logs", "window") == {
        "answer": k("purge_logs", "window", "7d", 2),
        "this_turn": [k("purge_logs", "window", "7d", 2)],
    }


@pytest.mark.parametrize("kept", [None, []], ids=["absent-or-null", "empty"])
def test_E1_no_list(kept: Any) -> None:
    assert lookup(kept, 1, "purge_logs", "window") == {"answer": None, "this_turn": []}


# --- E2 -------------------------------------------------------------------------------------------


def test_E2_keeping_a_pair_again_replaces_it() -> None:
    first = keep(None, 1, "purge_logs", [Answer("window", "24h")])
    assert first == [k("purge_logs", "window", "24h")]
    second = keep(first, 1, "search_logs", [Answer("window", "1h")])
    assert second == [k("purge_logs", "window", "24h"), k("search_logs", "window", "1h")]
    third = keep(second, 1, "purge_logs", [Answer("window", "7d")])
    assert third == [k("search_logs", "window", "1h"), k("purge_logs", "window", "7d")]

    found = lookup(third, 1, "purge_logs", "window")["answer"]
    assert found is not None
    assert found["value"] == "7d"
    assert lookup(third, 1, "purge_logs", "limit")["answer"] is None


# --- E3 -------------------------------------------------------------------------------------------


def test_E3_keeping_drops_another_turns_entries() -> None:
    kept = [k("purge_logs", "window", "24h", 1)]
    assert keep(kept, 2, "purge_logs", [Answer("limit", 5)]) == [
        {"turn": 2, "tool_name": "purge_logs", "argument": "limit", "value": 5}
    ]


# --- E4 -------------------------------------------------------------------------------------------

E4_KEPT = [k("purge_logs", "window", "24h"), k("search_logs", "window", "1h")]


def test_E4_a_used_pair_is_dropped() -> None:
    assert use(E4_KEPT, 1, [UsedPair("purge_logs", "window")]) == [k("search_logs", "window", "1h")]


def test_E4_nothing_left_clears_the_list() -> None:
    used = [UsedPair("purge_logs", "window"), UsedPair("search_logs", "window")]
    assert use(E4_KEPT, 1, used) is None


# --- E5 -------------------------------------------------------------------------------------------

E5_KEPT_JSON = b"""[
 {"turn":1,"tool_name":"t","argument":"a","value":"","extra":9},
 {"turn":1,"tool_name":"t","argument":"b","value":null},
 {"turn":"1","tool_name":"t","argument":"c","value":1},
 {"turn":true,"tool_name":"t","argument":"d","value":1},
 {"turn":1.0,"tool_name":"t","argument":"e","value":false},
 {"turn":1,"toolName":"t","argument":"f","value":1}]"""


def test_E5_the_read_rule() -> None:
    kept = orjson.loads(E5_KEPT_JSON)
    result = lookup(kept, 1, "t", "a")
    expected_this_turn = [
        {"turn": 1, "tool_name": "t", "argument": "a", "value": "", "extra": 9},
        {"turn": 1.0, "tool_name": "t", "argument": "e", "value": False},
    ]
    assert result == {"answer": expected_this_turn[0], "this_turn": expected_this_turn}
    # Spelling, key order and the extra key are kept as received: 1.0 stays 1.0.
    assert orjson.dumps(result["this_turn"]) == (
        b'[{"turn":1,"tool_name":"t","argument":"a","value":"","extra":9},'
        b'{"turn":1.0,"tool_name":"t","argument":"e","value":false}]'
    )
    assert list(result["answer"]) == ["turn", "tool_name", "argument", "value", "extra"]


@pytest.mark.parametrize("argument", ["b", "c", "d", "f"])
def test_E5_skipped_entries_are_never_read(argument: str) -> None:
    kept = orjson.loads(E5_KEPT_JSON)
    assert lookup(kept, 1, "t", argument)["answer"] is None
    assert keep(kept, 1, "t", []) == [kept[0], kept[4]]
    assert use(kept, 1, []) == [kept[0], kept[4]]


# --- E6 -------------------------------------------------------------------------------------------


def test_E6_two_answers_for_one_argument() -> None:
    kept = keep(None, 1, "purge_logs", [Answer("window", "1h"), Answer("window", "2h")])
    assert kept == [k("purge_logs", "window", "1h"), k("purge_logs", "window", "2h")]
    found = lookup(kept, 1, "purge_logs", "window")["answer"]
    assert found is not None
    assert found["value"] == "1h"
    assert use(kept, 1, [UsedPair("purge_logs", "window")]) is None


# --- E7 -------------------------------------------------------------------------------------------


def test_E7_a_replaced_pair_moves_to_the_end() -> None:
    kept = [k("purge_logs", "window", "24h"), k("purge_logs", "limit", 5)]
    assert keep(kept, 1, "purge_logs", [Answer("window", "7d")]) == [
        k("purge_logs", "limit", 5),
        k("purge_logs", "window", "7d"),
    ]


# --- E8 -------------------------------------------------------------------------------------------


def test_E8_use_in_a_turn_with_nothing_kept() -> None:
    assert use([k("p", "w", "x", 1)], 2, []) is None


def test_E8_use_with_nothing_used() -> None:
    assert use([k("p", "w", "x", 1)], 1, []) == [k("p", "w", "x", 1)]


def test_E8_keep_with_no_answers_is_a_list() -> None:
    assert keep([k("p", "w", "x", 3)], 1, "p", []) == []


def test_E8_another_turns_entry_is_never_read() -> None:
    kept = [k("a", "x", 1, 1), k("a", "x", 2, 2)]
    assert lookup(kept, 2, "a", "x")["answer"] == k("a", "x", 2, 2)


# --- E9 -------------------------------------------------------------------------------------------


def test_E9_the_flow_of_one_turn() -> None:
    stored = keep(None, 3, "purge_logs", [Answer("window", "24h")])
    assert stored == [k("purge_logs", "window", "24h", 3)]
    found = lookup(stored, 3, "purge_logs", "window")["answer"]
    assert found is not None
    assert found["value"] == "24h"
    assert use(stored, 3, [UsedPair("purge_logs", "window")]) is None


# --- E10 (the part that is not a request rejection) -----------------------------------------------


def test_E10_a_garbage_entry_is_skipped() -> None:
    assert keep(["garbage"], 1, "purge_logs", [Answer("window", "24h")]) == [
        k("purge_logs", "window", "24h")
    ]


def test_E10_turn_3_point_0_matches_turn_3() -> None:
    # The request reader turns `turn: 3.0` into 3; a stored `3.0` is turn 3 as well.
    assert this_turn([k("p", "w", "x", 3.0)], 3) == [k("p", "w", "x", 3.0)]


# --- the read rule, entry by entry ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "valid"),
    [
        (k("t", "a", "v"), True),
        (k("t", "a", ""), True),
        (k("", "", "v"), True),
        (k("t", "a", 0), True),
        (k("t", "a", 2.5), True),
        (k("t", "a", True), True),
        (k("t", "a", "v", 2.5), True),
        (k("t", "a", "v", 2.0), True),
        ({**k("t", "a", "v"), "extra": [1]}, True),
        (k("t", "a", None), False),
        (k("t", "a", {"h": 24}), False),
        (k("t", "a", [24]), False),
        (k("t", "a", float("inf")), False),
        (k("t", "a", float("nan")), False),
        ({"turn": 1, "tool_name": "t", "argument": "a"}, False),
        (k("t", "a", "v", True), False),
        (k("t", "a", "v", False), False),
        (k("t", "a", "v", "1"), False),
        (k("t", "a", "v", None), False),
        ({"tool_name": "t", "argument": "a", "value": "v"}, False),
        (k(1, "a", "v"), False),
        (k("t", None, "v"), False),
        ({"turn": 1, "toolName": "t", "argument": "a", "value": "v"}, False),
        ("garbage", False),
        (None, False),
        ([1, "t", "a", "v"], False),
    ],
)
def test_is_valid_entry(entry: Any, valid: bool) -> None:
    assert is_valid_entry(entry) is valid


def test_a_boolean_turn_never_matches_one() -> None:
    kept = [k("t", "a", "v", True), k("t", "b", "v", 1)]
    assert this_turn(kept, 1) == [k("t", "b", "v", 1)]
    with pytest.raises(TypeError):
        this_turn(kept, True)


def test_answers_may_be_plain_pairs() -> None:
    assert keep(None, 1, "t", [("a", 1), ("b", False)]) == [k("t", "a", 1), k("t", "b", False)]
    assert use([k("t", "a", 1)], 1, [("t", "a")]) is None


def test_new_entries_have_the_four_keys_in_order() -> None:
    (entry,) = keep(None, 4, "t", [Answer("a", "v")])
    assert list(entry) == ["turn", "tool_name", "argument", "value"]


def test_matching_is_exact_and_case_sensitive() -> None:
    entries = [k("Purge_Logs", "window", "x"), k("purge_logs", "Window", "y")]
    assert answer_for(entries, "purge_logs", "window") is None
    kept = keep(entries, 1, "purge_logs", [Answer("window", "z")])
    assert kept == [*entries, k("purge_logs", "window", "z")]


def test_answer_for_returns_a_copy() -> None:
    entries = [k("t", "a", "v")]
    found = answer_for(entries, "t", "a")
    assert found == entries[0]
    assert found is not entries[0]
