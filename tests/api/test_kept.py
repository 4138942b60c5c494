"""`POST /v1/kept-answers/{keep,use,lookup}` through HTTP: the worked examples E1–E10 of kept
answers (docs/rules.md#kept-answers) (every answer compared byte for byte, so key order and number
spelling are checked too), every refusal of E10 with its `loc`, further refusals of the request's
fields, and the Swagger examples walked in order."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI

from app.main import create_app
from app.schemas.kept import KEEP_EXAMPLES, LOOKUP_EXAMPLES, USE_EXAMPLES
from tests.conftest import client_for

pytestmark = pytest.mark.anyio

PATHS = {
    "keep": "/v1/kept-answers/keep",
    "use": "/v1/kept-answers/use",
    "lookup": "/v1/kept-answers/lookup",
}
JSON = {"content-type": "application/json"}
MAX_INT64 = 9_223_372_036_854_775_807


def kept_app() -> FastAPI:
    return create_app()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app=kept_app()) as c:
        yield c


async def post(client: httpx.AsyncClient, endpoint: str, body: Any) -> httpx.Response:
    return await client.post(PATHS[endpoint], content=orjson.dumps(body), headers=JSON)


async def post_text(client: httpx.AsyncClient, endpoint: str, text: str) -> httpx.Response:
    return await client.post(PATHS[endpoint], content=text.encode(), headers=JSON)


def k(tool: str, argument: str, value: Any, turn: Any = 1) -> dict[str, Any]:
    return {"turn": turn, "tool_name": tool, "argument": argument, "value": value}


def answer(argument: str, value: Any) -> dict[str, Any]:
    return {"argument": argument, "value": value}


def pair(tool_name: str, argument: str) -> dict[str, str]:
    return {"tool_name": tool_name, "argument": argument}


def found(entry: dict[str, Any] | None, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"answer": entry, "this_turn": entries}


# ---- E1–E9: one request, one answer --------------------------------------------------------------

E1_KEPT = [
    k("purge_logs", "window", "24h", 1),
    k("purge_logs", "window", "7d", 2),
    {"turn": 1, "tool_name": "x", "argument": "y", "value": {"raw": True}},
    {"turn": 1, "tool_name": "x"},
    None,
]
E2_LIST_1 = [k("purge_logs", "window", "24h")]
E2_LIST_2 = [k("purge_logs", "window", "24h"), k("search_logs", "window", "1h")]
E2_LIST_3 = [k("search_logs", "window", "1h"), k("purge_logs", "window", "7d")]
E4_KEPT = [k("purge_logs", "window", "24h"), k("search_logs", "window", "1h")]
E5_KEPT = [
    {"turn": 1, "tool_name": "t", "argument": "a", "value": "", "extra": 9},
    {"turn": 1, "tool_name": "t", "argument": "b", "value": None},
    {"turn": "1", "tool_name": "t", "argument": "c", "value": 1},
    {"turn": True, "tool_name": "t", "argument": "d", "value": 1},
    {"turn": 1.0, "tool_name": "t", "argument": "e", "value": False},
    {"turn": 1, "toolName": "t", "argument": "f", "value": 1},
]
E5_THIS_TURN = [
    {"turn": 1, "tool_name": "t", "argument": "a", "value": "", "extra": 9},
    {"turn": 1.0, "tool_name": "t", "argument": "e", "value": False},
]
E6_LIST = [k("purge_logs", "window", "1h"), k("purge_logs", "window", "2h")]
E9_STORED = [k("purge_logs", "window", "24h", 3)]

WORKED_EXAMPLES = [
    pytest.param(
        "lookup",
        {"kept": E1_KEPT, "turn": 1, "tool_name": "purge_logs", "argument": "window"},
        found(k("purge_logs", "window", "24h", 1), [k("purge_logs", "window", "24h", 1)]),
        id="E1-turn-1",
    ),
    pytest.param(
        "lookup",
        {"kept": E1_KEPT, "turn": 2, "tool_name": "purge_logs", "argument": "window"},
        found(k("purge_logs", "window", "7d", 2), [k("purge_logs", "window", "7d", 2)]),
        id="E1-turn-2",
    ),
    pytest.param(
        "lookup",
        {"turn": 1, "tool_name": "purge_logs", "argument": "window"},
        found(None, []),
        id="E1-kept-absent",
    ),
    pytest.param(
        "lookup",
        {"kept": None, "turn": 1, "tool_name": "purge_logs", "argument": "window"},
        found(None, []),
        id="E1-kept-null",
    ),
    pytest.param(
        "keep",
        {"turn": 1, "tool_name": "purge_logs", "answers": [answer("window", "24h")]},
        {"kept": E2_LIST_1},
        id="E2-step-1",
    ),
    pytest.param(
        "keep",
        {
            "kept": E2_LIST_1,
            "turn": 1,
            "tool_name": "search_logs",
            "answers": [answer("window", "1h")],
        },
        {"kept": E2_LIST_2},
        id="E2-step-2",
    ),
    pytest.param(
        "keep",
        {
            "kept": E2_LIST_2,
            "turn": 1,
            "tool_name": "purge_logs",
            "answers": [answer("window", "7d")],
        },
        {"kept": E2_LIST_3},
        id="E2-step-3",
    ),
    pytest.param(
        "lookup",
        {"kept": E2_LIST_3, "turn": 1, "tool_name": "purge_logs", "argument": "window"},
        found(k("purge_logs", "window", "7d"), E2_LIST_3),
        id="E2-lookup-window",
    ),
    pytest.param(
        "lookup",
        {"kept": E2_LIST_3, "turn": 1, "tool_name": "purge_logs", "argument": "limit"},
        found(None, E2_LIST_3),
        id="E2-lookup-limit",
    ),
    pytest.param(
        "keep",
        {
            "kept": [k("purge_logs", "window", "24h", 1)],
            "turn": 2,
            "tool_name": "purge_logs",
            "answers": [answer("limit", 5)],
        },
        {"kept": [{"turn": 2, "tool_name": "purge_logs", "argument": "limit", "value": 5}]},
        id="E3",
    ),
    pytest.param(
        "use",
        {"kept": E4_KEPT, "turn": 1, "used": [pair("purge_logs", "window")]},
        {"kept": [k("search_logs", "window", "1h")]},
        id="E4-one-pair",
    ),
    pytest.param(
        "use",
        {
            "kept": E4_KEPT,
            "turn": 1,
            "used": [pair("purge_logs", "window"), pair("search_logs", "window")],
        },
        {"kept": None},
        id="E4-both-pairs",
    ),
    pytest.param(
        "lookup",
        {"kept": E5_KEPT, "turn": 1, "tool_name": "t", "argument": "a"},
        found(E5_THIS_TURN[0], E5_THIS_TURN),
        id="E5",
    ),
    pytest.param(
        "lookup",
        {"kept": E5_KEPT, "turn": 1, "tool_name": "t", "argument": "e"},
        found(E5_THIS_TURN[1], E5_THIS_TURN),
        id="E5-turn-1.0-is-turn-1",
    ),
    pytest.param(
        "lookup",
        {"kept": E5_KEPT, "turn": 1, "tool_name": "t", "argument": "b"},
        found(None, E5_THIS_TURN),
        id="E5-null-value-skipped",
    ),
    pytest.param(
        "keep",
        {
            "turn": 1,
            "tool_name": "purge_logs",
            "answers": [answer("window", "1h"), answer("window", "2h")],
        },
        {"kept": E6_LIST},
        id="E6-keep",
    ),
    pytest.param(
        "lookup",
        {"kept": E6_LIST, "turn": 1, "tool_name": "purge_logs", "argument": "window"},
        found(k("purge_logs", "window", "1h"), E6_LIST),
        id="E6-lookup",
    ),
    pytest.param(
        "use",
        {"kept": E6_LIST, "turn": 1, "used": [pair("purge_logs", "window")]},
        {"kept": None},
        id="E6-use",
    ),
    pytest.param(
        "keep",
        {
            "kept": [k("purge_logs", "window", "24h"), k("purge_logs", "limit", 5)],
            "turn": 1,
            "tool_name": "purge_logs",
            "answers": [answer("window", "7d")],
        },
        {"kept": [k("purge_logs", "limit", 5), k("purge_logs", "window", "7d")]},
        id="E7",
    ),
    pytest.param(
        "use",
        {"kept": [k("p", "w", "x", 1)], "turn": 2, "used": []},
        {"kept": None},
        id="E8-use-other-turn",
    ),
    pytest.param(
        "use",
        {"kept": [k("p", "w", "x", 1)], "turn": 1, "used": []},
        {"kept": [k("p", "w", "x", 1)]},
        id="E8-use-nothing",
    ),
    pytest.param(
        "keep",
        {"kept": [k("p", "w", "x", 3)], "turn": 1, "tool_name": "p", "answers": []},
        {"kept": []},
        id="E8-keep-nothing",
    ),
    pytest.param(
        "lookup",
        {
            "kept": [k("a", "x", 1, 1), k("a", "x", 2, 2)],
            "turn": 2,
            "tool_name": "a",
            "argument": "x",
        },
        found(k("a", "x", 2, 2), [k("a", "x", 2, 2)]),
        id="E8-lookup-other-turn",
    ),
    pytest.param(
        "keep",
        {"turn": 3, "tool_name": "purge_logs", "answers": [answer("window", "24h")]},
        {"kept": E9_STORED},
        id="E9-keep",
    ),
    pytest.param(
        "lookup",
        {"kept": E9_STORED, "turn": 3, "tool_name": "purge_logs", "argument": "window"},
        found(E9_STORED[0], E9_STORED),
        id="E9-lookup",
    ),
    pytest.param(
        "use",
        {"kept": E9_STORED, "turn": 3, "used": [pair("purge_logs", "window")]},
        {"kept": None},
        id="E9-use",
    ),
    pytest.param(
        "keep",
        {"kept": ["garbage"], "turn": 1, "tool_name": "p", "answers": [answer("w", "x")]},
        {"kept": [k("p", "w", "x")]},
        id="E10-garbage-entry-skipped",
    ),
]


@pytest.mark.parametrize(("endpoint", "body", "expected"), WORKED_EXAMPLES)
async def test_worked_example(client, endpoint, body, expected):
    response = await post(client, endpoint, body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.content == orjson.dumps(expected)


async def test_E2_three_keeps_each_sending_the_previous_answer_back(client):
    stored: Any = None
    for tool_name, value in (("purge_logs", "24h"), ("search_logs", "1h"), ("purge_logs", "7d")):
        body = {
            "turn": 1,
            "tool_name": tool_name,
            "answers": [answer("window", value)],
            **({"kept": stored} if stored is not None else {}),
        }
        stored = (await post(client, "keep", body)).json()["kept"]
    assert stored == E2_LIST_3
    lookup = {"kept": stored, "turn": 1, "tool_name": "purge_logs"}
    window = (await post(client, "lookup", {**lookup, "argument": "window"})).json()
    limit = (await post(client, "lookup", {**lookup, "argument": "limit"})).json()
    assert window["answer"]["value"] == "7d"
    assert limit["answer"] is None


async def test_E9_the_flow_of_one_turn(client):
    kept = await post(
        client,
        "keep",
        {"turn": 3, "tool_name": "purge_logs", "answers": [answer("window", "24h")]},
    )
    stored = kept.json()["kept"]
    assert stored == E9_STORED
    lookup = await post(
        client,
        "lookup",
        {"kept": stored, "turn": 3, "tool_name": "purge_logs", "argument": "window"},
    )
    assert lookup.json()["answer"]["value"] == "24h"
    spent = await post(
        client, "use", {"kept": stored, "turn": 3, "used": [pair("purge_logs", "window")]}
    )
    assert spent.json() == {"kept": None}


# ---- numbers keep their spelling -----------------------------------------------------------------


async def test_E10_turn_3_0_is_accepted_and_new_entries_carry_turn_3(client):
    text = (
        '{"kept": [{"turn": 3.0, "tool_name": "q", "argument": "a", "value": 2.50}], '
        '"turn": 3.0, "tool_name": "purge_logs", '
        '"answers": [{"argument": "window", "value": "24h"}]}'
    )
    response = await post_text(client, "keep", text)
    assert response.status_code == 200, response.text
    assert response.content == (
        b'{"kept":[{"turn":3.0,"tool_name":"q","argument":"a","value":2.5},'
        b'{"turn":3,"tool_name":"purge_logs","argument":"window","value":"24h"}]}'
    )


@pytest.mark.parametrize(
    ("value", "written"),
    [
        pytest.param("2.0", "2.0", id="2.0-stays-2.0"),
        pytest.param("1E2", "100.0", id="1E2"),
        pytest.param("-0", "0", id="-0"),
        pytest.param("18446744073709551615", "18446744073709551615", id="max-uint64"),
        pytest.param("true", "true", id="true"),
        pytest.param('""', '""', id="empty-string"),
        pytest.param('"\\ud83d\\ude00"', '"😀"', id="escape-pair"),
    ],
)
async def test_an_answer_value_is_kept_raw(client, value, written):
    text = '{"turn": 0, "tool_name": "t", "answers": [{"argument": "a", "value": ' + value + "}]}"
    response = await post_text(client, "keep", text)
    assert response.status_code == 200, response.text
    expected = '{"kept":[{"turn":0,"tool_name":"t","argument":"a","value":' + written + "}]}"
    assert response.content == expected.encode()


LARGEST = [k("t", "a", "v", MAX_INT64)]


@pytest.mark.parametrize(
    ("endpoint", "extra", "expected"),
    [
        pytest.param("keep", {"tool_name": "t", "answers": []}, {"kept": LARGEST}, id="keep"),
        pytest.param("use", {"used": []}, {"kept": LARGEST}, id="use"),
        pytest.param(
            "lookup", {"tool_name": "t", "argument": "a"}, found(LARGEST[0], LARGEST), id="lookup"
        ),
    ],
)
async def test_the_largest_turn_is_accepted(client, endpoint, extra, expected):
    response = await post(client, endpoint, {"kept": LARGEST, "turn": MAX_INT64, **extra})
    assert response.status_code == 200, response.text
    assert response.content == orjson.dumps(expected)


async def test_extra_keys_of_answers_and_used_items_are_ignored(client):
    kept = await post(
        client,
        "keep",
        {"turn": 1, "tool_name": "p", "answers": [{"argument": "w", "value": 1, "asked": True}]},
    )
    assert kept.json() == {"kept": [k("p", "w", 1)]}
    used = await post(
        client,
        "use",
        {"kept": kept.json()["kept"], "turn": 1, "used": [{**pair("p", "w"), "call": "c2"}]},
    )
    assert used.json() == {"kept": None}


async def test_the_same_request_gives_the_same_bytes(client):
    body = {"kept": E5_KEPT, "turn": 1, "tool_name": "t", "argument": "a"}
    assert (await post(client, "lookup", body)).content == (
        await post(client, "lookup", body)
    ).content


# ---- E10 and the fields: refused requests --------------------------------------------------------

KEEP = {"turn": 3, "tool_name": "purge_logs", "answers": [answer("window", "24h")]}
USE = {"turn": 3, "used": [pair("purge_logs", "window")]}
LOOKUP = {"turn": 3, "tool_name": "purge_logs", "argument": "window"}


def without(body: dict[str, Any], key: str) -> dict[str, Any]:
    return {name: value for name, value in body.items() if name != key}


REFUSED = [
    pytest.param("keep", {**KEEP, "turn": True}, ["turn"], id="E10-turn-true"),
    pytest.param("keep", {**KEEP, "turn": "3"}, ["turn"], id="E10-turn-string"),
    pytest.param("keep", {**KEEP, "turn": 2.5}, ["turn"], id="E10-turn-2.5"),
    pytest.param("keep", {**KEEP, "turn": -1}, ["turn"], id="E10-turn-negative"),
    pytest.param("keep", {**KEEP, "tool_name": ""}, ["tool_name"], id="E10-tool_name-empty"),
    pytest.param("keep", without(KEEP, "tool_name"), ["tool_name"], id="E10-tool_name-missing"),
    pytest.param("lookup", without(LOOKUP, "argument"), ["argument"], id="E10-argument-missing"),
    pytest.param(
        "keep",
        {**KEEP, "answers": [answer("window", None)]},
        ["answers", 0, "value"],
        id="E10-value-null",
    ),
    pytest.param(
        "keep",
        {**KEEP, "answers": [answer("window", {"h": 24})]},
        ["answers", 0, "value"],
        id="E10-value-object",
    ),
    pytest.param(
        "keep",
        {**KEEP, "answers": [answer("window", [24])]},
        ["answers", 0, "value"],
        id="E10-value-array",
    ),
    pytest.param(
        "keep",
        {**KEEP, "answers": [answer(7, "24h")]},
        ["answers", 0, "argument"],
        id="E10-argument-7",
    ),
    pytest.param("keep", without(KEEP, "answers"), ["answers"], id="E10-answers-missing"),
    pytest.param(
        "use",
        {**USE, "used": [{"tool_name": "purge_logs"}]},
        ["used", 0, "argument"],
        id="E10-used-no-argument",
    ),
    pytest.param("use", without(USE, "used"), ["used"], id="E10-used-missing"),
    pytest.param("keep", {**KEEP, "kept": "garbage"}, ["kept"], id="E10-kept-garbage"),
    pytest.param("lookup", {**LOOKUP, "kept": "not a list"}, ["kept"], id="E1-kept-a-string"),
    pytest.param("lookup", {**LOOKUP, "kept": {"turn": 1}}, ["kept"], id="E1-kept-an-object"),
    pytest.param("use", {**USE, "kept": 5}, ["kept"], id="kept-a-number"),
    pytest.param("use", {**USE, "kept": True}, ["kept"], id="kept-a-boolean"),
    pytest.param("keep", without(KEEP, "turn"), ["turn"], id="turn-missing"),
    pytest.param("use", {**USE, "turn": None}, ["turn"], id="turn-null"),
    pytest.param("lookup", {**LOOKUP, "turn": MAX_INT64 + 1}, ["turn"], id="turn-too-large"),
    pytest.param("lookup", {**LOOKUP, "turn": [3]}, ["turn"], id="turn-an-array"),
    pytest.param("lookup", {**LOOKUP, "tool_name": ""}, ["tool_name"], id="lookup-tool_name-empty"),
    pytest.param(
        "lookup", without(LOOKUP, "tool_name"), ["tool_name"], id="lookup-tool_name-missing"
    ),
    pytest.param("lookup", {**LOOKUP, "argument": ""}, ["argument"], id="lookup-argument-empty"),
    pytest.param("lookup", {**LOOKUP, "argument": 7}, ["argument"], id="lookup-argument-7"),
    pytest.param("keep", {**KEEP, "tool_name": 7}, ["tool_name"], id="keep-tool_name-7"),
    pytest.param(
        "keep",
        {**KEEP, "answers": [answer("", "24h")]},
        ["answers", 0, "argument"],
        id="answer-argument-empty",
    ),
    pytest.param(
        "keep",
        {**KEEP, "answers": [{"argument": "window"}]},
        ["answers", 0, "value"],
        id="answer-value-missing",
    ),
    pytest.param("keep", {**KEEP, "answers": ["window"]}, ["answers", 0], id="answer-a-string"),
    pytest.param(
        "keep", {**KEEP, "answers": {"window": "24h"}}, ["answers"], id="answers-an-object"
    ),
    pytest.param("keep", {**KEEP, "answers": None}, ["answers"], id="answers-null"),
    pytest.param(
        "use",
        {**USE, "used": [{"argument": "window"}]},
        ["used", 0, "tool_name"],
        id="used-no-tool_name",
    ),
    pytest.param(
        "use",
        {**USE, "used": [pair("", "window")]},
        ["used", 0, "tool_name"],
        id="used-tool_name-empty",
    ),
    pytest.param(
        "use",
        {**USE, "used": [pair("purge_logs", "")]},
        ["used", 0, "argument"],
        id="used-argument-empty",
    ),
    pytest.param("use", {**USE, "used": [None]}, ["used", 0], id="used-item-null"),
    pytest.param("use", {**USE, "used": "purge_logs"}, ["used"], id="used-a-string"),
    pytest.param("keep", {**KEEP, "answer": []}, ["answer"], id="keep-unknown-field"),
    pytest.param("use", {**USE, "tool_name": "purge_logs"}, ["tool_name"], id="use-unknown-field"),
    pytest.param("lookup", {**LOOKUP, "answers": []}, ["answers"], id="lookup-unknown-field"),
    pytest.param("keep", [KEEP], [], id="keep-body-an-array"),
    pytest.param("use", "used", [], id="use-body-a-string"),
    pytest.param("lookup", None, [], id="lookup-body-null"),
]


def assert_refused(response: httpx.Response, locs: list[list[Any]]) -> None:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == 422
    assert sorted(map(repr, (error["loc"] for error in problem["errors"]))) == sorted(
        map(repr, locs)
    ), problem["errors"]


@pytest.mark.parametrize(("endpoint", "body", "loc"), REFUSED)
async def test_refused(client, endpoint, body, loc):
    assert_refused(await post(client, endpoint, body), [["body", *loc]])


async def test_every_violation_is_named_in_one_answer(client):
    body = {
        "kept": "garbage",
        "turn": 2.5,
        "tool_name": "",
        "answers": [answer("window", None), answer(7, "x"), {"value": 1}],
        "turns": 3,
    }
    assert_refused(
        await post(client, "keep", body),
        [
            ["body", "kept"],
            ["body", "turn"],
            ["body", "tool_name"],
            ["body", "answers", 0, "value"],
            ["body", "answers", 1, "argument"],
            ["body", "answers", 2, "argument"],
            ["body", "turns"],
        ],
    )


@pytest.mark.parametrize("endpoint", list(PATHS))
@pytest.mark.parametrize(
    "number", ["NaN", "Infinity", "1e400", '"\\ud83d"'], ids=["NaN", "Infinity", "1e400", "lone"]
)
async def test_a_body_that_is_not_strict_json_is_a_400(client, endpoint, number):
    text = '{"kept": [{"turn": 1, "tool_name": "t", "argument": "a", "value": ' + number + "}]}"
    response = await post_text(client, endpoint, text)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/problem+json"


# ---- the Swagger examples ------------------------------------------------------------------------


def only_value(examples: dict[str, dict[str, Any]]) -> dict[str, Any]:
    assert len(examples) == 1
    return next(iter(examples.values()))["value"]


async def test_swagger_examples_walk_one_answer_through_keep_lookup_and_use(client):
    kept = await post(client, "keep", only_value(KEEP_EXAMPLES))
    assert kept.status_code == 200, kept.text
    assert kept.json() == {"kept": E9_STORED}

    lookup_body = only_value(LOOKUP_EXAMPLES)
    assert lookup_body["kept"] == kept.json()["kept"]
    lookup = await post(client, "lookup", lookup_body)
    assert lookup.status_code == 200, lookup.text
    assert lookup.json() == found(E9_STORED[0], E9_STORED)

    use_body = only_value(USE_EXAMPLES)
    assert use_body["kept"] == kept.json()["kept"]
    used = await post(client, "use", use_body)
    assert used.status_code == 200, used.text
    assert used.content == b'{"kept":null}'


@pytest.mark.parametrize(
    ("endpoint", "examples", "request_model", "response_model", "fields"),
    [
        (
            "keep",
            KEEP_EXAMPLES,
            "KeepRequest",
            "KeepResponse",
            {"kept", "turn", "tool_name", "answers"},
        ),
        ("use", USE_EXAMPLES, "UseRequest", "UseResponse", {"kept", "turn", "used"}),
        (
            "lookup",
            LOOKUP_EXAMPLES,
            "LookupRequest",
            "LookupResponse",
            {"kept", "turn", "tool_name", "argument"},
        ),
    ],
)
async def test_openapi_documents_each_endpoint(
    client, endpoint, examples, request_model, response_model, fields
):
    spec = (await client.get("/openapi.json")).json()
    operation = spec["paths"][PATHS[endpoint]]["post"]
    assert operation["tags"] == ["kept-answers"]
    media = operation["requestBody"]["content"]["application/json"]
    assert media["schema"] == {"$ref": f"#/components/schemas/{request_model}"}
    assert set(media["examples"]) == set(examples)
    assert {"400", "413", "415", "422", "500", "503"} <= set(operation["responses"])
    response_schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert response_schema == {"$ref": f"#/components/schemas/{response_model}"}
    request_schema = spec["components"]["schemas"][request_model]
    assert set(request_schema["properties"]) == fields
    assert "kept" not in request_schema["required"]
