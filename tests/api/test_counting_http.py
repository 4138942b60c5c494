"""What counts that has no text in the core model (docs/rules.md#the-tokens-of-a-message), over
HTTP: a Responses shell or patch output, a server-side tool's item or result block, a document or
file part. Each transcript is planned with its items and without them: the tokens differ by the
rule's figure, written out again here, and the characters not at all."""

from __future__ import annotations

import copy
import math
from typing import Any

import orjson
import pytest

pytestmark = pytest.mark.anyio
PATH = "/v1/window/plan"
JSON = {"content-type": "application/json"}
PDF = "JVBERi0xLjQK"  # a file not sent as text: 1,600 tokens, whatever its size
DOCUMENT = 1_600
UNKNOWN_OPENAI_IMAGE = 765


def tokens(text: str) -> int:
    """`estimate`: a quarter of the UTF-8 bytes, rounded up."""
    return math.ceil(len(text.encode()) / 4)


def compact(value: Any) -> str:
    return orjson.dumps(value).decode()


async def plan(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


SEARCH_ACTION = {"type": "search", "query": "rack temps"}
SHELL_OUTPUT = [{"stdout": "/work\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]


def responses_case() -> tuple[list[Any], list[Any], int]:
    with_items: list[Any] = [
        {"role": "user", "content": "Run it."},
        {"type": "local_shell_call", "call_id": "ls1", "action": {"type": "exec"}},
        {"type": "local_shell_call_output", "call_id": "ls1", "output": "a.txt\nb.txt"},
        {"type": "shell_call", "call_id": "sh1", "action": {"commands": ["pwd"]}},
        {"type": "shell_call_output", "call_id": "sh1", "output": SHELL_OUTPUT},
        {"type": "apply_patch_call", "call_id": "ap1", "operation": {"type": "update_file"}},
        {"type": "apply_patch_call_output", "call_id": "ap1", "output": "Done: 1 file"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": SEARCH_ACTION},
        {
            "type": "image_generation_call",
            "id": "ig_1",
            "status": "completed",
            "result": "iVBORw0KGgo=",
            "revised_prompt": "a rack",
        },
        {"role": "assistant", "content": "Done."},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "And this file?"},
                {"type": "input_file", "file_id": "file_1"},
            ],
        },
    ]
    without = copy.deepcopy(with_items)
    for item in (without[2], without[4], without[6]):
        del item["output"]
    del without[7:9]
    without[-1]["content"] = without[-1]["content"][:1]
    extra = (
        tokens("a.txt\nb.txt")
        + tokens(compact(SHELL_OUTPUT))
        + tokens("Done: 1 file")
        + tokens(compact({"action": SEARCH_ACTION}))
        + tokens(compact({"revised_prompt": "a rack"}))
        + UNKNOWN_OPENAI_IMAGE
        + DOCUMENT
    )
    return with_items, without, extra


WEB_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [{"type": "web_search_result", "url": "https://x.test", "title": "Racks"}],
}


def anthropic_case() -> tuple[list[Any], list[Any], int]:
    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf"}}
    pdf["source"]["data"] = PDF
    text_document = {"type": "document", "source": {"type": "text", "data": "notes on rack b"}}
    content_document = {
        "type": "document",
        "source": {"type": "content", "content": [{"type": "text", "text": "rack a: 39C"}]},
    }
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    with_items: list[Any] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Read these."}, pdf, text_document],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
                WEB_RESULT,
                {"type": "text", "text": "Found it."},
                image,  # the model's own image counts nothing
                {"type": "tool_use", "id": "t1", "name": "look", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "ok"}, content_document],
                },
                {"type": "text", "text": "next?"},
            ],
        },
    ]
    without = copy.deepcopy(with_items)
    without[0]["content"] = without[0]["content"][:1]
    del without[1]["content"][1]
    del without[1]["content"][2]
    without[2]["content"][0]["content"] = without[2]["content"][0]["content"][:1]
    web = {key: value for key, value in WEB_RESULT.items() if key != "type"}
    extra = DOCUMENT + tokens("notes on rack b") + tokens(compact(web)) + tokens("rack a: 39C")
    return with_items, without, extra


def bedrock_case() -> tuple[list[Any], list[Any], int]:
    server_result = {
        "toolUseId": "srv_1",
        "content": [{"json": {"stdout": "41"}}],
        "status": "success",
        "type": "nova_code_interpreter_result",
    }
    with_items: list[Any] = [
        {
            "role": "user",
            "content": [
                {"text": "Read these."},
                {"document": {"format": "pdf", "name": "a", "source": {"bytes": PDF}}},
                {"document": {"format": "txt", "name": "b", "source": {"text": "rack b: 41C"}}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"text": "Running."},
                {
                    "toolUse": {
                        "toolUseId": "srv_1",
                        "name": "nova_code_interpreter",
                        "input": {},
                        "type": "server_tool_use",
                    }
                },
                {"toolResult": server_result},
                {"image": {"format": "png", "source": {"bytes": "AA"}}},  # counts nothing
                {"toolUse": {"toolUseId": "tu1", "name": "look", "input": {}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tu1",
                        "content": [
                            {"text": "ok"},
                            {
                                "document": {
                                    "format": "txt",
                                    "name": "c",
                                    "source": {"content": [{"text": "rack c"}]},
                                }
                            },
                        ],
                    }
                },
                {"text": "next?"},
            ],
        },
    ]
    without = copy.deepcopy(with_items)
    without[0]["content"] = without[0]["content"][:1]
    del without[1]["content"][2:4]
    without[2]["content"][0]["toolResult"]["content"] = [{"text": "ok"}]
    server = {"toolUseId": "srv_1", "content": [{"json": {"stdout": "41"}}]}
    extra = DOCUMENT + tokens("rack b: 41C") + tokens(compact(server)) + tokens("rack c")
    return with_items, without, extra


def gemini_case() -> tuple[list[Any], list[Any], int]:
    pdf = {"inlineData": {"mimeType": "application/pdf", "data": PDF}}
    with_items: list[Any] = [
        {"role": "user", "parts": [{"text": "Read this."}, pdf]},
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "look", "args": {}}},
                {"inlineData": {"mimeType": "image/png", "data": "AA"}},  # counts nothing
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "look",
                        "response": {"output": "ok"},
                        "parts": [{"fileData": {"mimeType": "audio/wav", "fileUri": "gs://b/a"}}],
                    }
                },
                {"text": "next?"},
            ],
        },
    ]
    without = copy.deepcopy(with_items)
    without[0]["parts"] = without[0]["parts"][:1]
    without[1]["parts"] = without[1]["parts"][:1]
    del without[2]["parts"][0]["functionResponse"]["parts"]
    return with_items, without, 2 * DOCUMENT


def openai_case() -> tuple[list[Any], list[Any], int]:
    with_items: list[Any] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Read this."},
                {"type": "file", "file": {"file_id": "file_1"}},
            ],
        },
        {"role": "assistant", "content": "Reading."},
    ]
    without = copy.deepcopy(with_items)
    without[0]["content"] = without[0]["content"][:1]
    return with_items, without, DOCUMENT


CASES = {
    "responses": responses_case,
    "anthropic": anthropic_case,
    "bedrock": bedrock_case,
    "gemini": gemini_case,
    "openai": openai_case,
}


@pytest.mark.parametrize("format_name", sorted(CASES))
async def test_items_without_core_text_add_their_tokens_and_no_characters(
    client: Any, format_name: str
) -> None:
    with_items, without, extra = CASES[format_name]()
    body = {"format": format_name, "tokenizer": "estimate"}
    seen = await plan(client, {**body, "messages": with_items})
    plain = await plan(client, {**body, "messages": without})
    assert seen["stats"]["tokens_before"] - plain["stats"]["tokens_before"] == extra
    assert seen["stats"]["chars_before"] == plain["stats"]["chars_before"]


@pytest.mark.parametrize("format_name", sorted(CASES))
async def test_without_a_tokenizer_they_change_nothing(client: Any, format_name: str) -> None:
    with_items, without, _ = CASES[format_name]()
    seen = await plan(client, {"format": format_name, "messages": with_items})
    plain = await plan(client, {"format": format_name, "messages": without})
    assert "tokens_before" not in seen["stats"]
    assert seen["stats"]["chars_before"] == plain["stats"]["chars_before"]


async def test_a_person_screenshot_alone_is_not_the_request(client: Any) -> None:
    """A user message holding only an image asks nothing (docs/rules.md#the-current-request):
    the person's words before it stay the request."""
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    messages = [
        {"role": "user", "content": "Click the blue button."},
        {"role": "assistant", "content": "Clicking."},
        {"role": "user", "content": [image]},
    ]
    answer = await plan(client, {"format": "anthropic", "messages": messages})
    assert answer["current_request"] == {"message_index": 0, "turn_index": 0}
