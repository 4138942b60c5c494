"""The recall text of a core message in each format (docs/rules.md#answering-a-recall): a user or
tool message's text with `[image]` and `[file]` where its other parts stood, markers writing
nothing, and an assistant's call lines; and on every message of the fixtures and Swagger examples
that carries no such part, exactly the text the reader counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.api import examples
from app.core.messages import Message
from app.formats import detect_format, dialect_of

FIXTURES = Path(__file__).parent.parent / "fixtures"
PNG = {"type": "base64", "media_type": "image/png", "data": examples.SCREEN_PIXEL}


def texts(format: str, messages: list[Any]) -> list[tuple[str, str]]:
    """(role, recall text) of every core message."""
    dialect = dialect_of(format)
    core = dialect.read(messages)
    text_of = dialect.recall_texts(messages)
    return [(message.role, text_of(message)) for message in core]


def test_native_assistant_lines_and_arguments() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {"id": "c1", "name": "read", "arguments": {"path": "a.py", "n": 2}},
                {"id": "c2", "name": "ls"},
                {"id": "c3", "name": "run", "arguments": None},
                {"id": "c4", "name": "sh", "arguments": "ls -la"},
            ],
        },
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c5", "name": "x"}]},
        {"role": "assistant", "content": "done"},
    ]
    assert texts("native", messages)[1:] == [
        ("assistant", 'Looking.\nread {"path":"a.py","n":2}\nls {}\nrun {}\nsh ls -la'),
        ("assistant", "x {}"),
        ("assistant", "done"),
    ]


def test_openai_parts_are_marked_where_they_stood() -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "before "},
                {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                {"type": "text", "text": " between "},
                {"type": "file", "file": {"file_id": "f1"}},
                {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}},
            ],
        },
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "shot", "arguments": ""}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": [
                {"type": "image_url", "image_url": {"url": "https://x/z.png"}},
                {"type": "text", "text": "seen"},
            ],
        },
    ]
    assert texts("openai", messages) == [
        ("user", "before [image] between [file][file]"),
        ("assistant", "shot {}"),
        ("tool", "[image]seen"),
    ]


def test_anthropic_blocks_and_tool_result_content() -> None:
    messages = [
        {"role": "user", "content": "look"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm", "signature": "s"},
                {"type": "text", "text": "Taking one."},
                {"type": "tool_use", "id": "t1", "name": "screen", "input": {"zoom": 2}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [
                        {"type": "text", "text": "shot:"},
                        {"type": "image", "source": PNG},
                        {"type": "document", "source": {"type": "text", "data": "d"}},
                    ],
                },
                {"type": "image", "source": PNG},
                {"type": "text", "text": "and this one"},
            ],
        },
    ]
    assert texts("anthropic", messages) == [
        ("user", "look"),
        ("assistant", 'Taking one.\nscreen {"zoom":2}'),
        ("tool", "shot:[image][file]"),
        ("user", "[image]and this one"),
    ]


def test_responses_items_outputs_and_paired_outputs() -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "see "},
                {"type": "input_image", "image_url": "https://x/a.png"},
                {"type": "input_file", "file_id": "f1"},
            ],
        },
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "read", "arguments": '{"p":1}'},
        {"type": "shell_call", "call_id": "c2", "action": {"commands": ["ls"]}},
        {"type": "computer_call", "call_id": "c3", "action": {"type": "screenshot"}},
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [
                {"type": "input_text", "text": "one"},
                {"type": "input_image", "image_url": "https://x/b.png"},
            ],
        },
        {"type": "shell_call_output", "call_id": "c2", "output": [{"stdout": "a.py"}]},
        {
            "type": "computer_call_output",
            "call_id": "c3",
            "output": {"type": "computer_screenshot", "image_url": "https://x/c.png"},
        },
    ]
    assert texts("responses", messages) == [
        ("user", "see [image][file]"),
        (
            "assistant",
            'read {"p":1}\nshell_call {"commands":["ls"]}\ncomputer_call {"type":"screenshot"}',
        ),
        ("tool", "one[image]"),
        ("tool", '[{"stdout":"a.py"}]'),
        ("tool", "[image]"),
    ]


def test_gemini_parts_and_function_response_media() -> None:
    messages = [
        {
            "role": "user",
            "parts": [
                {"text": "this: "},
                {"inlineData": {"mimeType": "image/png", "data": examples.SCREEN_PIXEL}},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/r.pdf"}},
            ],
        },
        {"role": "model", "parts": [{"functionCall": {"name": "get", "args": {"k": "v"}}}]},
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "get",
                        "response": {"output": "value"},
                        "parts": [{"inlineData": {"mimeType": "image/jpeg", "data": ""}}],
                    }
                }
            ],
        },
    ]
    assert texts("gemini", messages) == [
        ("user", "this: [image][file]"),
        ("assistant", 'get {"k":"v"}'),
        ("tool", "value[image]"),
    ]


def test_bedrock_blocks_json_and_markers() -> None:
    image = {"image": {"format": "png", "source": {"bytes": examples.SCREEN_PIXEL}}}
    messages = [
        {"role": "user", "content": [{"text": "start"}, {"cachePoint": {"type": "default"}}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "b1", "name": "probe", "input": {"x": 1}}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "b1",
                        "content": [
                            {"text": "t"},
                            {"json": {"a": [1, 2]}},
                            image,
                            {"document": {"format": "pdf", "name": "r", "source": {"bytes": ""}}},
                        ],
                    }
                },
                {"cachePoint": {"type": "default"}},
                {"text": "next"},
                image,
                {"guardContent": {"text": {"text": "g"}}},
            ],
        },
    ]
    assert texts("bedrock", messages) == [
        ("user", "start"),
        ("assistant", 'probe {"x":1}'),
        ("tool", 't{"a":[1,2]}[image][file]'),
        ("user", "next[image]"),
    ]


# ---- every message without other parts: exactly the reader's text --------------------------------


def fixture_transcripts() -> list[tuple[str, list[Any], Any]]:
    found = []
    for path in sorted(FIXTURES.glob("*.json")):
        body = json.loads(path.read_text(encoding="utf-8"))
        found.append((path.name, body["messages"], body.get("system")))
    for name in dir(examples):
        value = getattr(examples, name)
        if name.endswith("_TRANSCRIPT") and isinstance(value, list):
            found.append((name, value, None))
    return found


def plain(message: Message) -> bool:
    return not message.images and not message.extra_tokens and not message.extra_texts


@pytest.mark.parametrize(
    ("name", "messages", "system"),
    fixture_transcripts(),
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_message_without_other_parts_is_its_text(
    name: str, messages: list[Any], system: Any
) -> None:
    dialect = dialect_of(detect_format(messages, system))
    text_of = dialect.recall_texts(messages)
    checked = 0
    for message in dialect.read(messages):
        if message.role in ("user", "tool") and plain(message):
            assert text_of(message) == message.content
            checked += 1
        if message.images:
            assert text_of(message).count("[image]") >= len(message.images)
    assert checked
