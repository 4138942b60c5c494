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


RESPONSES_CALL = {"type": "function_call", "call_id": "c", "name": "look", "arguments": "{}"}
RESPONSES_PART = {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}
GEMINI_USER = {"role": "user", "parts": [{"text": "hi"}]}
GEMINI_MODEL = {"role": "model", "content": "odd"}
BEDROCK_TEXT = {"role": "user", "content": [{"text": "hi"}]}
BEDROCK_USE = {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "n"}}]}
REDACTED = {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}


@pytest.mark.parametrize(
    ("raw", "system", "expected"),
    [
        pytest.param([], None, "native", id="empty"),
        pytest.param(PLAIN, None, "native", id="plain-strings"),
        pytest.param(
            [*PLAIN, NATIVE_CALL, {"role": "tool", "tool_call_id": "c"}],
            None,
            "native",
            id="native-calls",
        ),
        pytest.param([*PLAIN, RESPONSES_CALL], None, "responses", id="rule1-item-type"),
        pytest.param([RESPONSES_PART], None, "responses", id="rule1-part-type"),
        pytest.param([{"type": "compaction", "id": "x"}], None, "responses", id="rule1-compaction"),
        pytest.param([DEVELOPER, RESPONSES_CALL], None, "responses", id="rule1-with-developer"),
        pytest.param([GEMINI_USER], None, "gemini", id="rule2-parts"),
        pytest.param([*PLAIN, GEMINI_MODEL], None, "gemini", id="rule2-model-role"),
        pytest.param([BEDROCK_TEXT], None, "bedrock", id="rule3-untyped-text"),
        pytest.param([*PLAIN, BEDROCK_USE], None, "bedrock", id="rule3-tool-use"),
        pytest.param([*PLAIN, TOOL_USE], None, "anthropic", id="rule4-tool-use"),
        pytest.param([TOOL_RESULT], None, "anthropic", id="rule4-tool-result"),
        pytest.param([THINKING], None, "anthropic", id="rule4-thinking"),
        pytest.param([REDACTED], None, "anthropic", id="rule4-redacted-thinking"),
        pytest.param(
            [
                {"role": "user", "content": [{"type": "text", "text": "go on"}]},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "compaction", "content": "Summary."},
                        {"type": "text", "text": "Continuing."},
                    ],
                },
            ],
            None,
            "anthropic",
            id="rule4-compaction-and-text-only",
        ),
        pytest.param(
            [*PLAIN, {"type": "compaction", "encrypted_content": "gAAA"}],
            None,
            "responses",
            id="rule1-compaction-item-after-plain-messages",
        ),
        pytest.param([TEXT_BLOCKS, TOOL_USE], None, "anthropic", id="rule4-lists-no-openai"),
        pytest.param([DEVELOPER, THINKING], None, "anthropic", id="rule4-developer-is-weak"),
        pytest.param([*PLAIN, OPENAI_CALL], None, "openai", id="rule5-function-key"),
        pytest.param([DEVELOPER, *PLAIN], None, "openai", id="rule5-developer"),
        pytest.param([*PLAIN, TEXT_BLOCKS], None, "openai", id="rule5-list-content"),
        pytest.param([TEXT_BLOCKS], "be terse", "openai", id="rule5-before-the-system"),
        pytest.param([], "be terse", "anthropic", id="rule6-string-system"),
        pytest.param(PLAIN, [{"type": "text", "text": "x"}], "anthropic", id="rule6-typed"),
        pytest.param(PLAIN, {"parts": [{"text": "x"}]}, "gemini", id="rule6-parts"),
        pytest.param(PLAIN, [{"text": "x"}], "bedrock", id="rule6-untyped-blocks"),
        pytest.param(
            [{"role": "user", "content": [{"type": "text", "text": "x"}, {"type": 3}, 5]}],
            None,
            "openai",
            id="malformed-blocks-are-no-signal",
        ),
        pytest.param(["junk", None, *PLAIN], None, "native", id="non-objects-skipped"),
    ],
)
def test_first_matching_rule(raw: list[Any], system: Any, expected: str) -> None:
    assert detect_format(raw, system) == expected


def mixed_locs(raw: list[Any]) -> list[tuple[str | int, ...]]:
    with pytest.raises(InvalidRequest) as caught:
        detect_format(raw, None)
    assert all(error.type == "mixed_format" and error.msg for error in caught.value.errors)
    return [error.loc for error in caught.value.errors]


@pytest.mark.parametrize(
    ("raw", "locs"),
    [
        pytest.param([TOOL_USE, PLAIN[0], OPENAI_CALL], [(2,)], id="tool-use-and-function"),
        pytest.param(
            [PLAIN[0], OPENAI_CALL, DEVELOPER, TOOL_RESULT], [(3,)], id="the-later-message"
        ),
        pytest.param([RESPONSES_CALL, GEMINI_USER], [(1,)], id="responses-and-gemini"),
        pytest.param([BEDROCK_TEXT, TOOL_USE], [(1,)], id="bedrock-and-anthropic"),
        pytest.param([GEMINI_USER, OPENAI_CALL], [(1,)], id="gemini-and-openai"),
    ],
)
def test_mixed_signals_name_the_first_message_that_disagrees(
    raw: list[Any], locs: list[tuple[str | int, ...]]
) -> None:
    assert mixed_locs(raw) == locs


def test_list_content_is_no_openai_signal_once_a_block_format_matched() -> None:
    assert detect_format([TEXT_BLOCKS, TOOL_RESULT, TEXT_BLOCKS], "be terse") == "anthropic"


def test_detected_format_reads_the_transcript() -> None:
    raw = [TEXT_BLOCKS, OPENAI_CALL, {"role": "tool", "tool_call_id": "c", "content": "x"}]
    core = read_messages(raw, detect_format(raw, None))
    assert [m.role for m in core] == ["user", "assistant", "tool"]


def test_unknown_format_names_are_a_programming_error() -> None:
    assert set(FORMATS) >= {"native", "openai", "anthropic"}
    with pytest.raises(ValueError):
        read_messages([], "auto")
    with pytest.raises(ValueError):
        write_window([], [], (), None, "yaml")
