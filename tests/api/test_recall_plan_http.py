"""The plan's `recall` option through HTTP (docs/rules.md#the-recall-option).

- Validation: `recall` null or absent is off, `{}` the default name; a wrong type, a bad name (a
  trailing newline included), a null name or an unknown key is a 422 naming it.
- `recall_tool`, in every format, exactly the declaration the contract writes, after the summaries'
  keys and right before `diagnostics`, and a value of its provider SDK's own tool type.
- A property in every format: with recall off the answer has no `recall_tool` and no text that
  names a tool to recall with (absent and null give the same bytes); with it on, the declaration is
  there and every notice, placeholder and marker the window writes names the tool. Both read paths
  (Python and the compiled reader) give the same bytes.
- A result of the recall tool is never capped, by `cap` or by `fit`'s caps.
"""

from __future__ import annotations

import copy
import hashlib
import warnings
from typing import Any

import anthropic.types
import botocore.session
import botocore.validate
import orjson
import pytest
from google.genai import types as genai_types
from hypothesis import HealthCheck, assume, given
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from app import compiled
from app.api.answers import plan_answer, scanned_plan_answer
from app.api.examples import PLAN_EXAMPLES
from app.api.metrics import create_metrics
from app.compiled.request import Unanswered
from app.core.recall_tool import DESCRIPTION
from tests.api import test_bedrock_http as bedrock_tests
from tests.api import test_gemini_http as gemini_tests
from tests.api import test_responses_http as responses_tests
from tests.api.test_formats_equivalence import (
    Inexpressible,
    conversations,
    convert,
    plan_options,
)
from tests.api.test_formats_http import sdk_valid
from tests.conftest import scaled

METRICS = create_metrics()
NAME = "context_recall"
S = {
    "type": "object",
    "properties": {
        "ref": {
            "type": "string",
            "description": "the tool_call_id of a cleared or truncated result",
        },
        "query": {
            "type": "string",
            "description": "words or identifiers to search the earlier conversation for",
        },
        "page": {"type": "integer", "description": "which page of a long answer, from 1"},
    },
}
S_GEMINI = {
    "type": "OBJECT",
    "properties": {
        "ref": {
            "type": "STRING",
            "description": "the tool_call_id of a cleared or truncated result",
        },
        "query": {
            "type": "STRING",
            "description": "words or identifiers to search the earlier conversation for",
        },
        "page": {"type": "INTEGER", "description": "which page of a long answer, from 1"},
    },
}


def declaration(format: str, name: str = NAME) -> dict[str, Any]:
    """The table of docs/rules.md#the-recall-option."""
    if format in ("native", "openai"):
        return {
            "type": "function",
            "function": {"name": name, "description": DESCRIPTION, "parameters": S},
        }
    if format == "anthropic":
        return {"name": name, "description": DESCRIPTION, "input_schema": S}
    if format == "responses":
        return {
            "type": "function",
            "name": name,
            "description": DESCRIPTION,
            "parameters": S,
            "strict": False,
        }
    if format == "gemini":
        return {"name": name, "description": DESCRIPTION, "parameters": S_GEMINI}
    assert format == "bedrock"
    return {"toolSpec": {"name": name, "description": DESCRIPTION, "inputSchema": {"json": S}}}


# One person's message in each format.
HELLO: dict[str, list[Any]] = {
    "native": [{"role": "user", "content": "hi"}],
    "openai": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    "anthropic": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    "responses": [{"type": "message", "role": "user", "content": "hi"}],
    "gemini": [{"role": "user", "parts": [{"text": "hi"}]}],
    "bedrock": [{"role": "user", "content": [{"text": "hi"}]}],
}
FORMATS = list(HELLO)


async def post(client: Any, body: dict[str, Any]) -> Any:
    return await client.post("/v1/window/plan", json=body)


# ---- validation ----------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("recall", "loc"),
    [
        ("context_recall", ["body", "recall"]),
        (True, ["body", "recall"]),
        ([], ["body", "recall"]),
        ({"tool_name": None}, ["body", "recall", "tool_name"]),
        ({"tool_name": 5}, ["body", "recall", "tool_name"]),
        ({"tool_name": ""}, ["body", "recall", "tool_name"]),
        ({"tool_name": "x" * 65}, ["body", "recall", "tool_name"]),
        ({"tool_name": "recall\n"}, ["body", "recall", "tool_name"]),
        ({"tool_name": "has space"}, ["body", "recall", "tool_name"]),
        ({"tool_name": "9lives"}, ["body", "recall", "tool_name"]),
        ({"tool_name": "a.b"}, ["body", "recall", "tool_name"]),
        ({"tool": "x"}, ["body", "recall", "tool"]),
    ],
)
async def test_a_bad_recall_is_refused_by_name(client: Any, recall: Any, loc: list[Any]) -> None:
    response = await post(client, {"messages": HELLO["native"], "recall": recall})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert [error["loc"] for error in response.json()["errors"]] == [loc]


@pytest.mark.anyio
async def test_absent_and_null_are_off(client: Any) -> None:
    absent = await post(client, {"messages": HELLO["native"]})
    null = await post(client, {"messages": HELLO["native"], "recall": None})
    assert absent.status_code == null.status_code == 200
    assert absent.content == null.content
    assert "recall_tool" not in absent.json()


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["_", "a-b_9", "x" * 64])
async def test_a_name_is_declared_as_given(client: Any, name: str) -> None:
    response = await post(client, {"messages": HELLO["native"], "recall": {"tool_name": name}})
    assert response.status_code == 200, response.text
    assert response.json()["recall_tool"] == declaration("native", name)


# ---- the declaration -----------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("format", FORMATS)
async def test_recall_tool_in_every_format(client: Any, format: str) -> None:
    body = {"messages": HELLO[format], "format": format, "recall": {}}
    answer = (await post(client, body)).json()
    assert answer["recall_tool"] == declaration(format)
    keys = list(answer)
    assert keys[keys.index("recall_tool") + 1] == "diagnostics"
    # After the summaries' keys when they are there.
    summarized = (await post(client, {**body, "summarize": {}})).json()
    keys = list(summarized)
    assert keys[keys.index("summaries_ignored") + 1 : keys.index("diagnostics")] == ["recall_tool"]


def gemini_valid(value: dict[str, Any]) -> genai_types.FunctionDeclaration:
    """`value` is exactly a `google.genai` function declaration: valid (the SDK only warns of a
    type name it does not know: an error here), and written back the same (it upper-cases a JSON
    Schema type name, which Gemini's REST API does not take)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        validated = genai_types.FunctionDeclaration.model_validate(value)
    assert validated.model_dump(mode="json", exclude_none=True) == value
    return validated


def test_the_declarations_are_the_sdks_own_tool_types() -> None:
    sdk_valid(TypeAdapter(ChatCompletionToolParam), declaration("openai"))
    sdk_valid(TypeAdapter(FunctionToolParam), declaration("responses"))
    sdk_valid(TypeAdapter(anthropic.types.ToolParam), declaration("anthropic"))
    validated = gemini_valid(declaration("gemini"))
    assert validated.parameters is not None
    assert validated.parameters.type == genai_types.Type.OBJECT
    tool = genai_types.Tool(function_declarations=[validated])
    assert tool.function_declarations is not None
    converse = (
        botocore.session.get_session()
        .get_service_model("bedrock-runtime")
        .operation_model("Converse")
        .input_shape
    )
    request = {
        "modelId": "m",
        "messages": HELLO["bedrock"],
        "toolConfig": {"tools": [declaration("bedrock")]},
    }
    report = botocore.validate.ParamValidator().validate(request, converse)
    assert not report.has_errors(), report.generate_report()


def test_the_sdk_checks_can_fail() -> None:
    """Each check refuses a declaration of another format's shape."""
    with pytest.raises(ValueError):
        sdk_valid(TypeAdapter(ChatCompletionToolParam), declaration("anthropic"))
    with pytest.raises(ValueError):
        sdk_valid(TypeAdapter(FunctionToolParam), declaration("openai"))
    with pytest.raises((ValueError, AssertionError)):
        sdk_valid(TypeAdapter(anthropic.types.ToolParam), declaration("bedrock"))
    with pytest.raises(ValueError):
        gemini_valid(declaration("anthropic"))
    with pytest.raises(AssertionError):  # JSON Schema's type names
        gemini_valid({**declaration("gemini"), "parameters": S})
    wrong = copy.deepcopy(declaration("gemini"))
    wrong["parameters"]["type"] = "RECORD"
    with pytest.raises(UserWarning):
        gemini_valid(wrong)
    converse = (
        botocore.session.get_session()
        .get_service_model("bedrock-runtime")
        .operation_model("Converse")
        .input_shape
    )
    request = {"modelId": "m", "messages": HELLO["bedrock"], "toolConfig": {"tools": [S]}}
    assert botocore.validate.ParamValidator().validate(request, converse).has_errors()


@pytest.mark.anyio
async def test_the_answer_is_a_fresh_value_each_time(client: Any) -> None:
    body = {"messages": HELLO["gemini"], "format": "gemini", "recall": {"tool_name": "find"}}
    first, second = (await post(client, body)).json(), (await post(client, body)).json()
    assert first["recall_tool"] == second["recall_tool"] == declaration("gemini", "find")


# ---- with recall off, nothing changes; with it on, every text names the tool ---------------------

HINT_OFF = "call the tool again to see it"
HINT_ON = f"call {NAME} with this tool_call_id to see it"
SENTENCE = (
    f"You can get any of them back: call {NAME} with a query (words or identifiers they "
    "contained). "
)
RECALL_WORDS = (NAME, "with this tool_call_id", "You can get any of them back", "full text]")


@st.composite
def cases(draw: Any, format: str) -> tuple[list[Any], dict[str, Any]]:
    """A transcript in `format` and plan options, shaping (clear, cap) now and then."""
    if format in ("native", "openai", "anthropic"):
        messages = draw(conversations(system=False, max_steps=8))
        options = draw(plan_options(messages))
        if format != "native":
            try:
                messages = convert(messages, format, provider_shape=False).messages
            except Inexpressible:
                assume(False)
    else:
        module = {"responses": responses_tests, "gemini": gemini_tests, "bedrock": bedrock_tests}
        messages, options = draw(module[format].planned_transcripts())
    if draw(st.booleans()):
        options["clear"] = {"keep_last": draw(st.integers(0, 2)), "step": draw(st.integers(1, 2))}
        if draw(st.integers(0, 2)) == 0:
            # Nothing removed and no tool's latest result spared: placeholders in the window.
            options["strategy"] = {"kind": "sliding-window", "keep_recent_turns": 20}
            options["keep_last_tool_results"] = 0
    if draw(st.booleans()):
        options["cap"] = {"max_chars": draw(st.sampled_from([30, 200]))}
    return messages, {**options, "format": format}


def answered(body: dict[str, Any]) -> bytes:
    response = plan_answer(body, 100_000, METRICS)
    assert response.status_code == 200, response.body
    content: bytes = response.body
    if compiled.available():
        try:
            scanned = scanned_plan_answer(bytearray(orjson.dumps(body)), 64, 100_000, METRICS)
        except Unanswered:  # left to the Python path (summaries are)
            return content
        assert scanned.body == content
    return content


@pytest.mark.parametrize("format", FORMATS)
# Three times the profile's examples: a notice, a placeholder and a marker each show up in a
# few of them only, and the texts are what the property checks.
@scaled(3, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_recall_off_changes_nothing_and_on_names_the_tool(format: str, data: Any) -> None:
    messages, options = data.draw(cases(format))
    sent = orjson.dumps(messages).decode()
    assume(not any(word in sent for word in RECALL_WORDS))
    body = {**options, "messages": messages}
    off = answered(body)
    assert answered({**body, "recall": None}) == off
    answer = orjson.loads(off)
    assert "recall_tool" not in answer
    text = off.decode()
    assert not any(word in text for word in RECALL_WORDS)

    on_bytes = answered({**body, "recall": {}})
    on = orjson.loads(on_bytes)
    assert on["recall_tool"] == declaration(format)
    keys = list(on)
    assert keys[keys.index("recall_tool") + 1] == "diagnostics"
    notice = on["notice"]
    if notice is not None:
        assert SENTENCE in notice["content"]
    on_text = on_bytes.decode()
    assert HINT_OFF not in on_text
    in_window = [entry for entry in on.get("shaped") or () if entry["window_index"] is not None]
    cleared = sum(entry["action"] == "cleared" for entry in in_window)
    capped = [entry for entry in in_window if entry["action"] == "capped"]
    assert on_text.count(HINT_ON) >= cleared
    for entry in capped:
        assert f'\\"ref\\":\\"{entry["tool_call_id"]}\\"' in on_text
    # The same decisions need not hold (the texts are longer), but the window is always written.
    assert ("window" in on) == ("window" in answer)


# ---- a recall result is never capped -------------------------------------------------------------


def recall_transcript(size: int) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Find the hottest rack."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "r1", "name": NAME, "arguments": {"query": "rack"}},
                {"id": "c1", "name": "look", "arguments": {}},
            ],
        },
        {"role": "tool", "tool_call_id": "r1", "content": "y" * size},
        {"role": "tool", "tool_call_id": "c1", "content": "x" * 4000},
    ]


@pytest.mark.anyio
async def test_cap_never_caps_a_recall_result(client: Any) -> None:
    body = {"messages": recall_transcript(3000), "cap": {"max_chars": 500}, "recall": {}}
    answer = (await post(client, body)).json()
    assert [(s["tool_call_id"], s["action"]) for s in answer["shaped"]] == [("c1", "capped")]
    assert answer["window"][3]["content"] == "y" * 3000
    marker = orjson.loads(answer["window"][4]["content"])
    assert list(marker) == ["truncated", "reason", "head", "ref"] and marker["ref"] == "c1"
    assert len(answer["window"][4]["content"]) <= 500
    off = (await post(client, {**body, "recall": None})).json()
    assert [s["tool_call_id"] for s in off["shaped"]] == ["r1", "c1"]
    assert "ref" not in orjson.loads(off["window"][4]["content"])


@pytest.mark.anyio
async def test_fit_never_caps_a_recall_result(client: Any) -> None:
    strategy = {"kind": "fit", "max_tokens": 300}
    body = {"messages": recall_transcript(6000), "strategy": strategy, "recall": {}}
    answer = (await post(client, body)).json()
    assert answer["budget"]["stage"] == "caps"
    assert [(s["tool_call_id"], s["action"]) for s in answer["shaped"]] == [("c1", "capped")]
    assert answer["window"][3]["content"] == "y" * 6000
    marker = orjson.loads(answer["window"][4]["content"])
    # `M` is the look result's 4,000: caps 2,000, 1,000, 500.
    assert "over the 500-char cap" in marker["reason"] and marker["ref"] == "c1"


# ---- the summary message -------------------------------------------------------------------------


def test_the_summary_is_weighed_with_its_recall_words() -> None:
    """The `native-summaries` Swagger example: its summary message (163 characters) is smaller
    than the 184 characters of messages 1–4 without recall; with the recall words (54 more) it is
    not, and the span leaves silently (no notice is smaller either)."""
    body = PLAN_EXAMPLES["native-summaries"]["value"]
    off = orjson.loads(answered(body))
    assert off["summary_used"] == {"from": 1, "through": 4}
    on = orjson.loads(answered({**body, "recall": {}}))
    assert on["summary_used"] is None and on["notice"] is None
    assert on["summaries_ignored"] == [{"index": 0, "reason": "not-smaller"}]


def test_the_summary_message_names_the_tool_where_it_is_written() -> None:
    """The same example with the two readings twice as long (and the entry's key for them): the
    summary in the notice's place and the summary as the summary request first writes it both say
    how to get the full text."""
    body = copy.deepcopy(PLAN_EXAMPLES["native-summaries"]["value"])
    messages = body["messages"]
    for index in (2, 4):
        messages[index]["content"] *= 2
    body["summaries"][0]["key"] = hashlib.sha256(orjson.dumps(messages[1:5])).hexdigest()
    answer = orjson.loads(answered({**body, "recall": {}}))
    words = f"; call {NAME} with a query for their full text]"
    assert answer["notice"]["rung"] == "summary"
    assert answer["notice"]["content"].startswith(
        "[compacted history — 4 earlier message(s) summarized by the model and 2 more removed "
        f"without a summary{words}\n\n"
    )
    request = answer["summary_request"]["request"]["messages"]
    first_written = [m for m in request if str(m.get("content", "")).startswith("[compacted")]
    assert [m["content"].split("\n")[0] for m in first_written] == [
        f"[compacted history — 4 earlier message(s) summarized by the model{words}"
    ]
    assert answer["recall_tool"] == declaration("native")
