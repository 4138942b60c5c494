"""`POST /v1/recall` (docs/rules.md#answering-a-recall): `ref` on every result of the fixtures and
Swagger transcripts of each dialect, the worked example of the rules, properties over random
transcripts of the six dialects, determinism, `/metrics`, and every refusal of a bad request.

The compiled reader serves the window plan's bodies only; a recall body is read in Python."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api import examples
from app.api.answers import recall_answer
from app.api.metrics import create_metrics
from app.formats import detect_format, dialect_of
from app.schemas.recall import RECALL_EXAMPLES
from app.service.recall import recallables
from tests.api import test_bedrock_http as bedrock_tests
from tests.api import test_gemini_http as gemini_tests
from tests.api import test_responses_http as responses_tests
from tests.conftest import client_for, scaled
from tests.formats.test_properties import (
    anthropic_transcripts,
    native_transcripts,
    openai_transcripts,
)

PATH = "/v1/recall"
FIXTURES = Path(__file__).parent.parent / "fixtures"
METRICS = create_metrics()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with client_for() as c:
        yield c


def post(body: dict[str, Any]) -> dict[str, Any]:
    """The answer, called as the route calls it (no server: the properties run many)."""
    answer: dict[str, Any] = orjson.loads(recall_answer(body, 100_000, METRICS).body)
    return answer


# ---- ref returns each result's text exactly ------------------------------------------------------


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def expected_results(format: str, messages: list[Any]) -> dict[str, list[str]]:
    """Each result's text read straight from the wire (an independent reading, for the formats
    of the fixtures): tool_call_id → its texts in transcript order."""
    found: dict[str, list[str]] = {}
    for message in messages:
        if format in ("openai", "native") and message.get("role") == "tool":
            content = message.get("content")
            text = content if isinstance(content, str) else "".join(p["text"] for p in content)
            found.setdefault(message["tool_call_id"], []).append(text)
        elif format == "anthropic" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block.get("content", "")
                    text = (
                        content
                        if isinstance(content, str)
                        else "".join(
                            "[image]" if b["type"] == "image" else b["text"] for b in content
                        )
                    )
                    found.setdefault(block["tool_use_id"], []).append(text)
        elif format == "bedrock":
            for block in message["content"]:
                if "toolResult" in block:
                    result = block["toolResult"]
                    text = "".join(
                        item["text"] if "text" in item else compact(item["json"])
                        for item in result.get("content", [])
                    )
                    found.setdefault(result["toolUseId"], []).append(text)
    return found


def fixture_bodies() -> list[tuple[str, str, list[Any], Any]]:
    bodies = []
    for path in sorted(FIXTURES.glob("*.json")):
        body = json.loads(path.read_text(encoding="utf-8"))
        format = detect_format(body["messages"], body.get("system"))
        bodies.append((path.name, format, body["messages"], body.get("system")))
    return bodies


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "format", "messages", "system"), fixture_bodies(), ids=[b[0] for b in fixture_bodies()]
)
async def test_ref_returns_every_fixture_result_exactly(
    client: httpx.AsyncClient, name: str, format: str, messages: list[Any], system: Any
) -> None:
    expected = expected_results(format, messages)
    assert expected
    for call_id, texts in expected.items():
        body = {"messages": messages, "ref": call_id, "max_chars": 100_000}
        if system is not None:
            body["system"] = system
        response = await client.post(PATH, json=body)
        assert response.status_code == 200, response.text
        assert response.json() == {
            "found": True,
            "text": "\n".join(texts),
            "page": 1,
            "pages": 1,
            "hits": None,
        }


RACKS = {
    "native": examples.NATIVE_RACK_TRANSCRIPT,
    "openai": examples.OPENAI_RACK_TRANSCRIPT,
    "anthropic": examples.ANTHROPIC_RACK_TRANSCRIPT,
    "responses": examples.RESPONSES_RACK_TRANSCRIPT,
    "gemini": examples.GEMINI_RACK_TRANSCRIPT,
    "bedrock": examples.BEDROCK_RACK_TRANSCRIPT,
}


@pytest.mark.anyio
@pytest.mark.parametrize("format", list(RACKS))
async def test_ref_returns_each_rack_result_in_every_dialect(
    client: httpx.AsyncClient, format: str
) -> None:
    for call_id, _, _, text in examples.RACK_STEPS:
        body = {"messages": RACKS[format], "format": format, "ref": call_id}
        response = await client.post(PATH, json=body)
        assert response.json() == {"found": True, "text": text, "page": 1, "pages": 1, "hits": None}


@pytest.mark.anyio
@pytest.mark.parametrize("format", list(RACKS))
async def test_query_finds_the_same_messages_in_every_dialect(
    client: httpx.AsyncClient, format: str
) -> None:
    body = {"messages": RACKS[format], "query": "lab2-rack-a"}
    answer = (await client.post(PATH, json=body)).json()
    assert answer["found"] is True
    assert answer["hits"] == 3  # the first listing, the call that measured it, its result
    first = answer["text"].split("\n", 1)[0]
    assert first.startswith("[message ") and first.endswith("· result of measure · ref c5]")


# ---- the worked example of docs/rules.md#answering-a-recall --------------------------------------

WORKED = {
    "format": "native",
    "messages": [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Why does billing fail on port 8443?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_1", "name": "grep", "arguments": {"pattern": "8443"}}],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "tool_name": "grep",
            "content": "config/billing.yaml:4: port: 8443",
        },
    ],
    "query": "billing.yaml 8443",
}


@pytest.mark.anyio
async def test_the_worked_example(client: httpx.AsyncClient) -> None:
    response = await client.post(PATH, json=WORKED)
    assert response.status_code == 200
    assert response.json() == {
        "found": True,
        "text": "[message 3 · result of grep · ref call_1]\nconfig/billing.yaml:4: port: 8443\n\n"
        '[message 2 · assistant]\ngrep {"pattern":"8443"}\n\n'
        "[message 1 · user]\nWhy does billing fail on port 8443?",
        "page": 1,
        "pages": 1,
        "hits": 3,
    }
    by_ref = await client.post(PATH, json={**WORKED, "query": None, "ref": "call_1"})
    assert by_ref.content == (
        b'{"found":true,"text":"config/billing.yaml:4: port: 8443","page":1,"pages":1,"hits":null}'
    )


@pytest.mark.anyio
async def test_the_swagger_examples_are_answered(client: httpx.AsyncClient) -> None:
    ref = (await client.post(PATH, json=RECALL_EXAMPLES["ref"]["value"])).json()
    assert ref["found"] is True and ref["page"] == 1 and ref["pages"] == 2
    assert ref["text"] == examples.TEST_LOG[:2000]
    query = (await client.post(PATH, json=RECALL_EXAMPLES["query"]["value"])).json()
    assert query == {
        "found": True,
        "text": "[message 7 · result of read_file · ref call_3]\ndef parse_old(text):\n    ...\n\n"
        '[message 6 · assistant]\nread_file {"path":"src/legacy/dates_old.py"}',
        "page": 1,
        "pages": 1,
        "hits": 2,
    }


@pytest.mark.anyio
async def test_metrics_count_recalls_by_kind_and_found(client: httpx.AsyncClient) -> None:
    await client.post(PATH, json=WORKED)
    await client.post(PATH, json={**WORKED, "query": "zebra"})
    await client.post(PATH, json={**WORKED, "query": None, "ref": "nope"})
    text = (await client.get("/metrics")).text
    assert 'cwp_recalls_total{found="true",kind="query"} 1.0' in text
    assert 'cwp_recalls_total{found="false",kind="query"} 1.0' in text
    assert 'cwp_recalls_total{found="false",kind="ref"} 1.0' in text


# ---- properties over random transcripts of the six dialects --------------------------------------

TRANSCRIPTS = {
    "native": native_transcripts(),
    "openai": openai_transcripts(),
    "anthropic": anthropic_transcripts(),
    "responses": responses_tests.transcripts(),
    "gemini": gemini_tests.gemini_transcripts(),
    "bedrock": bedrock_tests.converse_transcripts(),
}
MARKS = ("[image]", "[file]")


def unmarked(text: str) -> str:
    for mark in MARKS:
        text = text.replace(mark, "")
    return text


@pytest.mark.parametrize("format", list(TRANSCRIPTS))
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_ref_of_every_result_returns_it(format: str, data: st.DataObject) -> None:
    messages = data.draw(TRANSCRIPTS[format])
    dialect = dialect_of(format)
    core = dialect.read(messages)
    entries = recallables(dialect, messages, core)
    text_of = dialect.recall_texts(messages)
    for message in core:
        if message.role != "tool" or not message.tool_call_id:
            continue
        text = text_of(message)
        # The text the reader counts, with only marks added (a Responses paired output's text is
        # the one its tokens count).
        if not any(mark in message.content for mark in MARKS):
            assert unmarked(text) in (message.content, "".join(message.extra_texts))
        assert text.count("[image]") >= len(message.images)
        answer = post({"messages": messages, "format": format, "ref": message.tool_call_id})
        assert answer["found"] is True and answer["hits"] is None
        same = [
            e.text for e in entries if e.role == "tool" and e.tool_call_id == message.tool_call_id
        ]
        full = "\n".join(same)
        assert text in same
        assert answer["text"] == full[:8000]
        assert answer["pages"] == max(1, -(-len(full) // 8000))


@pytest.mark.parametrize("format", list(TRANSCRIPTS))
@settings(scaled(0.5), suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_the_answer_depends_only_on_the_request(format: str, data: st.DataObject) -> None:
    messages = data.draw(TRANSCRIPTS[format])
    query = data.draw(st.text(alphabet="abcdefghijk0123456789 ./-:_#@?", max_size=20))
    page = data.draw(st.integers(1, 3))
    body = {"messages": messages, "format": format, "query": query or "x1", "page": page}
    first = recall_answer(body, 100_000, METRICS).body
    again = recall_answer(json.loads(json.dumps(body)), 100_000, METRICS).body
    assert first == again
    answer = orjson.loads(first)
    assert answer["page"] == page and answer["pages"] >= 1
    assert len(answer["text"]) <= 8000
    assert answer["hits"] >= 0 and answer["found"] == (answer["hits"] > 0)


# ---- refusals ------------------------------------------------------------------------------

MESSAGES = WORKED["messages"]


def locs(response: httpx.Response) -> list[list[Any]]:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    return [error["loc"] for error in response.json()["errors"]]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"ref": None, "query": None},
        {"ref": "call_1", "query": "billing"},
        {"ref": ""},
        {"query": ""},
        {"ref": "", "query": "billing"},
    ],
)
async def test_exactly_one_of_ref_and_query_non_empty(
    client: httpx.AsyncClient, arguments: dict[str, Any]
) -> None:
    response = await client.post(PATH, json={"messages": MESSAGES, **arguments})
    assert locs(response) == [["body", "ref"]]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("page", 0),
        ("page", -1),
        ("page", 1.5),
        ("page", "2"),
        ("page", True),
        ("max_chars", 255),
        ("max_chars", 100_001),
        ("max_chars", "8000"),
        ("query", 42),
        ("query", ["billing"]),
        ("format", "slack"),
        ("system", 3),
        ("messages", {"role": "user"}),
        ("unknown", 1),
        ("page_size", 2),
    ],
)
async def test_a_bad_field_is_named(client: httpx.AsyncClient, field: str, value: Any) -> None:
    body = {"messages": MESSAGES, "format": "native", "query": "x1", field: value}
    assert locs(await client.post(PATH, json=body)) == [["body", field]]


@pytest.mark.anyio
async def test_a_wrong_ref_type_names_ref_once(client: httpx.AsyncClient) -> None:
    response = await client.post(PATH, json={"messages": MESSAGES, "ref": 7})
    assert locs(response) == [["body", "ref"]]
    assert response.json()["errors"][0]["type"] == "string_type"


@pytest.mark.anyio
async def test_messages_are_refused_as_a_plan_refuses_them(client: httpx.AsyncClient) -> None:
    bad = [{"role": "tool", "content": "x"}]
    response = await client.post(PATH, json={"messages": bad, "format": "native", "ref": "c1"})
    assert locs(response) == [["body", "messages", 0, "tool_call_id"]]
    plan = await client.post("/v1/window/plan", json={"messages": bad, "format": "native"})
    assert response.json()["errors"] == plan.json()["errors"]
    missing = await client.post(PATH, json={"query": "x1"})
    assert locs(missing) == [["body", "messages"]]


@pytest.mark.anyio
async def test_system_with_a_message_format_is_refused(client: httpx.AsyncClient) -> None:
    for system in ("x", 3):
        body = {"messages": MESSAGES, "format": "native", "system": system, "ref": "call_1"}
        assert locs(await client.post(PATH, json=body)) == [["body", "system"]]


@pytest.mark.anyio
async def test_the_message_limit_applies() -> None:
    from app.settings import Settings

    async with client_for(Settings(max_messages=2)) as small:
        response = await small.post(PATH, json={"messages": MESSAGES, "ref": "call_1"})
    assert locs(response) == [["body", "messages"]]
