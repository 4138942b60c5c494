"""Clear (docs/rules.md#clear) over HTTP: C1–C3 in native, OpenAI and Anthropic byte for byte (the
newer dialects run them in `test_dialect_examples.py`), a result with an image inside cleared in
each format that can carry one, `fit` with clearing first, the validation of every `clear` key, the
answer's place for `shaped`, and the metrics."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import orjson
import pytest

from tests.api.test_formats_equivalence import convert
from tests.api.test_shaping_formats import at, result_text_path
from tests.core.native_wire import wire
from tests.core.window_fixtures import R, T, U, W

pytestmark = pytest.mark.anyio

PATH = "/v1/window/plan"
JSON = {"content-type": "application/json"}
WIRES = ("native", "openai", "anthropic")
TT = "t" * 300

C1_CORE = W(
    U("TASK"),
    R("c1", "read", TT),
    R("c2", "read", TT),
    R("c3", "grep", TT),
    R("c4", "read", TT),
    R("c5", "grep", TT),
    R("c6", "read", TT),
)
C1 = wire(C1_CORE)
C2 = wire([*C1_CORE, *R("c7", "grep", TT)])
C2_MOVED = wire([*C1_CORE, *R("c7", "grep", TT), *R("c8", "read", TT)])
C3 = copy.deepcopy(C2_MOVED)
C3[4] = wire([T("c2", "read", "ok")])[0]
OPTIONS: dict[str, Any] = {
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 20},
    "keep_last_tool_results": 2,
    "clear": {"keep_last": 1, "step": 2},
}
C3_OPTIONS: dict[str, Any] = {
    **OPTIONS,
    "clear": {"keep_last": 1, "step": 2, "exclude_tools": ["grep"]},
    "ledger": [{"tool_call_id": "c1", "standing": "fact"}],
}
# The worked examples (native messages, options) and their `shaped` entries:
# (message_index, window_index, tool_call_id, action, chars_before, chars_after).
CLEAR_EXAMPLES: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "C1": (C1, OPTIONS),
    "C2": (C2, OPTIONS),
    "C2-moved": (C2_MOVED, OPTIONS),
    "C3": (C3, C3_OPTIONS),
}
EXPECTED: dict[str, list[tuple[Any, ...]]] = {
    "C1": [(2, 2, "c1", "cleared", 300, 106), (4, 4, "c2", "cleared", 300, 106)],
    "C2": [(2, 2, "c1", "cleared", 300, 106), (4, 4, "c2", "cleared", 300, 106)],
    "C2-moved": [(i, i, f"c{i // 2}", "cleared", 300, 106) for i in (2, 4, 6, 8)],
    "C3": [(8, 8, "c4", "cleared", 300, 106)],
}


def placeholder(call_id: str, name: str | None, chars: int) -> str:
    tool = "null" if name is None else f'"{name}"'
    return (
        f'{{"cleared":true,"tool_call_id":"{call_id}","tool_name":{tool},"chars":{chars},'
        '"hint":"call the tool again to see it"}'
    )


async def plan_ok(client: httpx.AsyncClient, body: Any) -> dict[str, Any]:
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def entries(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
    keys = ("message_index", "window_index", "tool_call_id", "action", "chars_before")
    return [(*(e[k] for k in keys), e["chars_after"]) for e in answer["shaped"]]


@pytest.mark.parametrize("wire_name", WIRES)
@pytest.mark.parametrize("name", list(CLEAR_EXAMPLES))
async def test_the_worked_examples_in_each_format(
    client: httpx.AsyncClient, name: str, wire_name: str
) -> None:
    messages, options = CLEAR_EXAMPLES[name]
    conversion = convert(messages, wire_name)
    answer = await plan_ok(
        client, {**options, "messages": conversion.messages, "format": wire_name}
    )
    expected = [
        (conversion.caller_index(m), conversion.caller_index(w), *rest)
        for m, w, *rest in EXPECTED[name]
    ]
    assert entries(answer) == expected
    assert answer["engaged"] is False and answer["evicted_messages"] == []
    window = answer["window"]
    changed = set()
    for entry in answer["shaped"]:
        path = result_text_path(window, entry["window_index"], entry["tool_call_id"], wire_name)
        name_ = "read" if entry["tool_call_id"] in ("c1", "c2", "c4", "c6", "c8") else "grep"
        assert at(window, path) == placeholder(entry["tool_call_id"], name_, 300)
        changed.add(path)
    # Every other byte of the window is the caller's.
    for index, (sent, got) in enumerate(zip(conversion.messages, window, strict=True)):
        if not any(path[0] == index for path in changed):
            assert got == sent


async def test_c2_the_window_up_to_the_boundary_is_c1s_byte_for_byte(
    client: httpx.AsyncClient,
) -> None:
    c1_sent, c2_sent = convert(C1, "openai").messages, convert(C2, "openai").messages
    c1 = await plan_ok(client, {**OPTIONS, "messages": c1_sent, "format": "openai"})
    c2 = await plan_ok(client, {**OPTIONS, "messages": c2_sent, "format": "openai"})
    assert orjson.dumps(c2["window"][: len(C1)]) == orjson.dumps(c1["window"])


async def test_the_cleared_window_sent_again_changes_nothing(client: httpx.AsyncClient) -> None:
    sent = convert(C2_MOVED, "anthropic").messages
    first = await plan_ok(client, {**OPTIONS, "messages": sent, "format": "anthropic"})
    again = await plan_ok(client, {**OPTIONS, "messages": first["window"], "format": "anthropic"})
    assert again["shaped"] == [] and again["window"] == first["window"]


IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}


async def test_a_short_result_with_an_image_is_cleared_image_included(
    client: httpx.AsyncClient,
) -> None:
    """Anthropic: the image inside the `tool_result` goes with the text; a text block beside it
    in the same user message stays."""
    sent = convert(C1, "anthropic").messages
    sent[2]["content"][0]["content"] = [{"type": "text", "text": "shot"}, IMAGE]
    sent[2]["content"].append({"type": "text", "text": "look at this"})
    answer = await plan_ok(client, {**OPTIONS, "messages": sent, "format": "anthropic"})
    assert entries(answer)[0] == (2, 2, "c1", "cleared", 4, 104)
    block = answer["window"][2]["content"]
    assert block[0] == {**sent[2]["content"][0], "content": placeholder("c1", "read", 4)}
    assert block[1] == {"type": "text", "text": "look at this"}


async def test_openai_a_result_of_parts_with_an_image_is_cleared(
    client: httpx.AsyncClient,
) -> None:
    sent = convert(C1, "openai").messages
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    sent[2]["content"] = [{"type": "text", "text": "shot"}, image]
    answer = await plan_ok(client, {**OPTIONS, "messages": sent, "format": "openai"})
    assert entries(answer)[0] == (2, 2, "c1", "cleared", 4, 104)
    assert answer["window"][2]["content"] == placeholder("c1", "read", 4)


async def test_bedrock_a_result_with_an_image_is_cleared_and_its_neighbour_stays(
    client: httpx.AsyncClient,
) -> None:
    from tests.api.test_bedrock_http import bedrock_conversion

    sent = bedrock_conversion(C1).messages
    result = sent[2]["content"][0]["toolResult"]
    result["content"] = [{"text": "shot"}, {"image": {"format": "png", "source": {"bytes": "AA"}}}]
    sent[2]["content"].append({"cachePoint": {"type": "default"}})
    answer = await plan_ok(client, {**OPTIONS, "messages": sent, "format": "bedrock"})
    assert [(e["tool_call_id"], e["chars_before"]) for e in answer["shaped"]] == [
        ("c1", 4),
        ("c2", 300),
    ]
    written = answer["window"][2]["content"]
    assert written[0]["toolResult"]["content"] == [{"text": placeholder("c1", "read", 4)}]
    assert written[-1] == {"cachePoint": {"type": "default"}}


def tokens_of(text_chars: int) -> int:
    return -(-text_chars // 4) + 4


async def test_under_fit_clearing_alone_meeting_the_target_removes_nothing(
    client: httpx.AsyncClient,
) -> None:
    # C2-moved, counted with `estimate`: TASK 5, each call 9 + len(name)/4..., computed below.
    base = await plan_ok(
        client,
        {"messages": C2_MOVED, "format": "native", "strategy": {"kind": "sliding-window"},
         "tokenizer": "estimate"},
    )  # fmt: skip
    before = base["stats"]["tokens_before"]
    cleared = before - 4 * (tokens_of(300) - tokens_of(106))
    fit = {"kind": "fit", "max_tokens": before - 1, "target_tokens": cleared}
    answer = await plan_ok(
        client, {**OPTIONS, "strategy": fit, "messages": C2_MOVED, "format": "native"}
    )
    assert answer["engaged"] is False
    # The clear-only record: a plan that blocked nothing, whose boundary the next plan may hold.
    assert answer["record"] == {
        "strategy": "fit",
        "iteration": 1,
        "removed_message_count": 0,
        "refusals": [],
        "pins": {"last_tool_result": None, "ledger_fact": None},
        "cleared_results": 6,
    }
    assert answer["evicted_messages"] == [] and len(answer["shaped"]) == 4
    assert answer["budget"] == {
        "max_tokens": before - 1,
        "target_tokens": cleared,
        "reserve_tokens": 0,
        "total_before": before,
        "total_after": cleared,
        "met": True,
        "held": False,
        "stage": "span",
        "released_pins": 0,
        "spans": [],
        "clear_held": False,
    }
    assert answer["stats"]["tokens_shaped"] == cleared
    # One token short of the target: clearing is not enough, and removal takes the rest.
    short = {**fit, "target_tokens": cleared - 1}
    engaged = await plan_ok(
        client, {**OPTIONS, "strategy": short, "messages": C2_MOVED, "format": "native"}
    )
    assert engaged["engaged"] is True and engaged["budget"]["total_before"] == before


BASE: dict[str, Any] = {**OPTIONS, "messages": C1, "format": "native"}
INVALID = [
    ({"clear": 3}, ["clear"]),
    ({"clear": []}, ["clear"]),
    ({"clear": {"keep_last": -1}}, ["clear", "keep_last"]),
    ({"clear": {"keep_last": 1.5}}, ["clear", "keep_last"]),
    ({"clear": {"keep_last": "1"}}, ["clear", "keep_last"]),
    ({"clear": {"keep_last": True}}, ["clear", "keep_last"]),
    ({"clear": {"step": 0}}, ["clear", "step"]),
    ({"clear": {"step": None}}, ["clear", "step"]),
    ({"clear": {"step": 2**63}}, ["clear", "step"]),
    ({"clear": {"exclude_tools": "read"}}, ["clear", "exclude_tools"]),
    ({"clear": {"exclude_tools": [1]}}, ["clear", "exclude_tools", 0]),
    ({"clear": {"exclude_tools": None}}, ["clear", "exclude_tools"]),
    ({"clear": {"trigger_tokens": 0}}, ["clear", "trigger_tokens"]),
    ({"clear": {"trigger_tokens": -5}}, ["clear", "trigger_tokens"]),
    ({"clear": {"trigger_tokens": "9"}}, ["clear", "trigger_tokens"]),
    ({"clear": {"keep_lst": 1}}, ["clear", "keep_lst"]),
]


@pytest.mark.parametrize(("change", "loc"), INVALID)
async def test_a_bad_clear_value_is_refused_naming_it(
    client: httpx.AsyncClient, change: dict[str, Any], loc: list[Any]
) -> None:
    response = await client.post(PATH, content=orjson.dumps({**BASE, **change}), headers=JSON)
    assert response.status_code == 422, response.text
    locs = [error["loc"] for error in response.json()["errors"]]
    assert any(found[-len(loc) :] == loc and found[0] == "body" for found in locs), locs


@pytest.mark.parametrize("key", ["images", "thinking"])
@pytest.mark.parametrize("value", ["yes", 1, 0, None, [], {}, "true"])
async def test_images_and_thinking_take_a_boolean_only(
    client: httpx.AsyncClient, key: str, value: Any
) -> None:
    body = {**BASE, "clear": {key: value}}
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert [error["loc"] for error in response.json()["errors"]] == [["body", "clear", key]]


RECORD = {
    "strategy": "fit",
    "iteration": 1,
    "removed_message_count": 0,
    "refusals": [],
    "pins": {"last_tool_result": None, "ledger_fact": None},
}


@pytest.mark.parametrize("value", [-1, "6", 1.5, True, [6], {"k": 6}])
async def test_a_bad_cleared_results_is_refused_naming_its_record(
    client: httpx.AsyncClient, value: Any
) -> None:
    records = [RECORD, {**RECORD, "cleared_results": value}]
    body = {**BASE, "prior_records": records}
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    locs = [error["loc"] for error in response.json()["errors"]]
    assert locs == [["body", "prior_records", 1, "cleared_results"]]


async def test_a_record_without_cleared_results_is_read_and_holds_no_boundary(
    client: httpx.AsyncClient,
) -> None:
    # C2-moved over `fit` one token under its total: the step rule's boundary, 6.
    before = (await plan_ok(client, {**BASE, "messages": C2_MOVED, "tokenizer": "estimate"}))[
        "stats"
    ]["tokens_before"]
    fit = {"kind": "fit", "max_tokens": before - 1}
    body = {**OPTIONS, "messages": C2_MOVED, "format": "native", "strategy": fit}
    for held, prior in ((False, RECORD), (False, {**RECORD, "cleared_results": 0})):
        answer = await plan_ok(client, {**body, "prior_records": [prior]})
        assert answer["budget"]["clear_held"] is held
        assert answer["record"]["cleared_results"] == 6
    # With a boundary the step rule has reached (4 ≤ 6), it is held.
    answer = await plan_ok(client, {**body, "prior_records": [{**RECORD, "cleared_results": 4}]})
    assert answer["budget"]["clear_held"] is True and answer["record"]["cleared_results"] == 4
    assert [entry["tool_call_id"] for entry in answer["shaped"]] == ["c1", "c2"]
    # A whole number written as a float is read as that number.
    answer = await plan_ok(client, {**body, "prior_records": [{**RECORD, "cleared_results": 4.0}]})
    assert answer["budget"]["clear_held"] is True and answer["record"]["cleared_results"] == 4


async def test_every_bad_clear_key_is_reported_at_once(client: httpx.AsyncClient) -> None:
    bad = {"keep_last": -1, "step": 0, "exclude_tools": [2], "trigger_tokens": 0, "x": 1}
    response = await client.post(PATH, content=orjson.dumps({**BASE, "clear": bad}), headers=JSON)
    assert response.status_code == 422
    ends = sorted(tuple(e["loc"][2:]) for e in response.json()["errors"])
    assert ends == sorted(
        [("keep_last",), ("step",), ("exclude_tools", 0), ("trigger_tokens",), ("x",)]
    )


@pytest.mark.parametrize("value", [2.0, 2e0])
async def test_integral_clear_values_are_read_as_integers(
    client: httpx.AsyncClient, value: Any
) -> None:
    answer = await plan_ok(client, {**BASE, "clear": {"keep_last": 1, "step": value}})
    assert len(answer["shaped"]) == 2


async def test_empty_clear_is_every_default_and_null_is_off(client: httpx.AsyncClient) -> None:
    # Defaults: keep_last 3, step 8: five read results are not enough to move the boundary.
    answer = await plan_ok(client, {**BASE, "clear": {}})
    assert answer["shaped"] == [] and answer["stats"]["chars_shaped"] == 1804
    off = await plan_ok(client, {**BASE, "clear": None})
    assert "shaped" not in off and "chars_shaped" not in off["stats"]


async def test_metrics_count_cleared_results(client: httpx.AsyncClient) -> None:
    from tests.api.test_shaping import counter

    await plan_ok(client, BASE)
    text = (await client.get("/metrics")).text
    assert counter(text, "cwp_plan_cleared_results_total", "read") == 2
    assert counter(text, "cwp_cap_truncations_total", "read") == 0


async def test_metrics_count_a_plan_that_cleared_thinking(client: httpx.AsyncClient) -> None:
    # The reasoning of an earlier assistant message is no tool's result: the plan answers, its
    # cleared result is counted per tool, and the thinking by caller message.
    from tests.api.test_shaping import counter

    def call(name: str, thought: str) -> list[dict[str, Any]]:
        return [
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": thought, "signature": "sig"},
                {"type": "tool_use", "id": name, "name": "read", "input": {}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": name, "content": TT},
            ]},
        ]  # fmt: skip

    messages = [
        {"role": "user", "content": "TASK"},
        *call("c1", "First the one file."),
        *call("c2", "Then the other."),
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        {"role": "user", "content": "Why?"},
    ]
    clear = {"keep_last": 0, "step": 1, "thinking": True}
    body = {**OPTIONS, "format": "anthropic", "messages": messages, "clear": clear}
    answer = await plan_ok(client, body)
    assert [(entry["action"], entry["chars_before"]) for entry in answer["shaped"]] == [
        ("thinking-cleared", 19),
        ("cleared", 300),
        ("thinking-cleared", 15),
    ]
    text = (await client.get("/metrics")).text
    assert counter(text, "cwp_plan_cleared_results_total", "read") == 1
    assert "cwp_plan_cleared_thinking_total 2.0" in text.splitlines()


async def test_responses_an_output_with_an_image_is_cleared(client: httpx.AsyncClient) -> None:
    from tests.api.test_dialect_examples import CONVERTERS

    sent = CONVERTERS["responses"](C1)
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
    sent[2]["output"] = [{"type": "input_text", "text": "shot"}, image]
    answer = await plan_ok(client, {**OPTIONS, "messages": sent, "format": "responses"})
    assert entries(answer)[0] == (2, 2, "c1", "cleared", 4, 104)
    assert answer["window"][2] == {**sent[2], "output": placeholder("c1", "read", 4)}


async def test_gemini_a_response_with_parts_is_cleared_and_a_part_beside_it_stays(
    client: httpx.AsyncClient,
) -> None:
    from tests.api.test_dialect_examples import CONVERTERS

    sent = CONVERTERS["gemini"](C1)
    response = sent[2]["parts"][0]["functionResponse"]
    response["response"] = {"output": "shot"}
    response["parts"] = [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]
    sent[2]["parts"].append({"text": "look at this"})
    answer = await plan_ok(client, {**OPTIONS, "messages": sent, "format": "gemini"})
    assert entries(answer)[0] == (2, 2, "c1", "cleared", 4, 104)
    written = answer["window"][2]["parts"]
    assert written[0] == {
        "functionResponse": {
            "id": "c1",
            "name": "read",
            "response": {"output": placeholder("c1", "read", 4)},
        }
    }
    assert written[1] == {"text": "look at this"}


# ---- images and thinking (docs/rules.md#images-and-thinking) ----------------------------------

PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
SCREENSHOT = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": PIXEL},
}


def screen_turn(call_id: str, thinking: str | None, image: bool) -> list[dict[str, Any]]:
    """An Anthropic assistant message (its thinking, if any, then a call to `screen`) and the
    user message holding the call's 300-character result and, when `image`, a screenshot."""
    blocks: list[dict[str, Any]] = []
    if thinking is not None:
        blocks.append({"type": "thinking", "thinking": thinking, "signature": f"sig-{call_id}"})
    blocks.append({"type": "tool_use", "id": call_id, "name": "screen", "input": {}})
    answer = [{"type": "tool_result", "tool_use_id": call_id, "content": "t" * 300}]
    return [
        {"role": "assistant", "content": blocks},
        {"role": "user", "content": [*answer, SCREENSHOT] if image else answer},
    ]


async def test_images_and_thinking_worked_example(client: httpx.AsyncClient) -> None:
    messages = [
        {"role": "user", "content": "TASK"},
        *screen_turn("c1", "x" * 120, True),
        *screen_turn("c2", "y" * 80, True),
        *screen_turn("c3", "z" * 40, True),
        *screen_turn("c4", None, False),
    ]
    clear = {"keep_last": 1, "step": 2, "images": True, "thinking": True}
    body = {
        "messages": messages,
        "format": "anthropic",
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 20},
        "keep_last_tool_results": 0,
        "clear": clear,
    }
    answer = await plan_ok(client, body)
    assert answer["shaped"] == [
        {"message_index": 1, "window_index": 1, "tool_call_id": None,
         "action": "thinking-cleared", "chars_before": 120, "chars_after": 0},
        {"message_index": 2, "window_index": 2, "tool_call_id": "c1", "action": "cleared",
         "chars_before": 300, "chars_after": 108},
        {"message_index": 2, "window_index": 2, "tool_call_id": None, "action": "image-cleared",
         "chars_before": 0, "chars_after": 39, "images": 1},
        {"message_index": 3, "window_index": 3, "tool_call_id": None,
         "action": "thinking-cleared", "chars_before": 80, "chars_after": 0},
        {"message_index": 4, "window_index": 4, "tool_call_id": "c2", "action": "cleared",
         "chars_before": 300, "chars_after": 108},
    ]  # fmt: skip
    window = answer["window"]
    # The thinking of c1's and c2's messages left; c3's (after the boundary) stayed, signed.
    assert [block["type"] for block in window[1]["content"]] == ["tool_use"]
    assert [block["type"] for block in window[3]["content"]] == ["tool_use"]
    assert window[5]["content"][0] == {
        "type": "thinking",
        "thinking": "z" * 40,
        "signature": "sig-c3",
    }
    # The screenshot beside c1's result is a text in its place; c2's comes after the boundary.
    assert window[2]["content"][1] == {
        "type": "text",
        "text": "[image removed from the context window]",
    }
    assert window[4]["content"][1] == SCREENSHOT and window[6]["content"][1] == SCREENSHOT
    text = (await client.get("/metrics")).text
    totals = dict(line.rsplit(" ", 1) for line in text.splitlines() if line.startswith("cwp_plan"))
    assert float(totals["cwp_plan_cleared_thinking_total"]) == 2
    assert float(totals["cwp_plan_cleared_images_total"]) == 1
    # Off by default: the same request without them clears the two results alone.
    plain = await plan_ok(client, {**body, "clear": {"keep_last": 1, "step": 2}})
    assert [entry["action"] for entry in plain["shaped"]] == ["cleared", "cleared"]
    assert plain["window"][1] == messages[1] and plain["window"][2]["content"][1] == SCREENSHOT
