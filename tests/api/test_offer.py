"""`POST /v1/offer` through HTTP: the worked examples O1–O13 of offer.md, the Swagger examples, and
every refusal of a bad request (one 422 naming each field)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI
from starlette.routing import NoMatchFound

from app.api.routes.offer import offer_route
from app.api.routes.offer import router as offer_router
from app.api.schemas.offer import OFFER_EXAMPLES
from app.main import create_app
from app.settings import Settings
from tests.conftest import client_for

pytestmark = pytest.mark.anyio

PATH = "/v1/offer"
KEYS = [
    "offered",
    "listed",
    "omitted",
    "description",
    "served",
    "undeclared",
    "nameable",
    "standings",
    "known_results",
]
S1 = (
    "Pick the tool result to judge from the listed ids, newest first; "
    "an id that is not listed cannot be named."
)


def offer_app(settings: Settings | None = None) -> FastAPI:
    """The app with the offer route, included here only when `create_app` does not include it."""
    app = create_app(settings or Settings())
    if not serves_the_offer(app):
        app.include_router(offer_router)
    return app


def serves_the_offer(app: FastAPI) -> bool:
    # Included routers are not flattened into `app.routes`; the route name resolves through them.
    try:
        return app.url_path_for(offer_route.__name__) == PATH
    except NoMatchFound:
        return False


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app=offer_app()) as c:
        yield c


# ---- the notation of offer.md §5 -----------------------------------------------------------------

U: dict[str, Any] = {"role": "user", "content": "find the port the billing service listens on"}


def A(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": i, "name": "lookup_port", "arguments": {}} for i in ids],
    }


def T(tool_call_id: str, content: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "role": "tool",
        "content": f"result of {tool_call_id}" if content is None else content,
        "tool_call_id": tool_call_id,
        "tool_name": "lookup_port",
        **extra,
    }


def row(tool_call_id: Any, standing: Any, **extra: Any) -> dict[str, Any]:
    return {"tool_call_id": tool_call_id, "standing": standing, **extra}


def known(*ids: str) -> list[dict[str, str]]:
    return [
        {"tool_call_id": i, "tool_name": "lookup_port", "result": f"result of {i}"} for i in ids
    ]


def numbered(count: int) -> list[dict[str, Any]]:
    messages = [U]
    for n in range(1, count + 1):
        messages += [A(f"r{n}"), T(f"r{n}")]
    return messages


def r(*numbers: int) -> list[str]:
    return [f"r{n}" for n in numbers]


WIRE = [U, A("c1", "c2"), T("c1"), T("c2"), A("c3"), T("c3")]
SETTLED_C3 = {
    "role": "tool",
    "content": "Not run: the batch was refused.",
    "tool_call_id": "c3",
    "not_dispatched": True,
}
O11_MESSAGES = [U, A("c1", "c3"), T("c1"), SETTLED_C3]
ANON_C7 = {"role": "tool", "content": "anon", "tool_call_id": "c7"}

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
O1_SETS = {key: O1_ANSWER[key] for key in ("offered", "listed", "served", "undeclared", "nameable")}


def without(answer: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key not in keys}


# Each case: the request body and the fields of the answer it fixes (all of them where the example
# gives the whole answer).
WORKED_EXAMPLES = [
    pytest.param({"messages": WIRE}, O1_ANSWER, id="O1"),
    pytest.param({"messages": WIRE, "ledger": []}, O1_ANSWER, id="O1-empty-ledger"),
    pytest.param({"messages": WIRE, "ledger": None}, O1_ANSWER, id="O1-null-ledger"),
    pytest.param(
        {"messages": WIRE, "ledger": [row("c2", "noise")]},
        {
            "offered": ["c3", "c1"],
            "listed": ["c3", "c1"],
            "undeclared": ["c1", "c3"],
            "nameable": ["c1", "c3"],
            "standings": [{"tool_call_id": "c2", "standing": "noise"}],
        },
        id="O2-noise",
    ),
    pytest.param(
        {"messages": WIRE, "ledger": [row("c2", "ruled-out")]},
        {
            "offered": ["c3", "c1"],
            "undeclared": ["c1", "c3"],
            "nameable": ["c1", "c3"],
            "standings": [{"tool_call_id": "c2", "standing": "ruled-out"}],
        },
        id="O2-ruled-out",
    ),
    pytest.param(
        {"messages": WIRE, "ledger": [row("c2", "fact")]},
        {"offered": ["c3", "c2", "c1"], "undeclared": ["c1", "c3"]},
        id="O2-fact",
    ),
    pytest.param(
        {"messages": WIRE, "ledger": [row("c2", "open")]},
        {"offered": ["c3", "c2", "c1"], "undeclared": ["c1", "c3"]},
        id="O2-open",
    ),
    pytest.param(
        {"messages": WIRE, "ledger": [row("c1", "open")]},
        {"offered": ["c3", "c2", "c1"], "standings": [{"tool_call_id": "c1", "standing": "open"}]},
        id="O3-open",
    ),
    pytest.param(
        {"messages": WIRE, "ledger": [row("c1", "open"), row("c1", "fact")]},
        {"offered": ["c3", "c2", "c1"], "standings": [{"tool_call_id": "c1", "standing": "fact"}]},
        id="O3-open-fact",
    ),
    pytest.param(
        {
            "messages": WIRE,
            "ledger": [row("c1", "open"), row("c1", "fact"), row("c1", "ruled-out")],
        },
        {
            "offered": ["c3", "c2"],
            "standings": [{"tool_call_id": "c1", "standing": "ruled-out"}],
        },
        id="O3-open-fact-ruled-out",
    ),
    pytest.param(
        {
            "messages": WIRE,
            "ledger": [
                row("c1", "open"),
                row("c1", "fact"),
                row("c1", "ruled-out"),
                row("c1", "fact"),
            ],
        },
        {"offered": ["c3", "c2", "c1"], "standings": [{"tool_call_id": "c1", "standing": "fact"}]},
        id="O3-refiled-as-fact",
    ),
    pytest.param(
        {
            "messages": WIRE,
            "ledger": [
                row("c3", "open", tool_name="lookup_port"),
                row("c1", "fact", tool_name="lookup_port"),
                row("c3", "noise", tool_name="lookup_port"),
            ],
        },
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
    pytest.param(
        {"messages": WIRE, "ledger": [row("0", "noise"), row("c9", "fact")]},
        {
            **without(O1_ANSWER, "standings"),
            "standings": [
                {"tool_call_id": "0", "standing": "noise"},
                {"tool_call_id": "c9", "standing": "fact"},
            ],
        },
        id="O5",
    ),
    pytest.param(
        {"messages": [U, A("a", "b"), T("a"), T("b"), A("a"), T("a", "again")]},
        {
            "served": ["a", "b"],
            "offered": ["b", "a"],
            "undeclared": ["a", "b"],
            "known_results": known("a", "b"),
        },
        id="O6",
    ),
    pytest.param(
        {
            "messages": WIRE,
            "previous_batch": [
                {"tool_call_id": "c3", "tool_name": "lookup_port", "result": "fresh r3"}
            ],
        },
        {
            **without(O1_ANSWER, "known_results"),
            "known_results": [
                {"tool_call_id": "c3", "tool_name": "lookup_port", "result": "fresh r3"},
                *known("c1", "c2"),
            ],
        },
        id="O7",
    ),
    pytest.param(
        {"messages": [U, ANON_C7], "previous_batch": [{"tool_call_id": "", "result": "z"}]},
        {
            "known_results": [{"tool_call_id": "c7", "result": "anon"}],
            "served": ["c7"],
            "offered": ["c7"],
        },
        id="O8",
    ),
    pytest.param(
        {
            "messages": [U, A("c7"), ANON_C7],
            "previous_batch": [{"tool_call_id": "", "result": "z"}],
        },
        {
            "known_results": [{"tool_call_id": "c7", "tool_name": "lookup_port", "result": "anon"}],
            "served": ["c7"],
            "offered": ["c7"],
        },
        id="O8-name-recovered",
    ),
    pytest.param(
        {
            "messages": WIRE,
            "ledger": [row("c1", "fact"), row("c2", "ruled-out"), row("c3", "open")],
        },
        {"undeclared": [], "nameable": ["c1", "c3"], "offered": ["c3", "c1"]},
        id="O9",
    ),
    pytest.param(
        {"messages": WIRE, "ledger": [row("c2", "ruled-out")]},
        {"undeclared": ["c1", "c3"], "offered": ["c3", "c1"]},
        id="O9-one-row",
    ),
    pytest.param(
        {"messages": numbered(40), "limit": 32},
        {
            "offered": r(*range(40, 0, -1)),
            "listed": r(*range(40, 8, -1)),
            "omitted": 8,
            "description": S1
            + " 8 older results that may still be named are left off this list, which holds the "
            "newest 32.",
        },
        id="O10-40-results",
    ),
    pytest.param(
        {"messages": numbered(33)},
        {
            "listed": r(*range(33, 1, -1)),
            "omitted": 1,
            "description": S1
            + " 1 older result that may still be named is left off this list, which holds the "
            "newest 32.",
        },
        id="O10-33-results",
    ),
    pytest.param(
        {"messages": numbered(32)},
        {"listed": r(*range(32, 0, -1)), "omitted": 0, "description": S1},
        id="O10-32-results",
    ),
    pytest.param(
        {
            "messages": numbered(40),
            "ledger": [row("r40", "noise"), row("r39", "ruled-out"), row("r5", "fact")],
        },
        {
            "offered": r(*range(38, 0, -1)),
            "listed": r(*range(38, 6, -1)),
            "omitted": 6,
            "undeclared": r(*(n for n in range(1, 39) if n != 5)),
        },
        id="O10-ledger",
    ),
    pytest.param(
        {"messages": WIRE, "limit": 1},
        {
            "listed": ["c3"],
            "omitted": 2,
            "description": S1
            + " 2 older results that may still be named are left off this list, which holds the "
            "newest 1.",
        },
        id="O10-limit-1",
    ),
    pytest.param(
        {"messages": [U]},
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
        id="O10-no-result",
    ),
    pytest.param(
        {"messages": O11_MESSAGES, "ledger": [row("c3", "noise")]},
        {
            "served": ["c1"],
            "offered": ["c1"],
            "undeclared": ["c1"],
            "known_results": known("c1"),
            "standings": [{"tool_call_id": "c3", "standing": "noise"}],
        },
        id="O11",
    ),
    pytest.param(
        {
            "messages": [U, A("c1", "c3"), T("c1"), {**SETTLED_C3, "not_dispatched": False}],
            "ledger": [row("c3", "noise")],
        },
        {"served": ["c1", "c3"]},
        id="O11-not-dispatched-false",
    ),
    pytest.param(
        {
            "messages": [U, A("c1", "c3"), T("c1"), without(SETTLED_C3, "not_dispatched")],
            "ledger": [row("c3", "noise")],
        },
        {"served": ["c1", "c3"]},
        id="O11-not-dispatched-absent",
    ),
    pytest.param(
        {
            "messages": WIRE,
            "ledger": [
                {"kind": "basis", "tool_call_id": "c1", "basis": "direct"},
                row("c2", "open", tool_name="lookup_port"),
                {"kind": "judgment", "tool_call_id": "c3", "standing": "noise"},
                {
                    "kind": "standing",
                    "tool_call_id": "c2",
                    "standing": "fact",
                    "tool_name": "lookup_port_v2",
                },
            ],
        },
        {
            "standings": [
                {"tool_call_id": "c2", "standing": "fact", "tool_name": "lookup_port_v2"}
            ],
            "offered": ["c3", "c2", "c1"],
            "undeclared": ["c1", "c3"],
        },
        id="O12",
    ),
    pytest.param(
        {"messages": WIRE, "ledger": [{"kind": "judgment", "standing": "settled"}]},
        O1_ANSWER,
        id="O13-other-kind-unchecked",
    ),
]


async def post(client: httpx.AsyncClient, body: Any) -> httpx.Response:
    return await client.post(PATH, content=orjson.dumps(body), headers=JSON)


JSON = {"content-type": "application/json"}


@pytest.mark.parametrize(("body", "expected"), WORKED_EXAMPLES)
async def test_worked_example(client, body, expected):
    response = await post(client, body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    answer = response.json()
    assert list(answer) == KEYS
    assert {key: answer[key] for key in expected} == expected


# ---- O8 in the openai format ---------------------------------------------------------------------

OPENAI_USER = {"role": "user", "content": "find the port the billing service listens on"}
OPENAI_CALL_C7 = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c7", "type": "function", "function": {"name": "lookup_port", "arguments": "{}"}}
    ],
}
OPENAI_ANON_C7 = {"role": "tool", "content": "anon", "tool_call_id": "c7"}


@pytest.mark.parametrize(
    ("messages", "expected_known"),
    [
        pytest.param(
            [OPENAI_USER, OPENAI_ANON_C7],
            [{"tool_call_id": "c7", "result": "anon"}],
            id="O8-openai",
        ),
        pytest.param(
            [OPENAI_USER, OPENAI_CALL_C7, OPENAI_ANON_C7],
            [{"tool_call_id": "c7", "tool_name": "lookup_port", "result": "anon"}],
            id="O8-openai-name-recovered",
        ),
    ],
)
async def test_o8_in_openai_format(client, messages, expected_known):
    body = {
        "messages": messages,
        "format": "openai",
        "previous_batch": [{"tool_call_id": "", "result": "z"}],
    }
    answer = (await post(client, body)).json()
    assert answer["known_results"] == expected_known
    assert answer["served"] == ["c7"]
    assert answer["offered"] == ["c7"]


async def test_o8_answer_is_the_same_in_native_and_openai(client):
    batch = [{"tool_call_id": "", "result": "z"}]
    native = await post(client, {"messages": [U, ANON_C7], "previous_batch": batch})
    openai = await post(
        client,
        {"messages": [OPENAI_USER, OPENAI_ANON_C7], "format": "openai", "previous_batch": batch},
    )
    assert native.content == openai.content


# ---- O13: rejected ledgers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ledger", "loc"),
    [
        pytest.param([row("c1", "settled")], ["ledger", 0, "standing"], id="O13-settled"),
        pytest.param([row("c1", "Fact")], ["ledger", 0, "standing"], id="O13-Fact"),
        pytest.param([row("c1", "ruled_out")], ["ledger", 0, "standing"], id="O13-ruled_out"),
        pytest.param([{"tool_call_id": "c1"}], ["ledger", 0, "standing"], id="O13-no-standing"),
        pytest.param([row(5, "fact")], ["ledger", 0, "tool_call_id"], id="O13-id-not-a-string"),
        pytest.param(["c1"], ["ledger", 0], id="O13-row-not-an-object"),
        pytest.param([{"kind": 7}], ["ledger", 0, "kind"], id="O13-kind-not-a-string"),
        pytest.param({}, ["ledger"], id="O13-ledger-an-object"),
    ],
)
async def test_o13_rejected_ledger(client, ledger, loc):
    response = await post(client, {"messages": WIRE, "ledger": ledger})
    assert_refused(response, [["body", *loc]])


# ---- the Swagger examples -----------------------------------------------------------------------

LAB_ANSWER: dict[str, Any] = {
    "offered": ["c6", "c5", "c4", "c3", "c1"],
    "listed": ["c6", "c5", "c4", "c3"],
    "omitted": 1,
    "description": S1
    + " 1 older result that may still be named is left off this list, which holds the newest 4.",
    "served": ["c1", "c2", "c3", "c4", "c5", "c6"],
    "undeclared": ["c5", "c6"],
    "nameable": ["c1", "c3", "c4", "c5", "c6"],
    "standings": [
        {"tool_call_id": "c1", "standing": "fact", "tool_name": "whats_here"},
        {"tool_call_id": "c3", "standing": "fact", "tool_name": "measure"},
        {"tool_call_id": "c2", "standing": "noise", "tool_name": "measure"},
        {"tool_call_id": "c4", "standing": "open", "tool_name": "move"},
    ],
    "known_results": [
        {"tool_call_id": "c6", "tool_name": "measure", "result": "lab1-rack-a: 44C"},
        {
            "tool_call_id": "c1",
            "tool_name": "whats_here",
            "result": "IDS: lab1-rack-a, lab1-rack-b, lab2-rack-a",
        },
        {"tool_call_id": "c2", "tool_name": "measure", "result": "lab1-rack-a: sensor offline"},
        {"tool_call_id": "c3", "tool_name": "measure", "result": "lab1-rack-b: 41C"},
        {"tool_call_id": "c4", "tool_name": "move", "result": "moved to lab2"},
        {"tool_call_id": "c5", "tool_name": "measure", "result": "lab2-rack-a: 37C"},
    ],
}


def test_the_swagger_examples_are_one_conversation_in_three_formats():
    assert set(OFFER_EXAMPLES) == {"native", "openai", "anthropic"}
    native = OFFER_EXAMPLES["native"]["value"]
    results = [m for m in native["messages"] if m["role"] == "tool"]
    settled = [m for m in results if m.get("not_dispatched")]
    assert len(results) - len(settled) == 6
    assert len(settled) == 1
    last_standing: dict[str, str] = {}
    history: dict[str, list[str]] = {}
    for ledger_row in native["ledger"]:
        last_standing[ledger_row["tool_call_id"]] = ledger_row["standing"]
        history.setdefault(ledger_row["tool_call_id"], []).append(ledger_row["standing"])
    assert ["ruled-out", "fact"] in history.values()
    assert "noise" in last_standing.values()
    assert list(history.values()).count(["fact"]) == 1
    for name in ("openai", "anthropic"):
        value = OFFER_EXAMPLES[name]["value"]
        assert value["format"] == name
        assert without(value, "messages", "format", "system") == without(
            native, "messages", "format"
        )


@pytest.mark.parametrize("name", list(OFFER_EXAMPLES))
async def test_swagger_example(client, name):
    response = await post(client, OFFER_EXAMPLES[name]["value"])
    assert response.status_code == 200, response.text
    assert list(response.json()) == KEYS
    assert response.json() == LAB_ANSWER


@pytest.mark.parametrize("name", list(OFFER_EXAMPLES))
async def test_swagger_example_in_auto_format_detects_the_same(client, name):
    body = {**OFFER_EXAMPLES[name]["value"], "format": "auto"}
    assert (await post(client, body)).json() == LAB_ANSWER


async def test_openapi_documents_the_request_and_the_examples(client):
    spec = (await client.get("/openapi.json")).json()
    operation = spec["paths"][PATH]["post"]
    assert operation["tags"] == ["offer"]
    media = operation["requestBody"]["content"]["application/json"]
    assert media["schema"] == {"$ref": "#/components/schemas/OfferRequest"}
    assert set(media["examples"]) == set(OFFER_EXAMPLES)
    assert {"400", "413", "415", "422", "500", "503"} <= set(operation["responses"])
    request_schema = spec["components"]["schemas"]["OfferRequest"]
    assert set(request_schema["properties"]) == {
        "messages",
        "format",
        "ledger",
        "previous_batch",
        "system",
        "limit",
    }
    assert request_schema["properties"]["limit"]["default"] == 32
    response_schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert response_schema == {"$ref": "#/components/schemas/OfferResponse"}
    assert list(spec["components"]["schemas"]["OfferResponse"]["properties"]) == KEYS


# ---- accepted input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        pytest.param({"limit": 2.0}, {"listed": ["c3", "c2"], "omitted": 1}, id="limit-2.0"),
        pytest.param({"limit": 2}, {"listed": ["c3", "c2"], "omitted": 1}, id="limit-2"),
        pytest.param(
            {"previous_batch": None}, {"known_results": known("c1", "c2", "c3")}, id="null-batch"
        ),
        pytest.param(
            {
                "previous_batch": [
                    {"tool_call_id": "c2", "tool_name": None, "result": "r2", "landed_at": 3}
                ]
            },
            {
                "known_results": [
                    {"tool_call_id": "c2", "tool_name": "lookup_port", "result": "r2"},
                    *known("c1", "c3"),
                ]
            },
            id="batch-null-name-and-extra-key",
        ),
        pytest.param(
            {"ledger": [row("c2", "noise", iteration=4, assertions=["x"], ref=None)]},
            {"offered": ["c3", "c1"]},
            id="ledger-row-extra-fields",
        ),
        pytest.param(
            {"ledger": [row("", "fact")]}, {"standings": [row("", "fact")]}, id="empty-id-row"
        ),
        pytest.param({"format": "native"}, {"served": ["c1", "c2", "c3"]}, id="format-native"),
    ],
)
async def test_accepted(client, extra, expected):
    response = await post(client, {"messages": WIRE, **extra})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert {key: answer[key] for key in expected} == expected


async def test_an_integral_limit_is_used_as_that_integer(client):
    answer = (await post(client, {"messages": WIRE, "limit": 2.0})).json()
    assert answer["description"].endswith("which holds the newest 2.")


async def test_anthropic_system_is_accepted_and_not_read(client):
    value = OFFER_EXAMPLES["anthropic"]["value"]
    blocks = [{"type": "text", "text": "You operate the lab floor through tools."}]
    with_blocks = await post(client, {**value, "system": blocks})
    without_system = await post(client, without(value, "system"))
    assert with_blocks.status_code == without_system.status_code == 200
    assert with_blocks.content == without_system.content


async def test_the_same_request_gives_the_same_bytes(client):
    body = OFFER_EXAMPLES["native"]["value"]
    assert (await post(client, body)).content == (await post(client, body)).content


async def test_requests_are_counted_under_the_route(client):
    await post(client, {"messages": WIRE})
    text = (await client.get("/metrics")).text
    assert 'cwp_http_requests_total{method="POST",route="/v1/offer",status="200"} 1.0' in text


# ---- refused input -------------------------------------------------------------------------------


def assert_refused(response: httpx.Response, locs: list[list[Any]]) -> None:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == 422
    found = [error["loc"] for error in problem["errors"]]
    assert {repr(loc) for loc in found} == {repr(loc) for loc in locs}, found


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        pytest.param(
            {"messages": WIRE, "ledger": [row("c1", "settled")]},
            ["body", "ledger", 0, "standing"],
            id="ledger-unknown-standing",
        ),
        pytest.param(
            {"messages": WIRE, "ledger": [row("c1", "fact"), {"standing": "fact"}]},
            ["body", "ledger", 1, "tool_call_id"],
            id="ledger-row-without-tool_call_id",
        ),
        pytest.param(
            {"messages": WIRE, "ledger": [row("c1", "fact", tool_name=3)]},
            ["body", "ledger", 0, "tool_name"],
            id="ledger-tool_name-not-a-string",
        ),
        pytest.param(
            {"messages": WIRE, "ledger": [row("c1", "noise", ref=["art"])]},
            ["body", "ledger", 0, "ref"],
            id="ledger-ref-not-a-string",
        ),
        pytest.param(
            {"messages": WIRE, "ledger": [row("c1", None)]},
            ["body", "ledger", 0, "standing"],
            id="ledger-standing-null",
        ),
        pytest.param({"messages": WIRE, "limit": 0}, ["body", "limit"], id="limit-0"),
        pytest.param({"messages": WIRE, "limit": -3}, ["body", "limit"], id="limit-negative"),
        pytest.param({"messages": WIRE, "limit": True}, ["body", "limit"], id="limit-true"),
        pytest.param({"messages": WIRE, "limit": 1.5}, ["body", "limit"], id="limit-1.5"),
        pytest.param({"messages": WIRE, "limit": "2"}, ["body", "limit"], id="limit-string"),
        pytest.param({"messages": WIRE, "limit": None}, ["body", "limit"], id="limit-null"),
        pytest.param({"messages": "WIRE"}, ["body", "messages"], id="messages-a-string"),
        pytest.param({"messages": {"0": U}}, ["body", "messages"], id="messages-an-object"),
        pytest.param({"messages": None}, ["body", "messages"], id="messages-null"),
        pytest.param({"ledger": []}, ["body", "messages"], id="messages-missing"),
        pytest.param(
            {"messages": WIRE, "previous_batch": [{"tool_call_id": "c3"}]},
            ["body", "previous_batch", 0, "result"],
            id="previous_batch-item-without-result",
        ),
        pytest.param(
            {"messages": WIRE, "previous_batch": [{"result": "r"}]},
            ["body", "previous_batch", 0, "tool_call_id"],
            id="previous_batch-item-without-tool_call_id",
        ),
        pytest.param(
            {"messages": WIRE, "previous_batch": [{"tool_call_id": 3, "result": "r"}]},
            ["body", "previous_batch", 0, "tool_call_id"],
            id="previous_batch-id-not-a-string",
        ),
        pytest.param(
            {"messages": WIRE, "previous_batch": [{"tool_call_id": "c3", "result": {"r": 1}}]},
            ["body", "previous_batch", 0, "result"],
            id="previous_batch-result-not-a-string",
        ),
        pytest.param(
            {
                "messages": WIRE,
                "previous_batch": [{"tool_call_id": "c3", "tool_name": 1, "result": "r"}],
            },
            ["body", "previous_batch", 0, "tool_name"],
            id="previous_batch-tool_name-not-a-string",
        ),
        pytest.param(
            {"messages": WIRE, "previous_batch": ["c3"]},
            ["body", "previous_batch", 0],
            id="previous_batch-item-not-an-object",
        ),
        pytest.param(
            {"messages": WIRE, "previous_batch": {}},
            ["body", "previous_batch"],
            id="previous_batch-an-object",
        ),
        pytest.param({"messages": WIRE, "limt": 3}, ["body", "limt"], id="unknown-field"),
        pytest.param(
            {"messages": WIRE, "include_window": False},
            ["body", "include_window"],
            id="window-plan-field",
        ),
        pytest.param({"messages": WIRE, "format": "xml"}, ["body", "format"], id="format-unknown"),
        pytest.param({"messages": WIRE, "format": None}, ["body", "format"], id="format-null"),
        pytest.param(
            {"messages": WIRE, "format": "native", "system": "be brief"},
            ["body", "system"],
            id="system-with-native",
        ),
        pytest.param(
            {"messages": [OPENAI_USER], "format": "openai", "system": "be brief"},
            ["body", "system"],
            id="system-with-openai",
        ),
        pytest.param(
            {"messages": [U], "format": "anthropic", "system": 5},
            ["body", "system"],
            id="system-5",
        ),
        pytest.param(
            {"messages": [U], "format": "anthropic", "system": [{"type": "image"}]},
            ["body", "system"],
            id="system-not-text-blocks",
        ),
        pytest.param(
            {"messages": [U, A("c1"), without(T("c1"), "tool_call_id")]},
            ["body", "messages", 2, "tool_call_id"],
            id="tool-message-without-tool_call_id",
        ),
        pytest.param(
            {"messages": [U, A("c1"), T("c1", not_dispatched="yes")]},
            ["body", "messages", 2, "not_dispatched"],
            id="not_dispatched-not-a-boolean",
        ),
        pytest.param([WIRE], ["body"], id="body-an-array"),
        pytest.param("messages", ["body"], id="body-a-string"),
    ],
)
async def test_refused(client, body, loc):
    assert_refused(await post(client, body), [loc])


async def test_every_violation_is_named_in_one_answer(client):
    body = {
        "messages": [U, {"role": "tool", "content": "x"}],
        "ledger": [row("c1", "Fact")],
        "previous_batch": [{"tool_call_id": "c1"}],
        "limit": 0,
        "limt": 3,
    }
    assert_refused(
        await post(client, body),
        [
            ["body", "messages", 1, "tool_call_id"],
            ["body", "ledger", 0, "standing"],
            ["body", "previous_batch", 0, "result"],
            ["body", "limit"],
            ["body", "limt"],
        ],
    )


async def test_over_the_message_limit_is_refused():
    async with client_for(app=offer_app(Settings(max_messages=3))) as client:
        assert (await post(client, {"messages": WIRE[:3]})).status_code == 200
        assert_refused(await post(client, {"messages": WIRE[:4]}), [["body", "messages"]])


async def test_not_json_is_a_400(client):
    response = await client.post(PATH, content=b"{", headers=JSON)
    assert response.status_code == 400


async def test_a_body_not_sent_as_json_is_a_415(client):
    response = await client.post(PATH, content=orjson.dumps({"messages": WIRE}))
    assert response.status_code == 415
