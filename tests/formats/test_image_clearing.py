"""Images replaced by a text in a written window (docs/rules.md#images): each dialect's text part
in each image's place, only the images the chosen core messages count, never a Responses
screenshot, every other part of the message as sent; the window still pairs its calls and results,
and the scanned messages of the compiled reader give the same bytes."""

from __future__ import annotations

import copy
import os
from typing import Any

import orjson
import pytest

from app import compiled
from app.compiled.messages import ScannedMessages
from app.core.current_request import could_be_said_by_a_person
from app.core.images import IMAGE_REMOVED_TEXT
from app.formats import dialect_of, read_messages
from app.formats.callers import ListCallers
from bench.images import b64, data_url, png
from tests.api.test_frames_http import pairing_violations

X = IMAGE_REMOVED_TEXT
SHOT = b64(png(1280, 800))
SHOT_URL = data_url(png(1280, 800))


def openai_case() -> tuple[list[Any], list[int], list[Any]]:
    raw: list[Any] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is on screen?"},
                {"type": "image_url", "image_url": {"url": SHOT_URL}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": [
                {"type": "text", "text": "taken"},
                {"type": "image_url", "image_url": {"url": SHOT_URL, "detail": "low"}},
            ],
        },
        {"role": "user", "content": "thanks"},
    ]
    expected = copy.deepcopy(raw)
    expected[0]["content"][1] = {"type": "text", "text": X}
    expected[2]["content"][1] = {"type": "text", "text": X}
    return raw, [0, 1, 2, 3], expected


def anthropic_image() -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": SHOT}}


def anthropic_case() -> tuple[list[Any], list[int], list[Any]]:
    raw: list[Any] = [
        {"role": "user", "content": [{"type": "text", "text": "Look."}, anthropic_image()]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Taking one."},
                {"type": "tool_use", "id": "t1", "name": "computer", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "done"}, anthropic_image()],
                    "cache_control": {"type": "ephemeral"},
                },
                {"type": "text", "text": "next?"},
                anthropic_image(),
            ],
        },
    ]
    # Core: 0 user, 1 assistant, 2 the result, 3 the question and its image (not cleared here).
    expected = copy.deepcopy(raw)
    expected[0]["content"][1] = {"type": "text", "text": X}
    expected[2]["content"][0]["content"][1] = {"type": "text", "text": X}
    return raw, [0, 1, 2], expected


def bedrock_image() -> dict[str, Any]:
    return {"image": {"format": "png", "source": {"bytes": SHOT}}}


def bedrock_case() -> tuple[list[Any], list[int], list[Any]]:
    raw: list[Any] = [
        {"role": "user", "content": [{"text": "Look."}, bedrock_image()]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "tu1", "name": "shot", "input": {}}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tu1",
                        "content": [{"text": "done"}, bedrock_image()],
                        "status": "success",
                    }
                },
                {"cachePoint": {"type": "default"}},
                {"text": "next?"},
                bedrock_image(),
            ],
        },
    ]
    # Core: 0 user (text + image), 1 assistant, 2 the result and its cache point, 3 the question
    # and its image.
    expected = copy.deepcopy(raw)
    expected[0]["content"][1] = {"text": X}
    expected[2]["content"][0]["toolResult"]["content"][1] = {"text": X}
    expected[2]["content"][3] = {"text": X}
    return raw, [0, 2, 3], expected


def gemini_image(mime: str = "image/png") -> dict[str, Any]:
    return {"inlineData": {"mimeType": mime, "data": SHOT}}


def gemini_case() -> tuple[list[Any], list[int], list[Any]]:
    pdf = {"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0="}}
    raw: list[Any] = [
        {"role": "user", "parts": [{"text": "Look."}, gemini_image()]},
        {"role": "model", "parts": [{"functionCall": {"name": "shot", "args": {}}}]},
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "shot",
                        "response": {"output": "ok"},
                        "parts": [gemini_image(), pdf],
                    }
                },
                {"text": "next?"},
                {"fileData": {"mimeType": "image/webp", "fileUri": "gs://b/s.webp"}},
                pdf,
            ],
        },
    ]
    # A `functionResponse`'s own parts hold only media: its image is taken out, not replaced.
    expected = copy.deepcopy(raw)
    expected[0]["parts"][1] = {"text": X}
    expected[2]["parts"][0]["functionResponse"]["parts"] = [pdf]
    expected[2]["parts"][2] = {"text": X}
    return raw, [0, 1, 2, 3], expected


def responses_case() -> tuple[list[Any], list[int], list[Any]]:
    raw: list[Any] = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Open it."},
                {"type": "input_image", "image_url": SHOT_URL, "detail": "high"},
            ],
        },
        {"type": "computer_call", "call_id": "cc1", "action": {"type": "screenshot"}},
        {"type": "function_call", "call_id": "f1", "name": "chart", "arguments": "{}"},
        {
            "type": "computer_call_output",
            "call_id": "cc1",
            "output": {"type": "computer_screenshot", "image_url": SHOT_URL},
        },
        {
            "type": "function_call_output",
            "call_id": "f1",
            "output": [
                {"type": "input_text", "text": "chart"},
                {"type": "input_image", "image_url": SHOT_URL},
            ],
        },
        {"role": "user", "content": "thanks"},
    ]
    # Core: 0 user, 1 the run, 2 the screenshot (the API requires it: it stays), 3 the chart.
    expected = copy.deepcopy(raw)
    expected[0]["content"][1] = {"type": "input_text", "text": X}
    expected[4]["output"][1] = {"type": "input_text", "text": X}
    return raw, [0, 1, 2, 3, 4], expected


CASES = {
    "openai": openai_case,
    "anthropic": anthropic_case,
    "bedrock": bedrock_case,
    "gemini": gemini_case,
    "responses": responses_case,
}


@pytest.mark.parametrize("format_name", sorted(CASES))
def test_each_image_becomes_the_formats_text_part_in_its_place(format_name: str) -> None:
    raw, indices, expected = CASES[format_name]()
    sent = copy.deepcopy(raw)
    dialect = dialect_of(format_name)
    core = read_messages(raw, format_name)
    window = dialect.write_window(raw, core, (), None, images_cleared=indices)
    assert window == expected
    assert orjson.dumps(window) == orjson.dumps(expected)
    assert raw == sent  # the caller's messages are copied, never changed
    # A message with no image cleared is the caller's own object.
    for position, message in enumerate(window):
        if message == raw[position]:
            assert message is raw[position]
    assert pairing_violations(format_name, raw, window) == []


@pytest.mark.parametrize("format_name", sorted(CASES))
def test_the_cleared_window_counts_the_text_and_no_image(format_name: str) -> None:
    raw, indices, _ = CASES[format_name]()
    core = read_messages(raw, format_name)
    window = dialect_of(format_name).write_window(raw, core, (), None, images_cleared=indices)
    again = read_messages(window, format_name)
    kept = [image for message in again for image in message.images]
    # What stays: the images of core messages not asked for, and a Responses screenshot.
    assert kept == [
        image
        for position, message in enumerate(core)
        for image in message.images
        if position not in indices or image.required
    ]
    assert any(X in message.content for message in again)
    # The text is one of the service's own frames: never a person's request.
    for message in again:
        if message.content.startswith(X):
            assert not could_be_said_by_a_person(message)


@pytest.mark.parametrize("format_name", sorted(CASES))
def test_clearing_composes_with_a_removal_and_shaped_results(format_name: str) -> None:
    raw, indices, _ = CASES[format_name]()
    dialect = dialect_of(format_name)
    core = read_messages(raw, format_name)
    results = {i: f"shaped {i}" for i, message in enumerate(core) if message.role == "tool"}
    window = dialect.write_window(raw, core, (), None, results, indices)
    assert pairing_violations(format_name, raw, window) == []
    written = orjson.dumps(window).decode()
    assert all(text in written for text in results.values())
    assert X in written


def test_no_index_or_no_image_leaves_the_callers_as_they_are() -> None:
    raw, _, _ = anthropic_case()
    core = read_messages(raw, "anthropic")
    callers = ListCallers(raw)
    dialect = dialect_of("anthropic")
    assert dialect.with_images_cleared(callers, core, ()) is callers
    assert dialect.with_images_cleared(callers, core, [1]) is callers  # the assistant's: none
    native = dialect_of("native")
    assert native.clear_images is None
    native_raw = [{"role": "user", "content": "hi"}]
    native_callers = ListCallers(native_raw)
    assert native.with_images_cleared(native_callers, read_messages(native_raw, "native"), [0]) is (
        native_callers
    )


@pytest.mark.parametrize("format_name", sorted(CASES))
def test_the_scanned_messages_give_the_same_bytes(format_name: str) -> None:
    if not compiled.available():
        if os.environ.get("CWP_REQUIRE_COMPILED_READER") == "1":
            raise RuntimeError("the compiled reader is required here but is absent")
        pytest.skip("the compiled reader is not built")
    raw, indices, expected = CASES[format_name]()
    body = orjson.dumps({"messages": raw})
    dialect = dialect_of(format_name)
    scanned = ScannedMessages(body, compiled.scan(body, 64))
    core = scanned.read(dialect)
    window = dialect.write_window(scanned, core, (), None, images_cleared=indices)
    assert orjson.dumps(window) == orjson.dumps(expected)
