"""The providers' SDK objects planned as they are: a pydantic model in `messages` or `system`
(inside lists and dicts too) goes as `model_dump(mode="json", by_alias=True, exclude_none=True)`,
against the real service."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from anthropic.types import Message, MessageParam
from google.genai import types
from pydantic import BaseModel, Field
from tests.e2e.serving import Server

from cwp_client import Planner
from cwp_client.planner import to_json

KEEP_ONE = {"kind": "sliding-window", "keep_recent_turns": 1}


@pytest.fixture
def planner(server: Server):
    with Planner(server.url) as client:
        yield client


def gemini_round(number: int) -> list[types.Content]:
    """A model content calling `read_station` (with a thought signature) and the user content
    answering it, as `google.genai` objects."""
    call = types.FunctionCall(name="read_station", args={"station": number}, id=f"call_{number}")
    answer = types.FunctionResponse(
        name="read_station",
        id=f"call_{number}",
        response={"output": f"station {number}: " + "x" * 400},
    )
    return [
        types.Content(
            role="model",
            parts=[types.Part(function_call=call, thought_signature=f"sig-{number}".encode())],
        ),
        types.Content(role="user", parts=[types.Part(function_response=answer)]),
    ]


def test_google_genai_contents_are_planned_as_they_are(planner):
    contents = [types.Content(role="user", parts=[types.Part(text="Survey the stations.")])]
    for number in (1, 2, 3):
        contents += gemini_round(number)
    system = types.Content(parts=[types.Part(text="You read weather stations.")])
    plan = planner.plan(
        contents, format="gemini", system=system, strategy=KEEP_ONE, keep_last_tool_results=0
    )
    assert plan.engaged and plan.evicted_messages == [1, 2, 3, 4]
    sent = to_json(contents)
    # The signature is sent base64-encoded under Gemini's own (camelCase) names, and every kept
    # content comes back byte for byte.
    assert sent[5]["parts"][0] == {
        "functionCall": {"id": "call_3", "args": {"station": 3}, "name": "read_station"},
        "thoughtSignature": "c2lnLTM=",
    }
    assert plan.window[0] == sent[0]
    assert plan.window[-2:] == sent[-2:]
    # What comes back reads as `google.genai` contents again.
    kept = [types.Content.model_validate(content) for content in plan.window[-2:]]
    assert kept == contents[-2:]


class Block(BaseModel):
    """A text block as an SDK might model it: a field under an alias, an optional one unset."""

    kind: Literal["text"] = Field("text", alias="type")
    text: str
    cache_control: dict[str, str] | None = None


def test_a_pydantic_model_nested_in_a_list_or_a_dict_is_sent_as_its_dump(planner):
    messages: list[Any] = [
        {"role": "user", "content": [Block(text="Which station is warmest?")]},
        ({"role": "assistant", "content": (Block(text="Station 5."),)}),
    ]
    system = [Block(text="You are brief.", cache_control={"type": "ephemeral"})]
    plan = planner.plan(messages, format="anthropic", system=system)
    assert plan.engaged is False
    assert plan.window == [
        {"role": "user", "content": [{"type": "text", "text": "Which station is warmest?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Station 5."}]},
    ]
    assert to_json(system) == [
        {"type": "text", "text": "You are brief.", "cache_control": {"type": "ephemeral"}}
    ]


def test_an_anthropic_response_becomes_a_param_as_documented(planner):
    """The response carries fields a request may not (`id`, `model`, `usage`, ...); the
    documented conversion keeps the role and the blocks without their `None` fields."""
    response = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [
                {"type": "text", "text": "Reading station 1.", "citations": None},
                {"type": "tool_use", "id": "toolu_1", "name": "read_station", "input": {}},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    )
    param: MessageParam = {  # type: ignore[typeddict-item]
        "role": response.role,
        "content": [b.model_dump(exclude_none=True) for b in response.content],
    }
    assert param["content"][0] == {"type": "text", "text": "Reading station 1."}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x" * 400}
    messages = [
        {"role": "user", "content": "Read station 1."},
        param,
        {"role": "user", "content": [result]},
    ]
    plan = planner.plan(messages, format="anthropic")
    assert plan.window == messages
