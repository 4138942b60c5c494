"""`auto` detection: the first rule that matches, and the mixed-signal refusal."""

from __future__ import annotations

from typing import Any

import pytest

from app.errors import InvalidRequest
from app.formats import FORMATS, detect_format, read_messages, write_window

PLAIN = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
NATIVE_CALL = {"role": "assistant", "tool_calls": [{"id": "c", "name": "look", "arguments": {}}]}
OPENAI_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "look", "arguments": "{}"}}
    ],
}
TOOL_USE = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}],
}
TOOL_RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}
THINKING = {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}]}
TEXT_BLOCKS = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
DEVELOPER = {"role": "developer", "content": "be terse"}


@pytest.mark.parametrize(
    ("raw", "has_system", "expected"),
    [
        pytest.param([], False, "native", id="empty"),
        pytest.param(PLAIN, False, "native", id="plain-strings"),
        pytest.param(
            [*PLAIN, NATIVE_CALL, {"role": "tool", "tool_call_id": "c"}],
            False,
            "native",
            id="native-calls",
        ),
        pytest.param([], True, "anthropic", id="rule1-system"),
        pytest.param([*PLAIN, TOOL_USE], False, "anthropic", id="rule1-tool-use"),
        pytest.param([TOOL_RESULT], False, "anthropic", id="rule1-tool-result"),
        pytest.param([THINKING], False, "anthropic", id="rule1-thinking"),
        pytest.param([TEXT_BLOCKS, TOOL_USE], False, "anthropic", id="rule1-lists-no-openai"),
        pytest.param([TEXT_BLOCKS], True, "anthropic", id="rule1-system-with-lists"),
        pytest.param([*PLAIN, OPENAI_CALL], False, "openai", id="rule2-function-key"),
        pytest.param([DEVELOPER, *PLAIN], False, "openai", id="rule2-developer"),
        pytest.param([*PLAIN, TEXT_BLOCKS], False, "openai", id="rule2-list-content"),
        pytest.param(
            [{"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}],
            False,
            "openai",
            id="rule2-list-without-rule1-block",
        ),
        pytest.param(
            [{"role": "user", "content": [{"type": "text", "text": "x"}, {"type": 3}, 5]}],
            False,
            "openai",
            id="malformed-blocks-are-no-signal",
        ),
        pytest.param(["junk", None, *PLAIN], False, "native", id="non-objects-skipped"),
    ],
)
def test_first_matching_rule(raw: list[Any], has_system: bool, expected: str) -> None:
    assert detect_format(raw, has_system) == expected


def mixed_locs(raw: list[Any], has_system: bool) -> list[tuple[str | int, ...]]:
    with pytest.raises(InvalidRequest) as caught:
        detect_format(raw, has_system)
    assert all(error.type == "mixed_format" and error.msg for error in caught.value.errors)
    return [error.loc for error in caught.value.errors]


@pytest.mark.parametrize(
    ("raw", "has_system", "locs"),
    [
        pytest.param([*PLAIN, DEVELOPER], True, [(2,)], id="system-and-developer"),
        pytest.param([TOOL_USE, PLAIN[0], OPENAI_CALL], False, [(2,)], id="tool-use-and-function"),
        pytest.param(
            [PLAIN[0], OPENAI_CALL, DEVELOPER, TOOL_RESULT], False, [(1,)], id="first-disagreeing"
        ),
        pytest.param([DEVELOPER, THINKING], False, [(0,)], id="openai-signal-before-anthropic"),
    ],
)
def test_mixed_signals_name_the_first_message_that_disagrees(
    raw: list[Any], has_system: bool, locs: list[tuple[str | int, ...]]
) -> None:
    assert mixed_locs(raw, has_system) == locs


def test_list_content_is_no_openai_signal_once_rule1_matched() -> None:
    assert detect_format([TEXT_BLOCKS, TOOL_RESULT, TEXT_BLOCKS], True) == "anthropic"


def test_detected_format_reads_the_transcript() -> None:
    raw = [TEXT_BLOCKS, OPENAI_CALL, {"role": "tool", "tool_call_id": "c", "content": "x"}]
    core = read_messages(raw, detect_format(raw, False))
    assert [m.role for m in core] == ["user", "assistant", "tool"]


def test_unknown_format_names_are_a_programming_error() -> None:
    assert FORMATS == ("native", "openai", "anthropic")
    with pytest.raises(ValueError):
        read_messages([], "auto")
    with pytest.raises(ValueError):
        write_window([], [], None, None, "yaml")
