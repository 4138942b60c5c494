"""Amazon Bedrock Converse: per-text-block reading, validation, the window laid out with
alternating roles, and the figures `place` reports for it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.audit.validity.bedrock import bedrock_violations
from app.core.images import Image
from app.core.messages import Message, ToolCall
from app.core.plan_types import CapOption, PlanOptions, SlidingWindow, WindowPlan
from app.core.window import plan_window
from app.formats import (
    bedrock,
    non_text_part_predicate,
    place_window,
    read_messages,
    system_problem,
    system_prompt_text,
    write_window,
)
from app.formats.fields import Problems
from tests.formats.support import error_locs, turn_bounds

NOTICE = "[dropped history — 2 earlier message(s) were removed]"
IMAGE = {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}}
# What the core message holding IMAGE carries to count it (docs/rules.md#images).
PICTURE = Image("anthropic", None, "iVBORw0KGgo=")
CACHE = {"cachePoint": {"type": "default"}}
DOCUMENT = {"document": {"format": "txt", "name": "notes", "source": {"bytes": "aGk="}}}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"text": value, **extra}


def use(call_id: str, name: str = "look", **arguments: Any) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": call_id, "name": name, "input": arguments}}


def result(call_id: str, *content: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"toolResult": {"toolUseId": call_id, "content": list(content), **extra}}


def user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def answered_question() -> list[dict[str, Any]]:
    """A request, two parallel calls with reasoning, and a user message that answers both (text
    and json), attaches an image and a cache point, asks again and carries a reminder."""
    return [
        user(text("Find the hottest rack.")),
        assistant(
            {"reasoningContent": {"reasoningText": {"text": "two racks", "signature": "sig"}}},
            text("Looking."),
            use("tu_a", rack="a"),
            use("tu_b", rack="b"),
        ),
        user(
            result("tu_a", text("39"), {"json": {"unit": "C", "ok": True}}, status="success"),
            result("tu_b", text("41C"), IMAGE, not_dispatched=True),
            IMAGE,
            text("And the coolest?"),
            CACHE,
            text("Reminder: be brief.", injected=True),
            DOCUMENT,
        ),
        assistant(text("Rack b is hottest; checking the coolest.")),
    ]


# ---- reading ------------------------------------------------------------------------------------


def test_a_user_message_is_its_results_then_one_core_message_per_text_block() -> None:
    assert read_messages(answered_question(), "bedrock") == [
        Message("user", "Find the hottest rack.", source=0, blocks=(0,)),
        Message(
            "assistant",
            "Looking.",
            (
                ToolCall("tu_a", "look", None, {"rack": "a"}),
                ToolCall("tu_b", "look", None, {"rack": "b"}),
            ),
            source=1,
            blocks=(0, 1, 2, 3),
        ),
        Message("tool", '39{"unit":"C","ok":true}', tool_call_id="tu_a", source=2, blocks=(0,)),
        Message(
            "tool",
            "41C",
            tool_call_id="tu_b",
            not_dispatched=True,
            source=2,
            blocks=(1,),
            images=(PICTURE,),
        ),
        # The image before the first text block belongs to it; the cache point to the text
        # before it, the document (bytes: a fixed count) to the reminder.
        Message("user", "And the coolest?", source=2, blocks=(2, 3, 4), images=(PICTURE,)),
        Message(
            "user",
            "Reminder: be brief.",
            injected=True,
            source=2,
            blocks=(5, 6),
            extra_tokens=1_600,
        ),
        Message("assistant", "Rack b is hottest; checking the coolest.", source=3, blocks=(0,)),
    ]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param([], [Message("user", "", source=0)], id="no-block"),
        pytest.param(
            [IMAGE, CACHE],
            [Message("user", "", source=0, blocks=(0, 1), images=(PICTURE,))],
            id="no-text",
        ),
        pytest.param(
            [result("t", text("r")), IMAGE],
            # Beside the `toolResult`: it stays when the result is written as a placeholder.
            [
                Message(
                    "tool",
                    "r",
                    tool_call_id="t",
                    source=0,
                    blocks=(0, 1),
                    images=(PICTURE._replace(beside=True),),
                )
            ],
            id="result-and-image",
        ),
        pytest.param(
            [result("t")], [Message("tool", "", tool_call_id="t", source=0, blocks=(0,))], id="only"
        ),
        pytest.param(
            [text("a"), result("t", {"json": [1, "é"]}), IMAGE, text("b", injected=False)],
            [
                Message("tool", '[1,"é"]', tool_call_id="t", source=0, blocks=(1,)),
                Message("user", "a", source=0, blocks=(0, 2), images=(PICTURE,)),
                Message("user", "b", source=0, blocks=(3,)),
            ],
            id="result-between-texts",
        ),
        pytest.param(
            [{"toolResult": {"toolUseId": "t"}}],
            [Message("tool", "", tool_call_id="t", source=0, blocks=(0,))],
            id="result-without-content",
        ),
        pytest.param(
            [{"video": {"format": "mp4"}}, {"unknownKind": {}}],
            [Message("user", "", source=0, blocks=(0, 1))],
            id="kinds-this-version-does-not-know",
        ),
    ],
)
def test_user_message_shapes(content: list[Any], expected: list[Message]) -> None:
    assert read_messages([{"role": "user", "content": content}], "bedrock") == expected


GUARD = {"guardContent": {"text": {"text": "guarded"}}}
REMINDER = text("<reminder>stay on task</reminder>", injected=True)


def held(*pairs: tuple[str, tuple[int, ...]]) -> list[Message]:
    """Core messages of caller message 0 by (role or text, blocks): "tool:<id>" a result."""
    out = []
    for what, blocks in pairs:
        if what.startswith("tool:"):
            call_id = what[len("tool:") :]
            out.append(Message("tool", "r", tool_call_id=call_id, source=0, blocks=blocks))
        else:
            out.append(Message("user", what, source=0, blocks=blocks))
    return out


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param(
            [result("t", text("r")), CACHE], held(("tool:t", (0, 1))), id="result-cache-point"
        ),
        pytest.param([CACHE, text("q")], held(("q", (0, 1))), id="cache-point-first"),
        pytest.param(
            [CACHE, result("t", text("r")), text("q")],
            held(("tool:t", (0, 1)), ("q", (2,))),
            id="cache-point-before-a-result",
        ),
        pytest.param(
            [result("t", text("r")), IMAGE, text("q")],
            held(("tool:t", (0,)), ("q", (1, 2))),
            id="screenshot-with-the-words-after-it",
        ),
        pytest.param(
            [text("q"), result("t", text("r")), CACHE, IMAGE],
            held(("tool:t", (1, 2)), ("q", (0, 3))),
            id="image-with-the-words-before-it",
        ),
        pytest.param(
            [IMAGE, result("t", text("r"))],
            held(("tool:t", (0, 1))),
            id="image-before-a-lone-result",
        ),
        pytest.param(
            [result("t", text("r")), DOCUMENT, GUARD],
            held(("tool:t", (0, 1, 2))),
            id="document-and-guard-after-a-lone-result",
        ),
        pytest.param(
            [text("a"), CACHE, text("b"), CACHE],
            held(("a", (0, 1)), ("b", (2, 3))),
            id="each-cache-point-with-its-text",
        ),
        pytest.param(
            [GUARD, text("a"), text("b")], held(("a", (0, 1)), ("b", (2,))), id="guard-first"
        ),
        pytest.param([CACHE], held(("", (0,))), id="only-a-cache-point"),
    ],
)
def test_other_blocks_belong_to_a_result_or_a_text(
    content: list[Any], expected: list[Message]
) -> None:
    raw = [{"role": "user", "content": content}]
    read = read_messages(raw, "bedrock")
    # Each image and each document is counted by the core message that holds its block.
    for message in read:
        assert len(message.images) == sum(content[block] is IMAGE for block in message.blocks)
        documents = sum(content[block] is DOCUMENT for block in message.blocks)
        assert message.extra_tokens == 1_600 * documents
    assert [message._replace(images=(), extra_tokens=0) for message in read] == expected
    slow: list[Message] = []
    problems = Problems()
    bedrock.read_message(raw[0], 0, problems, slow)
    assert not problems.errors
    assert slow == read


def test_a_reminder_and_the_persons_words_are_two_core_messages() -> None:
    raw = [{"role": "user", "content": [REMINDER, text("What is rack b at?")]}]
    assert read_messages(raw, "bedrock") == [
        Message("user", REMINDER["text"], injected=True, source=0, blocks=(0,)),
        Message("user", "What is rack b at?", source=0, blocks=(1,)),
    ]


def nova_run() -> list[dict[str, Any]]:
    """Nova's code interpreter: the provider runs the tool and puts its result in the assistant
    message, then the model calls a client tool."""
    return [
        user(text("Plot the temperatures.")),
        assistant(
            text("Running it."),
            {
                "toolUse": {
                    "toolUseId": "srv_1",
                    "name": "nova_code_interpreter",
                    "input": {"code": "print(41)"},
                    "type": "server_tool_use",
                }
            },
            {
                "toolResult": {
                    "toolUseId": "srv_1",
                    "content": [{"json": {"stdout": "41"}}],
                    "type": "nova_code_interpreter_result",
                }
            },
            text("It prints 41."),
            use("c1", "save"),
        ),
        user(result("c1", text("saved")), CACHE, IMAGE, text("Here is my screenshot.")),
    ]


def test_a_server_side_tool_run_adds_no_call_and_no_result() -> None:
    raw = nova_run()
    core = read_messages(raw, "bedrock")
    assert core == [
        Message("user", "Plot the temperatures.", source=0, blocks=(0,)),
        # The provider reads the result it put in the message: its compact JSON without `type`
        # counts tokens (docs/rules.md#the-tokens-of-a-message), never characters.
        Message(
            "assistant",
            "Running it.It prints 41.",
            (ToolCall("c1", "save", None, {}),),
            source=1,
            blocks=(0, 1, 2, 3, 4),
            extra_texts=('{"toolUseId":"srv_1","content":[{"json":{"stdout":"41"}}]}',),
        ),
        Message("tool", "saved", tool_call_id="c1", source=2, blocks=(0, 1)),
        Message("user", "Here is my screenshot.", source=2, blocks=(2, 3), images=(PICTURE,)),
    ]
    slow: list[Message] = []
    problems = Problems()
    for index, message in enumerate(raw):
        bedrock.read_message(message, index, problems, slow)
    assert not problems.errors and slow == core
    assert write_window(raw, core, (), None, "bedrock") == raw
    assert bedrock_violations(raw) == []


def test_blocks_leave_and_stay_with_their_core_message() -> None:
    raw = [
        *nova_run(),
        assistant(text("Saved and shown.")),
        user(text("Thanks.")),
    ]
    core = read_messages(raw, "bedrock")
    turns = turn_bounds(core)
    # The call's turn leaves (its result and cache point with it); the screenshot stays with the
    # person's words, which the notice and the request before it join (the roles alternate).
    window = write_window(raw, core, (turns[1],), NOTICE, "bedrock")
    assert window == [
        user(text("Plot the temperatures."), text(NOTICE), IMAGE, text("Here is my screenshot.")),
        raw[3],
        raw[4],
    ]
    assert window[0]["content"][2] is raw[2]["content"][2]
    assert bedrock_violations(window) == []


def test_assistant_blocks_other_than_text_and_calls_add_nothing() -> None:
    """An image in the model's own message counts no token either: only user content and results
    carry images a provider counts (docs/rules.md#images)."""
    raw = [
        assistant(
            {"reasoningContent": {"redactedContent": "cmVk"}},
            IMAGE,
            CACHE,
            {"guardContent": {"text": {"text": "guarded"}}},
            text("a"),
            text("b"),
        )
    ]
    assert read_messages(raw, "bedrock") == [
        Message("assistant", "ab", source=0, blocks=(0, 1, 2, 3, 4, 5))
    ]


def test_the_checking_path_reads_every_valid_message_as_the_fast_path() -> None:
    for index, message in enumerate(answered_question()):
        fast: list[Message] = []
        assert bedrock.read_plain(message, index, fast)
        slow: list[Message] = []
        problems = Problems()
        bedrock.read_message(message, index, problems, slow)
        assert not problems.errors
        assert slow == fast


BAD = [
    pytest.param("not an object", [(0,)], id="not-object"),
    pytest.param({"content": []}, [(0, "role")], id="no-role"),
    pytest.param({"role": "system", "content": [text("s")]}, [(0, "role")], id="system-role"),
    pytest.param({"role": "user"}, [(0, "content")], id="no-content"),
    pytest.param({"role": "user", "content": 5}, [(0, "content")], id="number-content"),
    pytest.param({"role": "user", "content": None}, [(0, "content")], id="null-content"),
    pytest.param(
        {"role": "user", "content": [text("x")], "injected": True},
        [(0, "injected")],
        id="message-level-injected",
    ),
    pytest.param(user("block"), [(0, "content", 0)], id="block-not-object"),  # type: ignore[arg-type]
    pytest.param(user({}), [(0, "content", 0)], id="empty-block"),
    pytest.param(user({"injected": True}), [(0, "content", 0)], id="only-an-extension"),
    pytest.param(user({"text": None}), [(0, "content", 0, "text")], id="text-null"),
    pytest.param(
        user(text("x", injected="yes")), [(0, "content", 0, "injected")], id="injected-string"
    ),
    pytest.param(
        user({"text": "x", "toolResult": {"toolUseId": "t"}}),
        [(0, "content", 0)],
        id="two-kinds",
    ),
    pytest.param(user(use("t")), [(0, "content", 0)], id="call-in-user"),
    pytest.param(user({"toolResult": "t"}), [(0, "content", 0, "toolResult")], id="result-str"),
    pytest.param(
        user({"toolResult": {"content": []}}),
        [(0, "content", 0, "toolResult", "toolUseId")],
        id="result-without-id",
    ),
    pytest.param(
        user(result("")), [(0, "content", 0, "toolResult", "toolUseId")], id="result-empty-id"
    ),
    pytest.param(
        user({"toolResult": {"toolUseId": 7, "content": []}}),
        [(0, "content", 0, "toolResult", "toolUseId")],
        id="result-id-not-string",
    ),
    pytest.param(
        user(result("t", not_dispatched="no")),
        [(0, "content", 0, "toolResult", "not_dispatched")],
        id="not-dispatched-string",
    ),
    pytest.param(
        user({"toolResult": {"toolUseId": "t", "content": "ok"}}),
        [(0, "content", 0, "toolResult", "content")],
        id="result-content-string",
    ),
    pytest.param(
        user(result("t", text("a"), "b", {"text": 3}, {"text": "x", "json": {}})),  # type: ignore[arg-type]
        [
            (0, "content", 0, "toolResult", "content", 1),
            (0, "content", 0, "toolResult", "content", 2, "text"),
            (0, "content", 0, "toolResult", "content", 3),
        ],
        id="result-content-blocks",
    ),
    pytest.param(assistant({"toolUse": []}), [(0, "content", 0, "toolUse")], id="use-not-object"),
    pytest.param(
        assistant({"toolUse": {"name": "look", "input": {}}}),
        [(0, "content", 0, "toolUse", "toolUseId")],
        id="use-without-id",
    ),
    pytest.param(
        assistant({"toolUse": {"toolUseId": "t", "input": {}}}),
        [(0, "content", 0, "toolUse", "name")],
        id="use-without-name",
    ),
    pytest.param(
        assistant({"toolUse": {"toolUseId": "t", "name": 3}}),
        [(0, "content", 0, "toolUse", "name")],
        id="use-name-not-string",
    ),
    pytest.param(assistant({"text": ["a"]}), [(0, "content", 0, "text")], id="assistant-text"),
    pytest.param(
        assistant(text("a", injected=1)), [(0, "content", 0, "injected")], id="assistant-injected"
    ),
]


@pytest.mark.parametrize(("message", "locs"), BAD)
def test_malformed_messages_are_refused_naming_the_field(
    message: Any, locs: list[tuple[Any, ...]]
) -> None:
    assert error_locs([message], "bedrock") == locs


def test_every_violation_is_named_in_one_error() -> None:
    raw = [
        user(text("fine")),
        assistant(use(""), {"toolUse": {"toolUseId": "t"}}),
        user(result("t", not_dispatched=1), {"text": 2}, {}),
    ]
    assert error_locs(raw, "bedrock") == [
        (1, "content", 0, "toolUse", "toolUseId"),
        (1, "content", 1, "toolUse", "name"),
        (2, "content", 0, "toolResult", "not_dispatched"),
        (2, "content", 1, "text"),
        (2, "content", 2),
    ]


def test_a_plain_string_transcript_reads_as_in_every_format() -> None:
    raw = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert read_messages(raw, "bedrock") == [
        Message("user", "hi", source=0),
        Message("assistant", "hello", source=1),
    ]


def test_a_plain_string_message_becomes_a_text_block_when_it_has_company() -> None:
    raw = [
        {"role": "user", "content": "task"},
        assistant(text("thinking " * 40)),
        {"role": "user", "content": "q2", "meta": 1},
    ]
    options = PlanOptions(strategy=SlidingWindow(keep_recent_turns=1), request_text="task")
    _, plan, window = placed(raw, options)
    assert plan.notice is not None
    assert window == [
        {"role": "user", "content": [text("task"), text(plan.notice.content), text("q2")]}
    ]
    assert_figures_hold(plan, window)


# ---- writing ------------------------------------------------------------------------------------


def placed(raw: list[Any], options: PlanOptions) -> tuple[list[Message], WindowPlan, list[Any]]:
    """The core messages, the plan as Bedrock places it, and the window written."""
    core = read_messages(raw, "bedrock")
    plan = place_window(raw, core, plan_window(core, options), "bedrock")
    texts = {shaped.index: shaped.content for shaped in plan.shaped_results}
    notice = None if plan.notice is None else plan.notice.content
    return core, plan, write_window(raw, core, plan.removed, notice, "bedrock", texts)


def assert_figures_hold(plan: WindowPlan, window: list[Any]) -> None:
    """`messages_after`, the notice's and every shaped result's `window_index` describe the
    window as written."""
    assert plan.stats.messages_after == len(window)
    if plan.notice is not None:
        assert {"text": plan.notice.content} in window[plan.notice.window_index]["content"]
    for entry in plan.shaped or ():
        if entry.window_index is not None:
            ids = [
                block["toolResult"]["toolUseId"]
                for block in window[entry.window_index]["content"]
                if "toolResult" in block
            ]
            assert entry.tool_call_id in ids


def test_nothing_removed_gives_back_the_callers_objects() -> None:
    raw = answered_question()
    core = read_messages(raw, "bedrock")
    window = write_window(raw, core, (), None, "bedrock")
    assert all(a is b for a, b in zip(window, raw, strict=True))
    plan = plan_window(core, PlanOptions())
    assert place_window(raw, core, plan, "bedrock") is plan


def test_removing_one_text_block_keeps_the_rest_of_its_message_verbatim() -> None:
    raw = answered_question()
    core = read_messages(raw, "bedrock")
    assert turn_bounds(core)[2] == (4, 5)  # "And the coolest?" with its image and cache point
    window = write_window(raw, core, ((4, 5),), None, "bedrock")
    assert window == [
        raw[0],
        raw[1],
        {"role": "user", "content": [*raw[2]["content"][:2], *raw[2]["content"][5:]]},
        raw[3],
    ]
    assert window[2]["content"][0] is raw[2]["content"][0]


def kept_request_transcript() -> list[dict[str, Any]]:
    return [
        user(text("task")),
        assistant(use("c1")),
        user(result("c1", text("x" * 600)), text("q2")),
        assistant(use("c2", "probe")),
        user(result("c2", text("y" * 600)), text("q3")),
        assistant(text("fine")),
    ]


def test_the_kept_request_path_puts_the_notice_at_the_end_of_the_request() -> None:
    raw = kept_request_transcript()
    options = PlanOptions(
        strategy=SlidingWindow(keep_recent_turns=3),
        keep_last_tool_results=0,
        request_text="task",
        cap=CapOption(max_chars=10_000, max_chars_by_tool={"probe": 100}),
    )
    core, plan, window = placed(raw, options)
    assert plan.removed == ((1, 4),)  # the calls of c1 and "q2"
    assert plan.notice is not None and "Your current request is kept" in plan.notice.content
    assert window[0] == {"role": "user", "content": [text("task"), text(plan.notice.content)]}
    assert window[1:] == [raw[3], window[2], raw[5]]
    assert window[2]["content"][1] == raw[4]["content"][1]
    assert window[2]["content"][0]["toolResult"]["content"] != raw[4]["content"][0]["toolResult"]
    # The core counted the notice as a message of its own: 5 messages, the notice at 1, c2 at 3.
    unplaced = plan_window(core, options)
    assert (unplaced.stats.messages_after, unplaced.notice.window_index) == (5, 1)  # type: ignore[union-attr]
    assert plan.stats.messages_after == 4
    assert plan.notice.window_index == 0
    assert unplaced.shaped is not None and [e.window_index for e in unplaced.shaped] == [3]
    assert plan.shaped is not None and [e.window_index for e in plan.shaped] == [2]
    assert plan.stats.turns_after == unplaced.stats.turns_after
    assert plan.evicted_messages == (1, 2)
    assert_figures_hold(plan, window)
    assert bedrock_violations(window) == []


def test_the_kept_request_notice_and_the_next_user_message_are_one_message() -> None:
    raw = [
        user(text("task"), text("more of the task")),
        assistant(text("thinking " * 40)),
        user(text("q2")),
    ]
    options = PlanOptions(strategy=SlidingWindow(keep_recent_turns=1), request_text="task")
    _, plan, window = placed(raw, options)
    assert plan.removed == ((1, 3),)  # the second text block and the assistant's answer
    assert plan.notice is not None
    assert window == [
        user(text("task"), text(plan.notice.content), text("q2")),
    ]
    assert (plan.stats.messages_after, plan.notice.window_index) == (1, 0)
    assert plan.evicted_messages == (0, 1)
    assert_figures_hold(plan, window)


def test_the_ordinary_path_puts_the_notice_first_in_the_next_user_message() -> None:
    raw = [
        user(text("task")),
        assistant(use("c1")),
        user(result("c1", text("x" * 600)), IMAGE, text("q2")),
        assistant(text("answer")),
    ]
    options = PlanOptions(strategy=SlidingWindow(keep_recent_turns=2), keep_last_tool_results=0)
    _, plan, window = placed(raw, options)
    assert plan.removed == ((0, 3),)
    assert plan.notice is not None and "current request" not in plan.notice.content
    assert window == [
        user(text(plan.notice.content), IMAGE, raw[2]["content"][2]),
        raw[3],
    ]
    assert (plan.stats.messages_after, plan.notice.window_index) == (2, 0)
    assert_figures_hold(plan, window)
    assert bedrock_violations(window) == []


def test_the_notice_stands_alone_between_assistant_messages_or_at_the_front() -> None:
    raw = [
        user(text("task")),
        assistant(use("c1")),
        user(result("c1", text("x" * 600))),
        assistant(use("c2")),
        user(result("c2", text("ok")), text("q")),
    ]
    options = PlanOptions(strategy=SlidingWindow(keep_recent_turns=2), keep_last_tool_results=0)
    _, plan, window = placed(raw, options)
    assert plan.removed == ((0, 3),)
    assert plan.notice is not None
    assert window == [user(text(plan.notice.content)), raw[3], raw[4]]
    assert (plan.stats.messages_after, plan.notice.window_index) == (3, 0)
    assert_figures_hold(plan, window)
    assert bedrock_violations(window) == []


def test_two_user_messages_left_side_by_side_are_one() -> None:
    raw = [
        user(text("task")),
        assistant(use("c1"), use("c9")),  # c9 is never answered: the turn refuses to leave
        user(result("c1", text("a")), text("q2")),
        assistant(use("c2", "probe")),
        user(result("c2", text("b")), text("q3")),
        assistant(text("fine")),
        user(text("q4")),
    ]
    options = PlanOptions(
        strategy=SlidingWindow(keep_recent_turns=3),
        keep_last_tool_results=0,
        request_text="task",
    )
    _, plan, window = placed(raw, options)
    assert plan.removed == ((3, 6),)  # "q2", the call of c2 and its result
    assert plan.notice is None
    merged = {**raw[2], "content": [raw[2]["content"][0], raw[4]["content"][1]]}
    assert window == [raw[0], raw[1], merged, raw[5], raw[6]]
    assert plan.stats.messages_after == 5
    assert plan.evicted_messages == (2, 3, 4)
    assert_figures_hold(plan, window)


def test_two_assistant_messages_left_side_by_side_are_one_keeping_the_first_ones_fields() -> None:
    raw = [
        user(text("task")),
        {**assistant(use("c9")), "meta": 1},
        user(text("q2")),
        {**assistant(use("c8")), "meta": 2},
        user(text("q3")),
        assistant(text("fine")),
        user(text("q4")),
    ]
    options = PlanOptions(strategy=SlidingWindow(keep_recent_turns=2), request_text="task")
    _, plan, window = placed(raw, options)
    assert plan.removed == ((2, 3),)
    assert window == [
        raw[0],
        {"role": "assistant", "content": [use("c9"), use("c8")], "meta": 1},
        *raw[4:],
    ]
    assert plan.stats.messages_after == 5
    assert_figures_hold(plan, window)


def test_the_seam_rule_in_full() -> None:
    P, N, X = bedrock.PREV, bedrock.NOTICE, bedrock.NEXT
    seam = bedrock.seam_groups
    assert seam(None, True, "user") == [[N, X]]
    assert seam(None, True, "assistant") == [[N], [X]]
    assert seam(None, True, None) == [[N]]
    assert seam("user", True, "assistant") == [[P, N], [X]]
    assert seam("user", True, "user") == [[P, N, X]]
    assert seam("assistant", True, "user") == [[P], [N, X]]
    assert seam("assistant", True, "assistant") == [[P], [N], [X]]
    assert seam("assistant", False, "assistant") == [[P, X]]
    assert seam("user", False, "assistant") == [[P], [X]]
    assert seam("user", False, None) == [[P]]


# ---- shaping, parts and the system prompt -------------------------------------------------------


def test_a_shaped_result_becomes_one_text_block_keeping_its_other_keys() -> None:
    raw = answered_question()
    core = read_messages(raw, "bedrock")
    before = copy.deepcopy(raw)
    shaped = bedrock.with_result_texts(raw, core, {2: "capped", 3: "ticket"})
    assert raw == before  # the caller's objects are not touched
    assert shaped[2]["content"][0] == {
        "toolResult": {"toolUseId": "tu_a", "content": [text("capped")], "status": "success"}
    }
    assert shaped[2]["content"][1] == {
        "toolResult": {"toolUseId": "tu_b", "content": [text("ticket")], "not_dispatched": True}
    }
    assert shaped[2]["content"][2:] == raw[2]["content"][2:]
    assert shaped[0] is raw[0] and shaped[3] is raw[3]


def test_images_and_documents_are_parts_cache_points_are_not() -> None:
    raw = [
        user(IMAGE),
        user(DOCUMENT, text("")),
        user(CACHE),
        user(text(""), {"guardContent": {"text": {"text": "g"}}}),
        user({"video": {"format": "mp4"}}),
    ]
    core = read_messages(raw, "bedrock")
    has_part = non_text_part_predicate(raw, "bedrock")
    assert [has_part(message) for message in core] == [True, True, False, False, True]


@pytest.mark.parametrize(
    ("system", "joined"),
    [
        ([], ""),
        ([text("You are terse.")], "You are terse."),
        ([text("ab"), CACHE, {"guardContent": {"text": {"text": "zzz"}}}, text("c")], "abc"),
        (None, None),
    ],
)
def test_system_blocks_count_their_text(system: Any, joined: str | None) -> None:
    if system is not None:
        assert system_problem(system, "bedrock") is None
    assert system_prompt_text(system, "bedrock") == joined


@pytest.mark.parametrize(
    "system",
    [
        "a string",
        {"text": "x"},
        [{"type": "text", "text": "x"}],
        [{"text": 3}],
        [{}],
        ["x"],
        [{"text": "x", "cachePoint": {"type": "default"}}],
    ],
)
def test_other_system_shapes_are_refused(system: Any) -> None:
    assert system_problem(system, "bedrock")
