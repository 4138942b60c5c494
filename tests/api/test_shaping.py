"""Shaping (docs/rules.md#shaping) over HTTP: S1–S4 in native, OpenAI and Anthropic byte for byte,
how each format writes a shaped result, the validation (docs/rules.md#shaping), the response
(docs/rules.md#the-shaped-answer) and the metrics.

The S1 marker is checked three ways: the literal text of the cap's marker
(docs/rules.md#the-marker), the core's `marker_for`, and what `POST /v1/tool-results/cap` answers
for the same result.
"""

from __future__ import annotations

import copy
from typing import Any

import httpx
import orjson
import pytest

from app.core.cap import marker_for
from app.core.collapse import ticket_for
from app.core.ledger import StandingRow
from tests.api.test_formats_equivalence import convert
from tests.core.native_wire import wire
from tests.core.window_examples import request_body
from tests.core.window_fixtures import TASK, R, U, W

pytestmark = pytest.mark.anyio

PATH = "/v1/window/plan"
CAP_PATH = "/v1/tool-results/cap"
JSON = {"content-type": "application/json"}
WIRES = ("native", "openai", "anthropic")

X = "x" * 500
P = "p" * 120
S1_MARKER = (
    '{"truncated":true,"reason":"orders_export returned 500 chars, over the 200-char cap. '
    'Narrow the request and call again.","head":"' + "x" * 69 + '"}'
)
S1_TICKET = '{"collapsed":true,"standing":"noise","tool_call_id":"c2"}'
S1_NATIVE = wire(W(U(TASK), R("c1", "orders_export", X), R("c2", "look", P), R("c3", "look")))
S1_SHAPED_NATIVE = wire(
    W(U(TASK), R("c1", "orders_export", S1_MARKER), R("c2", "look", S1_TICKET), R("c3", "look"))
)
S1_OPTIONS: dict[str, Any] = {
    **{
        k: v for k, v in request_body([], keep=6, ledger={"c2": "noise"}).items() if k != "messages"
    },
    "collapse": "ledger-and-facts",
    "cap": {"max_chars": 200},
}
S2_OPTIONS: dict[str, Any] = {
    **S1_OPTIONS,
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
    "keep_last_tool_results": 0,
}

TOP_KEYS = [
    "format",
    "strategy",
    "engaged",
    "current_request",
    "turns",
    "kept",
    "evicted",
    "evicted_messages",
    "pins",
    "refusals",
    "notice",
    "stats",
    "dropped_tool_names",
    "dropped_standings",
    "shaped",
    "diagnostics",
    "record",
    "window",
]
STATS_KEYS = [
    "messages_before",
    "messages_after",
    "turns_before",
    "turns_after",
    "chars_before",
    "chars_shaped",
    "chars_after",
    "removed_message_count",
]
SHAPED_KEYS = [
    "message_index",
    "window_index",
    "tool_call_id",
    "action",
    "chars_before",
    "chars_after",
]


def compact(value: Any) -> str:
    return orjson.dumps(value).decode()


async def post(client: httpx.AsyncClient, path: str, body: Any) -> httpx.Response:
    return await client.post(path, content=orjson.dumps(body), headers=JSON)


async def plan_ok(client: httpx.AsyncClient, body: Any) -> tuple[dict[str, Any], bytes]:
    response = await post(client, PATH, body)
    assert response.status_code == 200, response.text
    return response.json(), response.content


def in_wire(messages: list[dict[str, Any]], wire_name: str) -> list[Any]:
    return convert(messages, wire_name).messages


def shaped_entry(
    message_index: int,
    window_index: int | None,
    tool_call_id: str,
    action: str,
    before: int,
    after: int,
) -> dict[str, Any]:
    values = (message_index, window_index, tool_call_id, action, before, after)
    return dict(zip(SHAPED_KEYS, values, strict=True))


def stats(wire_name: str, *values: int) -> dict[str, Any]:
    out: dict[str, Any] = dict(zip(STATS_KEYS, values, strict=True))
    if wire_name == "anthropic":
        out["system_chars"] = 0
    return out


def assert_window_bytes(raw: bytes, answer: dict[str, Any], expected: list[Any]) -> None:
    """The window written exactly: as the response's last field, byte for byte."""
    assert raw.endswith(b',"window":' + orjson.dumps(expected) + b"}")
    assert answer["window"] == expected


# ---- S1–S4 worked examples, in every format ------------------------------------------------------


@pytest.mark.parametrize("wire_name", WIRES)
async def test_s1_both_not_engaged(client: httpx.AsyncClient, wire_name: str) -> None:
    body = {**S1_OPTIONS, "messages": in_wire(S1_NATIVE, wire_name), "format": wire_name}
    answer, raw = await plan_ok(client, body)
    assert answer["engaged"] is False
    assert answer["shaped"] == [
        shaped_entry(2, 2, "c1", "capped", 500, 200),
        shaped_entry(4, 4, "c2", "collapsed", 120, 57),
    ]
    assert answer["stats"] == stats(wire_name, 7, 7, 4, 4, 671, 308, 308, 0)
    assert [turn["chars"] for turn in answer["turns"]] == [49, 200, 57, 2]
    assert_window_bytes(raw, answer, in_wire(S1_SHAPED_NATIVE, wire_name))


async def test_s1_in_each_format_is_written_where_the_format_holds_a_result(
    client: httpx.AsyncClient,
) -> None:
    """The two shaped texts as each wire carries them: a tool message's `content` string
    (OpenAI: no tool_name), a `tool_result` block's `content`."""
    windows = {}
    for wire_name in WIRES:
        body = {**S1_OPTIONS, "messages": in_wire(S1_NATIVE, wire_name), "format": wire_name}
        windows[wire_name] = (await plan_ok(client, body))[0]["window"]
    assert windows["native"][2] == {
        "role": "tool",
        "content": S1_MARKER,
        "tool_call_id": "c1",
        "tool_name": "orders_export",
    }
    assert windows["openai"][2] == {"role": "tool", "tool_call_id": "c1", "content": S1_MARKER}
    assert windows["openai"][4] == {"role": "tool", "tool_call_id": "c2", "content": S1_TICKET}
    assert windows["anthropic"][2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c1", "content": S1_MARKER}],
    }
    assert windows["anthropic"][4]["content"][0]["content"] == S1_TICKET


async def test_s1_texts_are_the_cores_and_the_cap_endpoints(client: httpx.AsyncClient) -> None:
    answer, _ = await plan_ok(client, {**S1_OPTIONS, "messages": S1_NATIVE})
    written = answer["window"][2]["content"]
    assert written == S1_MARKER == compact(marker_for(X, "orders_export", 200))
    assert len(written) == 200
    capped = await post(
        client,
        CAP_PATH,
        {"max_chars": 200, "results": [{"tool_name": "orders_export", "result": X}]},
    )
    assert capped.status_code == 200, capped.text
    entry = capped.json()["results"][0]
    assert entry["truncated"] is True
    assert compact(entry["result"]) == written
    assert answer["window"][4]["content"] == S1_TICKET == ticket_for(StandingRow("c2", "noise"))


@pytest.mark.parametrize("wire_name", WIRES)
async def test_s2_removal_sees_shaped_characters(client: httpx.AsyncClient, wire_name: str) -> None:
    body = {**S2_OPTIONS, "messages": in_wire(S1_NATIVE, wire_name), "format": wire_name}
    answer, raw = await plan_ok(client, body)
    assert answer["current_request"] == {"message_index": 0, "turn_index": 0}
    assert [(t["fate"], t["held_by"]) for t in answer["turns"]] == [
        ("kept", "current-request"),
        ("evicted", None),
        ("evicted", None),
        ("kept", "inside-keep-window"),
    ]
    assert answer["notice"] is None  # 257 shaped characters: no notice is smaller
    assert answer["evicted_messages"] == [1, 2, 3, 4]
    assert answer["stats"] == stats(wire_name, 7, 3, 4, 2, 671, 308, 51, 4)
    assert answer["shaped"] == [
        shaped_entry(2, None, "c1", "capped", 500, 200),
        shaped_entry(4, None, "c2", "collapsed", 120, 57),
    ]
    assert answer["dropped_standings"] == [
        {"tool_call_id": "c1", "standing": None},
        {"tool_call_id": "c2", "standing": "noise"},
    ]
    assert_window_bytes(raw, answer, in_wire(wire(W(U(TASK), R("c3", "look"))), wire_name))


async def test_s2_without_shaping_the_span_gets_the_rich_notice(client: httpx.AsyncClient) -> None:
    plain = {k: v for k, v in S2_OPTIONS.items() if k not in ("collapse", "cap")}
    answer, _ = await plan_ok(client, {**plain, "messages": S1_NATIVE})
    assert answer["notice"] is not None and answer["notice"]["rung"] == "rich"
    assert len(answer["notice"]["content"]) == 425
    assert "shaped" not in answer and "chars_shaped" not in answer["stats"]


@pytest.mark.parametrize("wire_name", WIRES)
async def test_s3_the_shaped_window_sent_again_shapes_nothing(
    client: httpx.AsyncClient, wire_name: str
) -> None:
    first, _ = await plan_ok(
        client, {**S1_OPTIONS, "messages": in_wire(S1_NATIVE, wire_name), "format": wire_name}
    )
    again, raw = await plan_ok(
        client, {**S1_OPTIONS, "messages": first["window"], "format": wire_name}
    )
    assert again["shaped"] == []
    assert again["stats"] == stats(wire_name, 7, 7, 4, 4, 308, 308, 308, 0)
    assert_window_bytes(raw, again, first["window"])


@pytest.mark.parametrize("wire_name", WIRES)
async def test_s4_a_short_judged_result_keeps_its_words(
    client: httpx.AsyncClient, wire_name: str
) -> None:
    messages = in_wire(wire(W(U(TASK), R("c1", "look", "closed"))), wire_name)
    body = {
        "messages": messages,
        "format": wire_name,
        "ledger": [{"tool_call_id": "c1", "standing": "noise"}],
        "collapse": "ledger-and-facts",
    }
    answer, raw = await plan_ok(client, body)
    assert answer["shaped"] == []
    assert answer["stats"]["chars_shaped"] == answer["stats"]["chars_before"] == len(TASK) + 6
    assert_window_bytes(raw, answer, messages)


# ---- the window, format by format ----------------------------------------------------------------


async def test_openai_an_array_of_parts_is_replaced_by_the_string(
    client: httpx.AsyncClient,
) -> None:
    sent = in_wire(S1_NATIVE, "openai")
    sent[2] = {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": "x" * 250}, {"type": "text", "text": "x" * 250}],
        "x_trace": {"span": 7},
    }
    answer, raw = await plan_ok(client, {**S1_OPTIONS, "messages": sent, "format": "openai"})
    assert answer["shaped"][0] == shaped_entry(2, 2, "c1", "capped", 500, 200)
    expected = copy.deepcopy(sent)
    expected[2] = {
        "role": "tool",
        "tool_call_id": "c1",
        "content": S1_MARKER,
        "x_trace": {"span": 7},
    }
    expected[4]["content"] = S1_TICKET
    assert_window_bytes(raw, answer, expected)


async def test_openai_results_are_named_through_their_calls(client: httpx.AsyncClient) -> None:
    """An OpenAI tool message carries no name: `max_chars_by_tool` reads the call's."""
    sent = in_wire(S1_NATIVE, "openai")
    body = {
        **S1_OPTIONS,
        "messages": sent,
        "format": "openai",
        "cap": {"max_chars": 1000, "max_chars_by_tool": {"orders_export": 200}},
    }
    answer, _ = await plan_ok(client, body)
    assert answer["window"][2]["content"] == S1_MARKER
    assert "tool_name" not in answer["window"][2]


async def test_native_an_unnamed_result_is_capped_as_the_tool(client: httpx.AsyncClient) -> None:
    sent = [{"role": "user", "content": TASK}, {"role": "tool", "tool_call_id": "x1", "content": X}]
    body = {"messages": sent, "cap": {"max_chars": 200, "max_chars_by_tool": {"the tool": 900}}}
    answer, raw = await plan_ok(client, body)
    marker = compact(marker_for(X, "the tool", 200))
    assert orjson.loads(marker)["reason"].startswith("the tool returned 500 chars")
    assert answer["shaped"] == [shaped_entry(1, 1, "x1", "capped", 500, len(marker))]
    assert_window_bytes(raw, answer, [sent[0], {**sent[1], "content": marker}])


async def test_native_extra_fields_and_array_content_of_a_result(client: httpx.AsyncClient) -> None:
    sent = copy.deepcopy(S1_NATIVE)
    sent[2] = {"x_first": 1, **sent[2], "x_last": [1, {"a": None}]}
    sent[4]["cache"] = "keep-me"
    answer, raw = await plan_ok(client, {**S1_OPTIONS, "messages": sent})
    expected = copy.deepcopy(sent)
    expected[2]["content"] = S1_MARKER
    expected[4]["content"] = S1_TICKET
    assert list(expected[2]) == [
        "x_first",
        "role",
        "content",
        "tool_call_id",
        "tool_name",
        "x_last",
    ]
    assert_window_bytes(raw, answer, expected)


ANTHROPIC_BATCH = [
    {"role": "user", "content": TASK},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "c1", "name": "orders_export", "input": {"q": 1}},
            {"type": "tool_use", "id": "c2", "name": "look", "input": {}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "c1",
                "content": [
                    {"type": "text", "text": "x" * 300},
                    {"type": "text", "text": "x" * 200},
                ],
                "cache_control": {"type": "ephemeral"},
            },
            {
                "type": "tool_result",
                "tool_use_id": "c2",
                "is_error": True,
                "content": P,
                "x_note": "kept",
            },
            {"type": "text", "text": "and now?"},
        ],
    },
]


async def test_anthropic_two_results_in_one_message_both_shaped(client: httpx.AsyncClient) -> None:
    body = {**S1_OPTIONS, "messages": ANTHROPIC_BATCH, "format": "anthropic"}
    answer, raw = await plan_ok(client, body)
    assert answer["shaped"] == [
        shaped_entry(2, 2, "c1", "capped", 500, 200),
        shaped_entry(2, 2, "c2", "collapsed", 120, 57),
    ]
    assert answer["stats"] == stats("anthropic", 3, 3, 3, 3, 49 + 7 + 500 + 120 + 8, 321, 321, 0)
    expected = copy.deepcopy(ANTHROPIC_BATCH)
    blocks = expected[2]["content"]
    blocks[0] = {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": S1_MARKER,
        "cache_control": {"type": "ephemeral"},
    }
    blocks[1] = {
        "type": "tool_result",
        "tool_use_id": "c2",
        "is_error": True,
        "content": S1_TICKET,
        "x_note": "kept",
    }
    assert_window_bytes(raw, answer, expected)
    assert ANTHROPIC_BATCH[2]["content"][1]["content"] == P  # the request is not mutated


async def test_anthropic_one_result_of_a_message_shaped_the_other_kept(
    client: httpx.AsyncClient,
) -> None:
    body = {
        "messages": ANTHROPIC_BATCH,
        "format": "anthropic",
        "cap": {"max_chars": 200, "max_chars_by_tool": {"look": 500}},
    }
    answer, raw = await plan_ok(client, body)
    assert answer["shaped"] == [shaped_entry(2, 2, "c1", "capped", 500, 200)]
    expected = copy.deepcopy(ANTHROPIC_BATCH)
    expected[2]["content"][0]["content"] = S1_MARKER
    assert_window_bytes(raw, answer, expected)


# ---- validation ----------------------------------------------------------------------------------

BASE = {**S1_OPTIONS, "messages": S1_NATIVE}


def without(body: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in keys}


INVALID = [
    *(
        ({"collapse": value}, ["body", "collapse"])
        for value in ("all", "ledger", "", 1, True, [], {})
    ),
    *(({"cap": value}, ["body", "cap"]) for value in ("x", 5, [], True)),
    *(
        ({"cap": {"max_chars": value}}, ["body", "cap", "max_chars"])
        for value in (0, -1, 1.5, True, "200", None, [200], 9_223_372_036_854_775_808)
    ),
    ({"cap": {}}, ["body", "cap", "max_chars"]),
    ({"cap": {"max_chars_by_tool": {"look": 5}}}, ["body", "cap", "max_chars"]),
    *(
        (
            {"cap": {"max_chars": 200, "max_chars_by_tool": {"look": value}}},
            ["body", "cap", "max_chars_by_tool", "look"],
        )
        for value in (0, -3, 2.5, False, "5", None)
    ),
    ({"cap": {"max_chars": 200, "max_char": 5}}, ["body", "cap", "max_char"]),
    ({"cap": {"max_chars": 200, "by_tool": {}}}, ["body", "cap", "by_tool"]),
]


@pytest.mark.parametrize(("change", "loc"), INVALID, ids=[compact(c) for c, _ in INVALID])
async def test_a_bad_option_is_refused_naming_it(
    client: httpx.AsyncClient, change: dict[str, Any], loc: list[Any]
) -> None:
    response = await post(client, PATH, {**BASE, **change})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == 422
    assert [error["loc"] for error in problem["errors"]] == [loc]


async def test_every_bad_cap_value_is_reported(client: httpx.AsyncClient) -> None:
    cap = {"max_chars": 0, "max_chars_by_tool": {"a": 0, "b": 3, "c": -1}}
    response = await post(client, PATH, {**BASE, "cap": cap})
    assert response.status_code == 422
    assert sorted(compact(error["loc"]) for error in response.json()["errors"]) == sorted(
        compact(loc)
        for loc in (
            ["body", "cap", "max_chars"],
            ["body", "cap", "max_chars_by_tool", "a"],
            ["body", "cap", "max_chars_by_tool", "c"],
        )
    )


@pytest.mark.parametrize("ledger", ["absent", None], ids=["ledger-absent", "ledger-null"])
@pytest.mark.parametrize("collapse", ["ledger-and-facts", "ledger-only"])
async def test_collapse_without_a_ledger_is_refused(
    client: httpx.AsyncClient, ledger: Any, collapse: str
) -> None:
    body = {**without(BASE, "ledger", "cap"), "collapse": collapse}
    if ledger is None:
        body["ledger"] = None
    response = await post(client, PATH, body)
    assert response.status_code == 422, response.text
    assert [error["loc"] for error in response.json()["errors"]] == [["body", "collapse"]]


async def test_collapse_with_an_empty_ledger_is_accepted(client: httpx.AsyncClient) -> None:
    answer, _ = await plan_ok(client, {**without(BASE, "cap"), "ledger": []})
    assert answer["shaped"] == []


@pytest.mark.parametrize("value", [200, 200.0, 2e2])
async def test_an_integral_cap_is_read_as_an_integer(client: httpx.AsyncClient, value: Any) -> None:
    answer, _ = await plan_ok(client, {**BASE, "cap": {"max_chars": value}})
    assert answer["window"][2]["content"] == S1_MARKER


async def test_null_options_are_off(client: httpx.AsyncClient) -> None:
    off = without(BASE, "collapse", "cap")
    _, plain = await plan_ok(client, off)
    _, nulls = await plan_ok(client, {**off, "collapse": None, "cap": None})
    assert nulls == plain
    answer = orjson.loads(plain)
    assert "shaped" not in answer
    assert "chars_shaped" not in answer["stats"]
    assert answer["window"] == S1_NATIVE


# ---- the response --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"collapse": "ledger-and-facts", "cap": {"max_chars": 200}},
        {"collapse": "ledger-only"},
        {"cap": {"max_chars": 200}},
        {"cap": {"max_chars": 100_000}},  # on, nothing shaped
    ],
    ids=["both", "collapse", "cap", "cap-nothing-shaped"],
)
@pytest.mark.parametrize("keep", [6, 1])
async def test_the_response_writes_shaping_in_its_place(
    client: httpx.AsyncClient, options: dict[str, Any], keep: int
) -> None:
    body = {
        **without(BASE, "collapse", "cap"),
        **options,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": keep},
    }
    answer, _ = await plan_ok(client, body)
    assert list(answer) == TOP_KEYS
    assert list(answer["stats"]) == STATS_KEYS
    for entry in answer["shaped"]:
        assert list(entry) == SHAPED_KEYS
    if options.get("cap", {}).get("max_chars") == 100_000 and "collapse" not in options:
        assert answer["shaped"] == []
        assert answer["stats"]["chars_shaped"] == answer["stats"]["chars_before"]


async def test_the_response_without_shaping_has_neither_field(client: httpx.AsyncClient) -> None:
    answer, _ = await plan_ok(client, without(BASE, "collapse", "cap"))
    assert list(answer) == [key for key in TOP_KEYS if key != "shaped"]
    assert list(answer["stats"]) == [key for key in STATS_KEYS if key != "chars_shaped"]


async def test_anthropic_stats_keep_system_chars_last(client: httpx.AsyncClient) -> None:
    body = {
        **S1_OPTIONS,
        "messages": in_wire(S1_NATIVE, "anthropic"),
        "format": "anthropic",
        "system": "be brief",
    }
    answer, _ = await plan_ok(client, body)
    assert list(answer["stats"]) == [*STATS_KEYS, "system_chars"]
    assert answer["stats"]["system_chars"] == 8
    assert answer["stats"]["chars_before"] == 671


async def test_without_the_window_shaping_is_still_reported(client: httpx.AsyncClient) -> None:
    answer, _ = await plan_ok(client, {**BASE, "include_window": False})
    assert "window" not in answer
    assert [entry["action"] for entry in answer["shaped"]] == ["capped", "collapsed"]


# ---- metrics -------------------------------------------------------------------------------------


def counter(text: str, name: str, tool: str) -> float:
    prefix = f'{name}{{tool="{tool}"}} '
    for line in text.splitlines():
        if line.startswith(prefix):
            return float(line[len(prefix) :])
    return 0.0


async def test_metrics_count_capped_and_collapsed_results(client: httpx.AsyncClient) -> None:
    messages = wire(
        W(
            U(TASK),
            R("c1", "orders_export", X),
            R("c2", "look", P),
            R("c3", "look", P),
            R("c4", "orders_export", X),
            R("c5", "probe", X),
        )
    )
    body = {
        "messages": messages,
        "ledger": [
            {"tool_call_id": "c2", "standing": "noise"},
            {"tool_call_id": "c3", "standing": "ruled-out"},
            {"tool_call_id": "c5", "standing": "open"},
        ],
        "collapse": "ledger-and-facts",
        "cap": {"max_chars": 200},
    }
    answer, _ = await plan_ok(client, body)
    assert [(e["tool_call_id"], e["action"]) for e in answer["shaped"]] == [
        ("c1", "capped"),
        ("c2", "collapsed"),
        ("c3", "collapsed"),
        ("c4", "capped"),
        ("c5", "capped"),
    ]
    text = (await client.get("/metrics")).text
    assert counter(text, "cwp_cap_truncations_total", "orders_export") == 2
    assert counter(text, "cwp_cap_truncations_total", "probe") == 1
    assert counter(text, "cwp_cap_truncations_total", "look") == 0
    assert counter(text, "cwp_plan_collapsed_results_total", "look") == 2
    assert counter(text, "cwp_plan_collapsed_results_total", "orders_export") == 0
    # A plan that shapes nothing counts nothing.
    await plan_ok(client, without(body, "collapse", "cap"))
    again = (await client.get("/metrics")).text
    assert counter(again, "cwp_cap_truncations_total", "orders_export") == 2
    assert counter(again, "cwp_plan_collapsed_results_total", "look") == 2


# ---- the ledger as the HTTP layer reads it, and a detected format --------------------------------


async def test_only_standing_rows_collapse_and_the_winning_rows_ref_is_quoted(
    client: httpx.AsyncClient,
) -> None:
    ledger = [
        {"kind": "basis", "tool_call_id": "c1", "standing": "noise"},  # skipped whole
        {"tool_call_id": "c2", "standing": "fact", "ref": "art_old"},
        {"kind": None, "tool_call_id": "c2", "standing": "ruled-out", "ref": "art_9f3c"},
        {"kind": "standing", "tool_call_id": "c3", "standing": "noise", "ref": None},
    ]
    messages = wire(W(U(TASK), R("c1", "look", P), R("c2", "look", P), R("c3", "look", P)))
    body = {"messages": messages, "ledger": ledger, "collapse": "ledger-and-facts"}
    answer, _ = await plan_ok(client, body)
    assert [(e["tool_call_id"], e["chars_after"]) for e in answer["shaped"]] == [
        ("c2", 78),
        ("c3", 57),
    ]
    assert answer["window"][2]["content"] == P
    assert answer["window"][4]["content"] == (
        '{"collapsed":true,"standing":"ruled-out","tool_call_id":"c2","ref":"art_9f3c"}'
    )
    assert answer["window"][6]["content"] == (
        '{"collapsed":true,"standing":"noise","tool_call_id":"c3"}'
    )


@pytest.mark.parametrize("wire_name", ["openai", "anthropic"])
async def test_a_detected_format_writes_its_own_shape(
    client: httpx.AsyncClient, wire_name: str
) -> None:
    body = {**S1_OPTIONS, "messages": in_wire(S1_NATIVE, wire_name)}  # format: auto
    answer, raw = await plan_ok(client, body)
    assert answer["format"] == wire_name
    assert_window_bytes(raw, answer, in_wire(S1_SHAPED_NATIVE, wire_name))


async def test_settled_and_injected_results_over_http(client: httpx.AsyncClient) -> None:
    """A `not_dispatched` message is never shaped, whatever its size and the ledger; an injected
    result is a result like any other."""
    messages = [
        {"role": "user", "content": TASK},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "name": "look", "arguments": {}},
                {"id": "c2", "name": "look", "arguments": {}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": X, "not_dispatched": True},
        {"role": "tool", "tool_call_id": "c2", "content": X, "injected": True},
    ]
    ledger = [{"tool_call_id": "c1", "standing": "noise"}]
    body = {
        "messages": messages,
        "ledger": ledger,
        "collapse": "ledger-only",
        "cap": {"max_chars": 1},
    }
    answer, raw = await plan_ok(client, body)
    marker = compact(marker_for(X, "look", 1))
    assert answer["shaped"] == [shaped_entry(3, 3, "c2", "capped", 500, len(marker))]
    assert_window_bytes(raw, answer, [*messages[:3], {**messages[3], "content": marker}])


async def test_a_null_per_tool_map_means_none(client: Any) -> None:
    """As on `POST /v1/tool-results/cap` (docs/rules.md#cap-request): `max_chars_by_tool: null` is
    `{}`."""
    body = {
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "look"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "x" * 500},
        ],
        "cap": {"max_chars": 200, "max_chars_by_tool": None},
    }
    response = await client.post("/v1/window/plan", json=body)
    assert response.status_code == 200, response.text
    assert [entry["action"] for entry in response.json()["shaped"]] == ["capped"]
