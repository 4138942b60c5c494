"""Framework frames in every wire format (docs/rules.md#framework-frames), through the core and over
HTTP.

Each case is a transcript in one format whose person's task comes first and whose later user
messages carry what an agent framework writes (reminders beside tool results, a command echo, hook
feedback, an interruption line), planned so that old turns leave. The task must be the current
request, in both the core's plan and the answer, and stay in the window; the window must keep the
format's pairing rules. Cases that are NOT frames (a Cline-style `<task>` message, a `[WIP] …`
line) are the request themselves. The options: `detect_frames: false` makes the last frame the
request again, `request_text` equal to a frame's text makes that frame the request, and
`frame_tags` adds element names. A realistic Claude-Code-like Anthropic transcript keeps its task
under every strategy. The options' refusals are at the end.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.audit.validity.bedrock import bedrock_violations
from app.audit.validity.chat import anthropic_violations, chat_violations, opening_violations
from app.audit.validity.gemini import gemini_violations
from app.audit.validity.responses import opening_violations as responses_opening_violations
from app.audit.validity.responses import responses_violations
from app.core.frames import FrameDetection
from app.core.plan_types import PlanOptions, SlidingWindow
from app.core.window import plan_window
from app.formats import dialect_of
from tests.api.test_formats_equivalence import post_ok

PLAN = "/v1/window/plan"
TASK = "Rename the billing module to invoicing and update every import."
REMINDER = (
    "<system-reminder>\nThe todo list is empty. Do not mention this to the user explicitly.\n"
    "</system-reminder>"
)
COMMAND_ECHO = (
    "<command-name>/x</command-name><command-message>x</command-message>"
    "<command-args></command-args>"
)
STOP_HOOK = "Stop hook feedback: the linter failed on billing/__init__.py"
INTERRUPTION = "[Request interrupted by user for tool use]"
MY_NOTE = "<my-note>checked the import graph</my-note>"
CLINE_TASK = (
    "<task>\nFix the login form's validation.\n</task>\n"
    "<environment_details>\n# Current Working Directory\n/srv/app\n</environment_details>"
)
WIP = "[WIP] split the parser"
FRAMES = [
    pytest.param(REMINDER, id="reminder"),
    pytest.param(COMMAND_ECHO, id="command-echo"),
    pytest.param(STOP_HOOK, id="stop-hook"),
    pytest.param(INTERRUPTION, id="interruption"),
]
FORMATS = ["native", "openai", "anthropic", "responses", "gemini", "bedrock"]
# Formats where a frame beside tool results shares their user message (else it is its own).
BLOCK_FORMATS = ("anthropic", "gemini", "bedrock")


# ---- transcripts in each format ----------------------------------------------------------------


def user(fmt: str, texts: Sequence[str]) -> dict[str, Any]:
    """A user message of `texts` (one text block each where the format has blocks)."""
    if fmt == "bedrock":
        return {"role": "user", "content": [{"text": text} for text in texts]}
    if fmt == "gemini":
        return {"role": "user", "parts": [{"text": text} for text in texts]}
    if fmt == "anthropic" and len(texts) > 1:
        return {"role": "user", "content": [{"type": "text", "text": text} for text in texts]}
    (text,) = texts
    return {"role": "user", "content": text}


def call(fmt: str, call_id: str) -> dict[str, Any]:
    name, arguments = f"tool_{call_id}", {"path": call_id}
    if fmt == "native":
        calls = [{"id": call_id, "name": name, "arguments": arguments}]
        return {"role": "assistant", "content": "", "tool_calls": calls}
    if fmt == "openai":
        function = {"name": name, "arguments": '{"path": "x"}'}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": function}],
        }
    if fmt == "anthropic":
        block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
        return {"role": "assistant", "content": [block]}
    if fmt == "responses":
        return {"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}"}
    if fmt == "gemini":
        part = {"functionCall": {"id": call_id, "name": name, "args": arguments}}
        return {"role": "model", "parts": [part]}
    return {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": call_id, "name": name, "input": arguments}}],
    }


def results(fmt: str, call_id: str, frame: str | None) -> list[dict[str, Any]]:
    """The call's result, and `frame` beside it: in the same user message where the format puts
    results in user messages, else a user message of its own."""
    output = f"contents of {call_id}: " + "x" * 300
    if fmt in ("native", "openai"):
        name = {"tool_name": f"tool_{call_id}"} if fmt == "native" else {}
        own: list[dict[str, Any]] = [
            {"role": "tool", "tool_call_id": call_id, "content": output, **name}
        ]
        return own if frame is None else [*own, user(fmt, [frame])]
    if fmt == "responses":
        item = {"type": "function_call_output", "call_id": call_id, "output": output}
        return [item] if frame is None else [item, user(fmt, [frame])]
    if fmt == "anthropic":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": output}
        texts = [] if frame is None else [{"type": "text", "text": frame}]
        return [{"role": "user", "content": [block, *texts]}]
    if fmt == "gemini":
        response = {"id": call_id, "name": f"tool_{call_id}", "response": {"output": output}}
        parts = [] if frame is None else [{"text": frame}]
        return [{"role": "user", "parts": [{"functionResponse": response}, *parts]}]
    result = {"toolResult": {"toolUseId": call_id, "content": [{"text": output}]}}
    blocks = [] if frame is None else [{"text": frame}]
    return [{"role": "user", "content": [result, *blocks]}]


def answer_text(fmt: str, text: str) -> dict[str, Any]:
    if fmt == "gemini":
        return {"role": "model", "parts": [{"text": text}]}
    if fmt == "bedrock":
        return {"role": "assistant", "content": [{"text": text}]}
    if fmt == "responses":
        return {"role": "assistant", "content": text}
    return {"role": "assistant", "content": text}


def transcript(fmt: str, opening: Sequence[str], frames: Sequence[str | None]) -> list[Any]:
    """The opening user message, then one call per frame, each result with its frame beside it,
    then the assistant's answer."""
    out = [user(fmt, opening)]
    for number, frame in enumerate(frames, 1):
        out.append(call(fmt, f"c{number}"))
        out.extend(results(fmt, f"c{number}", frame))
    out.append(answer_text(fmt, "Done."))
    return out


def last_index(messages: list[Any], text: str) -> int:
    """The caller index of the last message holding `text` (a string or a block's or part's)."""
    return max(index for index, message in enumerate(messages) if text in strings_in(message))


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def pairing_violations(fmt: str, sent: list[Any], window: list[Any]) -> list[str]:
    if fmt in ("native", "openai"):
        return [*chat_violations(window), *opening_violations(sent, window)]
    if fmt == "anthropic":
        return [*anthropic_violations(window), *opening_violations(sent, window)]
    if fmt == "responses":
        return [*responses_violations(window, sent), *responses_opening_violations(sent, window)]
    if fmt == "gemini":
        return gemini_violations(window, sent)
    return bedrock_violations(window)


# ---- the cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A transcript, the request options, and which message must be the current request."""

    fmt: str
    messages: list[Any]
    request: str  # the text that must be the current request
    options: dict[str, Any] = field(default_factory=dict)
    request_turn: int | None = None  # when a caller message holds several user texts


def expected_index(case: Case) -> int:
    return last_index(case.messages, case.request)


def core_plan_request(case: Case) -> tuple[int, int] | None:
    """The core's current request (caller index, turn) for the case's options."""
    dialect = dialect_of(case.fmt)
    core = dialect.read(case.messages)
    detect = case.options.get("detect_frames")
    options = PlanOptions(
        strategy=SlidingWindow(1),
        keep_last_tool_results=0,
        request_text=case.options.get("request_text"),
        frames=FrameDetection(detect is not False, frozenset(case.options.get("frame_tags") or ())),
        provider_reads_from=dialect.provider_reads_from(core),
    )
    request = plan_window(core, options).current_request
    return None if request is None else (request.message_index, request.turn_index)


async def check_case(client: Any, case: Case) -> dict[str, Any]:
    """The case planned through the core and over HTTP: the same current request, the expected
    one, held in the window, and a window the provider accepts."""
    index = expected_index(case)
    core_request = core_plan_request(case)
    assert core_request is not None and core_request[0] == index
    body = {
        "messages": case.messages,
        "format": case.fmt,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
        "keep_last_tool_results": 0,
        **case.options,
    }
    answer = await post_ok(client, body)
    request = answer["current_request"]
    assert (request["message_index"], request["turn_index"]) == core_request
    if case.request_turn is not None:
        assert request["turn_index"] == case.request_turn
    assert answer["turns"][request["turn_index"]]["held_by"] == "current-request"
    assert answer["stats"]["removed_message_count"] > 0
    assert case.request in strings_in(answer["window"])
    assert pairing_violations(case.fmt, case.messages, answer["window"]) == []
    return answer


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_reminder_beside_each_result_leaves_the_task_the_request(
    client: Any, fmt: str
) -> None:
    """`[tool_result, text(reminder)]` (Anthropic, Bedrock, Gemini) or a reminder user message
    of its own (native, OpenAI, Responses) after every result."""
    messages = transcript(fmt, [TASK], [REMINDER, REMINDER, REMINDER])
    answer = await check_case(client, Case(fmt, messages, TASK))
    assert answer["current_request"]["message_index"] == 0


@pytest.mark.anyio
@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("fmt", FORMATS)
async def test_every_kind_of_frame_leaves_the_task_the_request(
    client: Any, fmt: str, frame: str
) -> None:
    messages = transcript(fmt, [TASK], [frame, None, frame])
    await check_case(client, Case(fmt, messages, TASK))


@pytest.mark.anyio
async def test_a_bedrock_reminder_block_before_the_persons_block_is_a_frame(client: Any) -> None:
    """`[text(reminder), text(person)]`: two core user messages; the person's block is the
    request (turn 1), the reminder's (turn 0) is not."""
    messages = transcript("bedrock", [REMINDER, TASK], [REMINDER, REMINDER])
    answer = await check_case(client, Case("bedrock", messages, TASK, request_turn=1))
    assert answer["current_request"] == {"message_index": 0, "turn_index": 1}


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", ["anthropic", "gemini"])
async def test_a_reminder_joined_to_the_persons_words_is_a_persons_message(
    client: Any, fmt: str
) -> None:
    """Where a message's texts are joined into one core text, a reminder beside the person's
    words is part of a person's message: the message is the request."""
    messages = transcript(fmt, [REMINDER, TASK], [REMINDER, REMINDER])
    answer = await check_case(client, Case(fmt, messages, TASK))
    assert answer["current_request"] == {"message_index": 0, "turn_index": 0}


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("task", [CLINE_TASK, WIP], ids=["cline-task", "wip"])
async def test_what_is_not_a_frame_is_the_request(client: Any, fmt: str, task: str) -> None:
    messages = transcript(fmt, [task], [REMINDER, None, REMINDER])
    await check_case(client, Case(fmt, messages, task))


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", FORMATS)
async def test_detection_off_makes_the_last_frame_the_request(client: Any, fmt: str) -> None:
    messages = transcript(fmt, [TASK], [REMINDER, None, STOP_HOOK])
    answer = await check_case(
        client, Case(fmt, messages, STOP_HOOK, options={"detect_frames": False})
    )
    assert TASK not in strings_in(answer["window"])  # the old behaviour: the task left
    # null is the default: detection on.
    await check_case(client, Case(fmt, messages, TASK, options={"detect_frames": None}))


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", FORMATS)
async def test_request_text_equal_to_a_frame_makes_it_the_request(client: Any, fmt: str) -> None:
    messages = transcript(fmt, [TASK], [STOP_HOOK, None, REMINDER])
    await check_case(client, Case(fmt, messages, STOP_HOOK, options={"request_text": STOP_HOOK}))


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", FORMATS)
async def test_frame_tags_add_element_names(client: Any, fmt: str) -> None:
    messages = transcript(fmt, [TASK], [MY_NOTE, None, MY_NOTE])
    await check_case(client, Case(fmt, messages, MY_NOTE))
    await check_case(client, Case(fmt, messages, MY_NOTE, options={"frame_tags": None}))
    await check_case(client, Case(fmt, messages, TASK, options={"frame_tags": ["my-note"]}))


# ---- a Claude-Code-like run --------------------------------------------------------------------

CLAUDE_MD = (
    "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n"
    "# claudeMd\nRun `make test` before every commit.\n</system-reminder>"
)
TODO_REMINDER = (
    "<system-reminder>\nYour todo list has changed. DO NOT mention this explicitly to the user. "
    'Here are the latest contents of your todo list:\n[{"content": "Rename the module", '
    '"status": "in_progress"}]\n</system-reminder>'
)
TOOLS = ("Read", "Grep", "Edit", "Bash")


def claude_code_run() -> list[dict[str, Any]]:
    """The task (with CLAUDE.md's reminder block before it, as Claude Code sends it), then
    tool rounds whose user messages carry reminders, a stop hook's feedback, an interruption, a
    command echo and the command's output."""
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": CLAUDE_MD}, {"type": "text", "text": TASK}],
        }
    ]
    for number in range(16):
        call_id = f"toolu_{number:02d}"
        tool = TOOLS[number % len(TOOLS)]
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Step {number}: using {tool}."},
                    {"type": "tool_use", "id": call_id, "name": tool, "input": {"n": number}},
                ],
            }
        )
        result = {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": f"{tool} output {number}\n" + "line of output\n" * 20,
        }
        content: list[dict[str, Any]] = [result]
        if number % 2 == 0:
            content.append({"type": "text", "text": REMINDER})
        if number % 5 == 0:
            content.append({"type": "text", "text": TODO_REMINDER})
        if number == 9:
            result["is_error"] = True
            result["content"] = "The user doesn't want to proceed with this tool use."
            content.append({"type": "text", "text": INTERRUPTION})
        messages.append({"role": "user", "content": content})
        if number == 11:
            messages.append({"role": "assistant", "content": "Renamed; running the linter."})
            messages.append({"role": "user", "content": STOP_HOOK})
        if number == 13:
            messages.append({"role": "assistant", "content": "Linter fixed."})
            messages.append({"role": "user", "content": COMMAND_ECHO})
            messages.append(
                {
                    "role": "user",
                    "content": "<local-command-stdout>(no content)</local-command-stdout>",
                }
            )
    return messages


CLAUDE_CODE_STRATEGIES = [
    pytest.param({"kind": "sliding-window", "keep_recent_turns": 3}, id="sliding-window"),
    pytest.param(
        {
            "kind": "token-budget",
            "threshold_tokens": 1000,
            "keep_recent_turns": 3,
            "measured": {"input_tokens": 9000, "output_tokens": 10},
        },
        id="token-budget",
    ),
    pytest.param({"kind": "fit", "max_tokens": 1500}, id="fit-1500"),
    pytest.param({"kind": "fit", "max_tokens": 600}, id="fit-600"),
]


@pytest.mark.anyio
@pytest.mark.parametrize("strategy", CLAUDE_CODE_STRATEGIES)
async def test_a_claude_code_run_keeps_its_task(client: Any, strategy: dict[str, Any]) -> None:
    sent = claude_code_run()
    answer = await post_ok(client, {"messages": sent, "strategy": strategy})
    assert answer["format"] == "anthropic"
    assert answer["current_request"] == {"message_index": 0, "turn_index": 0}
    assert answer["turns"][0]["fate"] == "kept"
    assert answer["turns"][0]["held_by"] == "current-request"
    assert answer["stats"]["removed_message_count"] > 0
    assert answer["window"][0] == sent[0]
    assert anthropic_violations(answer["window"]) == []
    assert opening_violations(sent, answer["window"]) == []
    # Without detection the last user text, the todo reminder beside the last result, was the
    # request.
    off = await post_ok(client, {"messages": sent, "strategy": strategy, "detect_frames": False})
    assert off["current_request"]["message_index"] == len(sent) - 1
    assert sent[-1]["content"][-1]["text"] == TODO_REMINDER


# ---- refusals ----------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("options", "locs"),
    [
        ({"detect_frames": "yes"}, [("body", "detect_frames")]),
        ({"detect_frames": 1}, [("body", "detect_frames")]),
        ({"detect_frames": []}, [("body", "detect_frames")]),
        ({"frame_tags": "my-note"}, [("body", "frame_tags")]),
        ({"frame_tags": {"my-note": True}}, [("body", "frame_tags")]),
        ({"frame_tags": ["ok", 5]}, [("body", "frame_tags", 1)]),
        ({"frame_tags": [None]}, [("body", "frame_tags", 0)]),
        (
            {"frame_tags": ["", "1st", "has space", "tag>", "étiquette", "end\n", "ok-1.x:y_z"]},
            [("body", "frame_tags", k) for k in range(6)],
        ),
        (
            {"detect_frames": "no", "frame_tags": ["a", "-b"]},
            [("body", "detect_frames"), ("body", "frame_tags", 1)],
        ),
    ],
)
async def test_bad_frame_options_are_a_422_naming_the_field(
    client: Any, options: dict[str, Any], locs: list[tuple[Any, ...]]
) -> None:
    body = {"messages": transcript("openai", [TASK], [REMINDER]), **options}
    response = await client.post(PLAN, json=body)
    assert response.status_code == 422, response.text
    assert [tuple(error["loc"]) for error in response.json()["errors"]] == locs


@pytest.mark.anyio
async def test_null_frame_options_are_the_defaults(client: Any) -> None:
    messages = transcript("anthropic", [TASK], [REMINDER, REMINDER])
    plain = await post_ok(client, {"messages": messages})
    nulls = await post_ok(client, {"messages": messages, "detect_frames": None, "frame_tags": None})
    explicit = await post_ok(
        client, {"messages": messages, "detect_frames": True, "frame_tags": []}
    )
    assert plain == nulls == explicit
