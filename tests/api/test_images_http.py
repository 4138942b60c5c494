"""Images over HTTP (docs/rules.md#images): each dialect's image parts and blocks add their rule's
tokens to `turns`, `stats` and `budget`, never characters; URLs and unreadable data count the
unknown size; and a screen-driving run planned with `fit` sends no window over `max_tokens`,
recounted here with each screenshot's own size and the rule written out again below."""

from __future__ import annotations

import math
from typing import Any

import orjson
import pytest

from app.core.tokens import estimate_tokens, message_tokens
from app.formats import read_messages
from bench.images import b64, data_url, gif, jpeg, png, webp_lossy

pytestmark = pytest.mark.anyio
PATH = "/v1/window/plan"
JSON = {"content-type": "application/json"}

SCREEN = png(1280, 800)
SCREEN_B64 = b64(SCREEN)
SCREEN_URL = data_url(SCREEN)
OPENAI_SCREEN = 85 + 170 * 6  # 1280×800 → 1228×768: 3 × 2 tiles
CLAUDE_SCREEN = 1_366  # 1,024,000 pixels / 750


def tiles(width: int, height: int, detail: str | None = None) -> int:
    """GPT-4o tiles, written out again from the rule's table."""
    if detail == "low":
        return 85
    if max(width, height) > 2048:
        longest = max(width, height)
        width, height = width * 2048 // longest, height * 2048 // longest
    if min(width, height) > 768:
        shortest = min(width, height)
        width, height = width * 768 // shortest, height * 768 // shortest
    return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)


def claude(width: int, height: int) -> int:
    """Claude's pixels / 750, written out again from the rule's table."""
    if max(width, height) > 1568:
        longest = max(width, height)
        width, height = width * 1568 // longest, height * 1568 // longest
    if width * height > 1_200_000:
        factor = math.sqrt(1_200_000 / (width * height))
        width, height = math.floor(width * factor), math.floor(height * factor)
    return math.ceil(width * height / 750)


async def plan(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def anthropic_image(data: str) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def bedrock_image(data: str) -> dict[str, Any]:
    return {"image": {"format": "png", "source": {"bytes": data}}}


def gemini_image(data: str, level: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"inlineData": {"mimeType": "image/png", "data": data}}
    if level is not None:
        part["mediaResolution"] = {"level": level}
    return part


# (format, messages with the images, the same without them, the images' tokens)
CASES: list[tuple[str, list[Any], list[Any], int]] = [
    (
        "openai",
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is on screen?"},
                    {"type": "image_url", "image_url": {"url": SCREEN_URL}},
                    {"type": "image_url", "image_url": {"url": SCREEN_URL, "detail": "low"}},
                    {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
                ],
            }
        ],
        [{"role": "user", "content": [{"type": "text", "text": "What is on screen?"}]}],
        OPENAI_SCREEN + 85 + 765,
    ),
    (
        "anthropic",
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Look."}, anthropic_image(SCREEN_B64)],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "computer", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [
                            {"type": "text", "text": "done"},
                            anthropic_image(b64(gif(300, 200))),
                            {"type": "image", "source": {"type": "url", "url": "https://x/y"}},
                            anthropic_image("not base64 at all"),
                        ],
                    },
                    {"type": "text", "text": "next?"},
                ],
            },
        ],
        [
            {"role": "user", "content": [{"type": "text", "text": "Look."}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "computer", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "done"}],
                    },
                    {"type": "text", "text": "next?"},
                ],
            },
        ],
        CLAUDE_SCREEN + 80 + 1_600 + 1_600,  # 300×200: 60,000 / 750 = 80
    ),
    (
        "responses",
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Open the page."},
                    {"type": "input_image", "image_url": data_url(jpeg(1920, 1080), "image/jpeg")},
                    {"type": "input_image", "file_id": "file_1", "detail": "high"},
                ],
            },
            {"type": "computer_call", "call_id": "c1", "action": {"type": "screenshot"}},
            {
                "type": "computer_call_output",
                "call_id": "c1",
                "output": {"type": "computer_screenshot", "image_url": SCREEN_URL},
            },
            {
                "type": "function_call_output",
                "call_id": "c0",
                "output": [
                    {"type": "input_text", "text": "chart"},
                    {"type": "input_image", "image_url": SCREEN_URL, "detail": "low"},
                ],
            },
        ],
        [
            {"role": "user", "content": [{"type": "input_text", "text": "Open the page."}]},
            {"type": "computer_call", "call_id": "c1", "action": {"type": "screenshot"}},
            {"type": "computer_call_output", "call_id": "c1", "output": {"type": "x"}},
            {
                "type": "function_call_output",
                "call_id": "c0",
                "output": [{"type": "input_text", "text": "chart"}],
            },
        ],
        tiles(1920, 1080) + 765 + OPENAI_SCREEN + 85,
    ),
    (
        "gemini",
        [
            {
                "role": "user",
                "parts": [
                    {"text": "Look."},
                    gemini_image(SCREEN_B64, "MEDIA_RESOLUTION_LOW"),
                    {"fileData": {"mimeType": "image/webp", "fileUri": "gs://b/s.webp"}},
                    {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/d.pdf"}},
                ],
            },
            {"role": "model", "parts": [{"functionCall": {"name": "shot", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "shot",
                            "response": {"output": "ok"},
                            "parts": [gemini_image(SCREEN_B64, "MEDIA_RESOLUTION_ULTRA_HIGH")],
                        }
                    }
                ],
            },
        ],
        [
            {
                "role": "user",
                "parts": [
                    {"text": "Look."},
                    {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/d.pdf"}},
                ],
            },
            {"role": "model", "parts": [{"functionCall": {"name": "shot", "args": {}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "shot", "response": {"output": "ok"}}}],
            },
        ],
        280 + 1_120 + 2_240,
    ),
    (
        "bedrock",
        [
            {
                "role": "user",
                "content": [
                    {"text": "Look."},
                    bedrock_image(b64(webp_lossy(2000, 1000))),
                    {"image": {"format": "png", "source": {"s3Location": {"uri": "s3://b/k"}}}},
                ],
            },
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": "shot", "input": {}}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "content": [{"text": "ok"}, bedrock_image(SCREEN_B64)],
                        }
                    }
                ],
            },
        ],
        [
            {"role": "user", "content": [{"text": "Look."}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": "shot", "input": {}}}],
            },
            {
                "role": "user",
                "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}}],
            },
        ],
        claude(2000, 1000) + 1_600 + CLAUDE_SCREEN,
    ),
]


@pytest.mark.parametrize(("format_name", "with_images", "without", "tokens"), CASES)
@pytest.mark.parametrize("strategy", ["sliding-window", "fit"])
async def test_images_add_tokens_and_no_characters(
    client: Any,
    format_name: str,
    with_images: list[Any],
    without: list[Any],
    tokens: int,
    strategy: str,
) -> None:
    options: dict[str, Any] = {"format": format_name, "include_turns": True}
    if strategy == "fit":
        options["strategy"] = {"kind": "fit", "max_tokens": 100_000}
    else:
        options["tokenizer"] = "estimate"
    seen = await plan(client, {**options, "messages": with_images})
    plain = await plan(client, {**options, "messages": without})
    assert seen["stats"]["tokens_before"] - plain["stats"]["tokens_before"] == tokens
    assert (
        sum(turn["tokens"] for turn in seen["turns"])
        - sum(turn["tokens"] for turn in plain["turns"])
        == tokens
    )
    assert [turn["chars"] for turn in seen["turns"]] == [turn["chars"] for turn in plain["turns"]]
    assert {key: value for key, value in seen["stats"].items() if "chars" in key} == {
        key: value for key, value in plain["stats"].items() if "chars" in key
    }
    if strategy == "fit":
        assert seen["budget"]["total_before"] - plain["budget"]["total_before"] == tokens


async def test_without_a_tokenizer_images_change_nothing(client: Any) -> None:
    format_name, with_images, without, _ = CASES[1]
    body = {"format": format_name, "include_turns": True}
    seen = await plan(client, {**body, "messages": with_images})
    plain = await plan(client, {**body, "messages": without})
    assert "tokens" not in seen["turns"][0]
    assert seen["turns"] == plain["turns"]


# ---- a screen-driving run planned with fit ------------------------------------------------------

SCREENS = [(1280, 800), (1280, 800), (1440, 900), (1280, 800), (2560, 1600)]
PICTURES = {size: png(*size) for size in set(SCREENS)}
# Each payload string the run sends, and the size it was made with.
SIZE_OF = {b64(image): size for size, image in PICTURES.items()} | {
    data_url(image): size for size, image in PICTURES.items()
}
SYSTEM = "You drive a screen. Take one action per step."
TASK = "Book the cheapest flight to Lisbon next Friday and show me the confirmation."
STEPS = 26
SYSTEM_SHAPES: dict[str, Any] = {
    "bedrock": [{"text": SYSTEM}],
    "gemini": {"parts": [{"text": SYSTEM}]},
}


def step(format_name: str, k: int, size: tuple[int, int]) -> list[Any]:
    """Step `k` of the run: the model's action and the screenshot it gets back."""
    data = b64(PICTURES[size])
    url = data_url(PICTURES[size])
    action = {"action": "left_click", "coordinate": [10 * k, 20 * k]}
    thought = f"Step {k}: the page shows the search form; clicking the next field."
    if format_name == "anthropic":
        return [
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": thought},
                    {"type": "tool_use", "id": f"tu_{k}", "name": "computer", "input": action},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"tu_{k}",
                        "content": [anthropic_image(data)],
                    }
                ],
            },
        ]
    if format_name == "bedrock":
        return [
            {
                "role": "assistant",
                "content": [
                    {"text": thought},
                    {"toolUse": {"toolUseId": f"tu_{k}", "name": "computer", "input": action}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"toolResult": {"toolUseId": f"tu_{k}", "content": [bedrock_image(data)]}}
                ],
            },
        ]
    if format_name == "responses":
        return [
            {
                "type": "reasoning",
                "id": f"rs_{k}",
                "summary": [{"type": "summary_text", "text": thought}],
            },
            {
                "type": "computer_call",
                "id": f"cu_{k}",
                "call_id": f"c{k}",
                "action": {"type": "click", "x": 10 * k, "y": 20 * k, "button": "left"},
                "pending_safety_checks": [],
                "status": "completed",
            },
            {
                "type": "computer_call_output",
                "call_id": f"c{k}",
                "output": {"type": "computer_screenshot", "image_url": url},
            },
        ]
    if format_name == "gemini":
        return [
            {
                "role": "model",
                "parts": [
                    {"text": thought},
                    {"functionCall": {"id": f"g{k}", "name": "computer", "args": action}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": f"g{k}",
                            "name": "computer",
                            "response": {"output": "done"},
                            "parts": [gemini_image(data)],
                        }
                    }
                ],
            },
        ]
    assert format_name == "openai"
    return [
        {
            "role": "assistant",
            "content": thought,
            "tool_calls": [
                {
                    "id": f"call_{k}",
                    "type": "function",
                    "function": {"name": "computer", "arguments": orjson.dumps(action).decode()},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": f"call_{k}",
            "content": [
                {"type": "text", "text": "done"},
                {"type": "image_url", "image_url": {"url": url}},
            ],
        },
    ]


def own_image_tokens(format_name: str, size: tuple[int, int]) -> int:
    if format_name in ("openai", "responses"):
        return tiles(*size)
    if format_name in ("anthropic", "bedrock"):
        return claude(*size)
    return 1_120  # gemini: the default media resolution, whatever the size


def payloads(value: Any) -> list[str]:
    """Every string in `value` that is one of the run's screenshots."""
    if isinstance(value, str):
        return [value] if value in SIZE_OF else []
    if isinstance(value, dict):
        return [found for item in value.values() for found in payloads(item)]
    if isinstance(value, list):
        return [found for item in value for found in payloads(item)]
    return []


def recounted(format_name: str, window: list[Any], system: str | None, reserve: int) -> int:
    """The window's total: its texts and calls by the message rule (images set aside), each
    screenshot by its own size and the format's image rule, the system prompt and the reserve."""
    texts = sum(
        message_tokens(message._replace(images=()), estimate_tokens)
        for message in read_messages(window, format_name)
    )
    images = sum(own_image_tokens(format_name, SIZE_OF[found]) for found in payloads(window))
    prompt = 0 if system is None else estimate_tokens(system) + 4
    return prompt + texts + images + reserve


@pytest.mark.parametrize("format_name", ["anthropic", "bedrock", "responses", "gemini", "openai"])
async def test_a_screen_driving_run_never_sends_a_window_over_its_budget(
    client: Any, format_name: str
) -> None:
    """The agent keeps its whole history and sends back the last record (as the clients' hooks
    do); every window the plan returns is recounted here and must fit `max_tokens`, unless the
    answer says the budget was not met."""
    strategy = {"kind": "fit", "max_tokens": 12_000, "reserve_tokens": 500}
    system = None if format_name == "openai" else SYSTEM
    if format_name == "openai":
        history: list[Any] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": TASK},
        ]
    elif format_name == "gemini":
        history = [{"role": "user", "parts": [{"text": TASK}]}]
    else:
        history = [{"role": "user", "content": TASK}]
    records: list[Any] = []
    engaged = 0
    for k in range(1, STEPS + 1):
        history += step(format_name, k, SCREENS[k % len(SCREENS)])
        body: dict[str, Any] = {
            "format": format_name,
            "messages": history,
            "strategy": strategy,
            "prior_records": records[-1:],
            "include_window": True,
        }
        if system is not None:
            body["system"] = SYSTEM_SHAPES.get(format_name, system)
        answer = await plan(client, body)
        budget = answer["budget"]
        total = recounted(format_name, answer["window"], system, 500)
        assert total == budget["total_after"], (k, total, budget)
        assert total <= strategy["max_tokens"] or not budget["met"], (k, total, budget)
        if answer["record"] is not None:
            records.append(answer["record"])
            engaged += 1
    # The run outgrew its budget: the screenshots alone are over it by the last step.
    assert engaged > 0
    assert sum(own_image_tokens(format_name, s) for s in SCREENS) * STEPS // 5 > 12_000


async def test_a_shaped_result_no_longer_counts_the_images_it_carried(client: Any) -> None:
    """A capped or cleared result is written as its replacement text alone, so the images that
    were inside it leave the count with it (docs/rules.md#images)."""
    result = [
        {"type": "text", "text": "screen after the click " + "x" * 400},
        {"type": "image_url", "image_url": {"url": SCREEN_URL}},
    ]
    messages = [
        {"role": "user", "content": "Open the settings."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "click", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": result},
    ]
    body = {"format": "openai", "messages": messages, "tokenizer": "estimate"}
    as_sent = await plan(client, body)
    capped = await plan(client, {**body, "cap": {"max_chars": 200}})
    assert [item["action"] for item in capped["shaped"]] == ["capped"]
    sent_turn, capped_turn = as_sent["turns"][-1]["tokens"], capped["turns"][-1]["tokens"]
    assert sent_turn > OPENAI_SCREEN
    assert capped_turn < sent_turn - OPENAI_SCREEN
