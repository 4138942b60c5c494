"""Summaries (docs/rules.md#summaries) over HTTP: S-1 to S-4 in native, OpenAI and Anthropic byte
for byte, every reason an entry is ignored, the ladder's refusal let go by a summary, `fit` with
the summary's real cost and a summary request within `max_tokens`, the validation of both options,
the answer unchanged when neither is sent, and the metrics."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.answers import plan_answer
from app.api.metrics import create_metrics
from app.core.defaults import DEFAULT_SUMMARY_INSTRUCTIONS
from tests.api.test_formats_equivalence import convert
from tests.formats.test_properties import native_transcripts

pytestmark = pytest.mark.anyio

PATH = "/v1/window/plan"
JSON = {"content-type": "application/json"}
WIRES = ("native", "openai", "anthropic")
TASK = "Audit the racks and report the hottest."
X = "x" * 500


def A(call_id: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "name": "look", "arguments": {}}],
    }


def T(call_id: str, text: str = X) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "tool_name": "look", "content": text}


def U(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


S1 = [U(TASK), A("c1"), T("c1"), A("c2"), T("c2"), A("c3"), T("c3")]
S3 = [*S1, A("c4"), T("c4")]
OPTIONS: dict[str, Any] = {
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
    "keep_last_tool_results": 0,
    "summarize": {"min_span_tokens": 0},
}


def key(messages: list[Any], first: int, through: int) -> str:
    """The key by its definition, written independently of the service: SHA-256 of the compact
    JSON (no whitespace, non-ASCII raw) of the messages, keys in the order sent."""
    text = json.dumps(messages[first : through + 1], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def summary_text(count: int, rest: int, summary: str) -> str:
    more = "" if rest == 0 else f" and {rest} more removed without a summary"
    header = f"[compacted history — {count} earlier message(s) summarized by the model{more}]"
    return f"{header}\n\n{summary}"


def service_text(wire: str, text: str) -> dict[str, Any]:
    """A user text of the service's own as the wire writes a notice."""
    if wire == "anthropic":
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    return {"role": "user", "content": text}


def in_wire(wire: str, *pieces: list[Any] | str) -> list[Any]:
    """Native runs converted to `wire`, with each string written as a service text."""
    out: list[Any] = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(service_text(wire, piece))
        elif piece:
            out.extend(convert(piece, wire).messages)
    return out


async def plan_ok(client: httpx.AsyncClient, body: Any) -> dict[str, Any]:
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def body_of(wire: str, messages: list[Any], **options: Any) -> dict[str, Any]:
    return {"messages": in_wire(wire, messages), "format": wire, **OPTIONS, **options}


@pytest.mark.parametrize("wire", WIRES)
async def test_s1_the_request(client: httpx.AsyncClient, wire: str) -> None:
    body = body_of(wire, S1)
    answer = await plan_ok(client, body)
    assert answer["evicted_messages"] == [1, 2, 3, 4]
    assert answer["notice"]["rung"] == "rich" and answer["notice"]["window_index"] == 1
    assert answer["window"] == in_wire(wire, [U(TASK)], answer["notice"]["content"], S1[5:])
    assert answer["summary_request"] == {
        "from": 1,
        "through": 4,
        "key": key(body["messages"], 1, 4),
        "request": {"messages": in_wire(wire, S1[:5], DEFAULT_SUMMARY_INSTRUCTIONS)},
    }
    assert answer["summary_used"] is None and answer["summaries_ignored"] == []
    keys = list(answer)
    assert keys.index("summary_request") + 3 == keys.index("diagnostics")
    assert keys[keys.index("summary_request") :][:3] == [
        "summary_request",
        "summary_used",
        "summaries_ignored",
    ]


@pytest.mark.parametrize("wire", WIRES)
async def test_s2_the_summary_in_place(client: httpx.AsyncClient, wire: str) -> None:
    messages = in_wire(wire, S1)
    entry = {"from": 1, "through": 4, "key": key(messages, 1, 4), "summary": "S"}
    answer = await plan_ok(client, body_of(wire, S1, summaries=[entry]))
    summary = summary_text(4, 0, "S")
    assert answer["window"] == in_wire(wire, [U(TASK)], summary, S1[5:])
    assert answer["notice"] == {"content": summary, "window_index": 1, "rung": "summary"}
    assert answer["summary_used"] == {"from": 1, "through": 4}
    assert answer["summary_request"] is None
    assert answer["summaries_ignored"] == []


@pytest.mark.parametrize("wire", WIRES)
async def test_s3_the_span_grew(client: httpx.AsyncClient, wire: str) -> None:
    s2_messages = in_wire(wire, S1)
    entry = {"from": 1, "through": 4, "key": key(s2_messages, 1, 4), "summary": "S"}
    s2 = await plan_ok(client, body_of(wire, S1, summaries=[entry]))
    body = body_of(wire, S3, summaries=[entry])
    answer = await plan_ok(client, body)
    assert answer["evicted_messages"] == [1, 2, 3, 4, 5, 6]
    assert answer["window"] == in_wire(wire, [U(TASK)], summary_text(4, 2, "S"), S3[7:])
    assert answer["notice"]["rung"] == "summary"
    assert answer["summary_used"] == {"from": 1, "through": 4}
    request = answer["summary_request"]
    assert (request["from"], request["through"]) == (1, 6)
    assert request["key"] == key(body["messages"], 1, 6)
    # S-2's window, byte for byte, then the instruction.
    instruction = service_text(wire, DEFAULT_SUMMARY_INSTRUCTIONS)
    assert request["request"] == {"messages": [*s2["window"], instruction]}
    assert orjson.dumps(request["request"]["messages"][:-1]) == orjson.dumps(s2["window"])


@pytest.mark.parametrize("wire", WIRES)
async def test_s4_changed_history(client: httpx.AsyncClient, wire: str) -> None:
    entry = {"from": 1, "through": 4, "key": key(in_wire(wire, S1), 1, 4), "summary": "S"}
    edited = copy.deepcopy(S1)
    edited[2]["content"] = "y" * 500
    body = body_of(wire, edited, summaries=[entry])
    answer = await plan_ok(client, body)
    plain = await plan_ok(client, body_of(wire, edited))
    assert answer["summaries_ignored"] == [{"index": 0, "reason": "changed"}]
    assert answer["summary_used"] is None
    assert answer["window"] == plain["window"] and answer["notice"] == plain["notice"]
    assert answer["summary_request"]["key"] == key(body["messages"], 1, 4)
    assert answer["summary_request"]["key"] != entry["key"]


def entry_for(messages: list[Any], first: int, through: int, summary: str = "S") -> dict[str, Any]:
    return {
        "from": first,
        "through": through,
        "key": key(messages, first, through),
        "summary": summary,
    }


async def test_each_reason_an_entry_is_ignored(client: httpx.AsyncClient) -> None:
    summaries = [
        entry_for(S3, 1, 4, "first"),  # superseded by the one reaching further
        entry_for(S3, 2, 4),  # not-at-the-span
        entry_for(S3, 1, 8),  # beyond-the-span (the span ends at 6)
        entry_for(S3, 1, 3),  # not-a-turn-boundary (3 opens turn 2)
        entry_for(S3, 1, 2, "z" * 2000),  # not-smaller
        {**entry_for(S3, 1, 4), "key": "0" * 64},  # changed
        {**entry_for(S3, 1, 4), "through": 40},  # out-of-range
        entry_for(S3, 1, 6, "last"),  # applies
        entry_for(S3, 1, 6, "equal, sent earlier"),
    ]
    summaries.insert(8, summaries.pop(7))  # of two equals, the last sent applies
    answer = await plan_ok(client, body_of("native", S3, summaries=summaries))
    assert answer["summary_used"] == {"from": 1, "through": 6}
    assert answer["notice"]["content"] == summary_text(6, 0, "last")
    assert answer["summaries_ignored"] == [
        {"index": 0, "reason": "superseded"},
        {"index": 1, "reason": "not-at-the-span"},
        {"index": 2, "reason": "beyond-the-span"},
        {"index": 3, "reason": "not-a-turn-boundary"},
        {"index": 4, "reason": "not-smaller"},
        {"index": 5, "reason": "changed"},
        {"index": 6, "reason": "out-of-range"},
        {"index": 7, "reason": "superseded"},
    ]
    # An entry covering the whole span: no summary request is due.
    assert answer["summary_request"] is None


async def test_nothing_removed_or_not_at_the_front_is_not_at_the_front(
    client: httpx.AsyncClient,
) -> None:
    summaries = [entry_for(S1, 1, 4)]
    kept_all = {**OPTIONS, "strategy": {"kind": "sliding-window", "keep_recent_turns": 20}}
    answer = await plan_ok(client, {"messages": S1, **kept_all, "summaries": summaries})
    assert answer["summaries_ignored"] == [{"index": 0, "reason": "not-at-the-front"}]
    assert answer["summary_request"] is None and answer["summary_used"] is None
    # A pinned turn before the span: the removal does not reach the front.
    pinned = [U(TASK), A("c1"), T("c1"), A("c2"), T("c2"), A("c2b"), T("c2b"), A("c3"), T("c3")]
    pinned[1]["tool_calls"][0]["name"] = pinned[2]["tool_name"] = "probe"
    summaries = [entry_for(pinned, 1, 4)]
    body = {"messages": pinned, **OPTIONS, "keep_last_tool_results": 1, "summaries": summaries}
    answer = await plan_ok(client, body)
    assert answer["evicted_messages"] == [3, 4, 5, 6] and answer["notice"] is None
    assert answer["summaries_ignored"] == [{"index": 0, "reason": "not-at-the-front"}]
    assert answer["summary_request"] is None


async def test_a_summary_lets_the_ladder_refused_drop_go(client: httpx.AsyncClient) -> None:
    """The ordinary path with a tiny span after a non-user message: no notice is smaller, so the
    ladder refuses; a summary smaller than the span lets it go, and a refused span still gets a
    summary request."""
    messages = [A("c1"), T("c1", "ok"), A("c2"), T("c2", "ok"), U(TASK)]
    options = {
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 2},
        "keep_last_tool_results": 0,
        "summarize": {"min_span_tokens": 0},
    }
    refused = await plan_ok(client, {"messages": messages, **options})
    assert refused["evicted_messages"] == []
    assert refused["refusals"][0]["reason"] == "replacement-not-smaller"
    request = refused["summary_request"]
    assert (request["from"], request["through"]) == (0, 1)
    assert request["request"]["messages"] == [*messages[:2], U(DEFAULT_SUMMARY_INSTRUCTIONS)]
    # The summary message, over 40 characters of frame, is not smaller than two tiny messages
    # either; a span of real size lets it go.
    long = [A("c1"), T("c1", "r" * 400), A("c2"), T("c2", "ok"), U(TASK)]
    entry = entry_for(long, 0, 1, "short")
    answer = await plan_ok(client, {"messages": long, **options, "summaries": [entry]})
    assert answer["evicted_messages"] == [0, 1]
    assert answer["window"] == [U(summary_text(2, 0, "short")), *long[2:]]
    assert answer["summary_used"] == {"from": 0, "through": 1}


def tokens_of(text: str) -> int:
    return -(-len(text.encode()) // 4)


async def test_fit_weighs_the_summary_and_keeps_the_request_within_max_tokens(
    client: httpx.AsyncClient,
) -> None:
    long = [U(TASK)]
    for n in range(1, 13):
        long += [A(f"c{n}"), T(f"c{n}", "r" * 2000)]
    fit = {"kind": "fit", "max_tokens": 3000, "target_tokens": 2500, "keep_recent_turns": 1}
    body = {"messages": long, "strategy": fit, "keep_last_tool_results": 0}
    body["summarize"] = {"min_span_tokens": 0}
    answer = await plan_ok(client, body)
    request = answer["summary_request"]
    assert request["from"] == 1 and request["through"] < answer["evicted_messages"][-1]
    assert request["through"] % 2 == 0  # the end of a turn
    sent = request["request"]["messages"]
    counted = await plan_ok(
        client, {"messages": sent, "strategy": {"kind": "sliding-window"}, "tokenizer": "estimate"}
    )
    assert counted["stats"]["tokens_before"] <= fit["max_tokens"]
    # Its summary in place: the budget counts the window with it.
    entry = entry_for(long, 1, request["through"], "what was found")
    body["summaries"] = [entry]
    answer = await plan_ok(client, body)
    assert answer["summary_used"] == {"from": 1, "through": request["through"]}
    assert answer["notice"]["rung"] == "summary"
    # The next request carries the summary as first written and the rest of the span.
    again = answer["summary_request"]
    assert (again["from"], again["through"]) == (1, answer["evicted_messages"][-1])
    assert again["request"]["messages"][1] == U(
        summary_text(request["through"], 0, "what was found")
    )
    # The window with the summary is what the budget reports.
    window = await plan_ok(
        client,
        {
            "messages": answer["window"],
            "strategy": {"kind": "sliding-window"},
            "tokenizer": "estimate",
        },
    )
    assert answer["budget"]["total_after"] == window["stats"]["tokens_before"]


async def test_min_span_tokens_withholds_a_small_request(client: httpx.AsyncClient) -> None:
    body = body_of("native", S1)
    body["summarize"] = {"min_span_tokens": 10_000}
    answer = await plan_ok(client, body)
    assert answer["summary_request"] is None and answer["notice"]["rung"] == "rich"
    body["summarize"] = {"instructions": "Be brief."}
    long = [U(TASK)] + [m for n in range(1, 9) for m in (A(f"c{n}"), T(f"c{n}", "r" * 1000))]
    answer = await plan_ok(client, {**body, "messages": long})
    request = answer["summary_request"]["request"]["messages"]
    assert request[-1] == U("Be brief.")


@pytest.mark.parametrize("value", [None, []])
async def test_off_the_answer_is_byte_identical(client: httpx.AsyncClient, value: Any) -> None:
    base = {"messages": S3, "strategy": {"kind": "sliding-window", "keep_recent_turns": 1}}
    plain = await client.post(PATH, content=orjson.dumps(base), headers=JSON)
    body = {**base, "summaries": value, "summarize": None}
    off = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert plain.status_code == off.status_code == 200
    assert off.content == plain.content
    assert b'"summary_' not in plain.content and b'"summaries_' not in plain.content


GOOD_KEY = "a" * 64
INVALID: list[tuple[dict[str, Any], tuple[Any, ...]]] = [
    ({"summarize": 3}, ("body", "summarize")),
    ({"summarize": []}, ("body", "summarize")),
    ({"summarize": {"other": 1}}, ("body", "summarize", "other")),
    ({"summarize": {"instructions": ""}}, ("body", "summarize", "instructions")),
    ({"summarize": {"instructions": 5}}, ("body", "summarize", "instructions")),
    ({"summarize": {"min_span_tokens": -1}}, ("body", "summarize", "min_span_tokens")),
    ({"summarize": {"min_span_tokens": 1.5}}, ("body", "summarize", "min_span_tokens")),
    ({"summarize": {"min_span_tokens": "9"}}, ("body", "summarize", "min_span_tokens")),
    ({"summaries": {}}, ("body", "summaries")),
    ({"summaries": "S"}, ("body", "summaries")),
    (
        {"summaries": [{"from": 0, "through": 0, "key": GOOD_KEY, "summary": "S"}] * 17},
        ("body", "summaries"),
    ),
    ({"summaries": [3]}, ("body", "summaries", 0)),
    (
        {"summaries": [{"from": 0, "through": 0, "key": GOOD_KEY, "summary": "S", "x": 1}]},
        ("body", "summaries", 0, "x"),
    ),
    (
        {"summaries": [{"through": 0, "key": GOOD_KEY, "summary": "S"}]},
        ("body", "summaries", 0, "from"),
    ),
    (
        {"summaries": [{"from": 0, "key": GOOD_KEY, "summary": "S"}]},
        ("body", "summaries", 0, "through"),
    ),
    ({"summaries": [{"from": 0, "through": 0, "summary": "S"}]}, ("body", "summaries", 0, "key")),
    (
        {"summaries": [{"from": 0, "through": 0, "key": GOOD_KEY}]},
        ("body", "summaries", 0, "summary"),
    ),
    (
        {"summaries": [{"from": -1, "through": 0, "key": GOOD_KEY, "summary": "S"}]},
        ("body", "summaries", 0, "from"),
    ),
    (
        {"summaries": [{"from": "1", "through": 2, "key": GOOD_KEY, "summary": "S"}]},
        ("body", "summaries", 0, "from"),
    ),
    (
        {"summaries": [{"from": 0, "through": 0.5, "key": GOOD_KEY, "summary": "S"}]},
        ("body", "summaries", 0, "through"),
    ),
    (
        {"summaries": [{"from": 3, "through": 2, "key": GOOD_KEY, "summary": "S"}]},
        ("body", "summaries", 0, "through"),
    ),
    (
        {"summaries": [{"from": 0, "through": 0, "key": "A" * 64, "summary": "S"}]},
        ("body", "summaries", 0, "key"),
    ),
    (
        {"summaries": [{"from": 0, "through": 0, "key": "a" * 63, "summary": "S"}]},
        ("body", "summaries", 0, "key"),
    ),
    (
        {"summaries": [{"from": 0, "through": 0, "key": GOOD_KEY, "summary": ""}]},
        ("body", "summaries", 0, "summary"),
    ),
    (
        {"summaries": [{"from": 0, "through": 0, "key": GOOD_KEY, "summary": ["S"]}]},
        ("body", "summaries", 0, "summary"),
    ),
]


@pytest.mark.parametrize(("options", "loc"), INVALID)
async def test_a_bad_value_is_refused_naming_it(
    client: httpx.AsyncClient, options: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    body = {"messages": S1, **options}
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    locs = [tuple(error["loc"]) for error in response.json()["errors"]]
    assert locs == [loc]


async def test_a_well_formed_key_that_does_not_match_is_never_an_error(
    client: httpx.AsyncClient,
) -> None:
    entry = {"from": 0, "through": 99, "key": GOOD_KEY, "summary": "S"}
    answer = await plan_ok(client, {"messages": S1, "summaries": [entry, {**entry, "through": 0}]})
    assert answer["summaries_ignored"] == [
        {"index": 0, "reason": "out-of-range"},
        {"index": 1, "reason": "changed"},
    ]


async def test_integral_values_are_read_as_integers(client: httpx.AsyncClient) -> None:
    entry = entry_for(S1, 1, 4)
    body = body_of("native", S1, summaries=[{**entry, "from": 1.0, "through": 4.0}])
    body["summarize"] = {"min_span_tokens": 0.0}
    answer = await plan_ok(client, body)
    assert answer["summary_used"] == {"from": 1, "through": 4}


async def test_metrics_count_summaries_applied_and_requests(client: httpx.AsyncClient) -> None:
    await plan_ok(client, body_of("native", S3, summaries=[entry_for(S3, 1, 4)]))
    text = (await client.get("/metrics")).text
    assert "cwp_plan_summaries_applied_total 1.0" in text
    assert "cwp_plan_summary_requests_total 1.0" in text


# ---- properties over the route's own reading ----------------------------------------------------

METRICS = create_metrics()


def answered(body: dict[str, Any]) -> bytes:
    response = plan_answer(body, 100_000, METRICS)
    assert response.status_code == 200, response.body
    return bytes(response.body)


@given(native_transcripts(), st.integers(1, 4))
def test_off_is_byte_identical_on_any_transcript(messages: list[Any], keep: int) -> None:
    base = {"messages": messages, "strategy": {"kind": "sliding-window", "keep_recent_turns": keep}}
    plain = answered(base)
    assert answered({**base, "summaries": []}) == plain
    assert answered({**base, "summaries": None, "summarize": None}) == plain


@given(st.integers(2, 6), st.data())
def test_an_edited_message_inside_an_entry_makes_it_changed(
    turns: int, data: st.DataObject
) -> None:
    messages = [U(TASK)]
    for n in range(1, turns + 1):
        messages += [A(f"c{n}"), T(f"c{n}")]
    through = data.draw(st.sampled_from(range(2, 2 * turns + 1, 2)), label="through")
    entry = entry_for(messages, 1, through)
    edited = copy.deepcopy(messages)
    index = data.draw(st.integers(1, through), label="edited")
    if edited[index]["role"] == "tool":
        edited[index]["content"] += "!"
    else:
        edited[index]["tool_calls"][0]["arguments"] = {"edited": True}
    body = {**OPTIONS, "messages": edited, "summaries": [entry]}
    answer = orjson.loads(answered(body))
    assert answer["summaries_ignored"] == [{"index": 0, "reason": "changed"}]
    assert answer["summary_used"] is None
    # Unedited, the same entry is never `changed`.
    answer = orjson.loads(answered({**body, "messages": messages}))
    assert {"index": 0, "reason": "changed"} not in answer["summaries_ignored"]
