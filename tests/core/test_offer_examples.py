"""The worked examples of docs/rules.md#the-offer: the offer (O1–O13; the table in
`tests/core/offer_examples.py`, which the HTTP tests post too) and the collapsed tickets (K1–K5)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.core.collapse import collapse, is_ticket, ticket_for
from app.core.ledger import StandingRow, fold_ledger
from app.core.messages import Message
from app.core.offer import (
    LISTED_SENTENCE,
    BatchEntry,
    describe_offer,
    known_results,
    nameable,
    offer,
    served_ids,
    undeclared,
)
from app.errors import InvalidRequest
from app.service.ledger import read_ledger
from app.service.transcript import read_ledger_and_transcript
from tests.core.offer_examples import (
    ABSENT,
    O1_ANSWER,
    OFFER_EXAMPLES,
    S1,
    WIRE,
    A,
    OfferExample,
    T,
    U,
    row,
)


def run(
    messages: list[Message],
    ledger: Any = None,
    previous_batch: list[dict[str, Any]] | None = None,
    limit: int = 32,
) -> dict[str, Any]:
    """The offer as the response body would carry it (serialized by orjson, read back)."""
    batch = [
        BatchEntry(e["tool_call_id"], e.get("tool_name"), e["result"]) for e in previous_batch or []
    ]
    answer = offer(messages, fold_ledger(read_ledger(ledger)), batch, limit)
    body: dict[str, Any] = orjson.loads(orjson.dumps(answer))
    return body


@pytest.mark.parametrize("ledger", [None, []], ids=["O1 no ledger", "O1 empty ledger"])
def test_O1_the_whole_answer_byte_for_byte(ledger: Any) -> None:
    answer = offer(WIRE, fold_ledger(read_ledger(ledger)), [], 32)
    assert orjson.dumps(answer) == orjson.dumps(O1_ANSWER)
    assert S1 == LISTED_SENTENCE


@pytest.mark.parametrize("case", OFFER_EXAMPLES)
def test_offer_example(case: OfferExample) -> None:
    ledger = None if case.ledger is ABSENT else case.ledger
    body = run(case.messages, ledger, case.previous_batch, case.limit or 32)
    assert list(body) == list(O1_ANSWER)
    assert {key: body[key] for key in case.expect} == case.expect


def test_O11_settled_message_is_not_dispatched_only_when_marked_true() -> None:
    settled = Message("tool", "x", tool_call_id="c3", tool_name="lookup_port", not_dispatched=True)
    assert served_ids([U, A("c1", "c3"), T("c1"), settled]) == ["c1"]
    assert served_ids([U, A("c1", "c3"), T("c1"), T("c3")]) == ["c1", "c3"]


def test_O12_standings_keep_their_key_order() -> None:
    answer = offer(WIRE, fold_ledger(read_ledger([row("c2", "open", tool_name="t")])), [], 32)
    assert orjson.dumps(answer.standings) == (
        b'[{"tool_call_id":"c2","standing":"open","tool_name":"t"}]'
    )
    batch = [BatchEntry("c9", "t9", "r9")]
    assert orjson.dumps(known_results(WIRE, batch)[0]) == (
        b'{"tool_call_id":"c9","tool_name":"t9","result":"r9"}'
    )


def test_section_3_sets_take_any_ids_each_once() -> None:
    fold = fold_ledger([StandingRow("c1", "fact")])
    assert undeclared(["c2", "c2", "c1", "c3", "c2"], fold) == ["c2", "c3"]
    assert nameable(["c2", "c2", "c1", "c3", "c2"], fold) == ["c2", "c1", "c3"]
    retired = fold_ledger([StandingRow("c1", "noise")])
    assert nameable(["c2", "c1", "c3"], retired) == ["c2", "c3"]


@pytest.mark.parametrize(
    ("omitted", "limit", "expected"),
    [
        (0, 32, S1),
        (
            1,
            32,
            S1 + " 1 older result that may still be named is left off this list, which holds the"
            " newest 32.",
        ),
        (
            1234,
            5,
            S1 + " 1234 older results that may still be named are left off this list, which holds"
            " the newest 5.",
        ),
    ],
    ids=["3.1 none omitted", "3.1 one omitted", "3.1 many omitted"],
)
def test_describe_offer(omitted: int, limit: int, expected: str) -> None:
    assert describe_offer(omitted, limit) == expected


def test_limit_below_one_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        offer(WIRE, {}, [], 0)


# O13 — rejected ledgers, located relative to the ledger array.
@pytest.mark.parametrize(
    ("ledger", "locs"),
    [
        pytest.param([row("c1", "settled")], [(0, "standing")], id="O13 settled"),
        pytest.param([row("c1", "Fact")], [(0, "standing")], id="O13 Fact"),
        pytest.param([row("c1", "ruled_out")], [(0, "standing")], id="O13 ruled_out"),
        pytest.param([{"tool_call_id": "c1"}], [(0, "standing")], id="O13 no standing"),
        pytest.param([row("c1", None)], [(0, "standing")], id="O13 null standing"),
        pytest.param([row("c1", 3)], [(0, "standing")], id="O13 numeric standing"),
        pytest.param(
            [{"tool_call_id": 5, "standing": "fact"}], [(0, "tool_call_id")], id="O13 numeric id"
        ),
        pytest.param([{"standing": "fact"}], [(0, "tool_call_id")], id="O13 no id"),
        pytest.param(
            [{"tool_call_id": None, "standing": "fact"}], [(0, "tool_call_id")], id="O13 null id"
        ),
        pytest.param(["c1"], [(0,)], id="O13 row not an object"),
        pytest.param([{"kind": 7}], [(0, "kind")], id="O13 numeric kind"),
        pytest.param({}, [()], id="O13 ledger an object"),
        pytest.param("c1:fact", [()], id="O13 ledger a string"),
        pytest.param(
            [row("c1", "fact", tool_name=5), row("c2", "fact", ref=["art"])],
            [(0, "tool_name"), (1, "ref")],
            id="O13 tool_name and ref not strings",
        ),
        pytest.param(
            [row("c1", "fact"), ["c2"], {"standing": "nois"}, {"kind": False}],
            [(1,), (2, "tool_call_id"), (2, "standing"), (3, "kind")],
            id="O13 every violation collected",
        ),
    ],
)
def test_O13_rejected_ledger(ledger: Any, locs: list[tuple[str | int, ...]]) -> None:
    with pytest.raises(InvalidRequest) as raised:
        read_ledger(ledger)
    assert [error.loc for error in raised.value.errors] == locs
    assert all(error.msg for error in raised.value.errors)


@pytest.mark.parametrize(
    ("ledger", "rows"),
    [
        pytest.param(
            [{"kind": "judgment", "standing": "settled"}], (), id="O13 other kind unchecked"
        ),
        pytest.param(
            [{"kind": "basis", "tool_call_id": 5, "tool_name": 6, "ref": 7}],
            (),
            id="O13 other kind, faulty fields",
        ),
        pytest.param(
            [{"kind": None, "tool_call_id": "", "standing": "open", "tool_name": None}],
            (StandingRow("", "open"),),
            id="O13 null kind, empty id",
        ),
        pytest.param(
            [row("0", "noise", ref="art_1", tool_name="t", iteration=3, assertions=["x"])],
            (StandingRow("0", "noise", "t", "art_1"),),
            id="O13 extra fields ignored",
        ),
    ],
)
def test_O13_accepted_ledger(ledger: Any, rows: tuple[StandingRow, ...]) -> None:
    assert read_ledger(ledger) == rows


def test_absent_ledger_stays_absent_for_the_window_plan() -> None:
    def rows_of(body: dict[str, Any]) -> tuple[StandingRow, ...] | None:
        rows, _ = read_ledger_and_transcript({"messages": [], **body}, 10, [])
        return rows

    assert rows_of({}) is None
    assert rows_of({"ledger": None}) is None
    assert rows_of({"ledger": []}) == ()
    assert read_ledger(None) == ()


# K — collapsed tickets.
K_CONTENTS = [
    "p1 state: down",
    "unrelated banner",
    "p2 moved?",
    "switch B inventory",
    "late result",
]
K_TRANSCRIPT = [U]
for _n, _text in enumerate(K_CONTENTS, start=1):
    K_TRANSCRIPT += [A(f"c{_n}", name="alpha_tool"), T(f"c{_n}", _text, tool_name="alpha_tool")]
K_LEDGER = [row("c1", "fact"), row("c2", "noise"), row("c3", "open"), row("c4", "ruled-out")]


def k_fold(ledger: Any) -> dict[str, StandingRow]:
    return fold_ledger(read_ledger(ledger))


def assert_only_content_changed(before: list[Message], after: list[Message]) -> None:
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        assert (old.role, old.tool_call_id, old.tool_name, old.not_dispatched) == (
            new.role,
            new.tool_call_id,
            new.tool_name,
            new.not_dispatched,
        )


def test_K1_ledger_and_facts() -> None:
    view, changed = collapse(K_TRANSCRIPT, k_fold(K_LEDGER), "ledger-and-facts")
    assert changed == [4, 8]
    assert view[4].content == '{"collapsed":true,"standing":"noise","tool_call_id":"c2"}'
    assert view[8].content == '{"collapsed":true,"standing":"ruled-out","tool_call_id":"c4"}'
    assert view[4].tool_name == view[8].tool_name == "alpha_tool"
    assert [view[i].content for i in (2, 6, 10)] == ["p1 state: down", "p2 moved?", "late result"]
    assert [m for i, m in enumerate(view) if i not in changed] == [
        m for i, m in enumerate(K_TRANSCRIPT) if i not in changed
    ]
    assert_only_content_changed(K_TRANSCRIPT, view)
    assert collapse(K_TRANSCRIPT, k_fold(K_LEDGER)) == (view, changed)


def test_K1_ticket_counts_like_any_content() -> None:
    assert len(ticket_for(StandingRow("c4", "ruled-out"))) == 61


def test_K2_ledger_only_and_idempotent() -> None:
    view, changed = collapse(K_TRANSCRIPT, k_fold(K_LEDGER), "ledger-only")
    assert changed == [2, 4, 8]
    assert view[2].content == '{"collapsed":true,"standing":"fact","tool_call_id":"c1"}'
    assert view[6].content == "p2 moved?"
    assert view[10].content == "late result"
    assert_only_content_changed(K_TRANSCRIPT, view)
    again, changed_again = collapse(view, k_fold(K_LEDGER), "ledger-only")
    assert changed_again == []
    assert again == view


def test_K3_ticket_carries_the_winning_rows_ref() -> None:
    messages = [U, A("c5", name="fetch_log"), T("c5", "artifact:art_9f3c", tool_name="fetch_log")]
    ledger = [
        {"tool_call_id": "c5", "standing": "noise", "tool_name": "fetch_log", "ref": "art_9f3c"}
    ]
    view, changed = collapse(messages, k_fold(ledger))
    assert changed == [2]
    assert view[2].content == (
        '{"collapsed":true,"standing":"noise","tool_call_id":"c5","ref":"art_9f3c"}'
    )
    assert view[2].tool_name == "fetch_log"
    # An earlier row's ref is not used when the winning row has none.
    revised = [*ledger, row("c5", "ruled-out")]
    assert collapse(messages, k_fold(revised))[0][2].content == (
        '{"collapsed":true,"standing":"ruled-out","tool_call_id":"c5"}'
    )


def test_K4_every_message_with_the_id_collapses_and_settled_stays() -> None:
    settled_sentence = "Not run: the batch was refused."
    messages = [
        U,
        A("c1", "c3"),
        T("c1"),
        Message("tool", settled_sentence, tool_call_id="c3", not_dispatched=True),
        T("c1", "dup"),
    ]
    view, changed = collapse(messages, k_fold([row("c1", "ruled-out"), row("c3", "noise")]))
    assert changed == [2, 4]
    ticket = '{"collapsed":true,"standing":"ruled-out","tool_call_id":"c1"}'
    assert view[2].content == view[4].content == ticket
    assert view[3] == messages[3]
    assert view[3].content == settled_sentence


@pytest.mark.parametrize(
    "ledger",
    [None, [], [{"kind": "basis", "tool_call_id": "c2", "basis": "direct"}]],
    ids=["K5 no ledger", "K5 empty ledger", "K5 no standing row"],
)
@pytest.mark.parametrize("mode", ["ledger-and-facts", "ledger-only"])
def test_K5_nothing_to_collapse(ledger: Any, mode: Any) -> None:
    view, changed = collapse(K_TRANSCRIPT, k_fold(ledger), mode)
    assert changed == []
    assert view == K_TRANSCRIPT


def test_collapse_does_not_change_the_offer_of_the_committed_transcript() -> None:
    fold = k_fold(K_LEDGER)
    view, _ = collapse(K_TRANSCRIPT, fold, "ledger-only")
    before, after = offer(K_TRANSCRIPT, fold), offer(view, fold)
    assert (before.served, before.offered, before.undeclared, before.nameable) == (
        after.served,
        after.offered,
        after.undeclared,
        after.nameable,
    )


def test_unknown_collapse_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        collapse(K_TRANSCRIPT, k_fold(K_LEDGER), "everything")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{"collapsed":true,"standing":"noise","tool_call_id":"c2"}', True),
        ('{"collapsed":true,"standing":"noise","tool_call_id":"c5","ref":"art_9f3c"}', True),
        ('{"collapsed": true, "tool_call_id": "c2", "standing": "weird", "extra": 1}', True),
        ({"collapsed": True, "standing": "fact", "tool_call_id": ""}, True),
        ('{"collapsed":"true","standing":"noise","tool_call_id":"c2"}', False),
        ('{"collapsed":1,"standing":"noise","tool_call_id":"c2"}', False),
        ('{"collapsed":true,"standing":"noise"}', False),
        ('{"collapsed":true,"standing":null,"tool_call_id":"c2"}', False),
        ('{"collapsed":true,"standing":"noise","tool_call_id":7}', False),
        ('[{"collapsed":true,"standing":"noise","tool_call_id":"c2"}]', False),
        ('"{\\"collapsed\\":true}"', False),
        ("p1 state: down", False),
        ("", False),
        (None, False),
    ],
)
def test_is_ticket(value: Any, expected: bool) -> None:
    assert is_ticket(value) is expected
