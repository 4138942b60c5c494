"""Summary requests in every dialect, judged by the providers' own rules (docs/rules.md#summaries).

1. Realistic request bodies (the fixtures and SDK-built conversations the dialects' own tests
   plan): the summary request, and the window and next request once its summary is sent back,
   are values of the providers' own types — OpenAI's and Anthropic's request types, `google.genai`
   `types.Content`, botocore's validation of a Converse request, the Responses input items — with
   reasoning items and thought signatures beside their calls, Bedrock's roles alternating (the
   instruction joined to a preceding user message; on the kept-request path the summary joined
   to the request's), and each request carrying the system prompt under the format's own key.
2. A property in each of the six dialects, over each dialect's own transcripts: every summary
   request passes the provider's window checker and ends with the instruction; its key is the
   hash of the messages it names; and, sent back, its summary appears exactly once, where the
   notice would be.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api.answers import plan_answer
from app.api.metrics import create_metrics
from app.audit.validity import window_violations
from app.audit.validity.gemini import gemini_violations
from app.core.defaults import DEFAULT_SUMMARY_INSTRUCTIONS
from tests.api import test_bedrock_http as bedrock_tests
from tests.api import test_formats_http as chat_tests
from tests.api import test_gemini_http as gemini_tests
from tests.api import test_responses_http as responses_tests
from tests.conftest import scaled
from tests.formats.test_properties import (
    anthropic_transcripts,
    native_transcripts,
    openai_transcripts,
)

METRICS = create_metrics()
SUMMARIZE = {"min_span_tokens": 0}
SUMMARY = "The racks were listed; b ran hottest at 41C; nothing is open."
REQUEST_KEYS = {
    "native": (None, "messages"),
    "openai": (None, "messages"),
    "anthropic": ("system", "messages"),
    "bedrock": ("system", "messages"),
    "responses": ("instructions", "input"),
    "gemini": ("systemInstruction", "contents"),
}


def plan(body: dict[str, Any]) -> dict[str, Any]:
    response = plan_answer(body, 100_000, METRICS)
    assert response.status_code == 200, response.body
    answer: dict[str, Any] = orjson.loads(response.body)
    return answer


def key(messages: list[Any], first: int, through: int) -> str:
    return hashlib.sha256(orjson.dumps(messages[first : through + 1])).hexdigest()


def request_messages(answer: dict[str, Any], format: str, system: Any) -> list[Any]:
    """The summary request's messages, after checking its keys: the system prompt under the
    format's own key when one was sent, nothing else."""
    request = answer["summary_request"]["request"]
    system_key, messages_key = REQUEST_KEYS[format]
    expected = {messages_key} | ({system_key} if system is not None and system_key else set())
    assert set(request) == expected
    if system_key is not None and system is not None:
        assert request[system_key] == system
    messages: list[Any] = request[messages_key]
    return messages


def with_summary(
    body: dict[str, Any], answer: dict[str, Any], summary: str = SUMMARY
) -> dict[str, Any]:
    """The same body with the summary request's text sent back."""
    wanted = answer["summary_request"]
    entry = {"from": wanted["from"], "through": wanted["through"], "key": wanted["key"]}
    return {**body, "summaries": [{**entry, "summary": summary}]}


# ---- 1. realistic bodies, the providers' own types ----------------------------------------------


@pytest.mark.parametrize("name", chat_tests.FIXTURE_NAMES)
def test_chat_fixtures_summary_requests_are_sdk_requests(name: str) -> None:
    provider_body, wire = chat_tests.fixture(name), chat_tests.wire_of(name)
    options, _, _ = chat_tests.FIXTURE_PLANS[name]
    body = {**chat_tests.plan_body(provider_body, **options), "summarize": SUMMARIZE}
    answer = plan(body)
    messages = request_messages(answer, wire, provider_body.get("system"))
    assert messages[-1]["role"] == "user"
    for message in messages:
        chat_tests.sdk_valid(chat_tests.MESSAGE_TYPES[wire], message)
    chat_tests.sdk_valid(chat_tests.BODY_TYPES[wire], {**provider_body, "messages": messages})
    assert window_violations(wire, provider_body["messages"], messages) == []
    summarized = plan(with_summary(body, answer))
    assert summarized["notice"]["rung"] == "summary"
    chat_tests.sdk_valid(
        chat_tests.BODY_TYPES[wire], {**provider_body, "messages": summarized["window"]}
    )
    assert window_violations(wire, provider_body["messages"], summarized["window"]) == []


@pytest.mark.parametrize("name", bedrock_tests.FIXTURE_NAMES)
def test_bedrock_summary_requests_are_converse_requests(name: str) -> None:
    provider_body = bedrock_tests.fixture(name)
    options = bedrock_tests.FIXTURE_PLANS[name][0]
    body = {
        "messages": provider_body["messages"],
        "system": provider_body["system"],
        **options,
        "summarize": SUMMARIZE,
    }
    answer = plan(body)
    messages = request_messages(answer, "bedrock", provider_body["system"])
    assert bedrock_tests.converse_report(messages, provider_body["system"]) == ""
    assert bedrock_tests.bedrock_violations(messages) == []
    last = messages[-1]
    assert last["role"] == "user" and last["content"][-1] == {"text": DEFAULT_SUMMARY_INSTRUCTIONS}
    roles = [message["role"] for message in messages]
    assert all(a != b for a, b in itertools.pairwise(roles))  # alternating
    summarized = plan(with_summary(body, answer))
    window = summarized["window"]
    assert summarized["notice"]["rung"] == "summary"
    assert bedrock_tests.converse_report(window, provider_body["system"]) == ""
    assert bedrock_tests.bedrock_violations(window) == []
    summary = {"text": summarized["notice"]["content"]}
    holding = [message for message in window if summary in message["content"]]
    assert len(holding) == 1 and holding[0] is window[summarized["notice"]["window_index"]]


def test_bedrock_kept_request_path_joins_the_summary_to_the_request() -> None:
    provider_body = bedrock_tests.fixture("bedrock_kept_request")
    options = bedrock_tests.FIXTURE_PLANS["bedrock_kept_request"][0]
    body = {"messages": provider_body["messages"], "system": provider_body["system"], **options}
    first = plan({**body, "summarize": SUMMARIZE})
    summarized = plan({**with_summary(body, first), "summarize": SUMMARIZE})
    request_message = provider_body["messages"][0]
    window = summarized["window"]
    # The request's own blocks, then the summary as its last block.
    assert window[0]["content"][: len(request_message["content"])] == request_message["content"]
    assert window[0]["content"][len(request_message["content"])] == {
        "text": summarized["notice"]["content"]
    }
    assert bedrock_tests.converse_report(window, provider_body["system"]) == ""
    # A next request (the span grew) carries that same joined message as first written.
    grown = copy.deepcopy(provider_body["messages"])
    extra = [
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "z1", "name": "probe", "input": {}}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "z1", "content": [{"text": "x" * 900}]}}],
        },
        {"role": "assistant", "content": [{"text": "Done."}]},
    ]
    if grown[-1]["role"] == "assistant":
        grown.extend(extra)
    else:
        grown.extend([{"role": "assistant", "content": [{"text": "Noted."}]}, *extra[:2]])
        grown.append({"role": "assistant", "content": [{"text": "Done."}]})
    again = plan({**with_summary(body, first), "messages": grown, "summarize": SUMMARIZE})
    assert again["summary_used"] is not None
    messages = request_messages(again, "bedrock", provider_body["system"])
    assert bedrock_tests.converse_report(messages, provider_body["system"]) == ""
    assert bedrock_tests.bedrock_violations(messages) == []
    # The summary as first written ({REST} empty), joined to the request's message as the window
    # that carried it joined it: the request shares that window's bytes up to there.
    first_written = with_summary(body, first)["summaries"][0]
    through = first_written["through"] - first_written["from"] + 1
    text = f"[compacted history — {through} earlier message(s) summarized by the model]"
    assert messages[0]["content"][: len(request_message["content"])] == request_message["content"]
    assert messages[0]["content"][len(request_message["content"])] == {
        "text": f"{text}\n\n{SUMMARY}"
    }


@pytest.mark.parametrize("name", list(responses_tests.BODIES))
def test_responses_summary_requests_are_input_items(name: str) -> None:
    provider_body = responses_tests.BODIES[name]
    options = responses_tests.BODY_PLANS[name][0]
    body = {**responses_tests.plan_body(provider_body, **options), "summarize": SUMMARIZE}
    answer = plan(body)
    items = request_messages(answer, "responses", provider_body["instructions"])
    responses_tests.sdk_valid_items(items)
    responses_tests.sdk_valid(responses_tests.REQUEST_BODY, {**provider_body, "input": items})
    assert responses_tests.responses_violations(items, provider_body["input"]) == []
    assert items[-1] == {"role": "user", "content": DEFAULT_SUMMARY_INSTRUCTIONS}
    summarized = plan(with_summary(body, answer))
    assert summarized["notice"]["rung"] == "summary"
    responses_tests.sdk_valid_items(summarized["window"])
    assert responses_tests.responses_violations(summarized["window"], provider_body["input"]) == []


def test_gemini_summary_requests_are_sdk_contents_with_their_signatures() -> None:
    sent = [gemini_tests.as_sent(content) for content in gemini_tests.sdk_contents()]
    system = gemini_tests.as_sent(gemini_tests.SYSTEM_INSTRUCTION)
    body = {
        "messages": sent,
        "system": system,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 3},
        "keep_last_tool_results": 0,
        "request_text": "Find the hottest rack on floor 2.",
        "summarize": SUMMARIZE,
    }
    answer = plan(body)
    contents = request_messages(answer, "gemini", system)
    for content in contents:
        gemini_tests.sdk_valid(content)
    assert gemini_violations(contents, sent) == []
    span_end = answer["summary_request"]["through"] + 1
    # The summarized contents go as sent: thought parts and signatures beside their calls.
    assert gemini_tests.dumps(contents[:span_end]) == gemini_tests.dumps(sent[:span_end])
    assert contents[-1] == {"role": "user", "parts": [{"text": DEFAULT_SUMMARY_INSTRUCTIONS}]}
    summarized = plan(with_summary(body, answer))
    for content in summarized["window"]:
        gemini_tests.sdk_valid(content)
    assert gemini_violations(summarized["window"], sent) == []


# ---- 2. the property, in every dialect -----------------------------------------------------------


def with_long_results(messages: list[Any]) -> list[Any]:
    """Chat transcripts whose results and replies are long enough for a summary to be smaller
    than a span (the drawn texts are a few characters; a summary message is over seventy)."""
    padding = "r" * 300
    out = copy.deepcopy(messages)
    for message in out:
        if not isinstance(message, dict):
            continue
        if message.get("role") in ("tool", "assistant") and isinstance(message.get("content"), str):
            message["content"] += padding
        for block in message.get("content") if isinstance(message.get("content"), list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                block["content"] += padding
            elif isinstance(block.get("text"), str):
                block["text"] += padding
    return out


TRANSCRIPTS = {
    "native": native_transcripts().map(with_long_results),
    "openai": openai_transcripts().map(with_long_results),
    "anthropic": anthropic_transcripts().map(with_long_results),
    "responses": responses_tests.transcripts(),
    "gemini": gemini_tests.gemini_transcripts(),
    "bedrock": bedrock_tests.converse_transcripts(),
}


def last_text(format: str, message: Any) -> str | None:
    """The text a written user text ends with, in `format` (None: not a user text)."""
    if format == "gemini":
        parts = message.get("parts") or [{}]
        return parts[-1].get("text") if message.get("role") == "user" else None
    content = message.get("content")
    if message.get("role") != "user":
        return None
    if isinstance(content, str):
        return content
    block = content[-1] if content else {}
    return block.get("text") if isinstance(block, dict) else None


def summary_round(format: str, sent: list[Any], keep: int, keep_results: int) -> str:
    """Plan `sent` with `summarize` on, check the summary request, send its summary back and
    check the window; what happened: `none` (no request), `applied` or `not-smaller`."""
    body: dict[str, Any] = {
        "messages": sent,
        "format": format,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": keep},
        "keep_last_tool_results": keep_results,
        "summarize": SUMMARIZE,
    }
    answer = plan(body)
    wanted = answer["summary_request"]
    if wanted is None:
        return "none"
    messages = request_messages(answer, format, None)
    assert wanted["key"] == key(sent, wanted["from"], wanted["through"])
    if answer["evicted_messages"]:
        assert wanted["from"] == answer["evicted_messages"][0]
    assert last_text(format, messages[-1]) == DEFAULT_SUMMARY_INSTRUCTIONS
    # An input its provider would refuse already is judged by what it is, not by its requests.
    judged = window_violations(format, sent, sent) == []
    assert not judged or window_violations(format, sent, messages) == []
    # The shortest summary: the drawn transcripts' texts are short.
    summarized = plan(with_summary(body, answer, "S"))
    if summarized["summary_used"] is None:
        # Only a summary no smaller than what it stands for is ignored.
        assert summarized["summaries_ignored"] == [{"index": 0, "reason": "not-smaller"}]
        return "not-smaller"
    notice = summarized["notice"]
    assert notice["rung"] == "summary"
    window_bytes = orjson.dumps(summarized["window"])
    assert window_bytes.count(orjson.dumps(notice["content"])) == 1
    assert not judged or window_violations(format, sent, summarized["window"]) == []
    return "applied"


ROUNDS = st.tuples(st.integers(1, 3), st.integers(0, 1))


@pytest.mark.parametrize("format", sorted(TRANSCRIPTS))
def test_every_summary_request_is_one_the_provider_accepts(format: str) -> None:
    @settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(TRANSCRIPTS[format], ROUNDS)
    def check(sent: list[Any], options: tuple[int, int]) -> None:
        summary_round(format, sent, *options)

    check()


@pytest.mark.slow
def test_the_property_reaches_what_it_claims() -> None:
    """Over the ci profile's draws, every dialect gets summary requests and applies summaries."""
    seen: dict[str, set[str]] = {format: set() for format in TRANSCRIPTS}
    for format in TRANSCRIPTS:

        @scaled(2, profile="ci", derandomize=True)
        @given(TRANSCRIPTS[format], ROUNDS)
        def check(sent: list[Any], options: tuple[int, int]) -> None:
            seen[format].add(summary_round(format, sent, *options))  # noqa: B023

        check()
    assert all("applied" in outcomes for outcomes in seen.values()), seen
