"""The ledger reader's quick path for plainly valid rows agrees with the checking path.

`read_ledger` first tries to read every row with exact type tests and falls back to
`checked_rows` on anything unusual; the two must give the same rows, or the same violations, for
any ledger. Rows are drawn from valid values, near misses and wrong types for every field.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.ledger import STANDINGS, StandingRow
from app.errors import InvalidRequest
from app.service.ledger import checked_rows, read_ledger

ODD_VALUES = st.sampled_from([None, 0, 1.5, True, False, [], ["c1"], {}, {"a": 1}, ""])
IDS = st.sampled_from(["c1", "c2", "", "call_7"]) | ODD_VALUES
STANDING_VALUES = st.sampled_from([*STANDINGS, "Fact", "settled", "ruled_out"]) | ODD_VALUES
KINDS = st.sampled_from(["standing", "judgment", "basis", "Standing"]) | ODD_VALUES
TEXTS = st.sampled_from(["read_file", "art_1"]) | ODD_VALUES


FIELDS = (
    ("kind", KINDS),
    ("tool_call_id", IDS),
    ("standing", STANDING_VALUES),
    ("tool_name", TEXTS),
    ("ref", TEXTS),
)


@st.composite
def rows(draw: Any) -> Any:
    """A plainly valid row, then most often one field changed, added or removed."""
    if draw(st.integers(0, 19)) == 0:
        return draw(st.sampled_from(["c1:fact", 3, None, ["c1", "fact"]]))
    row: dict[str, Any] = {
        "tool_call_id": draw(st.sampled_from(["c1", "c2", ""])),
        "standing": draw(st.sampled_from(STANDINGS)),
    }
    if draw(st.booleans()):
        row["iteration"] = 3
    if draw(st.integers(0, 2)):
        field, values = draw(st.sampled_from(FIELDS))
        if draw(st.integers(0, 3)) == 0:
            row.pop(field, None)
        else:
            row[field] = draw(values)
    return row


def outcome(read: Any, ledger: list[Any]) -> Any:
    try:
        return read(ledger)
    except InvalidRequest as invalid:
        return [(error.loc, error.msg, error.type) for error in invalid.errors]


@given(st.lists(rows(), max_size=5))
def test_quick_path_agrees_with_the_checking_path(ledger: list[Any]) -> None:
    assert outcome(read_ledger, ledger) == outcome(checked_rows, ledger)


@given(
    st.lists(
        st.fixed_dictionaries(
            {"tool_call_id": st.text(max_size=4), "standing": st.sampled_from(STANDINGS)},
            optional={
                "kind": st.sampled_from([None, "standing", "judgment"]),
                "tool_name": st.none() | st.text(max_size=4),
                "ref": st.none() | st.text(max_size=4),
            },
        ),
        max_size=6,
    )
)
def test_plain_rows_read_as_written(ledger: list[dict[str, Any]]) -> None:
    expected = tuple(
        StandingRow(row["tool_call_id"], row["standing"], row.get("tool_name"), row.get("ref"))
        for row in ledger
        if row.get("kind") in (None, "standing")
    )
    assert read_ledger(ledger) == expected


@pytest.mark.parametrize(
    "row",
    [
        {"tool_call_id": "c1", "standing": "fact", "tool_name": 5},
        {"tool_call_id": "c1", "standing": "fact", "ref": ["x"]},
        {"tool_call_id": 1, "standing": "fact"},
        {"tool_call_id": "c1", "standing": "Fact"},
        {"tool_call_id": "c1", "standing": ["fact"]},
        {"kind": 7, "tool_call_id": "c1", "standing": "fact"},
        ["c1", "fact"],
    ],
)
def test_one_faulty_row_among_plain_ones_is_still_refused(row: Any) -> None:
    ledger = [{"tool_call_id": "c0", "standing": "open"}, row]
    with pytest.raises(InvalidRequest) as raised:
        read_ledger(ledger)
    assert raised.value.errors[0].loc[0] == 1
