"""The worked examples of the offer (O1–O13, `docs/rules.md#the-offer`) as one table: the core tests
compute each offer and the HTTP tests post each one, so every expectation is written once.

An example is a transcript of core fixture messages (posted as native wire messages), the `ledger`
as sent (`ABSENT`: not sent at all), the previous batch, the limit, and the fields of the answer it
fixes (all of them where the example gives the whole answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from app.core.messages import Message, ToolCall

S1 = "Pick the tool result to judge from the listed ids, newest first; an id that is not listed cannot be named."  # noqa: E501

ABSENT: Any = object()

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


def row(tool_call_id: Any, standing: Any, **extra: Any) -> dict[str, Any]:
    return {"tool_call_id": tool_call_id, "standing": standing, **extra}


def known(*ids: str) -> list[dict[str, str]]:
    return [
        {"tool_call_id": i, "tool_name": "lookup_port", "result": f"result of {i}"} for i in ids
    ]


def numbered(count: int) -> list[Message]:
    messages = [U]
    for n in range(1, count + 1):
        messages += [A(f"r{n}"), T(f"r{n}")]
    return messages


def r(*numbers: int) -> list[str]:
    return [f"r{n}" for n in numbers]


WIRE = [U, A("c1", "c2"), T("c1"), T("c2"), A("c3"), T("c3")]
SETTLED_C3 = Message(
    "tool", "Not run: the batch was refused.", tool_call_id="c3", not_dispatched=True
)

O1_ANSWER: dict[str, Any] = {
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


def without(answer: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key not in keys}


@dataclass(frozen=True)
class OfferExample:
    messages: list[Message]
    ledger: Any
    previous_batch: list[dict[str, Any]] | None
    limit: int | None
    expect: dict[str, Any] = field(default_factory=dict)


def example(
    name: str,
    messages: list[Message],
    expect: dict[str, Any],
    *,
    ledger: Any = ABSENT,
    previous_batch: list[dict[str, Any]] | None = None,
    limit: int | None = None,
) -> Any:
    return pytest.param(OfferExample(messages, ledger, previous_batch, limit, expect), id=name)


ANON = [{"tool_call_id": "c7", "result": "anon"}]
ANON_NAMED = [{"tool_call_id": "c7", "tool_name": "lookup_port", "result": "anon"}]
EMPTY_ID_BATCH = [{"tool_call_id": "", "result": "z"}]

OFFER_EXAMPLES = [
    # O1 — the whole answer; no ledger, an empty one and a null one are alike.
    example("O1", WIRE, O1_ANSWER),
    example("O1-empty-ledger", WIRE, O1_ANSWER, ledger=[]),
    example("O1-null-ledger", WIRE, O1_ANSWER, ledger=None),
    # O2 — a retired result leaves.
    *(
        example(
            f"O2-{standing}",
            WIRE,
            {
                "offered": ["c3", "c1"],
                "listed": ["c3", "c1"],
                "undeclared": ["c1", "c3"],
                "nameable": ["c1", "c3"],
                "standings": [{"tool_call_id": "c2", "standing": standing}],
            },
            ledger=[row("c2", standing)],
        )
        for standing in ("noise", "ruled-out")
    ),
    *(
        example(
            f"O2-{standing}",
            WIRE,
            {"offered": ["c3", "c2", "c1"], "undeclared": ["c1", "c3"]},
            ledger=[row("c2", standing)],
        )
        for standing in ("fact", "open")
    ),
    # O3 — revision: the last row wins.
    example(
        "O3-open",
        WIRE,
        {"offered": ["c3", "c2", "c1"], "standings": [{"tool_call_id": "c1", "standing": "open"}]},
        ledger=[row("c1", "open")],
    ),
    example(
        "O3-open-fact",
        WIRE,
        {"offered": ["c3", "c2", "c1"], "standings": [{"tool_call_id": "c1", "standing": "fact"}]},
        ledger=[row("c1", "open"), row("c1", "fact")],
    ),
    example(
        "O3-open-fact-ruled-out",
        WIRE,
        {"offered": ["c3", "c2"], "standings": [{"tool_call_id": "c1", "standing": "ruled-out"}]},
        ledger=[row("c1", "open"), row("c1", "fact"), row("c1", "ruled-out")],
    ),
    example(
        "O3-brought-back",
        WIRE,
        {"offered": ["c3", "c2", "c1"], "standings": [{"tool_call_id": "c1", "standing": "fact"}]},
        ledger=[row("c1", "open"), row("c1", "fact"), row("c1", "ruled-out"), row("c1", "fact")],
    ),
    # O4 — the fold keeps the order of first naming.
    example(
        "O4",
        WIRE,
        {
            "standings": [
                {"tool_call_id": "c3", "standing": "noise", "tool_name": "lookup_port"},
                {"tool_call_id": "c1", "standing": "fact", "tool_name": "lookup_port"},
            ],
            "offered": ["c2", "c1"],
            "undeclared": ["c2"],
            "nameable": ["c1", "c2"],
        },
        ledger=[
            row("c3", "open", tool_name="lookup_port"),
            row("c1", "fact", tool_name="lookup_port"),
            row("c3", "noise", tool_name="lookup_port"),
        ],
    ),
    # O5 — ids the transcript does not serve change nothing but the standings.
    example(
        "O5",
        WIRE,
        {
            **without(O1_ANSWER, "standings"),
            "standings": [
                {"tool_call_id": "0", "standing": "noise"},
                {"tool_call_id": "c9", "standing": "fact"},
            ],
        },
        ledger=[row("0", "noise"), row("c9", "fact")],
    ),
    # O6 — each id once.
    example(
        "O6",
        [U, A("a", "b"), T("a"), T("b"), A("a"), T("a", "again")],
        {
            "served": ["a", "b"],
            "offered": ["b", "a"],
            "undeclared": ["a", "b"],
            "known_results": known("a", "b"),
        },
    ),
    # O7 — the previous batch is read first.
    example(
        "O7",
        WIRE,
        {
            **without(O1_ANSWER, "known_results"),
            "known_results": [
                {"tool_call_id": "c3", "tool_name": "lookup_port", "result": "fresh r3"},
                *known("c1", "c2"),
            ],
        },
        previous_batch=[{"tool_call_id": "c3", "tool_name": "lookup_port", "result": "fresh r3"}],
    ),
    # O8 — nothing is invented: a name is recovered from the call or left out.
    example(
        "O8",
        [U, T("c7", "anon", tool_name=None)],
        {"known_results": ANON, "served": ["c7"], "offered": ["c7"]},
        previous_batch=EMPTY_ID_BATCH,
    ),
    example(
        "O8-name-recovered",
        [U, A("c7"), T("c7", "anon", tool_name=None)],
        {"known_results": ANON_NAMED, "served": ["c7"], "offered": ["c7"]},
        previous_batch=EMPTY_ID_BATCH,
    ),
    example(
        "O8-recovered-over-an-empty-name",
        [U, A("c7"), T("c7", "anon", tool_name="")],
        {"known_results": ANON_NAMED},
        previous_batch=EMPTY_ID_BATCH,
    ),
    example(
        "O8-batch-entry-named-from-the-call",
        [U, A("c7"), T("c7", "anon", tool_name=None)],
        {
            "known_results": [
                {"tool_call_id": "c7", "tool_name": "lookup_port", "result": "batch anon"}
            ]
        },
        previous_batch=[{"tool_call_id": "c7", "tool_name": None, "result": "batch anon"}],
    ),
    # O9 — one fold, two sets.
    example(
        "O9",
        WIRE,
        {"undeclared": [], "nameable": ["c1", "c3"], "offered": ["c3", "c1"]},
        ledger=[row("c1", "fact"), row("c2", "ruled-out"), row("c3", "open")],
    ),
    example(
        "O9-one-row",
        WIRE,
        {"undeclared": ["c1", "c3"], "offered": ["c3", "c1"]},
        ledger=[row("c2", "ruled-out")],
    ),
    # O10 — the limit and the description.
    example(
        "O10-40-results",
        numbered(40),
        {
            "offered": r(*range(40, 0, -1)),
            "listed": r(*range(40, 8, -1)),
            "omitted": 8,
            "description": S1
            + " 8 older results that may still be named are left off this list, which holds the "
            "newest 32.",
        },
        limit=32,
    ),
    example(
        "O10-33-results",
        numbered(33),
        {
            "listed": r(*range(33, 1, -1)),
            "omitted": 1,
            "description": S1
            + " 1 older result that may still be named is left off this list, which holds the "
            "newest 32.",
        },
    ),
    example(
        "O10-32-results",
        numbered(32),
        {"listed": r(*range(32, 0, -1)), "omitted": 0, "description": S1},
    ),
    example(
        "O10-ledger",
        numbered(40),
        {
            "offered": r(*range(38, 0, -1)),
            "listed": r(*range(38, 6, -1)),
            "omitted": 6,
            "undeclared": r(*(n for n in range(1, 39) if n != 5)),
        },
        ledger=[row("r40", "noise"), row("r39", "ruled-out"), row("r5", "fact")],
    ),
    example(
        "O10-limit-1",
        WIRE,
        {
            "listed": ["c3"],
            "omitted": 2,
            "description": S1
            + " 2 older results that may still be named are left off this list, which holds the "
            "newest 1.",
        },
        limit=1,
    ),
    example(
        "O10-no-result",
        [U],
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
    ),
    # O11 — a settled message is no result.
    example(
        "O11",
        [U, A("c1", "c3"), T("c1"), SETTLED_C3],
        {
            "served": ["c1"],
            "offered": ["c1"],
            "undeclared": ["c1"],
            "known_results": known("c1"),
            "standings": [{"tool_call_id": "c3", "standing": "noise"}],
        },
        ledger=[row("c3", "noise")],
    ),
    example(
        "O11-not-settled",
        [U, A("c1", "c3"), T("c1"), T("c3")],
        {"served": ["c1", "c3"], "offered": ["c1"], "undeclared": ["c1"]},
        ledger=[row("c3", "noise")],
    ),
    # O12 — rows of other kinds are skipped; a row without a kind is a standing.
    example(
        "O12",
        WIRE,
        {
            "standings": [
                {"tool_call_id": "c2", "standing": "fact", "tool_name": "lookup_port_v2"}
            ],
            "offered": ["c3", "c2", "c1"],
            "undeclared": ["c1", "c3"],
        },
        ledger=[
            {"kind": "basis", "tool_call_id": "c1", "basis": "direct"},
            row("c2", "open", tool_name="lookup_port"),
            {"kind": "judgment", "tool_call_id": "c3", "standing": "noise"},
            {"kind": "standing", **row("c2", "fact", tool_name="lookup_port_v2")},
        ],
    ),
    # O13 — a row of another kind is not checked.
    example(
        "O13-other-kind-unchecked",
        WIRE,
        O1_ANSWER,
        ledger=[{"kind": "judgment", "standing": "settled"}],
    ),
]
