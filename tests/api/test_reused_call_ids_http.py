"""A reused call id in every dialect (docs/rules.md#diagnostics): `duplicate-call-id` names the id
on the later call, a later call no result answers is `unanswered-call` too and its turn is held
`unresolved-tool-call`, and every window of a transcript whose calls are each answered in turn
passes its provider's pairing checker (`app/audit/validity/`). The compiled reader gives the same
answer bytes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest

from app.api.answers import plan_answer
from app.api.metrics import create_metrics
from app.audit.validity import window_violations
from app.core.messages import Message
from app.formats import read_messages
from tests.api.test_bedrock_http import bedrock_conversion
from tests.api.test_compiled_reader import assert_same_answer
from tests.api.test_formats_equivalence import convert
from tests.api.test_gemini_http import convert as gemini_conversion
from tests.api.test_responses_http import to_responses
from tests.core.native_wire import wire
from tests.core.window_fixtures import A, R, T, U, W

METRICS = create_metrics()
CONVERTERS: dict[str, Callable[[list[Any]], list[Any]]] = {
    "native": lambda messages: messages,
    "openai": lambda messages: convert(messages, "openai").messages,
    "anthropic": lambda messages: convert(messages, "anthropic").messages,
    "responses": lambda messages: to_responses(messages).items,
    "gemini": lambda messages: gemini_conversion(messages).messages,
    "bedrock": lambda messages: bedrock_conversion(messages).messages,
}
DIALECTS = tuple(CONVERTERS)
# Each call answered right after it, the id used twice: the input every provider that matches
# results to the nearest call accepts.
ANSWERED = W(U("go"), R("c1"), U("again"), A("looking", "c1:look"), T("c1", "look", "second"))
ANSWERED += W(U("next"), A("ok"), U("and then?"))
# The issue's transcript: the id's first result answers the first call only, so the later call
# is left unanswered while later messages follow it.
LEFT_UNANSWERED = W(U("go"), R("c1"), A("looking", "c1:look"), U("and?"), A("done"), U("more"))
OPTIONS = [
    {"strategy": {"kind": "sliding-window", "keep_recent_turns": keep}, "request_text": "go"}
    for keep in range(1, 9)
] + [{"strategy": {"kind": "sliding-window", "keep_recent_turns": 1}}]


def plan(body: dict[str, Any]) -> dict[str, Any]:
    response = plan_answer(body, 100_000, METRICS)
    assert response.status_code == 200, response.body
    answer: dict[str, Any] = orjson.loads(response.body)
    return answer


def later_call_index(sent: list[Any], dialect: str) -> int:
    """The caller index of the message or item holding the second call with id `c1`."""
    holders = [
        (position if message.source is None else message.source)
        if call.source is None
        else call.source
        for position, message in enumerate(read_messages(sent, dialect))
        for call in message.tool_calls
        if call.id == "c1"
    ]
    assert len(holders) == 2
    return holders[1]


def codes(answer: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(d["code"], d["message_index"]) for d in answer["diagnostics"]]


def test_the_transcripts_hold_the_id_twice() -> None:
    for messages in (ANSWERED, LEFT_UNANSWERED):
        calls = [call.id for message in messages for call in message.tool_calls]
        assert calls == ["c1", "c1"]
        assert isinstance(messages[0], Message)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_reused_id_answered_in_turn_is_named_and_every_window_pairs(dialect: str) -> None:
    sent = CONVERTERS[dialect](wire(ANSWERED))
    assert window_violations(dialect, sent, sent) == []
    later = later_call_index(sent, dialect)
    removed = set()
    for options in OPTIONS:
        body = {**options, "messages": sent, "format": dialect}
        answer = plan(body)
        assert codes(answer) == [("duplicate-call-id", later)]
        assert "'c1'" in answer["diagnostics"][0]["detail"]
        assert window_violations(dialect, sent, answer["window"]) == []
        removed.add(answer["stats"]["removed_message_count"])
        assert assert_same_answer(orjson.dumps(body)) == 200
    assert len(removed) > 2  # windows cut at several places, the calls' turns among them


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_reused_id_left_unanswered_is_reported_and_its_turn_held(dialect: str) -> None:
    sent = CONVERTERS[dialect](wire(LEFT_UNANSWERED))
    # The provider refuses the input itself: the diagnostics now say so.
    assert window_violations(dialect, sent, sent) != []
    later = later_call_index(sent, dialect)
    for options in OPTIONS:
        body = {**options, "messages": sent, "format": dialect}
        answer = plan(body)
        assert codes(answer) == [("unanswered-call", later), ("duplicate-call-id", later)]
        assert all("'c1'" in d["detail"] for d in answer["diagnostics"])
        if options["strategy"]["keep_recent_turns"] <= 3:  # the later call's turn a candidate
            held = [row["held_by"] for row in answer["turns"]]
            assert "unresolved-tool-call" in held
        # The later call stays whatever leaves: a window never drops it silently.
        window_calls = [
            call.id
            for message in read_messages(answer["window"], dialect)
            for call in message.tool_calls
        ]
        assert "c1" in window_calls
        assert assert_same_answer(orjson.dumps(body)) == 200


def test_the_issue_s_openai_window_was_refused_and_is_now_reported() -> None:
    # Before matching per occurrence, this input had no diagnostic and its window kept the
    # later call without a result: the OpenAI checker refuses that window.
    sent = CONVERTERS["openai"](wire(LEFT_UNANSWERED))
    answer = plan({**OPTIONS[0], "messages": sent, "format": "openai"})
    assert window_violations("openai", sent, answer["window"]) != []
    assert {d["code"] for d in answer["diagnostics"]} == {"unanswered-call", "duplicate-call-id"}
