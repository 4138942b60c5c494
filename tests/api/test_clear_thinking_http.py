"""`clear.thinking` over HTTP (docs/rules.md#images-and-thinking): a run of four actions in each
dialect that carries reasoning, planned with `clear {"keep_last": 1, "step": 2, "thinking": true}`
under a sliding window that removes nothing.

Four actions, the fourth after the last assistant message: `N` = 3, the boundary is the 2nd result.
The reasoning of the assistant messages at or before it leaves (never the last assistant
message's; a message whose only content is reasoning keeps it); `shaped` has one
`thinking-cleared` entry per caller message (per item in Responses) with the visible characters;
window indices and `messages_after` agree with the window; each window passes the SDK's types and
the pairing checker; the token figures do not move; with `thinking` off nothing changes.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import orjson
import pytest

from tests.api.test_clear_images_http import sdk_check
from tests.api.test_frames_http import pairing_violations
from tests.api.test_responses_http import sdk_valid_items

pytestmark = pytest.mark.anyio
PATH = "/v1/window/plan"
JSON = {"content-type": "application/json"}
SLIDING = {"kind": "sliding-window", "keep_recent_turns": 20}
TASK = "Find the slowest endpoint and open an issue."
RESULT = "GET /reports took 4.2s; " * 8
SIG = base64.urlsafe_b64encode(b"\x01signature\xfe" * 4).decode()


def think(step: int) -> str:
    return f"Step {step}: check the next endpoint."


# ---- the runs: (messages, caller indices whose reasoning leaves, entries expected) -------------
# Each expected entry: (message_index, window_index, chars_before).


def anthropic_run() -> tuple[list[Any], list[Any], list[tuple[int, int, int]]]:
    def call(step: int) -> dict[str, Any]:
        return {"type": "tool_use", "id": f"c{step}", "name": "probe", "input": {}}

    def result(step: int) -> dict[str, Any]:
        return {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"c{step}", "content": RESULT}],
        }

    thinking = {"type": "thinking", "thinking": think(1), "signature": "sig1"}
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}
    messages: list[Any] = [
        {"role": "user", "content": TASK},
        {"role": "assistant", "content": [thinking, redacted, call(1)]},  # 1: both leave
        result(1),
        {"role": "assistant", "content": [redacted, call(2)]},  # 3: leaves (0 chars)
        result(2),
        {"role": "assistant", "content": [{**thinking, "thinking": think(3)}, call(3)]},  # after b
        result(3),
        {"role": "assistant", "content": [{**thinking, "thinking": think(4)}, call(4)]},  # last
        result(4),
    ]
    expected = copy.deepcopy(messages)
    expected[1]["content"] = [call(1)]
    expected[3]["content"] = [call(2)]
    return messages, expected, [(1, 1, len(think(1))), (3, 3, 0)]


def bedrock_run() -> tuple[list[Any], list[Any], list[tuple[int, int, int]]]:
    def call(step: int) -> dict[str, Any]:
        return {"toolUse": {"toolUseId": f"c{step}", "name": "probe", "input": {}}}

    def result(step: int) -> dict[str, Any]:
        return {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": f"c{step}", "content": [{"text": RESULT}]}}],
        }

    def text(step: int) -> dict[str, Any]:
        return {"reasoningContent": {"reasoningText": {"text": think(step), "signature": "s"}}}

    redacted = {"reasoningContent": {"redactedContent": "cmVkYWN0ZWQ="}}
    messages: list[Any] = [
        {"role": "user", "content": [{"text": TASK}]},
        {"role": "assistant", "content": [text(1), redacted, call(1)]},
        result(1),
        {"role": "assistant", "content": [text(2), {"text": "Next one."}, call(2)]},
        result(2),
        {"role": "assistant", "content": [text(3), call(3)]},
        result(3),
        {"role": "assistant", "content": [text(4), call(4)]},
        result(4),
    ]
    expected = copy.deepcopy(messages)
    expected[1]["content"] = [call(1)]
    expected[3]["content"] = [{"text": "Next one."}, call(2)]
    return messages, expected, [(1, 1, len(think(1))), (3, 3, len(think(2)))]


def gemini_run() -> tuple[list[Any], list[Any], list[tuple[int, int, int]]]:
    def call(step: int) -> dict[str, Any]:
        part = {"functionCall": {"id": f"c{step}", "name": "probe", "args": {"n": step}}}
        return {**part, "thoughtSignature": SIG}

    def result(step: int) -> dict[str, Any]:
        response = {"id": f"c{step}", "name": "probe", "response": {"output": RESULT}}
        return {"role": "user", "parts": [{"functionResponse": response}]}

    def thought(step: int) -> dict[str, Any]:
        return {"text": think(step), "thought": True}

    messages: list[Any] = [
        {"role": "user", "parts": [{"text": TASK}]},
        {"role": "model", "parts": [thought(1), call(1)]},
        result(1),
        {"role": "model", "parts": [thought(2), {"text": "Next."}, call(2)]},
        result(2),
        {"role": "model", "parts": [thought(3), call(3)]},
        result(3),
        {"role": "model", "parts": [thought(4), call(4)]},
        result(4),
    ]
    expected = copy.deepcopy(messages)
    expected[1]["parts"] = [call(1)]  # the signature stays on the call part
    expected[3]["parts"] = [{"text": "Next."}, call(2)]
    return messages, expected, [(1, 1, len(think(1))), (3, 3, len(think(2)))]


def responses_run() -> tuple[list[Any], list[Any], list[tuple[int, int, int]]]:
    def reasoning(name: str, summary: str = "") -> dict[str, Any]:
        item: dict[str, Any] = {"type": "reasoning", "id": f"rs_{name}", "summary": []}
        if summary:
            item["summary"] = [{"type": "summary_text", "text": summary}]
        item["encrypted_content"] = f"gAAAAAB{name}=="
        return item

    def call(step: int, with_id: bool = False) -> dict[str, Any]:
        item: dict[str, Any] = {"type": "function_call"}
        if with_id:
            item["id"] = f"fc_{step}"
        return {**item, "call_id": f"c{step}", "name": "probe", "arguments": "{}"}

    def output(step: int) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": f"c{step}", "output": RESULT}

    messages: list[Any] = [
        {"role": "user", "content": TASK},  # 0
        reasoning("a", think(1)),  # 1: leaves
        call(1),  # 2
        output(1),  # 3
        reasoning("b"),  # 4: leaves (encrypted only: 0)
        {"role": "assistant", "content": "Checking the next one."},  # 5
        reasoning("c", "kept"),  # 6: its next item carries an id: stays
        call(2, with_id=True),  # 7
        output(2),  # 8 (the boundary)
        reasoning("d", think(3)),  # 9: after the boundary
        call(3),  # 10
        output(3),  # 11
        {"role": "user", "content": "Also the slowest write."},  # 12
        reasoning("e", "only reasoning"),  # 13: a run of reasoning alone
        {"role": "user", "content": "Go on."},  # 14
        reasoning("f", think(4)),  # 15: the last assistant run
        call(4),  # 16
        output(4),  # 17
    ]
    expected = [item for position, item in enumerate(messages) if position not in (1, 4)]
    # The item at 1 leaves: its entry names the position where it was (1); the item at 4 is
    # then at window position 3.
    return messages, expected, [(1, 1, len(think(1))), (4, 3, 0)]


RUNS = {
    "anthropic": anthropic_run,
    "bedrock": bedrock_run,
    "gemini": gemini_run,
    "responses": responses_run,
}


def checked(fmt: str, sent: list[Any], window: list[Any]) -> list[str]:
    """The pairing checker's findings on the window that the input does not already have (the
    Responses run made of reasoning alone is one the checker finds in the input itself)."""
    found = pairing_violations(fmt, sent, window)
    own = {finding.split(": ", 1)[-1] for finding in pairing_violations(fmt, sent, sent)}
    return [finding for finding in found if finding.split(": ", 1)[-1] not in own]


async def plan(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def body_of(fmt: str, messages: list[Any], thinking: bool | None) -> dict[str, Any]:
    clear: dict[str, Any] = {"keep_last": 1, "step": 2}
    if thinking is not None:
        clear["thinking"] = thinking
    return {
        "messages": messages,
        "format": fmt,
        "strategy": SLIDING,
        "tokenizer": "estimate",
        "keep_last_tool_results": 0,
        "clear": clear,
    }


@pytest.mark.parametrize("fmt", sorted(RUNS))
async def test_the_reasoning_at_or_before_the_boundary_leaves(client: Any, fmt: str) -> None:
    messages, expected, entries = RUNS[fmt]()
    sent = copy.deepcopy(messages)
    answer = await plan(client, body_of(fmt, messages, True))
    assert messages == sent
    window = answer["window"]
    # Cleared results are placeholders: compare everything else.
    cleared = {e["window_index"] for e in answer["shaped"] if e["action"] == "cleared"}
    assert [e["tool_call_id"] for e in answer["shaped"] if e["action"] == "cleared"] == ["c1", "c2"]
    assert len(window) == len(expected) == answer["stats"]["messages_after"]
    for index, (written, wanted) in enumerate(zip(window, expected, strict=True)):
        if index not in cleared:
            assert orjson.dumps(written) == orjson.dumps(wanted), index
    thinking = [
        (e["message_index"], e["window_index"], e["chars_before"])
        for e in answer["shaped"]
        if e["action"] == "thinking-cleared"
    ]
    assert thinking == entries
    for entry in answer["shaped"]:
        if entry["action"] == "thinking-cleared":
            assert entry["tool_call_id"] is None and entry["chars_after"] == 0
    # A caller message's entries: its results, then its thinking-cleared entry; in caller order.
    order = [(e["message_index"], e["action"] == "thinking-cleared") for e in answer["shaped"]]
    assert order == sorted(order)
    # The cleared result's window index is where the window holds it.
    for entry in answer["shaped"]:
        if entry["action"] == "cleared":
            assert entry["tool_call_id"] in orjson.dumps(window[entry["window_index"]]).decode()
    sdk_check(fmt, window)
    assert checked(fmt, messages, window) == []

    off = await plan(client, body_of(fmt, messages, False))
    assert await plan(client, body_of(fmt, messages, None)) == off
    assert [e for e in off["shaped"] if e["action"] == "thinking-cleared"] == []
    # The thinking entries never change the token figures.
    token_keys = [key for key in off["stats"] if key.startswith("tokens")]
    assert token_keys
    for key in token_keys:
        assert answer["stats"][key] == off["stats"][key], key
    # Planned again, the window sent back loses nothing more.
    again = await plan(client, body_of(fmt, window, True))
    assert again["window"] == window


async def test_responses_reasoning_of_a_run_made_only_of_reasoning_stays(client: Any) -> None:
    """A run whose only items are reasoning keeps them, even at or before the boundary."""
    messages, _, _ = responses_run()
    # The run of reasoning alone moved before the boundary: two more actions after it.
    more = [
        {"type": "function_call", "call_id": f"c{n}", "name": "probe", "arguments": "{}"}
        for n in (5, 6)
    ]
    outputs = [
        {"type": "function_call_output", "call_id": f"c{n}", "output": RESULT} for n in (5, 6)
    ]
    longer = [*messages, more[0], outputs[0], more[1], outputs[1]]
    answer = await plan(client, body_of("responses", longer, True))
    window = answer["window"]
    assert {"type": "reasoning", "id": "rs_e"}.items() <= {
        k: v for item in window if item.get("id") == "rs_e" for k, v in item.items()
    }.items()
    assert any(item.get("id") == "rs_c" for item in window)
    assert checked("responses", longer, window) == []
    sdk_valid_items(window)


@pytest.mark.parametrize("fmt", sorted(RUNS))
def test_the_compiled_reader_gives_the_python_answer(fmt: str) -> None:
    """The compiled path and the Python path answer these bodies (and the images runs) with the
    same bytes, images and thinking on or off."""
    compiled_reader = pytest.importorskip("tests.api.test_compiled_reader")
    from tests.api.test_clear_images_http import RUNS as IMAGE_RUNS
    from tests.api.test_clear_images_http import body_of as images_body

    messages, _, _ = RUNS[fmt]()
    for thinking in (True, False):
        compiled_reader.assert_same_answer(orjson.dumps(body_of(fmt, messages, thinking)))
    screens = IMAGE_RUNS[fmt]().messages
    for images in (True, False):
        body = images_body(fmt, screens, {"keep_last_tool_results": 1}, images)
        compiled_reader.assert_same_answer(orjson.dumps(body))
