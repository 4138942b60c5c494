"""The worked examples of the cap: number spellings (docs/rules.md#compact-serialization), C1–C18,
N1–N4, and the core part of the full exchange and the per-tool caps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import pytest

from app.core.cap import (
    ABSENT,
    NO_VALUE_TEXT,
    CapOutcome,
    cap_for,
    cap_result,
    escaped_length,
    is_truncated,
    marker_for,
    marker_size,
    measured_text,
    next_take,
    reason_for,
)

REASON_TAIL = "Narrow the request and call again."


def serialized(value: Any) -> str:
    return orjson.dumps(value).decode()


def serialized_size(value: Any) -> int:
    return len(serialized(value))


def envelope_of(reason: str) -> int:
    return serialized_size({"truncated": True, "reason": reason, "head": ""})


# --- the number table (compact serialization) -----------------------------------------------------

NUMBER_TABLE = [
    ("1", "1"),
    ("-0", "0"),
    ("1.0", "1.0"),
    ("1E2", "100.0"),
    ("2.50", "2.5"),
    ("1e16", "1e+16"),
    ("1e21", "1e+21"),
    ("0.00001", "0.00001"),
    ("0.000001", "1e-6"),
    ("1.5e-7", "1.5e-7"),
    ("-0.0", "-0.0"),
    ("18446744073709551615", "18446744073709551615"),
    ("18446744073709551616", "1.8446744073709552e+19"),
    ("-9223372036854775809", "-9.223372036854776e+18"),
]


@pytest.mark.parametrize(("received", "expected"), NUMBER_TABLE, ids=[r for r, _ in NUMBER_TABLE])
def test_number_spelling(received: str, expected: str) -> None:
    text = measured_text(orjson.loads(received))
    assert text == expected
    assert cap_result("t", orjson.loads(received), 1000).chars == len(expected)


@pytest.mark.parametrize(
    ("received", "expected"),
    [
        ('{ "a" : 1E2 }', '{"a":100.0}'),
        ('{"a":1,"b":2,"a":3}', '{"a":3,"b":2}'),
        ('{"a": [1, 2]}', '{"a":[1,2]}'),
        ('"\\u001f\\b\\t\\n\\f\\r\\"\\\\"', '\x1f\b\t\n\f\r"\\'),
    ],
    ids=["spaced-exponent", "repeated-key", "no-whitespace", "string-as-itself"],
)
def test_compact_serialization(received: str, expected: str) -> None:
    assert measured_text(orjson.loads(received)) == expected


def test_string_escapes_of_the_compact_serialization() -> None:
    value = ['"\\\b\t\n\f\r\x00\x1f/\x7f\u2028\u2029é😀']
    expected = '["\\"\\\\\\b\\t\\n\\f\\r\\u0000\\u001f/\x7f\u2028\u2029é😀"]'
    assert measured_text(value) == expected


def test_absent_measures_as_the_no_value_sentence() -> None:
    assert NO_VALUE_TEXT == "(this tool returned no value)"
    assert measured_text(ABSENT) == NO_VALUE_TEXT
    assert len(measured_text(ABSENT)) == 29
    assert measured_text(None) == "null"


# --- C1–C18 and N1–N4 -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    result: Any
    tool: str
    cap: int
    chars: int
    truncated: bool
    reason_len: int | None = None
    envelope: int | None = None
    head: str | None = None
    size: int | None = None


ROWS = [{"id": i, "name": f"row-{i}"} for i in range(200)]
ROWS_TEXT = serialized(ROWS)
WOMAN_AT_LAPTOP = "\U0001f469\u200d\U0001f4bb"

CASES: dict[str, Case] = {
    "C1": Case("x" * 500, "orders_export", 200, 500, True, 91, 131, "x" * 69, 200),
    "C2": Case("abcdefghij" * 60, "t", 300, 600, True, 79, 119, "abcdefghij" * 18 + "a", 300),
    "C3": Case("y" * 1000, "t", 40, 1000, True, 79, 119, None, 109),
    "C4": Case(ROWS, "list_rows", 500, 5381, True, 88, 128, ROWS_TEXT[:297], 498),
    "C5-pass": Case("a" * 100, "t", 100, 100, False),
    "C5-over": Case("a" * 101, "t", 100, 101, True, None, None, None, 109),
    "C6": Case({"rows": [1, 2, 3]}, "t", 10000, 16, False),
    "C7": Case("z" * 1_000_000, "t", 1_000_000, 1_000_000, False),
    "C8": Case("R" * 50000, "dump", 500, 50000, True, 84, 124, "R" * 376, 500),
    "C9": Case('ab"' * 200, "t", 200, 600, True, 79, 119, 'ab"' * 17, 187),
    "C10": Case("A" * 3000 + "SECRET-TAIL", "dump", 400, 3011, True, 83, 123, "A" * 277, 400),
    "C11": Case('"' * 20000, "tool", 200, 20000, True, 84, 124, '"' * 38, 200),
    "C12": Case("\n\t" * 10000, "tool", 200, 20000, True, 84, 124, "\n\t" * 19, 200),
    "C13": Case("a" * 300, 'my"tool', 200, 300, True, 85, 126, "a" * 74, 200),
    "C14": Case(ABSENT, "t", 10, 29, True, None, None, None, 107),
    "C15": Case(ABSENT, "t", 29, 29, False),
    "C16-pass": Case({"a": "x"}, "t", 9, 9, False),
    "C16-over": Case({"a": "xy"}, "t", 9, 10, True, None, None, None, 106),
    "C17-over": Case(None, "t", 3, 4, True, None, None, None, 105),
    "C17-pass": Case(None, "t", 4, 4, False),
    "C18": Case("all good", "dump", 500, 8, False),
    "N1": Case("😀" * 100, "t", 120, 100, False),
    "N2": Case("😀" * 300, "emoji_feed", 200, 300, True, 88, 128, "😀" * 72, 200),
    "N3": Case({"note": "🙂" * 200}, "t", 200, 211, True, 79, 119, '{"note":"' + "🙂" * 55, 186),
    "N4": Case(
        WOMAN_AT_LAPTOP * 100, "🔧fix", 180, 300, True, 82, 122, WOMAN_AT_LAPTOP * 19 + "👩", 180
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_example(name: str) -> None:
    case = CASES[name]
    outcome = cap_result(case.tool, case.result, case.cap)

    assert outcome.chars == case.chars
    assert outcome.truncated is case.truncated
    if not case.truncated:
        assert outcome.result is case.result
        return

    marker = outcome.result
    reason = reason_for(case.tool, case.chars, case.cap)
    assert reason == (
        f"{case.tool} returned {case.chars} chars, over the {case.cap}-char cap. {REASON_TAIL}"
    )
    assert list(marker) == (
        ["truncated", "reason", "head"] if case.head else ["truncated", "reason"]
    )
    assert marker["truncated"] is True
    assert marker["reason"] == reason
    assert marker.get("head") == case.head
    assert is_truncated(marker)
    if case.reason_len is not None:
        assert len(reason) == case.reason_len
    if case.envelope is not None:
        assert envelope_of(reason) == case.envelope
    assert serialized_size(marker) == case.size
    assert marker_size(marker) == case.size


def test_C1_marker_in_full() -> None:
    marker = cap_result("orders_export", "x" * 500, 200).result
    assert serialized(marker) == (
        '{"truncated":true,"reason":"orders_export returned 500 chars, over the 200-char cap. '
        'Narrow the request and call again.","head":"' + "x" * 69 + '"}'
    )


def test_C3_marker_in_full() -> None:
    marker = cap_result("t", "y" * 1000, 40).result
    assert serialized(marker) == (
        '{"truncated":true,"reason":"t returned 1000 chars, over the 40-char cap. '
        'Narrow the request and call again."}'
    )


def test_C4_head_ends_inside_row_11() -> None:
    head = cap_result("list_rows", ROWS, 500).result["head"]
    assert head.endswith('{"id":11,"name":"row-11"},{"id')
    assert len(head) == 297


def test_C4_first_try_does_not_fit() -> None:
    reason = reason_for("list_rows", 5381, 500)
    marker = {"truncated": True, "reason": reason, "head": ROWS_TEXT[:372]}
    assert serialized_size(marker) > 500
    assert next_take(372) == 297


def test_C9_shrink_sequence() -> None:
    text = 'ab"' * 200
    reason = reason_for("t", 600, 200)
    sizes = []
    take = 81
    for _ in range(3):
        sizes.append(
            (take, serialized_size({"truncated": True, "reason": reason, "head": text[:take]}))
        )
        take = next_take(take)
    assert sizes == [(81, 227), (64, 204), (51, 187)]


def test_C10_tail_appears_nowhere() -> None:
    marker = cap_result("dump", "A" * 3000 + "SECRET-TAIL", 400).result
    assert "SECRET" not in serialized(marker)
    assert "TAIL" not in serialized(marker)


@pytest.mark.parametrize(
    ("name", "text", "tool"), [("C11", '"' * 20000, "tool"), ("C12", "\n\t" * 10000, "tool")]
)
def test_C11_C12_shrink_sequence(name: str, text: str, tool: str) -> None:
    takes = [76]
    while len(serialized(text[: takes[-1]])) - 2 > 76:
        takes.append(next_take(takes[-1]))
    assert takes == [76, 60, 48, 38]
    assert len(marker_for(text, tool, 200)["head"]) == 38


def test_C13_reason_escapes_the_tool_name() -> None:
    reason = reason_for('my"tool', 300, 200)
    assert reason.startswith('my"tool returned')
    assert len(serialized(reason)) - 2 == 86
    assert escaped_length(reason) == 86


def test_escaped_length_of_a_lone_surrogate() -> None:
    # No parsed body holds one, and orjson refuses to write one; the core still measures it, as
    # one raw code point beside the usual escapes.
    assert escaped_length("\ud800") == 1
    assert escaped_length('a\udfff"\x01\n', 4) == 1 + 1 + 2 + 6
    marker = marker_for("\ud800" * 300, "t", 200)
    assert marker["head"] == "\ud800" * (200 - 40 - len(marker["reason"]))


def test_C14_reason() -> None:
    marker = cap_result("t", ABSENT, 10).result
    assert marker["reason"] == (
        "t returned 29 chars, over the 10-char cap. Narrow the request and call again."
    )
    assert "head" not in marker


def test_C15_absent_passes_as_absent() -> None:
    assert cap_result("t", ABSENT, 29) == CapOutcome(truncated=False, chars=29, result=ABSENT)


def test_C16_reason() -> None:
    marker = cap_result("t", {"a": "xy"}, 9).result
    assert marker == {
        "truncated": True,
        "reason": "t returned 10 chars, over the 9-char cap. Narrow the request and call again.",
    }


def test_C17_null_passes_as_null() -> None:
    assert cap_result("t", None, 4) == CapOutcome(truncated=False, chars=4, result=None)


def test_N1_escape_pair_is_one_code_point() -> None:
    escaped = orjson.loads('"' + "\\ud83d\\ude00" * 100 + '"')
    raw = orjson.loads(('"' + "😀" * 100 + '"').encode())
    assert escaped == raw == "😀" * 100
    for value in (escaped, raw):
        outcome = cap_result("t", value, 120)
        assert outcome == CapOutcome(truncated=False, chars=100, result=value)


def test_N2_units_and_bytes() -> None:
    text = serialized(cap_result("emoji_feed", "😀" * 300, 200).result)
    assert len(text) == 200
    assert len(text.encode("utf-16-le")) // 2 == 272
    assert len(text.encode("utf-8")) == 416


def test_N3_shrink() -> None:
    value = {"note": "🙂" * 200}
    text = measured_text(value)
    reason = reason_for("t", 211, 200)
    assert serialized_size({"truncated": True, "reason": reason, "head": text[:81]}) == 203
    assert next_take(81) == 64


def test_N4_reason_and_cut_inside_a_cluster() -> None:
    marker = cap_result("🔧fix", WOMAN_AT_LAPTOP * 100, 180).result
    assert marker["reason"] == (
        "🔧fix returned 300 chars, over the 180-char cap. Narrow the request and call again."
    )
    assert len(marker["head"]) == 58
    assert marker["head"][-1] == "\U0001f469"
    marker["head"].encode("utf-8")  # no lone surrogate anywhere


# --- the shrink step (the marker) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("take", "following"),
    [(376, 300), (81, 64), (64, 51), (20, 16), (17, 13), (16, 15), (2, 1), (1, 0)],
)
def test_shrink_step(take: int, following: int) -> None:
    assert next_take(take) == following


def test_shrinking_to_zero_leaves_no_head() -> None:
    # Envelope 120 leaves a budget of 5, and one NUL alone escapes to 6 characters.
    text = "\x00" * 1000
    reason = reason_for("t", 1000, 125)
    assert envelope_of(reason) == 120
    assert cap_result("t", text, 125).result == {"truncated": True, "reason": reason}


# --- the decision's step 1, the full exchange, per-tool caps (core part) --------------------------


def test_cap_for_uses_the_tool_entry_exactly() -> None:
    by_tool = {"read_file": 1000}
    assert cap_for("read_file", 200, by_tool) == 1000
    assert cap_for("Read_File", 200, by_tool) == 200
    assert cap_for("orders_export", 200, by_tool) == 200
    assert cap_for("t", 200, {}) == 200


def test_full_exchange_6_3() -> None:
    by_tool = {"read_file": 1000}
    items = [
        ("orders_export", "x" * 500),
        ("read_file", {"rows": [1, 2, 3]}),
        ("ping", ABSENT),
    ]
    outcomes = [
        (cap_for(t, 200, by_tool), cap_result(t, r, cap_for(t, 200, by_tool))) for t, r in items
    ]
    assert [(cap, o.truncated, o.chars) for cap, o in outcomes] == [
        (200, True, 500),
        (1000, False, 16),
        (200, False, 29),
    ]
    assert outcomes[0][1].result == {
        "truncated": True,
        "reason": "orders_export returned 500 chars, over the 200-char cap. "
        "Narrow the request and call again.",
        "head": "x" * 69,
    }
    assert outcomes[1][1].result == {"rows": [1, 2, 3]}
    assert outcomes[2][1].result is ABSENT
    assert sum(o.truncated for _, o in outcomes) == 1


def test_cap_of_two_6_4() -> None:
    marker = cap_result("t", "abc", 2).result
    assert marker["reason"].endswith("over the 2-char cap. Narrow the request and call again.")
    assert "head" not in marker


# --- recognising a marker -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"truncated": True, "reason": "r", "head": "h"}, True),
        ({"truncated": True, "reason": ""}, True),
        ({"truncated": True, "reason": "r", "extra": 1}, True),
        ({"truncated": "true", "reason": "r"}, False),
        ({"truncated": 1, "reason": "r"}, False),
        ({"truncated": True}, False),
        ({"truncated": True, "reason": None}, False),
        ({"truncated": False, "reason": "r"}, False),
        ([{"truncated": True, "reason": "r"}], False),
        ('{"truncated":true,"reason":"r"}', False),
        (None, False),
    ],
)
def test_is_truncated(value: Any, expected: bool) -> None:
    assert is_truncated(value) is expected
