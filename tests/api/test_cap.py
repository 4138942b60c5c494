"""`POST /v1/tool-results/cap` through HTTP: every worked example of the cap (C1–C18, N1–N4, the
full exchange byte for byte, the validation table), every refusal of a bad request, the strict-JSON
400s, the metrics counters and the Swagger example."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI
from hypothesis import given
from hypothesis import strategies as st

from app.api.answers import cap_answer
from app.api.metrics import create_metrics
from app.core.cap import ABSENT, measured_text
from app.main import create_app
from app.schemas.cap import CAP_EXAMPLES
from tests.conftest import client_for

pytestmark = pytest.mark.anyio

PATH = "/v1/tool-results/cap"
JSON = {"content-type": "application/json"}
CAP_MSG = "must be a whole number of characters from 1 to 9223372036854775807"
REASON_TAIL = "Narrow the request and call again."
MAX_INT64 = 9_223_372_036_854_775_807


def cap_app() -> FastAPI:
    return create_app()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app=cap_app()) as c:
        yield c


async def post(client: httpx.AsyncClient, body: Any) -> httpx.Response:
    return await client.post(PATH, content=orjson.dumps(body), headers=JSON)


async def post_text(client: httpx.AsyncClient, text: str) -> httpx.Response:
    return await client.post(PATH, content=text.encode(), headers=JSON)


def compact(value: Any) -> str:
    return orjson.dumps(value).decode()


def reason(tool: str, n: int, cap: int) -> str:
    return f"{tool} returned {n} chars, over the {cap}-char cap. {REASON_TAIL}"


# ---- C1–C18 and N1–N4: one item per request ------------------------------------------------------

NO_RESULT = object()


@dataclass(frozen=True)
class Case:
    result: Any
    tool: str
    cap: int
    chars: int
    truncated: bool
    head: str | None = None
    size: int | None = None


ROWS = [{"id": i, "name": f"row-{i}"} for i in range(200)]
WOMAN_AT_LAPTOP = "\U0001f469\u200d\U0001f4bb"

CASES: dict[str, Case] = {
    "C1": Case("x" * 500, "orders_export", 200, 500, True, "x" * 69, 200),
    "C2": Case("abcdefghij" * 60, "t", 300, 600, True, "abcdefghij" * 18 + "a", 300),
    "C3": Case("y" * 1000, "t", 40, 1000, True, None, 109),
    "C4": Case(ROWS, "list_rows", 500, 5381, True, compact(ROWS)[:297], 498),
    "C5-pass": Case("a" * 100, "t", 100, 100, False),
    "C5-over": Case("a" * 101, "t", 100, 101, True, None, 109),
    "C6": Case({"rows": [1, 2, 3]}, "t", 10000, 16, False),
    "C7": Case("z" * 1_000_000, "t", 1_000_000, 1_000_000, False),
    "C8": Case("R" * 50000, "dump", 500, 50000, True, "R" * 376, 500),
    "C9": Case('ab"' * 200, "t", 200, 600, True, 'ab"' * 17, 187),
    "C10": Case("A" * 3000 + "SECRET-TAIL", "dump", 400, 3011, True, "A" * 277, 400),
    "C11": Case('"' * 20000, "tool", 200, 20000, True, '"' * 38, 200),
    "C12": Case("\n\t" * 10000, "tool", 200, 20000, True, "\n\t" * 19, 200),
    "C13": Case("a" * 300, 'my"tool', 200, 300, True, "a" * 74, 200),
    "C14": Case(NO_RESULT, "t", 10, 29, True, None, 107),
    "C15": Case(NO_RESULT, "t", 29, 29, False),
    "C16-pass": Case({"a": "x"}, "t", 9, 9, False),
    "C16-over": Case({"a": "xy"}, "t", 9, 10, True, None, 106),
    "C17-over": Case(None, "t", 3, 4, True, None, 105),
    "C17-pass": Case(None, "t", 4, 4, False),
    "C18": Case("all good", "dump", 500, 8, False),
    "N1": Case("😀" * 100, "t", 120, 100, False),
    "N2": Case("😀" * 300, "emoji_feed", 200, 300, True, "😀" * 72, 200),
    "N3": Case({"note": "🙂" * 200}, "t", 200, 211, True, '{"note":"' + "🙂" * 55, 186),
    "N4": Case(WOMAN_AT_LAPTOP * 100, "🔧fix", 180, 300, True, WOMAN_AT_LAPTOP * 19 + "👩", 180),
}


def item_of(case: Case) -> dict[str, Any]:
    item: dict[str, Any] = {"tool_name": case.tool}
    if case.result is not NO_RESULT:
        item["result"] = case.result
    return item


def expected_entry(case: Case) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "tool_name": case.tool,
        "truncated": case.truncated,
        "chars": case.chars,
        "max_chars": case.cap,
    }
    if case.truncated:
        marker: dict[str, Any] = {
            "truncated": True,
            "reason": reason(case.tool, case.chars, case.cap),
        }
        if case.head is not None:
            marker["head"] = case.head
        entry["result"] = marker
    elif case.result is not NO_RESULT:
        entry["result"] = case.result
    return entry


@pytest.mark.parametrize("name", list(CASES))
async def test_worked_example(client, name):
    case = CASES[name]
    response = await post(client, {"max_chars": case.cap, "results": [item_of(case)]})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    expected = {"results": [expected_entry(case)], "truncated_count": int(case.truncated)}
    assert response.content == orjson.dumps(expected)
    if case.truncated:
        marker = response.json()["results"][0]["result"]
        assert len(compact(marker)) == case.size


@pytest.mark.parametrize("name", list(CASES))
async def test_worked_example_with_the_cap_of_its_tool(client, name):
    case = CASES[name]
    other_cap = 1 if case.truncated else MAX_INT64
    body = {
        "max_chars": other_cap,
        "max_chars_by_tool": {case.tool: case.cap, case.tool + "-other": other_cap},
        "results": [item_of(case)],
    }
    response = await post(client, body)
    assert response.status_code == 200, response.text
    assert response.json()["results"] == [expected_entry(case)]


async def test_C1_marker_in_full(client):
    response = await post(client, {"max_chars": 200, "results": [item_of(CASES["C1"])]})
    assert (
        b'"result":{"truncated":true,"reason":"orders_export returned 500 chars, over the '
        b'200-char cap. Narrow the request and call again.","head":"' + b"x" * 69 + b'"}}'
    ) in response.content


async def test_C3_marker_in_full(client):
    response = await post(client, {"max_chars": 40, "results": [item_of(CASES["C3"])]})
    assert (
        b'"result":{"truncated":true,"reason":"t returned 1000 chars, over the 40-char cap. '
        b'Narrow the request and call again."}}'
    ) in response.content


async def test_C4_head_ends_inside_row_11(client):
    response = await post(client, {"max_chars": 500, "results": [item_of(CASES["C4"])]})
    assert response.json()["results"][0]["result"]["head"].endswith(
        '{"id":11,"name":"row-11"},{"id'
    )


async def test_C10_tail_appears_nowhere(client):
    response = await post(client, {"max_chars": 400, "results": [item_of(CASES["C10"])]})
    assert b"SECRET" not in response.content
    assert b"TAIL" not in response.content


async def test_C13_tool_name_echoed_verbatim_and_escaped_in_the_marker(client):
    response = await post(client, {"max_chars": 200, "results": [item_of(CASES["C13"])]})
    assert b'"tool_name":"my\\"tool"' in response.content
    assert b'"reason":"my\\"tool returned 300 chars' in response.content


@pytest.mark.parametrize("spelling", ["raw-utf-8", "escape-pairs"])
async def test_N1_counts_code_points_however_spelled(client, spelling):
    emoji = "😀" if spelling == "raw-utf-8" else "\\ud83d\\ude00"
    text = '{"max_chars":120,"results":[{"tool_name":"t","result":"' + emoji * 100 + '"}]}'
    response = await post_text(client, text)
    assert response.status_code == 200, response.text
    assert response.content == orjson.dumps(
        {
            "results": [
                {
                    "tool_name": "t",
                    "truncated": False,
                    "chars": 100,
                    "max_chars": 120,
                    "result": "😀" * 100,
                }
            ],
            "truncated_count": 0,
        }
    )
    assert ("😀" * 100).encode() in response.content


async def test_N2_marker_units_and_bytes(client):
    response = await post(client, {"max_chars": 200, "results": [item_of(CASES["N2"])]})
    marker = compact(response.json()["results"][0]["result"])
    assert len(marker) == 200
    assert len(marker.encode("utf-16-le")) // 2 == 272
    assert len(marker.encode("utf-8")) == 416


async def test_N4_head_ends_on_a_whole_code_point(client):
    response = await post(client, {"max_chars": 180, "results": [item_of(CASES["N4"])]})
    head = response.json()["results"][0]["result"]["head"]
    assert len(head) == 58
    assert head[-1] == "\U0001f469"
    response.content.decode("utf-8")  # strict: a lone surrogate would not decode


async def test_several_items_are_measured_independently_in_order(client):
    names = ["C1", "C16-over", "N2", "C16-pass"]
    body = {
        "max_chars": 9,
        "max_chars_by_tool": {"orders_export": 200, "emoji_feed": 200},
        "results": [item_of(CASES[name]) for name in names],
    }
    answer = (await post(client, body)).json()
    assert answer["results"] == [expected_entry(CASES[name]) for name in names]
    assert answer["truncated_count"] == 3


# ---- compact serialization: a passing result is the same JSON value ------------------------------


async def test_a_passing_result_comes_back_in_the_compact_spelling(client):
    spelled = (
        '{ "b" : 2.50, "a" : 1E2, "c": [1e16, -0, 0.000001, 18446744073709551615, '
        '18446744073709551616], "b": -0.0 }'
    )
    measured = '{"b":-0.0,"a":100.0,"c":[1e+16,0,1e-6,18446744073709551615,1.8446744073709552e+19]}'
    text = '{"max_chars": 1000, "results": [{"tool_name": "t", "result": ' + spelled + "}]}"
    response = await post_text(client, text)
    assert response.status_code == 200, response.text
    assert response.content == (
        b'{"results":[{"tool_name":"t","truncated":false,"chars":%d,"max_chars":1000,"result":'
        % len(measured)
        + measured.encode()
        + b'}],"truncated_count":0}'
    )


async def test_a_spaced_object_is_measured_compactly(client):
    text = '{"max_chars": 11, "results": [{"tool_name": "t", "result": { "a" : 1E2 }}]}'
    entry = (await post_text(client, text)).json()["results"][0]
    assert (entry["chars"], entry["truncated"]) == (11, False)


# ---- the full exchange, byte for byte ------------------------------------------------------------

FULL_EXCHANGE_REQUEST = (
    '{"max_chars": 200,\n'
    ' "max_chars_by_tool": {"read_file": 1000},\n'
    ' "results": [\n'
    '   {"tool_name": "orders_export", "tool_call_id": "c1", "result": "' + "x" * 500 + '"},\n'
    '   {"tool_name": "read_file", "tool_call_id": "c2", "result": {"rows": [1, 2, 3]}},\n'
    '   {"tool_name": "ping", "tool_call_id": "c3"}]}'
)
FULL_EXCHANGE_RESPONSE = (
    b'{"results":['
    b'{"tool_call_id":"c1","tool_name":"orders_export","truncated":true,"chars":500,'
    b'"max_chars":200,"result":{"truncated":true,"reason":"orders_export returned 500 chars, '
    b'over the 200-char cap. Narrow the request and call again.","head":"' + b"x" * 69 + b'"}},'
    b'{"tool_call_id":"c2","tool_name":"read_file","truncated":false,"chars":16,'
    b'"max_chars":1000,"result":{"rows":[1,2,3]}},'
    b'{"tool_call_id":"c3","tool_name":"ping","truncated":false,"chars":29,"max_chars":200}],'
    b'"truncated_count":1}'
)


async def test_full_exchange_6_3(client):
    response = await post_text(client, FULL_EXCHANGE_REQUEST)
    assert response.status_code == 200, response.text
    assert response.content == FULL_EXCHANGE_RESPONSE


async def test_the_same_request_gives_the_same_bytes(client):
    first = await post_text(client, FULL_EXCHANGE_REQUEST)
    second = await post_text(client, FULL_EXCHANGE_REQUEST)
    assert first.content == second.content


# ---- accepted input ------------------------------------------------------------------------------

ONE_ITEM = [{"tool_name": "t", "result": "abc"}]


@pytest.mark.parametrize(
    ("max_chars", "echoed"),
    [
        pytest.param("2.0", 2, id="2.0"),
        pytest.param("2", 2, id="2"),
        pytest.param("2e0", 2, id="2e0"),
        pytest.param("2E0", 2, id="2E0"),
        pytest.param("20e-1", 2, id="20e-1"),
        pytest.param("2e2", 200, id="2e2"),
        pytest.param("200.0", 200, id="200.0"),
        pytest.param("9223372036854775807", MAX_INT64, id="max-int64"),
    ],
)
async def test_an_integral_cap_is_accepted_and_echoed_as_an_integer(client, max_chars, echoed):
    text = '{"max_chars": ' + max_chars + ', "results": [{"tool_name": "t", "result": "abc"}]}'
    response = await post_text(client, text)
    assert response.status_code == 200, response.text
    assert b'"max_chars":%d' % echoed in response.content
    entry = response.json()["results"][0]
    assert entry["max_chars"] == echoed
    assert entry["truncated"] is (echoed < 3)


async def test_6_4_cap_of_2_0(client):
    text = '{"max_chars": 2.0, "results": [{"tool_name": "t", "result": "abc"}]}'
    entry = (await post_text(client, text)).json()["results"][0]
    assert entry["max_chars"] == 2
    assert entry["result"] == {"truncated": True, "reason": reason("t", 3, 2)}
    assert entry["result"]["reason"].endswith(
        "over the 2-char cap. Narrow the request and call again."
    )


async def test_an_integral_per_tool_cap_is_echoed_as_an_integer(client):
    text = (
        '{"max_chars": 1, "max_chars_by_tool": {"t": 3.0}, '
        '"results": [{"tool_name": "t", "result": "abc"}]}'
    )
    response = await post_text(client, text)
    assert b'"truncated":false,"chars":3,"max_chars":3,"result":"abc"' in response.content


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        pytest.param(
            {"tool_name": "t", "tool_call_id": None, "result": "abc"},
            {"tool_name": "t", "truncated": False, "chars": 3, "max_chars": 10, "result": "abc"},
            id="tool_call_id-null-left-out",
        ),
        pytest.param(
            {"tool_name": "t", "tool_call_id": "", "result": "abc"},
            {
                "tool_call_id": "",
                "tool_name": "t",
                "truncated": False,
                "chars": 3,
                "max_chars": 10,
                "result": "abc",
            },
            id="tool_call_id-empty-echoed",
        ),
        pytest.param(
            {"result": "abc", "landed_at": 4, "tool_name": "t", "args": {"q": 1}},
            {"tool_name": "t", "truncated": False, "chars": 3, "max_chars": 10, "result": "abc"},
            id="extra-item-keys-ignored",
        ),
        pytest.param(
            {"tool_name": "t", "result": None},
            {"tool_name": "t", "truncated": False, "chars": 4, "max_chars": 10, "result": None},
            id="null-is-a-result",
        ),
        pytest.param(
            {"tool_name": "t"},
            {
                "tool_name": "t",
                "truncated": True,
                "chars": 29,
                "max_chars": 10,
                "result": {"truncated": True, "reason": reason("t", 29, 10)},
            },
            id="absent-is-no-value",
        ),
        pytest.param(
            {"tool_name": "t", "result": ""},
            {"tool_name": "t", "truncated": False, "chars": 0, "max_chars": 10, "result": ""},
            id="empty-string",
        ),
        pytest.param(
            {"tool_name": "t", "result": False},
            {"tool_name": "t", "truncated": False, "chars": 5, "max_chars": 10, "result": False},
            id="boolean",
        ),
        pytest.param(
            {"tool_name": "T", "result": "abcdefghijk"},
            {
                "tool_name": "T",
                "truncated": False,
                "chars": 11,
                "max_chars": 20,
                "result": "abcdefghijk",
            },
            id="per-tool-cap-of-T",
        ),
        pytest.param(
            {"tool_name": "t", "result": "abcdefghijk"},
            {
                "tool_name": "t",
                "truncated": True,
                "chars": 11,
                "max_chars": 10,
                "result": {"truncated": True, "reason": reason("t", 11, 10)},
            },
            id="per-tool-cap-case-sensitive",
        ),
    ],
)
async def test_accepted_item(client, item, expected):
    body = {"max_chars": 10, "max_chars_by_tool": {"T": 20}, "results": [item]}
    response = await post(client, body)
    assert response.status_code == 200, response.text
    assert response.json()["results"] == [expected]
    assert list(response.json()["results"][0]) == list(expected)


async def test_max_chars_by_tool_null_is_empty(client):
    body = {"max_chars": 2, "max_chars_by_tool": None, "results": ONE_ITEM}
    entry = (await post(client, body)).json()["results"][0]
    assert (entry["max_chars"], entry["truncated"]) == (2, True)


async def test_10000_results_are_accepted(client):
    results = [{"tool_name": "t", "tool_call_id": f"c{i}", "result": i} for i in range(10_000)]
    response = await post(client, {"max_chars": 3, "results": results})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert [entry["tool_call_id"] for entry in answer["results"]] == [
        f"c{i}" for i in range(10_000)
    ]
    assert answer["truncated_count"] == 9_000  # 1000..9999 measure 4 characters


# ---- refused input -------------------------------------------------------------------------------


def assert_refused(response: httpx.Response, locs: list[list[Any]]) -> list[dict[str, Any]]:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == 422
    found = [error["loc"] for error in problem["errors"]]
    assert sorted(map(repr, found)) == sorted(map(repr, locs)), found
    return problem["errors"]


def assert_cap_errors(response: httpx.Response, locs: list[list[Any]]) -> None:
    for error in assert_refused(response, locs):
        assert error["msg"] == CAP_MSG
        assert error["type"] == "invalid_cap"


INVALID_CAPS = [
    pytest.param("0", id="0"),
    pytest.param("-1", id="-1"),
    pytest.param("-0", id="-0"),
    pytest.param("0.0", id="0.0"),
    pytest.param("1.5", id="1.5"),
    pytest.param("0.5", id="0.5"),
    pytest.param("true", id="true"),
    pytest.param("false", id="false"),
    pytest.param('"200"', id="string-200"),
    pytest.param('"10"', id="string-10"),
    pytest.param("null", id="null"),
    pytest.param("{}", id="object"),
    pytest.param('{"value": 200}', id="object-with-value"),
    pytest.param("[]", id="array"),
    pytest.param("[200]", id="array-of-200"),
    pytest.param("9223372036854775808", id="max-int64-plus-1"),
    pytest.param("18446744073709551615", id="max-uint64"),
    pytest.param("1e19", id="1e19"),
    pytest.param("1e300", id="1e300"),
]


@pytest.mark.parametrize("value", INVALID_CAPS)
async def test_6_4_invalid_max_chars(client, value):
    text = '{"max_chars": ' + value + ', "results": [{"tool_name": "t", "result": "x"}]}'
    assert_cap_errors(await post_text(client, text), [["body", "max_chars"]])


async def test_6_4_max_chars_missing(client):
    assert_cap_errors(await post(client, {"results": ONE_ITEM}), [["body", "max_chars"]])


@pytest.mark.parametrize("value", INVALID_CAPS)
async def test_6_4_invalid_per_tool_cap_even_when_no_item_names_the_tool(client, value):
    text = (
        '{"max_chars": 200, "max_chars_by_tool": {"read_file": 1000, "dump": ' + value + "}, "
        '"results": [{"tool_name": "t", "result": "x"}]}'
    )
    assert_cap_errors(await post_text(client, text), [["body", "max_chars_by_tool", "dump"]])


async def test_every_invalid_cap_is_reported(client):
    body = {
        "max_chars": 0,
        "max_chars_by_tool": {"a": -1, "b": 1.5, "ok": 7, "c": "7", "": True},
        "results": ONE_ITEM,
    }
    assert_cap_errors(
        await post(client, body),
        [
            ["body", "max_chars"],
            ["body", "max_chars_by_tool", "a"],
            ["body", "max_chars_by_tool", "b"],
            ["body", "max_chars_by_tool", "c"],
            ["body", "max_chars_by_tool", ""],
        ],
    )


def results_of(count: int) -> list[dict[str, Any]]:
    return [{"tool_name": "t", "result": "x"}] * count


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        pytest.param({"max_chars": 10, "results": []}, ["body", "results"], id="results-empty"),
        pytest.param(
            {"max_chars": 10, "results": results_of(10_001)}, ["body", "results"], id="10001"
        ),
        pytest.param({"max_chars": 10}, ["body", "results"], id="results-missing"),
        pytest.param({"max_chars": 10, "results": None}, ["body", "results"], id="results-null"),
        pytest.param(
            {"max_chars": 10, "results": {"tool_name": "t"}},
            ["body", "results"],
            id="results-an-object",
        ),
        pytest.param({"max_chars": 10, "results": "x"}, ["body", "results"], id="results-a-string"),
        pytest.param(
            {"max_chars": 10, "results": [{"result": "x"}]},
            ["body", "results", 0, "tool_name"],
            id="item-without-tool_name",
        ),
        pytest.param(
            {"max_chars": 10, "results": [{"tool_name": "", "result": "x"}]},
            ["body", "results", 0, "tool_name"],
            id="tool_name-empty",
        ),
        pytest.param(
            {"max_chars": 10, "results": [{"tool_name": 5, "result": "x"}]},
            ["body", "results", 0, "tool_name"],
            id="tool_name-5",
        ),
        pytest.param(
            {"max_chars": 10, "results": [{"tool_name": None, "result": "x"}]},
            ["body", "results", 0, "tool_name"],
            id="tool_name-null",
        ),
        pytest.param(
            {"max_chars": 10, "results": [{"tool_name": "t", "tool_call_id": 5}]},
            ["body", "results", 0, "tool_call_id"],
            id="tool_call_id-5",
        ),
        pytest.param(
            {"max_chars": 10, "results": [{"tool_name": "t", "tool_call_id": ["c1"]}]},
            ["body", "results", 0, "tool_call_id"],
            id="tool_call_id-array",
        ),
        pytest.param(
            {"max_chars": 10, "results": [{"tool_name": "t"}, "x"]},
            ["body", "results", 1],
            id="item-a-string",
        ),
        pytest.param({"max_chars": 10, "results": [None]}, ["body", "results", 0], id="item-null"),
        pytest.param(
            {"max_chars": 10, "max_chars_by_tool": [1], "results": ONE_ITEM},
            ["body", "max_chars_by_tool"],
            id="max_chars_by_tool-an-array",
        ),
        pytest.param(
            {"max_chars": 10, "max_chars_by_tool": 5, "results": ONE_ITEM},
            ["body", "max_chars_by_tool"],
            id="max_chars_by_tool-a-number",
        ),
        pytest.param(
            {"max_chars": 10, "max_chars_by_tool": "t", "results": ONE_ITEM},
            ["body", "max_chars_by_tool"],
            id="max_chars_by_tool-a-string",
        ),
        pytest.param(
            {"max_chars": 10, "results": ONE_ITEM, "max_char": 5},
            ["body", "max_char"],
            id="unknown-field",
        ),
        pytest.param(
            {"max_chars": 10, "results": ONE_ITEM, "format": "native"},
            ["body", "format"],
            id="unknown-field-of-another-endpoint",
        ),
        pytest.param([{"max_chars": 10, "results": ONE_ITEM}], ["body"], id="body-an-array"),
        pytest.param("max_chars", ["body"], id="body-a-string"),
        pytest.param(None, ["body"], id="body-null"),
    ],
)
async def test_refused(client, body, loc):
    errors = assert_refused(await post(client, body), [loc])
    assert errors[0]["type"] != "invalid_cap"


async def test_every_violation_is_named_in_one_answer(client):
    body = {
        "max_chars": "10",
        "max_chars_by_tool": {"dump": 0},
        "results": [{"result": 1}, {"tool_name": "t", "tool_call_id": 5}, 7],
        "maxchars": 10,
    }
    assert_refused(
        await post(client, body),
        [
            ["body", "max_chars"],
            ["body", "max_chars_by_tool", "dump"],
            ["body", "results", 0, "tool_name"],
            ["body", "results", 1, "tool_call_id"],
            ["body", "results", 2],
            ["body", "maxchars"],
        ],
    )


# ---- strict JSON: 400 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "result",
    [
        pytest.param("NaN", id="NaN"),
        pytest.param("Infinity", id="Infinity"),
        pytest.param("-Infinity", id="-Infinity"),
        pytest.param("1e400", id="1e400"),
        pytest.param("-1e400", id="-1e400"),
        pytest.param('"\\ud83d"', id="unpaired-high-surrogate"),
        pytest.param('"\\ude00"', id="unpaired-low-surrogate"),
        pytest.param('"\\ude00\\ud83d"', id="reversed-pair"),
        pytest.param('"abc\\ud83dxyz"', id="high-surrogate-inside-text"),
        pytest.param('{"\\ud83d": 1}', id="unpaired-surrogate-in-a-key"),
    ],
)
async def test_a_body_that_is_not_strict_json_is_a_400(client, result):
    text = '{"max_chars": 10, "results": [{"tool_name": "t", "result": ' + result + "}]}"
    response = await post_text(client, text)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/problem+json"


async def test_a_paired_escape_is_one_code_point(client):
    text = '{"max_chars": 1, "results": [{"tool_name": "t", "result": "\\ud83d\\ude00"}]}'
    entry = (await post_text(client, text)).json()["results"][0]
    assert (entry["chars"], entry["truncated"], entry["result"]) == (1, False, "😀")


async def test_a_body_not_sent_as_json_is_a_415(client):
    response = await client.post(PATH, content=orjson.dumps({"max_chars": 1, "results": ONE_ITEM}))
    assert response.status_code == 415


# ---- metrics -------------------------------------------------------------------------------------


def counter(text: str, name: str, tool: str) -> float:
    prefix = f'{name}{{tool="{tool}"}} '
    for line in text.splitlines():
        if line.startswith(prefix):
            return float(line[len(prefix) :])
    return 0.0


async def test_measured_and_truncated_results_are_counted_by_tool(client):
    await post_text(client, FULL_EXCHANGE_REQUEST)
    await post_text(client, FULL_EXCHANGE_REQUEST)
    await post(
        client,
        {"max_chars": 1, "results": [{"tool_name": "ping", "result": "x"}, {"tool_name": "ping"}]},
    )
    await post(client, {"max_chars": 0, "results": [{"tool_name": "orders_export"}]})  # refused
    text = (await client.get("/metrics")).text
    assert counter(text, "cwp_cap_results_total", "orders_export") == 2
    assert counter(text, "cwp_cap_results_total", "read_file") == 2
    assert counter(text, "cwp_cap_results_total", "ping") == 4
    assert counter(text, "cwp_cap_truncations_total", "orders_export") == 2
    assert counter(text, "cwp_cap_truncations_total", "read_file") == 0
    assert counter(text, "cwp_cap_truncations_total", "ping") == 1
    assert (
        'cwp_http_requests_total{method="POST",route="/v1/tool-results/cap",status="200"} 3.0'
        in (text)
    )


# ---- the Swagger example and the document --------------------------------------------------------


@pytest.mark.parametrize("name", list(CAP_EXAMPLES))
async def test_swagger_example(client, name):
    response = await post(client, CAP_EXAMPLES[name]["value"])
    assert response.status_code == 200, response.text
    assert response.content == FULL_EXCHANGE_RESPONSE


def test_the_swagger_example_shows_a_string_over_an_object_under_and_no_value():
    items = CAP_EXAMPLES["three_results"]["value"]["results"]
    assert isinstance(items[0]["result"], str)
    assert isinstance(items[1]["result"], dict)
    assert "result" not in items[2]


async def test_openapi_documents_the_request_and_the_example(client):
    spec = (await client.get("/openapi.json")).json()
    operation = spec["paths"][PATH]["post"]
    assert operation["tags"] == ["cap"]
    media = operation["requestBody"]["content"]["application/json"]
    assert media["schema"] == {"$ref": "#/components/schemas/CapRequest"}
    assert set(media["examples"]) == set(CAP_EXAMPLES)
    assert {"400", "413", "415", "422", "500", "503"} <= set(operation["responses"])
    response_schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert response_schema == {"$ref": "#/components/schemas/CapResponse"}
    schemas = spec["components"]["schemas"]
    request = schemas["CapRequest"]
    assert set(request["properties"]) == {"max_chars", "max_chars_by_tool", "results"}
    assert set(request["required"]) == {"max_chars", "results"}
    assert request["properties"]["max_chars"]["minimum"] == 1
    assert request["properties"]["max_chars"]["maximum"] == MAX_INT64
    assert request["properties"]["results"]["maxItems"] == 10_000
    assert "default" not in schemas["CapItem"]["properties"]["result"]
    assert list(schemas["CapResultOut"]["properties"]) == [
        "tool_call_id",
        "tool_name",
        "truncated",
        "chars",
        "max_chars",
        "result",
    ]


# ---- property: the answer keeps the rules for any JSON result ------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=60),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)
items = st.fixed_dictionaries(
    {"tool_name": st.text(min_size=1, max_size=8)},
    optional={"tool_call_id": st.text(max_size=4), "result": json_values},
)


@given(
    max_chars=st.integers(min_value=1, max_value=300),
    results=st.lists(items, min_size=1, max_size=5),
)
def test_property_every_entry_keeps_the_rules(max_chars, results):
    raw = orjson.loads(orjson.dumps({"max_chars": max_chars, "results": results}))
    answer = orjson.loads(cap_answer(raw, create_metrics()).body)
    assert len(answer["results"]) == len(results)
    assert answer["truncated_count"] == sum(entry["truncated"] for entry in answer["results"])
    for item, entry in zip(raw["results"], answer["results"], strict=True):
        text = measured_text(item.get("result", ABSENT))
        assert entry["chars"] == len(text)
        assert entry["max_chars"] == max_chars
        assert entry["truncated"] is (len(text) > max_chars)
        assert ("tool_call_id" in entry) is ("tool_call_id" in item)
        if not entry["truncated"]:
            assert ("result" in entry) is ("result" in item)
            if "result" in item:
                assert compact(entry["result"]) == compact(item["result"])
            continue
        marker = entry["result"]
        assert marker["reason"] == reason(item["tool_name"], len(text), max_chars)
        if "head" in marker:
            assert text.startswith(marker["head"])
            assert len(compact(marker)) <= max_chars
