"""OpenAI Chat Completions messages: reading, validation and writing the window back."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.images import Image
from app.core.messages import Message, ToolCall
from app.formats import read_messages, write_window
from tests.formats.support import error_locs, errors_of, run_count

NOTICE = "[dropped history — 3 earlier message(s) were removed]"


def transcript() -> list[dict[str, Any]]:
    return [
        {"role": "developer", "content": "You are terse."},
        {"role": "system", "content": [{"type": "text", "text": "Use tools."}]},
        {
            "role": "user",
            "name": "ana",
            "content": [
                {"type": "text", "text": "What is "},
                {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                {"type": "input_audio", "input_audio": {"data": "AAA", "format": "wav"}},
                {"type": "file", "file": {"file_id": "f1"}},
                {"type": "text", "text": "this?"},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "function_call": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "look", "arguments": '{"at": "a"}'},
                },
                {"id": "call_2", "type": "custom", "custom": {"name": "grep", "input": "x.*"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "rack-a"},
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": [{"type": "text", "text": "no"}, {"type": "text", "text": " match"}],
            "not_dispatched": True,
        },
        {"role": "user", "content": "keep going", "injected": True},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I can't "},
                {"type": "refusal", "refusal": "do that"},
            ],
            "tool_calls": None,
        },
    ]


def test_reader_maps_roles_content_and_calls() -> None:
    assert read_messages(transcript(), "openai") == [
        Message("system", "You are terse.", source=0),
        Message("system", "Use tools.", source=1),
        # The image by URL: the unknown size under OpenAI's rule (docs/rules.md#images); the
        # file by id: a fixed count (docs/rules.md#the-tokens-of-a-message).
        Message("user", "What is this?", source=2, images=(Image("openai"),), extra_tokens=1_600),
        Message(
            "assistant",
            "",
            (
                ToolCall("call_1", "look", None, '{"at": "a"}'),
                ToolCall("call_2", "grep", None, "x.*"),
            ),
            source=3,
        ),
        Message("tool", "rack-a", tool_call_id="call_1", source=4),
        Message("tool", "no match", tool_call_id="call_2", not_dispatched=True, source=5),
        Message("user", "keep going", injected=True, source=6),
        Message("assistant", "I can't do that", source=7),
    ]


def test_tool_messages_carry_no_tool_name() -> None:
    raw = [{"role": "tool", "tool_call_id": "c", "tool_name": "look", "content": "x"}]
    assert read_messages(raw, "openai") == [Message("tool", "x", tool_call_id="c", source=0)]


def test_refusal_parts_count_on_assistant_messages_only() -> None:
    raw = [{"role": "user", "content": [{"type": "refusal", "refusal": "no"}]}]
    assert read_messages(raw, "openai") == [Message("user", "", source=0)]


def test_unknown_part_types_add_nothing() -> None:
    raw = [
        {"role": "user", "content": [{"type": "video", "video": {}}, {"type": "text", "text": "a"}]}
    ]
    assert read_messages(raw, "openai") == [Message("user", "a", source=0)]


def test_round_trip_is_the_callers_list() -> None:
    raw = transcript()
    window = write_window(raw, read_messages(raw, "openai"), (), None, "openai")
    assert window == raw
    assert all(a is b for a, b in zip(window, raw, strict=True))


def test_notice_takes_the_removed_range_verbatim_around_it() -> None:
    raw = transcript()
    core = read_messages(raw, "openai")
    window = write_window(raw, core, ((2, 6),), NOTICE, "openai")
    assert window == [raw[0], raw[1], {"role": "user", "content": NOTICE}, raw[6], raw[7]]
    assert all(window[i] is raw[j] for i, j in [(0, 0), (1, 1), (3, 6), (4, 7)])
    assert len(window) == run_count(core, (2, 6), True)


def test_silent_removal_further_in() -> None:
    raw = transcript()
    core = read_messages(raw, "openai")
    assert write_window(raw, core, ((3, 6),), None, "openai") == [*raw[:3], *raw[6:]]


def call(**fields: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [fields]}


@pytest.mark.parametrize(
    ("raw", "locs"),
    [
        pytest.param([[]], [(0,)], id="message-not-an-object"),
        pytest.param([{"content": "x"}], [(0, "role")], id="role-missing"),
        pytest.param([{"role": "robot", "content": "x"}], [(0, "role")], id="role-unknown"),
        pytest.param([{"role": "user"}], [(0, "content")], id="user-content-missing"),
        pytest.param([{"role": "user", "content": None}], [(0, "content")], id="user-content-null"),
        pytest.param([{"role": "tool", "tool_call_id": "c"}], [(0, "content")], id="tool-content"),
        pytest.param([{"role": "system", "content": 5}], [(0, "content")], id="content-number"),
        pytest.param([{"role": "user", "content": ["hi"]}], [(0, "content", 0)], id="part-not-obj"),
        pytest.param(
            [{"role": "user", "content": [{"text": "hi"}]}],
            [(0, "content", 0, "type")],
            id="no-type",
        ),
        pytest.param(
            [{"role": "user", "content": [{"type": "text", "text": 1}]}],
            [(0, "content", 0, "text")],
            id="text-number",
        ),
        pytest.param(
            [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text"}]}],
            [(0, "content", 1, "text")],
            id="text-missing",
        ),
        pytest.param(
            [{"role": "assistant", "content": [{"type": "refusal", "refusal": None}]}],
            [(0, "content", 0, "refusal")],
            id="refusal-null",
        ),
        pytest.param(
            [{"role": "user", "content": "x", "tool_calls": [{"id": "c"}]}],
            [(0, "tool_calls")],
            id="calls-on-user",
        ),
        pytest.param(
            [{"role": "assistant", "content": "x", "tool_calls": "c"}],
            [(0, "tool_calls")],
            id="calls-not-a-list",
        ),
        pytest.param(
            [call(type="function", function={"name": "f", "arguments": "{}"})],
            [(0, "tool_calls", 0, "id")],
            id="call-id-missing",
        ),
        pytest.param(
            [call(id="", type="function", function={"name": "f", "arguments": "{}"})],
            [(0, "tool_calls", 0, "id")],
            id="call-id-empty",
        ),
        pytest.param(
            [call(id="c", type="function", function={"arguments": "{}"})],
            [(0, "tool_calls", 0, "function", "name")],
            id="function-name-missing",
        ),
        pytest.param(
            [call(id="c", type="function", function={"name": 3})],
            [(0, "tool_calls", 0, "function", "name")],
            id="function-name-number",
        ),
        pytest.param(
            [call(id="c", type="function")], [(0, "tool_calls", 0, "function")], id="no-function"
        ),
        pytest.param(
            [call(id="c", type="function", function="f")],
            [(0, "tool_calls", 0, "function")],
            id="function-not-an-object",
        ),
        pytest.param(
            [call(id="c", type="custom", custom={"input": "x"})],
            [(0, "tool_calls", 0, "custom", "name")],
            id="custom-name-missing",
        ),
        pytest.param(
            [call(id="c", type="web_search", web_search={})],
            [(0, "tool_calls", 0, "type")],
            id="call-type-other",
        ),
        pytest.param(
            [call(id="c", function={"name": "f"})], [(0, "tool_calls", 0, "type")], id="no-type"
        ),
        pytest.param([{"role": "tool", "content": "x"}], [(0, "tool_call_id")], id="no-call-id"),
        pytest.param(
            [{"role": "tool", "content": "x", "tool_call_id": 9}],
            [(0, "tool_call_id")],
            id="call-id-number",
        ),
        pytest.param(
            [{"role": "tool", "content": "x", "tool_call_id": "c", "not_dispatched": "true"}],
            [(0, "not_dispatched")],
            id="not-dispatched",
        ),
        pytest.param(
            [{"role": "developer", "content": "x", "injected": 1}], [(0, "injected")], id="injected"
        ),
    ],
)
def test_validation(raw: list[Any], locs: list[tuple[str | int, ...]]) -> None:
    assert error_locs(raw, "openai") == locs


def test_legacy_function_role_is_refused_pointing_to_tool_calls() -> None:
    raw = [{"role": "user", "content": "x"}, {"role": "function", "name": "f", "content": "1"}]
    [error] = errors_of(raw, "openai")
    assert error.loc == (1, "role")
    assert "tool_calls" in error.msg


def test_legacy_function_call_is_refused_pointing_to_tool_calls() -> None:
    raw = [
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}}
    ]
    [error] = errors_of(raw, "openai")
    assert error.loc == (0, "function_call")
    assert "tool_calls" in error.msg


def test_null_function_call_and_tool_calls_are_absent() -> None:
    raw = [{"role": "assistant", "content": "x", "function_call": None, "tool_calls": None}]
    assert read_messages(raw, "openai") == [Message("assistant", "x", source=0)]


def test_every_violation_is_reported() -> None:
    raw = [
        {"role": "function", "content": "1", "function_call": {"name": "f"}},
        {"role": "user", "content": [{"type": "text", "text": None}, 4]},
        call(id=1, type="function", function={"name": 2}),
    ]
    assert error_locs(raw, "openai") == [
        (0, "function_call"),
        (0, "role"),
        (1, "content", 0, "text"),
        (1, "content", 1),
        (2, "tool_calls", 0, "id"),
        (2, "tool_calls", 0, "function", "name"),
    ]
