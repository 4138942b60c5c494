"""`POST /v1/offer` through HTTP: the worked examples O1–O13 of the offer (docs/rules.md#the-offer),
the Swagger examples, and every refusal of a bad request (one 422 naming each field)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI

from app.main import create_app
from app.schemas.offer import OFFER_EXAMPLES as SWAGGER_EXAMPLES
from app.settings import Settings
from tests.conftest import client_for
from tests.core.native_wire import wire
from tests.core.offer_examples import ABSENT, OFFER_EXAMPLES, S1, OfferExample

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


def offer_app(settings: Settings | None = None) -> FastAPI:
    return create_app(settings or Settings())


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app=offer_app()) as c:
        yield c


# ---- the notation of the offer examples ----------------------------------------------------------

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


WIRE = [U, A("c1", "c2"), T("c1"), T("c2"), A("c3"), T("c3")]
SETTLED_C3 = {
    "role": "tool",
    "content": "Not run: the batch was refused.",
    "tool_call_id": "c3",
    "not_dispatched": True,
}
ANON_C7 = {"role": "tool", "content": "anon", "tool_call_id": "c7"}


def without(answer: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key not in keys}


# How the native wire says a message was not dispatched (O11): only `true` settles it.
WIRE_FLAG_EXAMPLES = [
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
]


async def post(client: httpx.AsyncClient, body: Any) -> httpx.Response:
    return await client.post(PATH, content=orjson.dumps(body), headers=JSON)


JSON = {"content-type": "application/json"}


async def assert_answer(client: httpx.AsyncClient, body: Any, expected: dict[str, Any]) -> None:
    response = await post(client, body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    answer = response.json()
    assert list(answer) == KEYS
    assert {key: answer[key] for key in expected} == expected


@pytest.mark.parametrize("case", OFFER_EXAMPLES)
async def test_worked_example(client, case: OfferExample):
    body: dict[str, Any] = {"messages": wire(case.messages)}
    if case.ledger is not ABSENT:
        body["ledger"] = case.ledger
    if case.previous_batch is not None:
        body["previous_batch"] = case.previous_batch
    if case.limit is not None:
        body["limit"] = case.limit
    await assert_answer(client, body, case.expect)


@pytest.mark.parametrize(("body", "expected"), WIRE_FLAG_EXAMPLES)
async def test_not_dispatched_on_the_wire(client, body, expected):
    await assert_answer(client, body, expected)


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


# ---- O13: rejected ledgers -----------------------------------------------------------------------


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


# ---- the Swagger examples ------------------------------------------------------------------------

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
    assert set(SWAGGER_EXAMPLES) == {"native", "openai", "anthropic"}
    native = SWAGGER_EXAMPLES["native"]["value"]
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
        value = SWAGGER_EXAMPLES[name]["value"]
        assert value["format"] == name
        assert without(value, "messages", "format", "system") == without(
            native, "messages", "format"
        )


@pytest.mark.parametrize("name", list(SWAGGER_EXAMPLES))
async def test_swagger_example(client, name):
    response = await post(client, SWAGGER_EXAMPLES[name]["value"])
    assert response.status_code == 200, response.text
    assert list(response.json()) == KEYS
    assert response.json() == LAB_ANSWER


@pytest.mark.parametrize("name", list(SWAGGER_EXAMPLES))
async def test_swagger_example_in_auto_format_detects_the_same(client, name):
    body = {**SWAGGER_EXAMPLES[name]["value"], "format": "auto"}
    assert (await post(client, body)).json() == LAB_ANSWER


async def test_openapi_documents_the_request_and_the_examples(client):
    spec = (await client.get("/openapi.json")).json()
    operation = spec["paths"][PATH]["post"]
    assert operation["tags"] == ["offer"]
    media = operation["requestBody"]["content"]["application/json"]
    assert media["schema"] == {"$ref": "#/components/schemas/OfferRequest"}
    assert set(media["examples"]) == set(SWAGGER_EXAMPLES)
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


# ---- accepted input ------------------------------------------------------------------------------


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
    value = SWAGGER_EXAMPLES["anthropic"]["value"]
    blocks = [{"type": "text", "text": "You operate the lab floor through tools."}]
    with_blocks = await post(client, {**value, "system": blocks})
    without_system = await post(client, without(value, "system"))
    assert with_blocks.status_code == without_system.status_code == 200
    assert with_blocks.content == without_system.content


async def test_the_same_request_gives_the_same_bytes(client):
    body = SWAGGER_EXAMPLES["native"]["value"]
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
