"""`clear.images` over HTTP (docs/rules.md#images-and-thinking): a screen-driving run in each
dialect that carries images, a screenshot after each action in a user message and one inside each
tool result, planned with `clear {"keep_last": 1, "step": 2, "images": true}`.

The run has eight actions; the eighth follows the last assistant message (unread), so `N` = 7 and
the boundary is the 6th result. The screenshots after actions 1–5 are at or before it and become
the format's text part in their place; the task's (the current request: a screenshot alone is no
one's words) and those after actions 6–8 stay; a result's screenshot goes with its text when the
result is cleared and stays when the clear rule spares it; a Responses `computer_call_output`
stays whole.
Each window passes the provider SDK's request types and the dialect's pairing checker; `shaped`
has one `image-cleared` entry per caller message, after that message's cleared result; the tokens
sent drop; under `fit` (clear applying, nothing removed) the window is the same; and with `images`
off (the default) nothing of this happens.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import orjson
import pytest

from app.core.clear import placeholder_for
from app.formats import read_messages
from bench.images import b64, data_url, png
from tests.api.test_bedrock_http import converse_report
from tests.api.test_formats_http import ANTHROPIC_MESSAGE, OPENAI_MESSAGE, sdk_valid
from tests.api.test_frames_http import pairing_violations
from tests.api.test_gemini_http import sdk_valid as gemini_sdk_valid
from tests.api.test_responses_http import sdk_valid_items

pytestmark = pytest.mark.anyio
PATH = "/v1/window/plan"
JSON = {"content-type": "application/json"}

X = "[image removed from the context window]"
SHOT = b64(png(1280, 800))
# The Gemini SDK writes bytes as URL-safe base64: the screenshots as it sends them.
GEMINI_SHOT = base64.urlsafe_b64encode(png(1280, 800)).decode()
SHOT_URL = data_url(png(1280, 800))
TASK = "File the expense report from the open receipts."
FORMATS = ("openai", "anthropic", "responses", "gemini", "bedrock")
# The tool of each action; Responses drives the screen with `computer_call`s at actions 2 and 4.
TOOLS = ("click", "click", "type", "click", "scroll", "click", "type", "click")
RESPONSES_TOOLS = ("click", "computer", "type", "computer", "scroll", "click", "type", "click")
REPLACED_SHOTS = (1, 2, 3, 4, 5)  # the user screenshots at or before the boundary (action 6)


def replaced_shots(fmt: str, cleared: set[int]) -> set[int]:
    """The screenshots after the actions that `clear.images` replaces. A Bedrock `image` block
    next to a `toolResult` (and no text) belongs to the result's core message (docs/rules.md): it is
    replaced when its result is cleared, and stays when the clear rule spares the result."""
    return set(cleared) if fmt == "bedrock" else set(REPLACED_SHOTS)


def long_text(step: int) -> str:
    return f"step {step}: " + "the dialog shows the receipt list; " * 6


# ---- the run, written in each dialect -----------------------------------------------------------


class Run:
    """A run's caller messages and where each action's result and screenshot sit."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.result_at: dict[int, int] = {}
        self.shot_at: dict[int, int] = {}

    def add(self, message: Any) -> int:
        self.messages.append(message)
        return len(self.messages) - 1


def openai_run() -> Run:
    run = Run()
    image = {"type": "image_url", "image_url": {"url": SHOT_URL}}
    run.add({"role": "user", "content": [{"type": "text", "text": TASK}, image]})
    for step, name in enumerate(TOOLS, 1):
        call = {"id": f"c{step}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        run.add({"role": "assistant", "content": None, "tool_calls": [call]})
        # Chat Completions carries no image inside a tool message: its screenshot is the user's.
        run.result_at[step] = run.add(
            {"role": "tool", "tool_call_id": f"c{step}", "content": long_text(step)}
        )
        run.shot_at[step] = run.add({"role": "user", "content": [copy.deepcopy(image)]})
    return run


def anthropic_image() -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": SHOT}}


def anthropic_run() -> Run:
    run = Run()
    run.add({"role": "user", "content": [{"type": "text", "text": TASK}, anthropic_image()]})
    for step, name in enumerate(TOOLS, 1):
        call = {"type": "tool_use", "id": f"c{step}", "name": name, "input": {}}
        run.add({"role": "assistant", "content": [call]})
        result = {
            "type": "tool_result",
            "tool_use_id": f"c{step}",
            "content": [{"type": "text", "text": long_text(step)}, anthropic_image()],
        }
        at = run.add({"role": "user", "content": [result, anthropic_image()]})
        run.result_at[step] = run.shot_at[step] = at
    return run


def bedrock_image() -> dict[str, Any]:
    return {"image": {"format": "png", "source": {"bytes": SHOT}}}


def bedrock_run() -> Run:
    run = Run()
    run.add({"role": "user", "content": [{"text": TASK}, bedrock_image()]})
    for step, name in enumerate(TOOLS, 1):
        call = {"toolUse": {"toolUseId": f"c{step}", "name": name, "input": {}}}
        run.add({"role": "assistant", "content": [call]})
        result = {
            "toolResult": {
                "toolUseId": f"c{step}",
                "content": [{"text": long_text(step)}, bedrock_image()],
                "status": "success",
            }
        }
        at = run.add({"role": "user", "content": [result, bedrock_image()]})
        run.result_at[step] = run.shot_at[step] = at
    return run


def gemini_image() -> dict[str, Any]:
    return {"inlineData": {"data": GEMINI_SHOT, "mimeType": "image/png"}}


def gemini_run() -> Run:
    run = Run()
    run.add({"role": "user", "parts": [{"text": TASK}, gemini_image()]})
    for step, name in enumerate(TOOLS, 1):
        call = {"functionCall": {"id": f"c{step}", "name": name, "args": {}}}
        run.add({"role": "model", "parts": [call]})
        response = {
            "functionResponse": {
                "id": f"c{step}",
                "name": name,
                "response": {"output": long_text(step)},
                "parts": [gemini_image()],
            }
        }
        at = run.add({"role": "user", "parts": [response, gemini_image()]})
        run.result_at[step] = run.shot_at[step] = at
    return run


def responses_image() -> dict[str, Any]:
    return {"type": "input_image", "image_url": SHOT_URL, "detail": "auto"}


def responses_run() -> Run:
    run = Run()
    run.add({"role": "user", "content": [{"type": "input_text", "text": TASK}, responses_image()]})
    for step, name in enumerate(RESPONSES_TOOLS, 1):
        call_id = f"c{step}"
        if name == "computer":
            run.add(
                {
                    "type": "computer_call",
                    "id": f"cu_{step}",
                    "call_id": call_id,
                    "action": {"type": "screenshot"},
                    "pending_safety_checks": [],
                    "status": "completed",
                }
            )
            output: dict[str, Any] = {
                "type": "computer_call_output",
                "call_id": call_id,
                "output": {"type": "computer_screenshot", "image_url": SHOT_URL},
            }
        else:
            run.add({"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}"})
            output = {
                "type": "function_call_output",
                "call_id": call_id,
                "output": [{"type": "input_text", "text": long_text(step)}, responses_image()],
            }
        run.result_at[step] = run.add(output)
        run.shot_at[step] = run.add({"role": "user", "content": [responses_image()]})
    return run


RUNS = {
    "openai": openai_run,
    "anthropic": anthropic_run,
    "bedrock": bedrock_run,
    "gemini": gemini_run,
    "responses": responses_run,
}


def parts_of(message: Any, fmt: str) -> list[Any]:
    """A user message's own parts (where its screenshot is the last)."""
    key = "parts" if fmt == "gemini" else "content"
    parts: list[Any] = message[key]
    return parts


def text_part(fmt: str) -> Any:
    """The format's text part holding X (docs/rules.md#images-and-thinking)."""
    return {
        "openai": {"type": "text", "text": X},
        "anthropic": {"type": "text", "text": X},
        "bedrock": {"text": X},
        "gemini": {"text": X},
        "responses": {"type": "input_text", "text": X},
    }[fmt]


def images_in(value: Any) -> int:
    """The image parts anywhere in a window (a Responses screenshot output counts)."""
    if isinstance(value, list):
        return sum(images_in(item) for item in value)
    if not isinstance(value, dict):
        return 0
    own = int(
        value.get("type") in ("image_url", "image", "input_image", "computer_screenshot")
        or "inlineData" in value
        or ("image" in value and isinstance(value["image"], dict))
    )
    return own + sum(images_in(item) for item in value.values())


def texts_x(value: Any) -> int:
    """How many parts of a window hold exactly X."""
    if isinstance(value, list):
        return sum(texts_x(item) for item in value)
    if isinstance(value, dict):
        own = int(value.get("text") == X)
        return own + sum(texts_x(item) for item in value.values() if not isinstance(item, str))
    return 0


def sdk_check(fmt: str, window: list[Any]) -> None:
    """Every message of the window is a request message of the provider's own SDK."""
    if fmt == "openai":
        for message in window:
            sdk_valid(OPENAI_MESSAGE, message)
    elif fmt == "anthropic":
        for message in window:
            sdk_valid(ANTHROPIC_MESSAGE, message)
    elif fmt == "responses":
        sdk_valid_items(window)
    elif fmt == "gemini":
        for content in window:
            gemini_sdk_valid(content)
    else:
        assert converse_report(window) == ""


async def plan(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


SLIDING = {"kind": "sliding-window", "keep_recent_turns": 20}

# (extra options, the actions whose results the clear rule clears, the same in the Responses run)
VARIANTS: dict[str, tuple[dict[str, Any], set[int], set[int]]] = {
    # Spared: each tool's latest at or before action 6 (click 6, type 3, scroll 5, computer 4).
    # In Responses, computer 2 would be cleared but a `computer_call_output` never is.
    "latest": ({"keep_last_tool_results": 1}, {1, 2, 4}, {1}),
    "ledger": (
        {
            "keep_last_tool_results": 1,
            "ledger": [
                {"tool_call_id": "c1", "standing": "open"},
                {"tool_call_id": "c2", "standing": "fact"},
            ],
        },
        {4},
        set(),
    ),
    "excluded": (
        {"keep_last_tool_results": 0, "clear": {"exclude_tools": ["type"]}},
        {1, 2, 4, 5, 6},
        {1, 5, 6},
    ),
}


def body_of(
    fmt: str, messages: list[Any], extra: dict[str, Any], images: bool | None
) -> dict[str, Any]:
    clear: dict[str, Any] = {"keep_last": 1, "step": 2, **extra.get("clear", {})}
    if images is not None:
        clear["images"] = images
    options = {key: value for key, value in extra.items() if key != "clear"}
    return {
        "messages": messages,
        "format": fmt,
        "strategy": SLIDING,
        "tokenizer": "estimate",
        **options,
        "clear": clear,
    }


def check_window(fmt: str, run: Run, answer: dict[str, Any], cleared: set[int]) -> None:
    """The window of a plan with images on that removed nothing: exactly the screenshots of
    actions 1–5 replaced in their place, each cleared result a placeholder holding no image,
    every other message the caller's bytes; the SDK's types and the pairing rules hold."""
    raw = run.messages
    window = answer["window"]
    assert answer["stats"]["removed_message_count"] == 0
    assert len(window) == len(raw) == answer["stats"]["messages_after"]
    replaced = replaced_shots(fmt, cleared)
    touched = {run.shot_at[step] for step in replaced} | {run.result_at[step] for step in cleared}
    for index, (sent, kept) in enumerate(zip(raw, window, strict=True)):
        if index not in touched:
            assert orjson.dumps(kept) == orjson.dumps(sent), index
    for step in range(1, len(TOOLS) + 1):
        shot = parts_of(window[run.shot_at[step]], fmt)[-1]
        if step in replaced:
            assert shot == text_part(fmt), step
        else:
            assert shot == parts_of(raw[run.shot_at[step]], fmt)[-1], step
    # Read back, each cleared result is its placeholder and carries no image; a kept one is whole.
    core = read_messages(window, fmt)
    sent_core = read_messages(raw, fmt)
    results = {m.tool_call_id: m for m in core if m.role == "tool"}
    sent_results = {m.tool_call_id: m for m in sent_core if m.role == "tool"}
    for step in range(1, len(TOOLS) + 1):
        message, before = results[f"c{step}"], sent_results[f"c{step}"]
        if step in cleared:
            name = (RESPONSES_TOOLS if fmt == "responses" else TOOLS)[step - 1]
            assert message.content == placeholder_for(f"c{step}", name, len(before.content))
            assert message.images == ()
        else:
            assert message.content == before.content
            assert len(message.images) == len(before.images)
    # Counted in the window: the images left and the texts in their place.
    result_images = 0 if fmt == "openai" else len(TOOLS) - len(cleared)
    assert texts_x(window) == len(replaced)
    assert images_in(window) == 1 + (len(TOOLS) - len(replaced)) + result_images
    assert images_in(raw) == 1 + len(TOOLS) + (0 if fmt == "openai" else len(TOOLS))
    sdk_check(fmt, window)
    assert pairing_violations(fmt, raw, window) == []


def expected_shaped(fmt: str, run: Run, cleared: set[int]) -> list[tuple[Any, ...]]:
    """(message_index, window_index, tool_call_id, action, chars_before, chars_after, images) in
    the spec's order: a caller message's results, then its image-cleared entry."""
    entries: list[tuple[Any, ...]] = []
    core = read_messages(run.messages, fmt)
    chars = {m.tool_call_id: len(m.content) for m in core if m.role == "tool"}
    placeholder = {
        step: len(
            placeholder_for(
                f"c{step}",
                (RESPONSES_TOOLS if fmt == "responses" else TOOLS)[step - 1],
                chars[f"c{step}"],
            )
        )
        for step in cleared
    }
    events: list[tuple[int, int, tuple[Any, ...]]] = []
    for step in cleared:
        at = run.result_at[step]
        entry = (at, at, f"c{step}", "cleared", chars[f"c{step}"], placeholder[step], None)
        events.append((at, 0, entry))
    for step in replaced_shots(fmt, cleared):
        at = run.shot_at[step]
        events.append((at, 1, (at, at, None, "image-cleared", 0, len(X), 1)))
    for _, _, entry in sorted(events):
        entries.append(entry)
    return entries


def shaped_of(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            e["message_index"],
            e["window_index"],
            e["tool_call_id"],
            e["action"],
            e["chars_before"],
            e["chars_after"],
            e.get("images"),
        )
        for e in answer["shaped"]
    ]


def test_the_text_is_39_characters_and_a_frame_of_the_service() -> None:
    assert len(X) == 39
    from app.core.images import IMAGE_REMOVED_TEXT

    assert IMAGE_REMOVED_TEXT == X


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("fmt", FORMATS)
async def test_the_screenshots_at_or_before_the_boundary_become_the_text(
    client: Any, fmt: str, variant: str
) -> None:
    run = RUNS[fmt]()
    sent = copy.deepcopy(run.messages)
    extra, cleared, responses_cleared = VARIANTS[variant]
    cleared = responses_cleared if fmt == "responses" else cleared
    answer = await plan(client, body_of(fmt, run.messages, extra, True))
    assert run.messages == sent
    # The current request is the task, before the boundary: its screenshot stays.
    assert answer["current_request"]["message_index"] == 0
    check_window(fmt, run, answer, cleared)
    assert shaped_of(answer) == expected_shaped(fmt, run, cleared)
    # A `computer_call_output` is never reported, cleared or not.
    reported = {e["tool_call_id"] for e in answer["shaped"]}
    if fmt == "responses":
        assert not reported & {"c2", "c4"}
    assert answer["record"] is None or answer["record"].get("cleared_results") == 6

    off = await plan(client, body_of(fmt, run.messages, extra, False))
    default = await plan(client, body_of(fmt, run.messages, extra, None))
    assert default == off
    # Off: every screenshot as sent; the same results cleared; no image-cleared entry.
    assert texts_x(off["window"]) == 0
    assert [e for e in off["shaped"] if e["action"] == "image-cleared"] == []
    assert [e["tool_call_id"] for e in off["shaped"]] == [
        e["tool_call_id"] for e in answer["shaped"] if e["action"] == "cleared"
    ]
    # A replaced image counts the text's tokens, not its own.
    assert answer["stats"]["tokens_after"] < off["stats"]["tokens_after"]
    assert answer["stats"]["tokens_before"] == off["stats"]["tokens_before"]
    # Planned again, the window sent back changes nothing more.
    again = await plan(client, body_of(fmt, answer["window"], extra, True))
    assert again["window"] == answer["window"]
    assert [e for e in again["shaped"] if e["action"] == "image-cleared"] == []


@pytest.mark.parametrize("fmt", FORMATS)
async def test_under_fit_the_same_images_are_replaced_and_nothing_removed(
    client: Any, fmt: str
) -> None:
    """`fit` over its limit as sent: clear applies and, the images replaced, the window is under
    `target_tokens`, so nothing is removed and the window is the sliding window's."""
    run = RUNS[fmt]()
    extra, cleared, responses_cleared = VARIANTS["latest"]
    cleared = responses_cleared if fmt == "responses" else cleared
    sliding = await plan(client, body_of(fmt, run.messages, extra, True))
    limit = sliding["stats"]["tokens_before"] - 1
    fit = {"kind": "fit", "max_tokens": limit, "reserve_tokens": 0}
    answer = await plan(client, {**body_of(fmt, run.messages, extra, True), "strategy": fit})
    assert answer["engaged"] is False
    check_window(fmt, run, answer, cleared)
    assert answer["window"] == sliding["window"]
    assert shaped_of(answer) == expected_shaped(fmt, run, cleared)
    assert answer["record"]["cleared_results"] == 6
    assert answer["stats"]["tokens_after"] <= limit


async def test_tokens_sent_with_images_on_and_off(client: Any) -> None:
    """The figures of each dialect's run, as docs/quality.md gives them: the tokens sent with
    `images` on stay below those with it off."""
    rows = {}
    for fmt in FORMATS:
        run = RUNS[fmt]()
        extra = VARIANTS["latest"][0]
        on = await plan(client, body_of(fmt, run.messages, extra, True))
        off = await plan(client, body_of(fmt, run.messages, extra, False))
        rows[fmt] = (off["stats"]["tokens_after"], on["stats"]["tokens_after"])
        assert on["stats"]["tokens_after"] < off["stats"]["tokens_after"]
    assert rows == {
        "openai": (10_459, 4_984),
        "anthropic": (19_638, 12_858),
        "responses": (18_154, 12_679),
        "gemini": (16_194, 10_644),
        "bedrock": (19_606, 15_538),
    }
