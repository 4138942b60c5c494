"""The worked examples of offer.md: the offer (O1–O13) and the collapsed tickets (K1–K5)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.api.ledger import read_ledger
from app.api.transcript import read_ledger_and_transcript
from app.core.collapse import collapse, is_ticket, ticket_for
from app.core.ledger import StandingRow, fold_ledger
from app.core.messages import Message, ToolCall
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

S1 = "Pick the tool result to judge from the listed ids, newest first; an id that is not listed cannot be named."  # noqa: E501

U = Message("user", "find the port the billing service listens on")


def A(*ids: str, name: str = "lookup_port") -> Message:
    return Message("assistant", "", tool_calls=tuple(ToolCall(i, name) for i in ids))


def T(
    tool_call_id: str,
    content: str | None = None,
    *,
    tool_name: str | None = "lookup_port",
    not_dispatched: bool = False,
) -> Message:
    text = f"result of {tool_call_id}" if content is None else content
    return Message(
        "tool",
        text,
        tool_call_id=tool_call_id,
        tool_name=tool_name,
        not_dispatched=not_dispatched,
    )


def row(tool_call_id: str, standing: Any, **extra: Any) -> dict[str, Any]:
    return {"tool_call_id": tool_call_id, "standing": standing, **extra}


WIRE = [U, A("c1", "c2"), T("c1"), T("c2"), A("c3"), T("c3")]


def numbered(count: int) -> list[Message]:
    messages = [U]
    for n in range(1, count + 1):
        messages += [A(f"r{n}"), T(f"r{n}")]
    return messages


def r(*numbers: int) -> list[str]:
    return [f"r{n}" for n in numbers]


def known(*ids: str) -> list[dict[str, str]]:
    return [
        {"tool_call_id": i, "tool_name": "lookup_port", "result": f"result of {i}"} for i in ids
    ]


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


O1_BODY: dict[str, Any] = {
    "offered": ["c3", "c2", "c1"],
    "listed": ["c3", "c2", "c1"],
    "omitted": 0,
    "description": S1,
    "served": ["c1", "c2", "c3"],
    "undeclared": ["c1", "c2", "c3"],
    "nameable": ["c1", "c2", "c3"],
    "standings": [],
    "known_results": known("c1", "c2", "c3"),
}
O1_SETS = {key: O1_BODY[key] for key in ("offered", "served", "undeclared", "nameable")}


@pytest.mark.parametrize("ledger", [None, []], ids=["O1 no ledger", "O1 empty ledger"])
def test_O1_the_whole_answer_byte_for_byte(ledger: Any) -> None:
    answer = offer(WIRE, fold_ledger(read_ledger(ledger)), [], 32)
    assert orjson.dumps(answer) == orjson.dumps(O1_BODY)
    assert S1 == LISTED_SENTENCE


EXAMPLES: list[Any] = [
    # O2 — a retired result leaves.
    pytest.param(
        WIRE,
        [row("c2", "noise")],
        None,
        32,
        {
            "offered": ["c3", "c1"],
            "undeclared": ["c1", "c3"],
            "nameable": ["c1", "c3"],
            "standings": [{"tool_call_id": "c2", "standing": "noise"}],
        },
        id="O2 noise",
    ),
    pytest.param(
        WIRE,
        [row("c2", "ruled-out")],
        None,
        32,
        {
            "offered": ["c3", "c1"],
            "undeclared": ["c1", "c3"],
            "nameable": ["c1", "c3"],
            "standings": [{"tool_call_id": "c2", "standing": "ruled-out"}],
        },
        id="O2 ruled-out",
    ),
    pytest.param(
        WIRE,
        [row("c2", "fact")],
        None,
        32,
        {"offered": ["c3", "c2", "c1"], "undeclared": ["c1", "c3"]},
        id="O2 fact",
    ),
    pytest.param(
        WIRE,
        [row("c2", "open")],
        None,
        32,
        {"offered": ["c3", "c2", "c1"], "undeclared": ["c1", "c3"]},
        id="O2 open",
    ),
    # O3 — revision, last row wins.
    pytest.param(
        WIRE, [row("c1", "open")], None, 32, {"offered": ["c3", "c2", "c1"]}, id="O3 open"
    ),
    pytest.param(
        WIRE,
        [row("c1", "open"), row("c1", "fact")],
        None,
        32,
        {"offered": ["c3", "c2", "c1"], "standings": [{"tool_call_id": "c1", "standing": "fact"}]},
        id="O3 open fact",
    ),
    pytest.param(
        WIRE,
        [row("c1", "open"), row("c1", "fact"), row("c1", "ruled-out")],
        None,
        32,
        {"offered": ["c3", "c2"], "standings": [{"tool_call_id": "c1", "standing": "ruled-out"}]},
        id="O3 open fact ruled-out",
    ),
    pytest.param(
        WIRE,
        [row("c1", "open"), row("c1", "fact"), row("c1", "ruled-out"), row("c1", "fact")],
        None,
        32,
        {"offered": ["c3", "c2", "c1"], "standings": [{"tool_call_id": "c1", "standing": "fact"}]},
        id="O3 brought back",
    ),
    # O4 — fold order is first naming.
    pytest.param(
        WIRE,
        [
            row("c3", "open", tool_name="lookup_port"),
            row("c1", "fact", tool_name="lookup_port"),
            row("c3", "noise", tool_name="lookup_port"),
        ],
        None,
        32,
        {
            "standings": [
                {"tool_call_id": "c3", "standing": "noise", "tool_name": "lookup_port"},
                {"tool_call_id": "c1", "standing": "fact", "tool_name": "lookup_port"},
            ],
            "offered": ["c2", "c1"],
            "undeclared": ["c2"],
            "nameable": ["c1", "c2"],
        },
        id="O4",
    ),
    # O5 — ids the transcript does not serve.
    pytest.param(
        WIRE,
        [row("0", "noise"), row("c9", "fact")],
        None,
        32,
        {
            **O1_SETS,
            "listed": ["c3", "c2", "c1"],
            "known_results": known("c1", "c2", "c3"),
            "standings": [
                {"tool_call_id": "0", "standing": "noise"},
                {"tool_call_id": "c9", "standing": "fact"},
            ],
        },
        id="O5",
    ),
    # O6 — each id once.
    pytest.param(
        [U, A("a", "b"), T("a"), T("b"), A("a"), T("a", "again")],
        None,
        None,
        32,
        {
            "served": ["a", "b"],
            "offered": ["b", "a"],
            "undeclared": ["a", "b"],
            "known_results": known("a", "b"),
        },
        id="O6",
    ),
    # O7 — the previous batch is read first.
    pytest.param(
        WIRE,
        None,
        [{"tool_call_id": "c3", "tool_name": "lookup_port", "result": "fresh r3"}],
        32,
        {
            **O1_SETS,
            "known_results": [
                {"tool_call_id": "c3", "tool_name": "lookup_port", "result": "fresh r3"},
                *known("c1", "c2"),
            ],
        },
        id="O7",
    ),
    # O8 — nothing is invented.
    pytest.param(
        [U, T("c7", "anon", tool_name=None)],
        None,
        [{"tool_call_id": "", "result": "z"}],
        32,
        {
            "known_results": [{"tool_call_id": "c7", "result": "anon"}],
            "served": ["c7"],
            "offered": ["c7"],
        },
        id="O8 native",
    ),
    pytest.param(
        # The OpenAI wire carries no name on a result: the core message has none.
        [U, Message("tool", "anon", tool_call_id="c7")],
        None,
        [{"tool_call_id": "", "result": "z"}],
        32,
        {
            "known_results": [{"tool_call_id": "c7", "result": "anon"}],
            "served": ["c7"],
            "offered": ["c7"],
        },
        id="O8 openai",
    ),
    pytest.param(
        [U, A("c7"), T("c7", "anon", tool_name=None)],
        None,
        [{"tool_call_id": "", "result": "z"}],
        32,
        {
            "known_results": [{"tool_call_id": "c7", "tool_name": "lookup_port", "result": "anon"}],
            "served": ["c7"],
            "offered": ["c7"],
        },
        id="O8 recovered from the call",
    ),
    pytest.param(
        [U, A("c7"), Message("tool", "anon", tool_call_id="c7", tool_name="")],
        None,
        [{"tool_call_id": "", "result": "z"}],
        32,
        {"known_results": [{"tool_call_id": "c7", "tool_name": "lookup_port", "result": "anon"}]},
        id="O8 openai recovered, empty wire name",
    ),
    pytest.param(
        [U, A("c7"), T("c7", "anon", tool_name=None)],
        None,
        [{"tool_call_id": "c7", "tool_name": None, "result": "batch anon"}],
        32,
        {
            "known_results": [
                {"tool_call_id": "c7", "tool_name": "lookup_port", "result": "batch anon"}
            ]
        },
        id="O8 batch entry named from the call",
    ),
    # O9 — one fold, two sets.
    pytest.param(
        WIRE,
        [row("c1", "fact"), row("c2", "ruled-out"), row("c3", "open")],
        None,
        32,
        {"undeclared": [], "nameable": ["c1", "c3"], "offered": ["c3", "c1"]},
        id="O9 all judged",
    ),
    pytest.param(
        WIRE,
        [row("c2", "ruled-out")],
        None,
        32,
        {"undeclared": ["c1", "c3"], "offered": ["c3", "c1"]},
        id="O9 one judged",
    ),
    # O10 — limit and description.
    pytest.param(
        numbered(40),
        None,
        None,
        32,
        {
            "offered": r(*range(40, 0, -1)),
            "listed": r(*range(40, 8, -1)),
            "omitted": 8,
            "description": S1
            + " 8 older results that may still be named are left off this list, which holds the"
            " newest 32.",
        },
        id="O10 forty results",
    ),
    pytest.param(
        numbered(33),
        None,
        None,
        32,
        {
            "listed": r(*range(33, 1, -1)),
            "omitted": 1,
            "description": S1
            + " 1 older result that may still be named is left off this list, which holds the"
            " newest 32.",
        },
        id="O10 thirty-three results",
    ),
    pytest.param(
        numbered(32),
        None,
        None,
        32,
        {"listed": r(*range(32, 0, -1)), "omitted": 0, "description": S1},
        id="O10 thirty-two results",
    ),
    pytest.param(
        numbered(40),
        [row("r40", "noise"), row("r39", "ruled-out"), row("r5", "fact")],
        None,
        32,
        {
            "offered": r(*range(38, 0, -1)),
            "listed": r(*range(38, 6, -1)),
            "omitted": 6,
            "undeclared": [i for i in r(*range(1, 39)) if i != "r5"],
        },
        id="O10 forty with a ledger",
    ),
    pytest.param(
        WIRE,
        None,
        None,
        1,
        {
            "listed": ["c3"],
            "omitted": 2,
            "description": S1
            + " 2 older results that may still be named are left off this list, which holds the"
            " newest 1.",
        },
        id="O10 limit 1",
    ),
    pytest.param(
        [U],
        None,
        None,
        32,
        {
            "offered": [],
            "listed": [],
            "omitted": 0,
            "description": S1,
            "served": [],
            "undeclared": [],
            "nameable": [],
            "standings": [],
            "known_results": [],
        },
        id="O10 no result",
    ),
    # O11 — a settled message is no result.
    pytest.param(
        [
            U,
            A("c1", "c3"),
            T("c1"),
            Message(
                "tool",
                "Not run: the batch was refused.",
                tool_call_id="c3",
                not_dispatched=True,
            ),
        ],
        [row("c3", "noise")],
        None,
        32,
        {
            "served": ["c1"],
            "offered": ["c1"],
            "undeclared": ["c1"],
            "known_results": known("c1"),
            "standings": [{"tool_call_id": "c3", "standing": "noise"}],
        },
        id="O11 settled",
    ),
    pytest.param(
        [U, A("c1", "c3"), T("c1"), T("c3")],
        [row("c3", "noise")],
        None,
        32,
        {"served": ["c1", "c3"], "offered": ["c1"], "undeclared": ["c1"]},
        id="O11 not settled",
    ),
    # O12 — other kinds are skipped; kind defaults to standing.
    pytest.param(
        WIRE,
        [
            {"kind": "basis", "tool_call_id": "c1", "basis": "direct"},
            row("c2", "open", tool_name="lookup_port"),
            {"kind": "judgment", "tool_call_id": "c3", "standing": "noise"},
            {"kind": "standing", **row("c2", "fact", tool_name="lookup_port_v2")},
        ],
        None,
        32,
        {
            "standings": [
                {"tool_call_id": "c2", "standing": "fact", "tool_name": "lookup_port_v2"}
            ],
            "offered": ["c3", "c2", "c1"],
            "undeclared": ["c1", "c3"],
        },
        id="O12",
    ),
]


@pytest.mark.parametrize(("messages", "ledger", "batch", "limit", "expected"), EXAMPLES)
def test_offer_example(
    messages: list[Message],
    ledger: Any,
    batch: list[dict[str, Any]] | None,
    limit: int,
    expected: dict[str, Any],
) -> None:
    body = run(messages, ledger, batch, limit)
    assert list(body) == list(O1_BODY)
    assert {key: body[key] for key in expected} == expected


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
