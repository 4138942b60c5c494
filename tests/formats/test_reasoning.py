"""The window writer's half of `clear.thinking` (docs/rules.md#images-and-thinking), read and
written by each dialect's own functions: which blocks or items are reasoning that may leave, and
how they are taken out without disturbing what the writers read."""

from __future__ import annotations

from typing import Any

from app.core.messages import Message
from app.formats import DIALECTS, read_messages
from app.formats.callers import ListCallers
from app.formats.reasoning import ReasoningPart, WithoutItems, per_caller, without_blocks

ANTHROPIC = [
    {"role": "user", "content": "TASK"},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "abc", "signature": "s1"},
            {"type": "redacted_thinking", "data": "xyz"},
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "c1", "name": "look", "input": {}},
        ],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "ok"}]},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "only", "signature": "s"}]},
]


def test_anthropic_thinking_and_redacted_thinking_are_the_parts_and_a_lone_thinking_stays() -> None:
    core = read_messages(ANTHROPIC, "anthropic")
    dialect = DIALECTS["anthropic"]
    reasoning = dialect.reasoning_predicate(ANTHROPIC)
    assistants = [message for message in core if message.role == "assistant"]
    # The visible thinking counts its characters; a redacted block 0; one caller message, one entry.
    assert list(reasoning(assistants[0])) == [(1, 3)]
    # A message whose only content is reasoning keeps it.
    assert list(reasoning(assistants[1])) == []


def test_without_blocks_renumbers_the_blocks_the_writers_read() -> None:
    core = read_messages(ANTHROPIC, "anthropic")
    callers = ListCallers(ANTHROPIC)
    parts = [ReasoningPart(1, 0, 3), ReasoningPart(1, 1, 0)]
    written, renumbered = without_blocks(callers, core, parts, "content")
    assistant = next(index for index, message in enumerate(core) if message.source == 1)
    assert core[assistant].blocks == (0, 1, 2, 3)
    assert renumbered[assistant].blocks == (0, 1)
    assert [block["type"] for block in written[1]["content"]] == ["text", "tool_use"]
    # Kept blocks are the caller's own objects; every other message is untouched.
    assert written[1]["content"][1] is ANTHROPIC[1]["content"][3]
    assert written[2] is ANTHROPIC[2] and renumbered[0] is core[0]
    # A writer that keeps some blocks reads the renumbered positions in the copy.
    assert written.with_blocks(1, [1], "content") == {
        **ANTHROPIC[1],
        "content": [ANTHROPIC[1]["content"][3]],
    }


def test_without_items_leaves_items_out_of_every_verbatim_stretch() -> None:
    items: list[Any] = [{"n": n} for n in range(6)]
    callers = WithoutItems(ListCallers(items), [1, 4])
    assert callers.verbatim_slice(0, 6) == [items[0], items[2], items[3], items[5]]
    assert callers.verbatim_slice(2, 5) == [items[2], items[3]]
    assert callers[1] is items[1] and len(callers) == 6  # read by index, every item is there
    assert callers.head(3).verbatim_slice(0, 3) == [items[0], items[2]]


def test_per_caller_sums_the_parts_of_one_caller_message_and_keeps_items_apart() -> None:
    assert per_caller(
        [ReasoningPart(3, 0, 5), ReasoningPart(3, 2, 7), ReasoningPart(4, None, 1)]
    ) == [
        (3, 12),
        (4, 1),
    ]


def test_responses_a_reasoning_item_before_an_item_with_an_id_stays() -> None:
    items: list[Any] = [
        {"role": "user", "content": "TASK"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hmm"}]},
        {"type": "function_call", "call_id": "c1", "name": "look", "arguments": "{}"},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAA"},
        {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "look", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "a"},
        {"type": "function_call_output", "call_id": "c2", "output": "b"},
    ]
    core = read_messages(items, "responses")
    run = next(message for message in core if message.role == "assistant")
    assert (run.source, run.source_end) == (1, 4)
    # rs_1 leaves (3 visible characters); rs_2 stays, its next item carries an id.
    assert list(DIALECTS["responses"].reasoning_predicate(items)(run)) == [(1, 3)]


def test_gemini_thought_parts_leave_and_the_signed_call_part_stays() -> None:
    contents: list[Any] = [
        {"role": "user", "parts": [{"text": "TASK"}]},
        {
            "role": "model",
            "parts": [
                {"text": "thinking it over", "thought": True},
                {"functionCall": {"name": "look", "args": {}}, "thoughtSignature": "c2ln"},
            ],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "look", "response": {"output": "ok"}}}],
        },
    ]
    core = read_messages(contents, "gemini")
    model = next(index for index, message in enumerate(core) if message.role == "assistant")
    dialect = DIALECTS["gemini"]
    assert list(dialect.reasoning_predicate(contents)(core[model])) == [(1, 16)]
    window = dialect.write_window(contents, core, (), None, thinking_cleared=[model])
    assert window[1]["parts"] == [contents[1]["parts"][1]]
    assert window[0] is contents[0] and window[2] is contents[2]


def test_a_format_without_reasoning_names_none() -> None:
    core: list[Message] = read_messages([{"role": "assistant", "content": "hi"}], "openai")
    assert (
        list(
            DIALECTS["openai"].reasoning_predicate([{"role": "assistant", "content": "hi"}])(
                core[0]
            )
        )
        == []
    )
