"""Provider compaction artifacts: Anthropic `compaction` blocks and Responses `compaction` items.

The last summary of the transcript is a core `system` message of its own (never removed); earlier
ones, and failed compactions, add nothing and travel with their message
(`docs/rules.md#provider-compaction`). Both are written back verbatim with their message.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.core.messages import Message, ToolCall
from app.core.tokens import ESTIMATE, message_tokens
from app.formats import read_messages, write_window
from app.formats.anthropic import read_plain
from tests.formats.support import error_locs, turn_bounds

SUMMARY = "Summary: rack a reads 39C; rack b is next."
NOTICE = "[dropped history — 2 earlier message(s) were removed]"


def summary(content: Any = SUMMARY) -> dict[str, Any]:
    return {"type": "compaction", "content": content}


def call(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "look", "input": {}}


def answer(call_id: str, text: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}],
    }


def mid_run() -> list[dict[str, Any]]:
    """A run compacted in the middle: the summary block opens the assistant message that goes on."""
    return [
        {"role": "user", "content": "Audit the racks."},
        {"role": "assistant", "content": [call("c1")]},
        answer("c1", "39C"),
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "compacting", "signature": "sig"},
                summary(),
                {"type": "text", "text": "Continuing."},
                call("c2"),
            ],
        },
        answer("c2", "41C"),
        {"role": "assistant", "content": "Rack b is hottest."},
    ]


# ---- anthropic ---------------------------------------------------------------------------------


def test_the_summary_is_a_system_message_between_the_blocks_before_and_after_it() -> None:
    assert read_messages(mid_run(), "anthropic") == [
        Message("user", "Audit the racks.", source=0),
        Message("assistant", "", (ToolCall("c1", "look", None, {}),), source=1, blocks=(0,)),
        Message("tool", "39C", tool_call_id="c1", source=2, blocks=(0,)),
        Message("assistant", "", source=3, blocks=(0,)),
        Message("system", SUMMARY, source=3, blocks=(1,)),
        Message(
            "assistant", "Continuing.", (ToolCall("c2", "look", None, {}),), source=3, blocks=(2, 3)
        ),
        Message("tool", "41C", tool_call_id="c2", source=4, blocks=(0,)),
        Message("assistant", "Rack b is hottest.", source=5),
    ]


def test_a_summary_first_or_alone_adds_no_empty_assistant_message() -> None:
    first = [{"role": "assistant", "content": [summary(), {"type": "text", "text": "On."}]}]
    assert read_messages(first, "anthropic") == [
        Message("system", SUMMARY, source=0, blocks=(0,)),
        Message("assistant", "On.", source=0, blocks=(1,)),
    ]
    alone = [{"role": "user", "content": "go"}, {"role": "assistant", "content": [summary()]}]
    assert read_messages(alone, "anthropic")[1:] == [
        Message("system", SUMMARY, source=1, blocks=(0,))
    ]


def test_only_the_last_summary_is_the_artifact() -> None:
    raw = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [summary("old"), {"type": "text", "text": "a"}]},
        {"role": "user", "content": "more"},
        {"role": "assistant", "content": [summary("new"), summary(None), summary("")]},
    ]
    assert read_messages(raw, "anthropic") == [
        Message("user", "go", source=0),
        Message("assistant", "a", source=1, blocks=(0, 1)),
        Message("user", "more", source=2),
        Message("system", "new", source=3, blocks=(0,)),
        Message("assistant", "", source=3, blocks=(1, 2)),
    ]
    # Two summaries in one message: the later one.
    both = [{"role": "assistant", "content": [summary("one"), summary("two")]}]
    assert read_messages(both, "anthropic") == [
        Message("assistant", "", source=0, blocks=(0,)),
        Message("system", "two", source=0, blocks=(1,)),
    ]


@pytest.mark.parametrize("content", [None, ""])
def test_a_failed_compaction_is_read_as_thinking(content: Any) -> None:
    failed = {"type": "compaction", "content": content}
    raw = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [failed, {"type": "text", "text": "a"}]},
    ]
    assert read_messages(raw, "anthropic")[1] == Message("assistant", "a", source=1, blocks=(0, 1))
    absent = [{"role": "assistant", "content": [{"type": "compaction"}]}]
    assert read_messages(absent, "anthropic") == [Message("assistant", "", source=0, blocks=(0,))]


def test_a_summary_in_a_user_message_is_an_ordinary_block() -> None:
    raw = [{"role": "user", "content": [summary(), {"type": "text", "text": "q"}]}]
    assert read_messages(raw, "anthropic") == [Message("user", "q", source=0, blocks=(0, 1))]


@pytest.mark.parametrize("content", [5, ["a"], {"text": "a"}, True])
def test_content_neither_a_string_nor_null_is_refused_naming_it(content: Any) -> None:
    raw = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, summary(content)]},
    ]
    assert error_locs(raw, "anthropic") == [(1, "content", 1, "content")]


def test_the_quick_path_leaves_compaction_blocks_to_the_checking_path() -> None:
    out: list[Message] = []
    assert not read_plain(mid_run()[3], 3, out)
    assert out == []
    assert read_plain(mid_run()[4], 4, out)


def test_the_summary_counts_its_characters_and_tokens() -> None:
    core = read_messages(mid_run(), "anthropic")
    artifact = core[4]
    assert len(artifact.content) == len(SUMMARY)
    assert message_tokens(artifact, ESTIMATE.count) == -(-len(SUMMARY) // 4) + 4


def test_kept_around_the_artifact_the_message_is_written_back_from_its_blocks() -> None:
    raw = mid_run()
    core = read_messages(raw, "anthropic")
    turns = turn_bounds(core)
    assert [core[start].role for start, _ in turns] == [
        "user",
        "assistant",
        "assistant",
        "system",
        "assistant",
        "assistant",
    ]
    # The thinking part's turn leaves: the artifact and the blocks after it stay, verbatim.
    window = write_window(raw, core, (turns[2],), None, "anthropic")
    assert window[:3] == raw[:3]
    assert window[3] == {"role": "assistant", "content": raw[3]["content"][1:]}
    assert all(a is b for a, b in zip(window[3]["content"], raw[3]["content"][1:], strict=True))
    assert window[4:] == raw[4:]
    # The turns before it leave with a notice: the artifact's message is whole and the same object.
    window = write_window(raw, core, ((turns[1][0], turns[3][0]),), NOTICE, "anthropic")
    assert window[0] is raw[0] and window[2] is not raw[3]
    assert window[2]["content"] == raw[3]["content"][1:]
    # Nothing removed: the caller's list.
    assert write_window(raw, core, (), None, "anthropic") == raw
    # The turn after the artifact leaves: its blocks go, the artifact's block stays alone.
    window = write_window(raw, core, (turns[4],), None, "anthropic")
    assert window[3] == {"role": "assistant", "content": raw[3]["content"][:2]}
    assert window[4] is raw[5]


# ---- responses ---------------------------------------------------------------------------------


def compaction_item(name: str) -> dict[str, Any]:
    return {"type": "compaction", "id": name, "encrypted_content": f"gAAA{name}"}


def compacted_items() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Audit the racks."},
        compaction_item("cmp_1"),
        {"role": "user", "content": "Go on."},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "look", "arguments": "{}"},
        compaction_item("cmp_2"),
        {"type": "function_call_output", "call_id": "c1", "output": "39C"},
        {"role": "assistant", "content": "Rack a is fine."},
        compaction_item("cmp_3"),
        {"role": "user", "content": "And b?"},
    ]


def test_the_last_compaction_item_is_a_system_message_earlier_ones_join_their_run() -> None:
    assert read_messages(compacted_items(), "responses") == [
        Message("user", "Audit the racks.", source=0),
        Message("assistant", "", source=1),  # an earlier one alone is a run of its own
        Message("user", "Go on.", source=2),
        Message(
            "assistant", "", (ToolCall("c1", "look", 4, "{}"),), source=3, source_end=5
        ),  # read as a reasoning item: part of the run
        Message("tool", "39C", tool_call_id="c1", source=6),
        Message("assistant", "Rack a is fine.", source=7),
        Message("system", "", source=8),
        Message("user", "And b?", source=9),
    ]


def test_compaction_items_are_written_back_verbatim() -> None:
    raw = compacted_items()
    core = read_messages(raw, "responses")
    window = write_window(raw, core, ((1, 6),), NOTICE, "responses")
    assert window == [raw[0], {"role": "user", "content": NOTICE}, *raw[8:]]
    assert window[2] is raw[8]
    assert write_window(raw, core, (), None, "responses") == raw
