"""Anthropic Messages: block-level reading, validation and merging the window back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.images import Image
from app.core.messages import Message, ToolCall
from app.formats import read_messages, write_window
from tests.formats.support import error_locs, errors_of, run_count, turn_bounds

NOTICE = "[dropped history — 2 earlier message(s) were removed]"
NOTICE_MESSAGE = {"role": "user", "content": [{"type": "text", "text": NOTICE}]}


def answered_question() -> list[dict[str, Any]]:
    """A request, two parallel calls, and a user message that answers both and asks again."""
    return [
        {"role": "user", "content": "Find the hottest rack."},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "two racks", "signature": "sig"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_a", "name": "look", "input": {"rack": "a"}},
                {"type": "tool_use", "id": "toolu_b", "name": "look", "input": {"rack": "b"}},
            ],
        },
        {
            "role": "user",
            "injected": False,
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_a",
                    "content": "39C",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": [{"type": "text", "text": "41"}, {"type": "text", "text": "C"}],
                },
                {
                    "type": "text",
                    "text": "And the coolest?",
                    "cache_control": {"type": "ephemeral"},
                },
            ],
            "meta": {"turn": 2},
        },
        {"role": "assistant", "content": "Rack b is hottest; checking the coolest."},
    ]


def test_user_message_answering_two_calls_and_asking_is_three_core_messages() -> None:
    assert read_messages(answered_question(), "anthropic") == [
        Message("user", "Find the hottest rack.", source=0),
        Message(
            "assistant",
            "Looking.",
            (
                ToolCall("toolu_a", "look", None, {"rack": "a"}),
                ToolCall("toolu_b", "look", None, {"rack": "b"}),
            ),
            source=1,
            blocks=(0, 1, 2, 3),
        ),
        Message("tool", "39C", tool_call_id="toolu_a", source=2, blocks=(0,)),
        Message("tool", "41C", tool_call_id="toolu_b", source=2, blocks=(1,)),
        Message("user", "And the coolest?", source=2, blocks=(2,)),
        Message("assistant", "Rack b is hottest; checking the coolest.", source=3),
    ]


def test_removal_in_the_middle_of_a_user_message_keeps_only_its_question_byte_for_byte() -> None:
    raw = answered_question()
    core = read_messages(raw, "anthropic")
    # Turn 1 is the assistant's calls with both results (core 1..3); the question starts turn 2.
    assert turn_bounds(core)[1] == (1, 4)
    window = write_window(raw, core, ((1, 4),), None, "anthropic")
    expected = (
        '[{"role": "user", "content": "Find the hottest rack."}, '
        '{"role": "user", "injected": false, "content": [{"type": "text", '
        '"text": "And the coolest?", "cache_control": {"type": "ephemeral"}}], '
        '"meta": {"turn": 2}}, '
        '{"role": "assistant", "content": "Rack b is hottest; checking the coolest."}]'
    )
    assert json.dumps(window, ensure_ascii=False) == expected
    assert window[0] is raw[0] and window[2] is raw[3]
    assert window[1]["content"][0] is raw[2]["content"][2]
    assert window[1]["meta"] is raw[2]["meta"]
    assert len(window) == run_count(core, (1, 4), False)


def test_removal_in_the_middle_with_the_notice() -> None:
    raw = answered_question()
    core = read_messages(raw, "anthropic")
    window = write_window(raw, core, ((1, 4),), NOTICE, "anthropic")
    assert window == [
        raw[0],
        NOTICE_MESSAGE,
        {**raw[2], "content": [raw[2]["content"][2]]},
        raw[3],
    ]
    assert len(window) == run_count(core, (1, 4), True)


def test_removing_the_question_keeps_the_results_in_their_message() -> None:
    raw = answered_question()
    core = read_messages(raw, "anthropic")
    window = write_window(raw, core, ((4, 5),), NOTICE, "anthropic")
    assert window == [
        raw[0],
        raw[1],
        {**raw[2], "content": raw[2]["content"][:2]},
        NOTICE_MESSAGE,
        raw[3],
    ]
    assert list(window[2]) == ["role", "injected", "content", "meta"]
    assert len(window) == run_count(core, (4, 5), True)


def test_kept_parts_of_one_message_on_both_sides_merge_back_in_block_order() -> None:
    raw: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "a", "name": "n", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "before"},
                {"type": "tool_result", "tool_use_id": "a"},
                {"type": "tool_result", "tool_use_id": "b"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "x"},
                },
            ],
        },
    ]
    core = read_messages(raw, "anthropic")
    assert [(m.role, m.blocks) for m in core] == [
        ("assistant", (0,)),
        ("tool", (1,)),
        ("tool", (2,)),
        ("user", (0, 3)),
    ]
    window = write_window(raw, core, ((2, 3),), None, "anthropic")
    assert window == [
        raw[0],
        {"role": "user", "content": [raw[1]["content"][i] for i in (0, 1, 3)]},
    ]
    assert len(window) == run_count(core, (2, 3), False)


def test_a_message_with_nothing_kept_does_not_appear() -> None:
    raw = answered_question()
    core = read_messages(raw, "anthropic")
    window = write_window(raw, core, ((0, 5),), NOTICE, "anthropic")
    assert window == [NOTICE_MESSAGE, raw[3]]


def test_round_trip_is_the_callers_list() -> None:
    raw = answered_question()
    assert write_window(raw, read_messages(raw, "anthropic"), (), None, "anthropic") == raw
    core = read_messages(raw, "anthropic")
    window = write_window(raw, core, ((0, 0),), None, "anthropic")
    assert all(a is b for a, b in zip(window, raw, strict=True))


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param("plain", [Message("user", "plain", source=0)], id="string"),
        pytest.param([], [Message("user", "", source=0)], id="no-block"),
        pytest.param(
            [{"type": "tool_result", "tool_use_id": "t"}],
            [Message("tool", "", tool_call_id="t", source=0, blocks=(0,))],
            id="results-only-no-content",
        ),
        pytest.param(
            [
                {"type": "tool_result", "tool_use_id": "t", "content": [], "not_dispatched": True},
                {"type": "document", "source": {"type": "text", "data": "long"}},
            ],
            [
                Message("tool", "", tool_call_id="t", not_dispatched=True, source=0, blocks=(0,)),
                # A document sent as text adds its text to the tokens, never characters.
                Message("user", "", source=0, blocks=(1,), extra_texts=("long",)),
            ],
            id="not-dispatched-and-a-document",
        ),
        pytest.param(
            [
                {"type": "text", "text": "see "},
                {
                    "type": "tool_result",
                    "tool_use_id": "t",
                    "is_error": True,
                    "content": [
                        {"type": "text", "text": "bad"},
                        {"type": "image", "source": {}},
                        {"type": "text", "text": " input"},
                    ],
                },
                {"type": "text", "text": "this"},
            ],
            [
                # An image block with no usable source: the unknown size (docs/rules.md#images).
                Message(
                    "tool",
                    "bad input",
                    tool_call_id="t",
                    source=0,
                    blocks=(1,),
                    images=(Image("anthropic"),),
                ),
                Message("user", "see this", source=0, blocks=(0, 2)),
            ],
            id="results-first-then-the-rest",
        ),
    ],
)
def test_user_messages(content: Any, expected: list[Message]) -> None:
    assert read_messages([{"role": "user", "content": content}], "anthropic") == expected


def test_injected_marks_the_user_part_only() -> None:
    raw = [
        {
            "role": "user",
            "injected": True,
            "content": [{"type": "tool_result", "tool_use_id": "t"}, {"type": "text", "text": "r"}],
        }
    ]
    assert read_messages(raw, "anthropic") == [
        Message("tool", "", tool_call_id="t", source=0, blocks=(0,)),
        Message("user", "r", injected=True, source=0, blocks=(1,)),
    ]


def test_assistant_blocks_without_text_add_no_characters() -> None:
    raw = [
        {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "zzz"},
                {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}},
                {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []},
                {"type": "text", "text": "a"},
                {"type": "text", "text": "b"},
                {"type": "tool_use", "id": "t", "name": "", "input": {}},
            ],
        }
    ]
    # The server tool's result is read by the provider: its compact JSON, without `type`, counts
    # tokens (docs/rules.md#the-tokens-of-a-message), never characters.
    assert read_messages(raw, "anthropic") == [
        Message(
            "assistant",
            "ab",
            (ToolCall("t", "", None, {}),),
            source=0,
            blocks=(0, 1, 2, 3, 4, 5),
            extra_texts=('{"tool_use_id":"srv_1","content":[]}',),
        )
    ]


def user(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


@pytest.mark.parametrize(
    ("raw", "locs"),
    [
        pytest.param([1], [(0,)], id="message-not-an-object"),
        pytest.param([{"content": "x"}], [(0, "role")], id="role-missing"),
        pytest.param([{"role": "system", "content": "x"}], [(0, "role")], id="role-system"),
        pytest.param([{"role": "tool", "content": "x"}], [(0, "role")], id="role-tool"),
        pytest.param([{"role": "user"}], [(0, "content")], id="content-missing"),
        pytest.param([{"role": "user", "content": None}], [(0, "content")], id="content-null"),
        pytest.param([{"role": "assistant", "content": {}}], [(0, "content")], id="content-obj"),
        pytest.param([user("hi")], [(0, "content", 0)], id="block-not-an-object"),
        pytest.param([user({"text": "hi"})], [(0, "content", 0, "type")], id="block-no-type"),
        pytest.param(
            [assistant({"type": "text", "text": 1})], [(0, "content", 0, "text")], id="text-number"
        ),
        pytest.param(
            [user({"type": "text", "text": "a"}, {"type": "text"})],
            [(0, "content", 1, "text")],
            id="text-missing",
        ),
        pytest.param(
            [assistant({"type": "tool_use", "name": "n", "input": {}})],
            [(0, "content", 0, "id")],
            id="tool-use-id-missing",
        ),
        pytest.param(
            [assistant({"type": "tool_use", "id": "", "name": "n"})],
            [(0, "content", 0, "id")],
            id="tool-use-id-empty",
        ),
        pytest.param(
            [assistant({"type": "tool_use", "id": "t", "input": {}})],
            [(0, "content", 0, "name")],
            id="tool-use-name-missing",
        ),
        pytest.param(
            [user({"type": "tool_result", "content": "x"})],
            [(0, "content", 0, "tool_use_id")],
            id="tool-result-id-missing",
        ),
        pytest.param(
            [user({"type": "text", "text": "q"}, {"type": "tool_result", "tool_use_id": 3})],
            [(0, "content", 1, "tool_use_id")],
            id="tool-result-id-number",
        ),
        pytest.param(
            [user({"type": "tool_result", "tool_use_id": ""})],
            [(0, "content", 0, "tool_use_id")],
            id="tool-result-id-empty",
        ),
        pytest.param(
            [assistant({"type": "tool_result", "tool_use_id": "t", "content": "x"})],
            [(0, "content", 0)],
            id="tool-result-in-assistant",
        ),
        pytest.param(
            [user({"type": "tool_use", "id": "t", "name": "n", "input": {}})],
            [(0, "content", 0)],
            id="tool-use-in-user",
        ),
        pytest.param(
            [user({"type": "tool_result", "tool_use_id": "t", "content": 5})],
            [(0, "content", 0, "content")],
            id="tool-result-content-number",
        ),
        pytest.param(
            [user({"type": "tool_result", "tool_use_id": "t", "content": None})],
            [(0, "content", 0, "content")],
            id="tool-result-content-null",
        ),
        pytest.param(
            [user({"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]})],
            [(0, "content", 0, "content", 0, "text")],
            id="tool-result-text-missing",
        ),
        pytest.param(
            [user({"type": "tool_result", "tool_use_id": "t", "not_dispatched": "yes"})],
            [(0, "content", 0, "not_dispatched")],
            id="not-dispatched",
        ),
        pytest.param(
            [{"role": "user", "content": "x", "injected": "no"}], [(0, "injected")], id="injected"
        ),
    ],
)
def test_validation(raw: list[Any], locs: list[tuple[str | int, ...]]) -> None:
    assert error_locs(raw, "anthropic") == locs


def test_every_violation_is_reported() -> None:
    raw = [
        {"role": "developer", "content": "x"},
        assistant({"type": "tool_use", "id": 1, "name": None}, {"type": "tool_result"}),
        user({"type": "tool_result", "tool_use_id": "t", "not_dispatched": 0}, []),
    ]
    errors = errors_of(raw, "anthropic")
    assert [(e.loc, e.type) for e in errors] == [
        ((0, "role"), "invalid_role"),
        ((1, "content", 0, "id"), "string_type"),
        ((1, "content", 0, "name"), "string_type"),
        ((1, "content", 1), "value_error"),
        ((2, "content", 0, "not_dispatched"), "bool_type"),
        ((2, "content", 1), "dict_type"),
    ]
