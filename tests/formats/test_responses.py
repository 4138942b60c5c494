"""OpenAI Responses `input` items: assistant runs, calls by item, outputs, refusals, writing."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.diagnostics import diagnose
from app.core.images import Image
from app.core.messages import Message, ToolCall
from app.formats import (
    FORMATS,
    SYSTEM_FORMATS,
    non_text_part_predicate,
    read_messages,
    system_problem,
    system_prompt_text,
    write_window,
)
from app.formats.fields import Problems
from app.formats.responses import read_item
from tests.formats.support import error_locs, errors_of

NOTICE = "[dropped history — 5 earlier message(s) were removed]"


def reasoning(n: int) -> dict[str, Any]:
    return {
        "type": "reasoning",
        "id": f"rs_{n}",
        "summary": [{"type": "summary_text", "text": "thinking about racks"}],
        "encrypted_content": f"gAAAAB{n}encrypted==",
    }


def call(call_id: str, name: str = "look") -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": '{"rack": "a"}',
    }


def output(call_id: str, text: Any = "ok") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def transcript() -> list[dict[str, Any]]:
    return [
        {"role": "developer", "content": "Be terse."},  # 0 easy input, no type
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Which rack "},
                {"type": "input_image", "image_url": "https://x/plan.png", "detail": "low"},
                {"type": "input_text", "text": "is hottest?"},
            ],
        },  # 1
        reasoning(1),  # 2 run 2-5
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "Reading both.", "annotations": []},
                {"type": "refusal", "refusal": " Not the third."},
            ],
        },  # 3
        call("c1"),  # 4
        {"type": "custom_tool_call", "call_id": "c2", "name": "grep", "input": "x.*"},  # 5
        output("c1", "41C"),  # 6
        {
            "type": "custom_tool_call_output",
            "call_id": "c2",
            "output": [
                {"type": "input_text", "text": "no "},
                {"type": "input_image", "image_url": "https://x/y.png"},
                {"type": "output_text", "text": "match"},
            ],
            "not_dispatched": True,
        },  # 7
        {"role": "user", "content": "keep going", "injected": True},  # 8
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "rack temps"},
        },  # 9 run 9-10
        {"role": "assistant", "content": "Rack b."},  # 10
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAcompact"},  # 11
        {"role": "user", "content": "thanks"},  # 12
    ]


def test_reader_maps_items_runs_and_outputs() -> None:
    assert read_messages(transcript(), "responses") == [
        Message("system", "Be terse.", source=0),
        # Images by URL: the unknown size, or 85 at `low` (docs/rules.md#images).
        Message("user", "Which rack is hottest?", source=1, images=(Image("openai", "low"),)),
        Message(
            "assistant",
            "Reading both. Not the third.",
            (
                ToolCall("c1", "look", 4, '{"rack": "a"}'),
                ToolCall("c2", "grep", 5, "x.*"),
            ),
            source=2,
            source_end=5,
        ),
        Message("tool", "41C", tool_call_id="c1", source=6),
        Message(
            "tool",
            "no match",
            tool_call_id="c2",
            not_dispatched=True,
            source=7,
            images=(Image("openai"),),
        ),
        Message("user", "keep going", injected=True, source=8),
        # The web search the provider ran: its compact JSON without `id`, `status` and `type`
        # counts tokens (docs/rules.md#the-tokens-of-a-message).
        Message(
            "assistant",
            "Rack b.",
            source=9,
            source_end=10,
            extra_texts=('{"action":{"type":"search","query":"rack temps"}}',),
        ),
        Message("system", "", source=11),
        Message("user", "thanks", source=12),
    ]


def test_checked_path_reads_what_the_fast_path_reads() -> None:
    """Every item read with every check gives what the fast path gives."""
    raw = transcript()
    fast = read_messages(raw, "responses")
    problems = Problems()
    parts = [read_item(item, index, problems) for index, item in enumerate(raw)]
    assert not problems.errors
    assert parts[6] == fast[3] and parts[7] == fast[4] and parts[1] == fast[1]
    assert parts[4] == ("", ToolCall("c1", "look", 4, '{"rack": "a"}'))
    assert parts[3] == ("Reading both. Not the third.", None)
    assert parts[2] == ("", None)


def test_a_single_item_run_spans_nothing() -> None:
    raw = [{"role": "user", "content": "go"}, call("c1"), output("c1")]
    core = read_messages(raw, "responses")
    assert core[1] == Message(
        "assistant", "", (ToolCall("c1", "look", 1, '{"rack": "a"}'),), source=1
    )


def test_reasoning_between_parallel_calls_stays_one_run() -> None:
    raw = [
        {"role": "user", "content": "go"},
        reasoning(1),
        call("a"),
        reasoning(2),
        call("b"),
        output("a"),
        output("b"),
        reasoning(3),
        call("c"),
        output("c"),
    ]
    core = read_messages(raw, "responses")
    assert [(m.role, m.source, m.source_end) for m in core] == [
        ("user", 0, None),
        ("assistant", 1, 4),
        ("tool", 5, None),
        ("tool", 6, None),
        ("assistant", 7, 8),
        ("tool", 9, None),
    ]
    assert [c.source for c in core[1].tool_calls] == [2, 4]


def test_a_string_input_is_one_user_message() -> None:
    assert read_messages([{"role": "user", "content": "hello"}], "responses") == [
        Message("user", "hello", source=0)
    ]


def test_paired_items_are_calls_named_by_their_type_and_outputs_without_text() -> None:
    raw = [
        {"role": "user", "content": "go"},
        {
            "type": "computer_call",
            "id": "cu_1",
            "call_id": "cc1",
            "action": {"type": "screenshot"},
            "pending_safety_checks": [],
            "status": "completed",
        },
        {"type": "local_shell_call", "id": "ls_1", "call_id": "ls1", "action": {}},
        {"type": "shell_call", "call_id": "sh1", "action": {"commands": ["ls"]}},
        {"type": "apply_patch_call", "call_id": "ap1", "status": "completed", "operation": {}},
        {
            "type": "mcp_approval_request",
            "id": "mcpr_1",
            "arguments": "{}",
            "name": "deploy",
            "server_label": "ops",
        },
        {
            "type": "computer_call_output",
            "call_id": "cc1",
            "output": {"type": "computer_screenshot", "image_url": "data:x"},
        },
        {"type": "local_shell_call_output", "call_id": "ls1", "output": "{}"},
        {"type": "shell_call_output", "call_id": "sh1", "output": [], "not_dispatched": True},
        {"type": "apply_patch_call_output", "call_id": "ap1", "status": "completed"},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
        # The SDK's type names a local shell call's output by `id`.
        {"type": "local_shell_call_output", "id": "ls1", "output": "{}"},
    ]
    core = read_messages(raw, "responses")
    assert core[1] == Message(
        "assistant",
        "",
        (
            ToolCall("cc1", "computer_call", 1, {"type": "screenshot"}),
            ToolCall("ls1", "local_shell_call", 2, {}),
            ToolCall("sh1", "shell_call", 3, {"commands": ["ls"]}),
            ToolCall("ap1", "apply_patch_call", 4, {}),
            ToolCall("mcpr_1", "mcp_approval_request", 5, "{}"),
        ),
        source=1,
        source_end=5,
    )
    assert core[2:] == [
        # The screenshot: a data URL that is not base64, so of unknown size; the API requires it
        # to stay a screenshot.
        Message("tool", "", tool_call_id="cc1", source=6, images=(Image("openai", required=True),)),
        # A shell's or a patch's output is read by the provider: its text, or the compact JSON
        # of a non-string output, counts tokens, never characters.
        Message("tool", "", tool_call_id="ls1", source=7, extra_texts=("{}",)),
        Message("tool", "", tool_call_id="sh1", not_dispatched=True, source=8, extra_texts=("[]",)),
        Message("tool", "", tool_call_id="ap1", source=9),
        Message("tool", "", tool_call_id="mcpr_1", source=10),
        Message("tool", "", tool_call_id="ls1", source=11, extra_texts=("{}",)),
    ]


def test_server_side_items_add_no_text_and_no_call() -> None:
    """Each one counts its compact JSON without `id`, `status` and `type` as tokens (here `{}`),
    never characters."""
    kinds = (
        "web_search_call",
        "file_search_call",
        "image_generation_call",
        "code_interpreter_call",
        "mcp_call",
        "mcp_list_tools",
    )
    raw = [{"role": "user", "content": "go"}, *({"type": k, "id": k} for k in kinds)]
    assert read_messages(raw, "responses") == [
        Message("user", "go", source=0),
        Message("assistant", "", source=1, source_end=6, extra_texts=("{}",) * len(kinds)),
    ]


def test_compaction_is_a_system_message_that_is_not_empty() -> None:
    raw = [
        {"type": "compaction", "encrypted_content": "gAAA"},
        {"role": "user", "content": ""},
        {"role": "user", "content": [{"type": "input_file", "file_id": "f1"}]},
        {"role": "system", "content": [{"type": "input_text", "text": ""}]},
    ]
    core = read_messages(raw, "responses")
    assert core[0] == Message("system", "", source=0)
    predicate = non_text_part_predicate(raw, "responses")
    assert [predicate(m) for m in core] == [True, False, True, False]
    found = diagnose(core, predicate)
    assert [(d.code, d.message_index) for d in found] == [
        ("empty-message", 1),
        ("empty-message", 3),
    ]


def test_only_media_parts_are_not_an_empty_message() -> None:
    for part in (
        {"type": "input_image", "image_url": "https://x"},
        {"type": "input_file", "file_id": "f"},
        {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}},
    ):
        raw = [{"role": "user", "content": [part]}]
        core = read_messages(raw, "responses")
        assert [message._replace(images=(), extra_tokens=0) for message in core] == [
            Message("user", "", source=0)
        ]
        assert len(core[0].images) == (part["type"] == "input_image")
        assert core[0].extra_tokens == 1_600 * (part["type"] == "input_file")
        assert non_text_part_predicate(raw, "responses")(core[0])
        assert diagnose(core, non_text_part_predicate(raw, "responses")) == ()


def test_an_unanswered_call_names_its_function_call_item() -> None:
    raw = [
        {"role": "user", "content": "go"},
        reasoning(1),
        call("a"),
        call("b"),
        output("a"),
        {"role": "user", "content": "and?"},
    ]
    core = read_messages(raw, "responses")
    found = diagnose(core, non_text_part_predicate(raw, "responses"))
    assert [(d.code, d.message_index) for d in found] == [("unanswered-call", 3)]


# ---- refusals, with exact locations ----------------------------------------------------------


def test_item_reference_is_refused_naming_it() -> None:
    raw = [{"role": "user", "content": "go"}, {"type": "item_reference", "id": "msg_1"}]
    [error] = errors_of(raw, "responses")
    assert error.loc == (1, "type")
    assert "stored item cannot be planned" in error.msg
    assert "send the item itself" in error.msg


def test_an_unknown_item_type_is_refused_naming_it() -> None:
    [error] = errors_of([{"type": "tool_search_call", "id": "t"}], "responses")
    assert error.loc == (0, "type")
    assert "'tool_search_call'" in error.msg


@pytest.mark.parametrize(
    ("item", "locs"),
    [
        pytest.param({"type": "function_call", "name": "look"}, [(0, "call_id")], id="no-call-id"),
        pytest.param(
            {"type": "function_call", "call_id": "", "name": "look"},
            [(0, "call_id")],
            id="empty-call-id",
        ),
        pytest.param(
            {"type": "custom_tool_call", "call_id": 7, "name": None},
            [(0, "call_id"), (0, "name")],
            id="bad-custom-call",
        ),
        pytest.param({"type": "function_call", "call_id": "c"}, [(0, "name")], id="no-name"),
        pytest.param({"type": "function_call_output", "output": "x"}, [(0, "call_id")], id="out"),
        pytest.param(
            {"type": "function_call_output", "call_id": "c"}, [(0, "output")], id="no-output"
        ),
        pytest.param(
            {"type": "function_call_output", "call_id": "c", "output": 3},
            [(0, "output")],
            id="output-type",
        ),
        pytest.param(
            {"type": "function_call_output", "call_id": "c", "output": [{"text": "x"}]},
            [(0, "output", 0, "type")],
            id="output-part-no-type",
        ),
        pytest.param(
            {"type": "function_call_output", "call_id": "c", "output": [{"type": "input_text"}]},
            [(0, "output", 0, "text")],
            id="output-part-no-text",
        ),
        pytest.param(
            {"type": "function_call_output", "call_id": "c", "output": "x", "not_dispatched": 1},
            [(0, "not_dispatched")],
            id="not-dispatched",
        ),
        pytest.param({"type": "computer_call", "id": "x"}, [(0, "call_id")], id="computer-call"),
        pytest.param({"type": "mcp_approval_request"}, [(0, "id")], id="approval-request"),
        pytest.param(
            {"type": "mcp_approval_response", "approve": True},
            [(0, "approval_request_id")],
            id="approval-response",
        ),
        pytest.param({"type": "shell_call_output", "output": []}, [(0, "call_id")], id="shell"),
        pytest.param({"type": "local_shell_call_output"}, [(0, "call_id")], id="local-shell"),
        pytest.param({"type": 3}, [(0, "type")], id="type-not-string"),
        pytest.param({"type": None, "role": "user", "content": "x"}, [(0, "type")], id="null"),
        pytest.param({"content": "x"}, [(0, "type")], id="no-type-no-role"),
        pytest.param({"type": "message", "content": "x"}, [(0, "role")], id="no-role"),
        pytest.param({"role": "tool", "content": "x"}, [(0, "role")], id="unknown-role"),
        pytest.param({"role": 5, "content": "x"}, [(0, "role")], id="role-type"),
        pytest.param({"role": "user"}, [(0, "content")], id="no-content"),
        pytest.param({"role": "assistant", "content": None}, [(0, "content")], id="null-content"),
        pytest.param(
            {"role": "user", "content": [{"type": "input_text"}, "x", {"type": 1}]},
            [(0, "content", 0, "text"), (0, "content", 1), (0, "content", 2, "type")],
            id="bad-parts",
        ),
        pytest.param(
            {"role": "assistant", "content": [{"type": "refusal", "refusal": 2}]},
            [(0, "content", 0, "refusal")],
            id="bad-refusal",
        ),
        pytest.param(
            {"role": "user", "content": "x", "injected": "yes"}, [(0, "injected")], id="injected"
        ),
        pytest.param(["not", "an", "item"], [(0,)], id="not-an-object"),
        pytest.param({"type": ["message"]}, [(0, "type")], id="unhashable-type"),
    ],
)
def test_malformed_items_are_refused_naming_the_field(
    item: Any, locs: list[tuple[str | int, ...]]
) -> None:
    assert error_locs([item], "responses") == locs


def test_every_violation_is_named_in_one_refusal() -> None:
    raw = [
        {"role": "user", "content": "go"},
        reasoning(1),
        {"type": "function_call", "name": "look"},
        {"type": "item_reference", "id": "x"},
        output(""),
        {"type": "nope"},
    ]
    assert error_locs(raw, "responses") == [
        (2, "call_id"),
        (3, "type"),
        (4, "call_id"),
        (5, "type"),
    ]


# ---- writing back ------------------------------------------------------------------------------


def window_of(raw: list[Any], removed: tuple[int, int] | None, notice: str | None) -> list[Any]:
    core = read_messages(raw, "responses")
    return write_window(raw, core, () if removed is None else (removed,), notice, "responses")


def test_nothing_removed_gives_back_the_items() -> None:
    raw = transcript()
    window = window_of(raw, None, None)
    assert window == raw
    assert all(a is b for a, b in zip(window, raw, strict=True))


def test_a_removed_range_leaves_whole_runs_and_the_notice_takes_its_place() -> None:
    raw = transcript()
    # Core 2..5 are the run (items 2-5), both outputs (6, 7) and the injected reminder (8).
    window = window_of(raw, (2, 6), NOTICE)
    assert window == [raw[0], raw[1], {"role": "user", "content": NOTICE}, *raw[9:]]
    assert window[3] is raw[9]


def test_a_range_up_to_the_end_and_without_a_notice() -> None:
    raw = transcript()
    assert window_of(raw, (6, 9), None) == raw[:9]
    assert window_of(raw, (0, 3), None) == raw[6:]


def test_shaped_results_replace_output() -> None:
    raw = transcript()
    core = read_messages(raw, "responses")
    window = write_window(raw, core, ((5, 6),), None, "responses", {3: "capped", 4: "ticket"})
    assert window[6] == {**raw[6], "output": "capped"}
    assert window[7] == {**raw[7], "output": "ticket"}
    assert list(window[7]) == list(raw[7])  # the keys in their order
    assert raw[7]["output"] != "ticket"  # the caller's item is not changed
    assert window[8:] == raw[9:]


# ---- the system prompt (`instructions`) --------------------------------------------------------


def test_instructions_are_the_top_level_system_prompt() -> None:
    assert "responses" in FORMATS and "responses" in SYSTEM_FORMATS
    assert system_prompt_text(None, "responses") is None
    assert system_prompt_text("Be terse.", "responses") == "Be terse."
    assert system_problem("Be terse.", "responses") is None
    for bad in ([{"type": "text", "text": "x"}], {"parts": []}, 3):
        assert system_problem(bad, "responses")
