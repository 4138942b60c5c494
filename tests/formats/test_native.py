"""The native format: reading, validation and writing the window back."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.core.messages import Message, ToolCall
from app.formats import read_messages, write_window
from tests.formats.support import error_locs, errors_of, run_count

NOTICE = "[dropped history — 2 earlier message(s) were removed]"


def transcript() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "find the rack", "injected": False, "trace": {"id": 7}},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "name": "look", "arguments": {"at": "a"}},
                {"id": "c2", "name": "move"},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "tool_name": "look", "content": "rack-a"},
        {"role": "tool", "tool_call_id": "c2", "not_dispatched": True, "tool_name": None},
        {"role": "user", "content": "remember the style", "injected": True},
        {"role": "assistant", "content": "rack-a is hottest", "tool_calls": []},
    ]


def test_reader_maps_every_field() -> None:
    assert read_messages(transcript(), "native") == [
        Message("system", "be brief", source=0),
        Message("user", "find the rack", source=1),
        Message(
            "assistant",
            "",
            (ToolCall("c1", "look", None, {"at": "a"}), ToolCall("c2", "move")),
            source=2,
        ),
        Message("tool", "rack-a", tool_call_id="c1", tool_name="look", source=3),
        Message("tool", "", tool_call_id="c2", not_dispatched=True, source=4),
        Message("user", "remember the style", injected=True, source=5),
        Message("assistant", "rack-a is hottest", source=6),
    ]


def test_absent_content_is_empty_and_empty_call_name_is_kept() -> None:
    raw = [{"role": "assistant", "tool_calls": [{"id": "c1", "name": ""}]}]
    assert read_messages(raw, "native") == [
        Message("assistant", "", (ToolCall("c1", ""),), source=0)
    ]


def test_tool_fields_are_read_on_tool_messages_only() -> None:
    raw = [{"role": "user", "content": "hi", "tool_call_id": 5, "not_dispatched": "x"}]
    assert read_messages(raw, "native") == [Message("user", "hi", source=0)]


def test_round_trip_is_the_callers_list() -> None:
    raw = transcript()
    window = write_window(raw, read_messages(raw, "native"), (), None, "native")
    assert window == raw
    assert all(a is b for a, b in zip(window, raw, strict=True))


def test_notice_takes_the_removed_range() -> None:
    raw = transcript()
    before = copy.deepcopy(raw)
    core = read_messages(raw, "native")
    window = write_window(raw, core, ((2, 5),), NOTICE, "native")
    assert window == [raw[0], raw[1], {"role": "user", "content": NOTICE}, raw[5], raw[6]]
    assert window[0] is raw[0] and window[3] is raw[5]
    assert len(window) == run_count(core, (2, 5), True)
    assert raw == before


def test_silent_removal_at_the_front() -> None:
    raw = transcript()
    core = read_messages(raw, "native")
    window = write_window(raw, core, ((0, 5),), None, "native")
    assert window == raw[5:]
    assert len(window) == run_count(core, (0, 5), False)


@pytest.mark.parametrize(
    ("raw", "locs"),
    [
        pytest.param(["hello"], [(0,)], id="message-not-an-object"),
        pytest.param([None, {"role": "user"}], [(0,)], id="null-message"),
        pytest.param([{"content": "x"}], [(0, "role")], id="role-missing"),
        pytest.param([{"role": "developer"}], [(0, "role")], id="role-unknown"),
        pytest.param([{"role": 3}], [(0, "role")], id="role-not-a-string"),
        pytest.param([{"role": "user", "content": ["x"]}], [(0, "content")], id="content-list"),
        pytest.param([{"role": "user", "content": 1}], [(0, "content")], id="content-number"),
        pytest.param(
            [{"role": "user", "tool_calls": [{"id": "c", "name": "n"}]}],
            [(0, "tool_calls")],
            id="calls-on-user",
        ),
        pytest.param(
            [{"role": "tool", "tool_call_id": "c", "tool_calls": [{"id": "d", "name": "n"}]}],
            [(0, "tool_calls")],
            id="calls-on-tool",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": {"id": "c"}}],
            [(0, "tool_calls")],
            id="calls-not-a-list",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": ["c"]}], [(0, "tool_calls", 0)], id="call-not-obj"
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"name": "n"}]}],
            [(0, "tool_calls", 0, "id")],
            id="call-id-missing",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"id": 1, "name": "n"}]}],
            [(0, "tool_calls", 0, "id")],
            id="call-id-number",
        ),
        pytest.param(
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "a", "name": "n"}, {"id": "", "name": "n"}],
                }
            ],
            [(0, "tool_calls", 1, "id")],
            id="call-id-empty",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"id": "a"}]}],
            [(0, "tool_calls", 0, "name")],
            id="call-name-missing",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"id": "a", "name": None}]}],
            [(0, "tool_calls", 0, "name")],
            id="call-name-null",
        ),
        pytest.param([{"role": "tool"}], [(0, "tool_call_id")], id="tool-call-id-missing"),
        pytest.param(
            [{"role": "tool", "tool_call_id": ""}], [(0, "tool_call_id")], id="tool-call-id-empty"
        ),
        pytest.param(
            [{"role": "tool", "tool_call_id": None}], [(0, "tool_call_id")], id="tool-call-id-null"
        ),
        pytest.param(
            [{"role": "tool", "tool_call_id": "c", "tool_name": 4}],
            [(0, "tool_name")],
            id="tool-name-number",
        ),
        pytest.param(
            [{"role": "user", "content": "x", "injected": "yes"}], [(0, "injected")], id="injected"
        ),
        pytest.param(
            [{"role": "assistant", "content": "x", "injected": None}],
            [(0, "injected")],
            id="injected-null",
        ),
        pytest.param(
            [{"role": "tool", "tool_call_id": "c", "not_dispatched": 1}],
            [(0, "not_dispatched")],
            id="not-dispatched",
        ),
    ],
)
def test_validation(raw: list[Any], locs: list[tuple[str | int, ...]]) -> None:
    assert error_locs(raw, "native") == locs


def test_every_violation_is_reported_in_order() -> None:
    raw = [
        {"role": "user", "content": "ok"},
        7,
        {"role": "tool", "tool_call_id": "", "tool_name": [], "injected": 0},
        {"role": "assistant", "tool_calls": [{"id": None, "name": 1}, {"id": "x", "name": "y"}]},
    ]
    errors = errors_of(raw, "native")
    assert [(e.loc, e.type) for e in errors] == [
        ((1,), "dict_type"),
        ((2, "injected"), "bool_type"),
        ((2, "tool_call_id"), "string_too_short"),
        ((2, "tool_name"), "string_type"),
        ((3, "tool_calls", 0, "id"), "string_type"),
        ((3, "tool_calls", 0, "name"), "string_type"),
    ]
    assert all(e.msg for e in errors)


def test_null_and_empty_calls_are_absent_on_any_role() -> None:
    raw = [
        {"role": "user", "content": "a", "tool_calls": None},
        {"role": "system", "tool_calls": []},
    ]
    assert read_messages(raw, "native") == [
        Message("user", "a", source=0),
        Message("system", "", source=1),
    ]
