"""OpenAI and Anthropic transcripts in, a ready-to-send window out, through HTTP.

- Request bodies in the shapes the official `openai` and `anthropic` SDKs send
  (tests/fixtures/*.json) validate against the SDKs' own typed params, are planned with a strategy
  that removes something, and the window that comes back validates against the same types.
- With nothing removed, the window is the caller's `messages`, byte for byte.
- Properties over random transcripts in each format: the window never separates a call from its
  results, never opens with an assistant or tool message when the input did not, and holds only
  the caller's own messages (or, for Anthropic, a caller message with fewer of its own blocks) and
  the notice.
- The Swagger examples of every format on both endpoints, and the refusals that name a message.

The SDK params are TypedDicts whose list fields are `Iterable`s, which pydantic validates lazily:
`sdk_valid` consumes every such iterator (so each item is checked) and requires the validated value
to equal the input, so an unknown key (which a TypedDict silently drops) fails too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic.types
import openai.types.chat
import orjson
import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from hypothesis import given
from hypothesis import strategies as st
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from pydantic import TypeAdapter

from app.api.examples import PLAN_EXAMPLES, RACK_SYSTEM
from app.schemas.offer import OFFER_EXAMPLES
from tests.api.test_formats_equivalence import (
    conversations,
    convert,
    notice_message,
    plan,
    plan_options,
)
from tests.core.window_fixtures import held_words

PLAN = "/v1/window/plan"
OFFER = "/v1/offer"
ENDPOINTS = (PLAN, OFFER)
FIXTURES = Path(__file__).parent.parent / "fixtures"
EXTENSIONS = ("injected", "not_dispatched")  # the service's documented extension fields

# Kept alive for the whole run: a lazily validated iterator reads its adapter's definitions.
OPENAI_MESSAGE = TypeAdapter(openai.types.chat.ChatCompletionMessageParam)
OPENAI_BODY = TypeAdapter(CompletionCreateParamsNonStreaming)
ANTHROPIC_MESSAGE = TypeAdapter(anthropic.types.MessageParam)
ANTHROPIC_BODY = TypeAdapter(MessageCreateParamsNonStreaming)
MESSAGE_TYPES = {"openai": OPENAI_MESSAGE, "anthropic": ANTHROPIC_MESSAGE}
BODY_TYPES = {"openai": OPENAI_BODY, "anthropic": ANTHROPIC_BODY}


def materialized(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: materialized(item) for key, item in value.items()}
    if isinstance(value, list | tuple | Iterator):
        return [materialized(item) for item in value]
    return value


def sdk_valid(adapter: TypeAdapter[Any], value: Any) -> None:
    """`value` is exactly a value of the SDK type: valid in every nested item, nothing dropped."""
    assert materialized(adapter.validate_python(value, strict=True)) == value


def without_extensions(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the provider sees it once the service's extension fields are taken off."""
    out = {key: value for key, value in message.items() if key not in EXTENSIONS}
    if isinstance(out.get("content"), list):
        out["content"] = [
            {k: v for k, v in block.items() if k not in EXTENSIONS}
            if isinstance(block, dict)
            else block
            for block in out["content"]
        ]
    return out


def test_sdk_validation_is_strict() -> None:
    """The check itself can fail: a call without an id inside a lazily validated list, an unknown
    key, and a thinking block without its signature are each refused."""
    call = {"type": "function", "function": {"name": "look", "arguments": "{}"}}
    with pytest.raises(ValueError):
        sdk_valid(OPENAI_MESSAGE, {"role": "assistant", "content": None, "tool_calls": [call]})
    with pytest.raises(AssertionError):
        sdk_valid(OPENAI_MESSAGE, {"role": "user", "content": "hi", "injected": True})
    thinking = {"type": "thinking", "thinking": "hm"}
    with pytest.raises(ValueError):
        sdk_valid(ANTHROPIC_MESSAGE, {"role": "assistant", "content": [thinking]})


# ---- request bodies as the SDKs send them --------------------------------------------------------


def fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return loaded


def wire_of(name: str) -> str:
    return name.split("_", 1)[0]


def plan_body(provider_body: dict[str, Any], **options: Any) -> dict[str, Any]:
    """The planner request for a provider request: its messages (and Anthropic system)."""
    body: dict[str, Any] = {"messages": provider_body["messages"], **options}
    if "system" in provider_body:
        body["system"] = provider_body["system"]
    return body


KEEP_TWO = {"kind": "sliding-window", "keep_recent_turns": 2}
FIXTURE_PLANS = {
    # Parallel calls, content-part arrays, a developer prompt: the turns between the system turn
    # and the second question leave, and the notice opens the conversation right after the
    # system envelope (docs/rules.md#front-or-further-in).
    "openai_parallel_tools": ({"strategy": KEEP_TWO}, "se EV EV EV EV EV cr ikw ikw", ("rich", 1)),
    # A custom tool call and a refusal: the first request is kept, the notice follows it.
    "openai_custom_tool_refusal": (
        {
            "strategy": KEEP_TWO,
            "keep_last_tool_results": 0,
            "request_text": fixture("openai_custom_tool_refusal")["messages"][0]["content"],
        },
        "cr EV EV EV EV ikw ikw",
        ("rich", 1),
    ),
    # Thinking blocks, three results plus a question in one message, an error result.
    "anthropic_thinking_tools": (
        {
            "strategy": KEEP_TWO,
            "keep_last_tool_results": 0,
            "request_text": fixture("anthropic_thinking_tools")["messages"][0]["content"],
        },
        "cr EV EV EV EV ikw ikw",
        ("rich", 1),
    ),
    # The latest question shares a message with two results: the results leave, the question
    # and its image stay, in a copy of that message holding only those blocks.
    "anthropic_results_and_question": ({"strategy": KEEP_TWO}, "EV EV EV cr ikw ikw", ("rich", 0)),
}
# The Chat Completions and Messages fixtures; each newer dialect's are planned by its own tests.
FIXTURE_NAMES = sorted(
    path.stem
    for path in FIXTURES.glob("*.json")
    if path.stem.split("_", 1)[0] in ("openai", "anthropic")
)


def test_every_fixture_is_planned() -> None:
    assert set(FIXTURE_NAMES) == set(FIXTURE_PLANS)
    assert {wire_of(name) for name in FIXTURE_NAMES} == {"openai", "anthropic"}


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixtures_are_what_the_sdks_send(name: str) -> None:
    body = fixture(name)
    wire = wire_of(name)
    sdk_valid(BODY_TYPES[wire], body)
    for message in body["messages"]:
        sdk_valid(MESSAGE_TYPES[wire], message)


def held(answer: dict[str, Any]) -> str:
    return held_words(answer["turns"])


@pytest.mark.anyio
@pytest.mark.parametrize("name", FIXTURE_NAMES)
async def test_fixtures_are_planned_into_a_window_the_sdk_accepts(client: Any, name: str) -> None:
    provider_body, wire = fixture(name), wire_of(name)
    options, expected_held, expected_notice = FIXTURE_PLANS[name]
    response = await client.post(PLAN, json=plan_body(provider_body, **options))
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["format"] == wire  # detected
    assert held(answer) == expected_held
    assert answer["stats"]["removed_message_count"] > 0
    notice = answer["notice"]
    assert (notice and (notice["rung"], notice["window_index"])) == expected_notice
    window = answer["window"]
    for message in window:
        sdk_valid(MESSAGE_TYPES[wire], message)
    sdk_valid(BODY_TYPES[wire], {**provider_body, "messages": window})
    check_window(provider_body["messages"], answer, wire)


@pytest.mark.anyio
async def test_a_shared_anthropic_message_keeps_the_question_and_its_image(client: Any) -> None:
    provider_body = fixture("anthropic_results_and_question")
    options, _, _ = FIXTURE_PLANS["anthropic_results_and_question"]
    answer = (await client.post(PLAN, json=plan_body(provider_body, **options))).json()
    shared = provider_body["messages"][4]
    assert answer["window"][1] == {"role": "user", "content": shared["content"][2:]}
    assert answer["evicted_messages"] == [0, 1, 2, 3, 4]
    assert answer["current_request"] == {"message_index": 4, "turn_index": 3}
    assert answer["stats"]["system_chars"] == len(provider_body["system"])


@pytest.mark.anyio
@pytest.mark.parametrize("name", FIXTURE_NAMES)
@pytest.mark.parametrize(
    "strategy",
    [
        pytest.param({"kind": "sliding-window", "keep_recent_turns": 50}, id="not-engaged"),
        pytest.param(
            {
                "kind": "token-budget",
                "threshold_tokens": 10,
                "keep_recent_turns": 50,
                "measured": {"input_tokens": 900, "output_tokens": 12},
            },
            id="engaged-nothing-to-remove",
        ),
    ],
)
async def test_nothing_removed_gives_back_every_field_and_block(
    client: Any, name: str, strategy: dict[str, Any]
) -> None:
    provider_body = fixture(name)
    response = await client.post(PLAN, json=plan_body(provider_body, strategy=strategy))
    answer = response.json()
    assert answer["stats"]["removed_message_count"] == 0
    assert orjson.dumps(answer["window"]) == orjson.dumps(provider_body["messages"])
    # Byte for byte in the response itself, not only once parsed back.
    assert orjson.dumps(provider_body["messages"]) in response.content


# ---- the window properties over random transcripts -----------------------------------------------


def wire_events(messages: list[Any], wire: str) -> list[tuple[str, str]]:
    """("call" | "result", id) in wire order."""
    events: list[tuple[str, str]] = []
    for message in messages:
        content = message.get("content")
        if wire == "anthropic":
            for block in content if isinstance(content, list) else ():
                if block["type"] == "tool_use":
                    events.append(("call", block["id"]))
                elif block["type"] == "tool_result":
                    events.append(("result", block["tool_use_id"]))
            continue
        for call in message.get("tool_calls") or ():
            events.append(("call", call["id"]))
        if message["role"] == "tool":
            events.append(("result", message["tool_call_id"]))
    return events


def opening(messages: list[Any], wire: str) -> str | None:
    """The role of the first core message: an Anthropic user message holding results opens with
    them (they are read first)."""
    if not messages:
        return None
    first = messages[0]
    content = first.get("content")
    if (
        wire == "anthropic"
        and isinstance(content, list)
        and any(block["type"] == "tool_result" for block in content)
    ):
        return "tool"
    return "system" if first["role"] == "developer" else first["role"]


def dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def fewer_blocks_of(item: Any, sent: dict[str, Any]) -> bool:
    """An Anthropic caller message with only some of its blocks: every other key as sent, and
    each kept block byte-identical to one of its own, in order."""
    if not isinstance(item, dict) or list(item) != list(sent):
        return False
    if any(dumps(item[key]) != dumps(sent[key]) for key in sent if key != "content"):
        return False
    blocks, sent_blocks = item.get("content"), sent.get("content")
    if not isinstance(blocks, list) or not isinstance(sent_blocks, list):
        return False
    if not 0 < len(blocks) < len(sent_blocks):
        return False
    remaining = iter(dumps(block) for block in sent_blocks)
    return all(any(dumps(block) == other for other in remaining) for block in blocks)


def traced(window: list[Any], sent: list[Any], wire: str, notice_at: int | None) -> list[int]:
    """The caller index of every window message but the notice, matching in order: each is a
    message the caller sent, byte for byte, or (Anthropic) one with fewer of its blocks."""
    indices: list[int] = []
    position = 0
    for window_index, item in enumerate(window):
        if window_index == notice_at:
            continue
        encoded = dumps(item)
        while position < len(sent) and not (
            dumps(sent[position]) == encoded
            or (wire == "anthropic" and fewer_blocks_of(item, sent[position]))
        ):
            position += 1
        assert position < len(sent), f"window message {window_index} is not the caller's"
        indices.append(position)
        position += 1
    return indices


def check_window(sent: list[Any], answer: dict[str, Any], wire: str) -> None:
    window = answer["window"]
    stats = answer["stats"]
    assert stats["messages_before"] == len(sent)
    assert stats["messages_after"] == len(window)
    if stats["removed_message_count"] == 0:
        assert dumps(window) == dumps(sent)
    notice = answer["notice"]
    notice_at = None if notice is None else notice["window_index"]
    if notice is not None:
        assert dumps(window[notice_at]) == dumps(notice_message(wire, notice["content"]))
    traced(window, sent, wire, notice_at)
    # A call and its results stay or leave together; an unanswered call never leaves.
    events = wire_events(sent, wire)
    calls = {i for kind, i in events if kind == "call"}
    results = {i for kind, i in events if kind == "result"}
    kept = wire_events(window, wire)
    kept_calls = {i for kind, i in kept if kind == "call"}
    kept_results = {i for kind, i in kept if kind == "result"}
    # By id where the id is called once; a reused id is matched per occurrence, which the
    # pairing checkers judge (tests/api/test_reused_call_ids_http.py).
    reused = {i for i in calls if sum(1 for kind, j in events if kind == "call" and j == i) > 1}
    for call_id in (calls & results) - reused:
        assert (call_id in kept_calls) == (call_id in kept_results), call_id
    assert calls - results <= kept_calls
    first_call = {}
    for position, (kind, call_id) in enumerate(kept):
        if kind == "call":
            first_call.setdefault(call_id, position)
        elif call_id in calls:
            assert first_call.get(call_id, len(kept)) < position, call_id
    # Never opens with an assistant or tool message when the input did not.
    if opening(sent, wire) in (None, "user", "system"):
        assert opening(window, wire) in (None, "user", "system")


Draw = Any
TEXT_SPLITS = st.integers(0, 600)


def split_text(draw: Draw, text: str, part: Any) -> list[Any]:
    """`text` as one or two parts built by `part` (joined, they read the same)."""
    at = min(draw(TEXT_SPLITS), len(text))
    pieces = [text] if at in (0, len(text)) else [text[:at], text[at:]]
    return [part(piece) for piece in pieces]


def openai_text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


IMAGE_PART = {
    "type": "image_url",
    "image_url": {"url": "https://example.com/a.png", "detail": "low"},
}


def decorated_openai(draw: Draw, message: dict[str, Any]) -> dict[str, Any]:
    """Shapes Chat Completions allows for the same reading: developer prompts, content parts,
    refusal parts, images, participant names."""
    role, content = message["role"], message.get("content")
    if role == "system" and draw(st.booleans()):
        message = {**message, "role": "developer"}
    if not isinstance(content, str) or not draw(st.booleans()):
        return message
    parts = split_text(draw, content, openai_text_part)
    if role == "user":
        if draw(st.booleans()):
            parts.insert(draw(st.integers(0, len(parts))), IMAGE_PART)
        message = {**message, "name": "dana"} if draw(st.booleans()) else message
    if role == "assistant" and content and draw(st.booleans()):
        parts = [{"type": "refusal", "refusal": content}]
    return {**message, "content": parts}


def decorated_anthropic(draw: Draw, message: dict[str, Any]) -> dict[str, Any]:
    """Shapes the Messages API allows for the same reading: text split in blocks, thinking and
    redacted thinking before an answer, images, results as block arrays or empty, errors."""
    content = message["content"]
    if isinstance(content, str):
        if not draw(st.booleans()):
            return message
        content = [{"type": "text", "text": content}]
    blocks: list[Any] = []
    for block in content:
        if block["type"] == "text" and block["text"] and draw(st.booleans()):
            blocks.extend(split_text(draw, block["text"], openai_text_part))
        elif block["type"] == "tool_result":
            blocks.append(decorated_result(draw, block))
        else:
            blocks.append(block)
    if message["role"] == "assistant" and draw(st.booleans()):
        thinking = draw(
            st.sampled_from(
                [
                    {"type": "thinking", "thinking": "weighing it", "signature": "EqQBCkgIBhAB"},
                    {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
                ]
            )
        )
        blocks.insert(0, thinking)
    if message["role"] == "user" and draw(st.booleans()):
        blocks.append(
            {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
        )
    return {**message, "content": blocks}


def decorated_result(draw: Draw, block: dict[str, Any]) -> dict[str, Any]:
    text = block["content"]
    out = dict(block)
    shape = draw(
        st.sampled_from(["string", "blocks", "absent"] if not text else ["string", "blocks"])
    )
    if shape == "blocks":
        out["content"] = split_text(draw, text, openai_text_part)
    elif shape == "absent":
        del out["content"]
    if draw(st.booleans()):
        out["is_error"] = draw(st.booleans())
    return out


def decorated_native(draw: Draw, message: dict[str, Any]) -> dict[str, Any]:
    """Native messages with fields the service does not read, which must come back as sent."""
    if draw(st.booleans()):
        return message
    return {"trace": {"span": draw(st.integers(0, 9))}, **message, "name": "kept"}


DECORATE = {
    "native": decorated_native,
    "openai": decorated_openai,
    "anthropic": decorated_anthropic,
}
SYSTEM_PROMPTS = (
    st.none() | st.just("You audit racks.") | st.just([{"type": "text", "text": "🔧 be brief"}])
)


@st.composite
def wire_requests(draw: Draw, wire: str) -> dict[str, Any]:
    native = draw(conversations(system=wire != "anthropic", max_steps=14))
    messages = [
        DECORATE[wire](draw, message)
        for message in convert(native, wire, provider_shape=False).messages
    ]
    request = {**draw(plan_options(native)), "messages": messages, "format": wire}
    if wire == "anthropic":
        system = draw(SYSTEM_PROMPTS)
        if system is not None:
            request["system"] = system
    return request


@given(wire_requests("native"))
def test_native_window_property(request: dict[str, Any]) -> None:
    check_window(request["messages"], plan(request), "native")


@given(wire_requests("openai"))
def test_openai_window_property(request: dict[str, Any]) -> None:
    check_window(request["messages"], plan(request), "openai")


@given(wire_requests("anthropic"))
def test_anthropic_window_property(request: dict[str, Any]) -> None:
    check_window(request["messages"], plan(request), "anthropic")


def test_the_window_check_can_fail() -> None:
    """A window that separates a call from its result, one that opens with an assistant, and one
    holding a message the caller never sent are each caught."""
    sent = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "look"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
    ]

    def answer(window: list[Any]) -> dict[str, Any]:
        stats = {"messages_before": 4, "messages_after": len(window), "removed_message_count": 1}
        return {"window": window, "stats": stats, "notice": None}

    for window in ([sent[0], sent[2], sent[3]], [sent[1], sent[2], sent[3]], [{**sent[0], "x": 1}]):
        with pytest.raises(AssertionError):
            check_window(sent, answer(window), "native")
    check_window(sent, answer([sent[0], sent[3]]), "native")


# ---- Anthropic system prompt ---------------------------------------------------------------------

QUESTION = {"role": "user", "content": "Which rack is hottest?"}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("system", "chars"),
    [
        pytest.param("You audit racks.", 16, id="string"),
        pytest.param(
            [
                {
                    "type": "text",
                    "text": "You audit racks. ",
                    "cache_control": {"type": "ephemeral"},
                },
                {"type": "text", "text": "🔧 Be brief."},
            ],
            17 + 11,  # the wrench is one code point
            id="blocks",
        ),
        pytest.param([], 0, id="no-blocks"),
        pytest.param(None, 0, id="null"),
    ],
)
async def test_system_chars_count_the_top_level_prompt(
    client: Any, system: Any, chars: int
) -> None:
    answer = (
        await client.post(
            PLAN, json={"messages": [QUESTION], "format": "anthropic", "system": system}
        )
    ).json()
    assert answer["stats"]["system_chars"] == chars
    assert answer["stats"]["chars_before"] == answer["stats"]["chars_after"] == 22
    assert list(answer["stats"])[-1] == "system_chars"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("request_body", "present"),
    [
        pytest.param({"messages": [QUESTION], "format": "anthropic"}, True, id="anthropic-absent"),
        pytest.param({"messages": [QUESTION], "system": "be brief"}, True, id="auto-detected"),
        pytest.param({"messages": [QUESTION]}, False, id="auto-native"),
        pytest.param({"messages": [QUESTION], "format": "openai"}, False, id="openai"),
        pytest.param({"messages": [QUESTION], "format": "native"}, False, id="native"),
    ],
)
async def test_system_chars_only_in_the_anthropic_format(
    client: Any, request_body: dict[str, Any], present: bool
) -> None:
    answer = (await client.post(PLAN, json=request_body)).json()
    assert ("system_chars" in answer["stats"]) is present
    if present:
        assert answer["format"] == "anthropic"
        assert answer["stats"]["system_chars"] == len(request_body.get("system", ""))


# ---- Swagger examples ----------------------------------------------------------------------------


FORMAT_EXAMPLES = ("native", "openai", "anthropic")


def test_both_endpoints_have_an_example_in_every_format() -> None:
    for examples in (PLAN_EXAMPLES, OFFER_EXAMPLES):
        assert list(examples)[: len(FORMAT_EXAMPLES)] == list(FORMAT_EXAMPLES)
        for name in FORMAT_EXAMPLES:
            assert examples[name]["value"]["format"] == name


@pytest.mark.parametrize("examples", [PLAN_EXAMPLES, OFFER_EXAMPLES], ids=["plan", "offer"])
@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_provider_examples_are_real_provider_shapes(examples: dict[str, Any], wire: str) -> None:
    for message in examples[wire]["value"]["messages"]:
        sdk_valid(MESSAGE_TYPES[wire], without_extensions(message))


def shifted(answer: dict[str, Any], by: int) -> dict[str, Any]:
    """The decisions by turn: every turn index lowered by `by`, message indices left out."""

    def pins(block: Any) -> Any:
        if block is None:
            return None
        pinned = [
            (p["tool_name"], p["turn_index"] - by, p.get("tool_call_ids")) for p in block["pinned"]
        ]
        return (pinned, block["yielded"], block["limit"], block["stand_down"])

    return {
        "held": [(t["fate"], t["held_by"], t["chars"]) for t in answer["turns"][by:]],
        "kept": [i - by for i in answer["kept"] if i >= by],
        "evicted": [i - by for i in answer["evicted"]],
        "refusals": [
            (r["reason"], r["turn_index"] - by) for r in answer["refusals"] if r["turn_index"] >= by
        ],
        "pins": {kind: pins(block) for kind, block in answer["pins"].items()},
        "current_turn": answer["current_request"]["turn_index"] - by,
        "notice": answer["notice"],
        "dropped": (answer["dropped_tool_names"], answer["dropped_standings"]),
        "record_reasons": [
            r["reason"] for r in answer["record"]["refusals"] if r["turn_index"] >= by
        ],
    }


@pytest.mark.anyio
async def test_plan_examples_give_the_native_decisions(client: Any) -> None:
    answers = {}
    for name in FORMAT_EXAMPLES:
        response = await client.post(PLAN, json=PLAN_EXAMPLES[name]["value"])
        assert response.status_code == 200, (name, response.text)
        answers[name] = response.json()
        assert answers[name]["format"] == name
    native, openai_answer, anthropic_answer = (
        answers[n] for n in ("native", "openai", "anthropic")
    )
    assert native["stats"]["removed_message_count"] > 0
    # OpenAI maps one to one: the same answer, index for index.
    assert {**openai_answer, "format": "native", "window": None} == {**native, "window": None}
    openai_messages = PLAN_EXAMPLES["openai"]["value"]["messages"]
    assert openai_answer["window"] == [
        openai_messages[i]
        for i in range(len(openai_messages))
        if i not in native["evicted_messages"]
    ]
    # Anthropic: the system turn is the top-level prompt, so every turn index is one lower.
    assert native["turns"][0]["held_by"] == "system-envelope"
    assert shifted(anthropic_answer, 0) == shifted(native, 1)
    anthropic_value = PLAN_EXAMPLES["anthropic"]["value"]
    assert anthropic_answer["stats"]["system_chars"] == len(anthropic_value["system"])
    # The native messages 2–5 (c1 and c2, called and answered) are the Anthropic messages 1–4.
    assert native["evicted_messages"] == [2, 3, 4, 5]
    assert anthropic_answer["evicted_messages"] == [1, 2, 3, 4]
    anthropic_messages = anthropic_value["messages"]
    assert anthropic_answer["window"] == [anthropic_messages[0], *anthropic_messages[5:]]
    for message in anthropic_answer["window"]:
        sdk_valid(ANTHROPIC_MESSAGE, message)
    for message in openai_answer["window"]:
        sdk_valid(OPENAI_MESSAGE, message)


@pytest.mark.anyio
@pytest.mark.parametrize("dialect", ["responses", "gemini", "bedrock"])
async def test_each_dialect_example_gives_the_native_decisions(client: Any, dialect: str) -> None:
    """Like the Anthropic example: the system prompt is outside the transcript, so the decisions
    are the native example's without its system turn."""
    native = (await client.post(PLAN, json=PLAN_EXAMPLES["native"]["value"])).json()
    value = PLAN_EXAMPLES[dialect]["value"]
    response = await client.post(PLAN, json=value)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["format"] == dialect and answer["diagnostics"] == []
    assert shifted(answer, 0) == shifted(native, 1)
    assert answer["stats"]["system_chars"] == len(RACK_SYSTEM)


@pytest.mark.anyio
async def test_offer_examples_give_the_same_answer(client: Any) -> None:
    answers = []
    for name, example in OFFER_EXAMPLES.items():
        response = await client.post(OFFER, json=example["value"])
        assert response.status_code == 200, (name, response.text)
        answers.append(response.content)
    assert answers[0] == answers[1] == answers[2]


# ---- bad input names the message -----------------------------------------------------------------

TOOL_RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}
TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {}}
OPENAI_CALL = {"id": "call_1", "type": "function", "function": {"name": "look", "arguments": "{}"}}

BAD_MESSAGES = [
    pytest.param(
        {
            "messages": [
                QUESTION,
                {"role": "assistant", "content": [TOOL_USE]},
                {"role": "user", "content": [TOOL_RESULT]},
                {"role": "developer", "content": "Be brief."},
            ]
        },
        # A `developer` role is no OpenAI signal once a block format is signalled
        # (docs/rules.md#auto `auto`): the transcript is Anthropic, which has no such role.
        [("messages", 3, "role")],
        id="anthropic-blocks-and-developer-role",
    ),
    pytest.param(
        {
            "messages": [
                QUESTION,
                {"role": "assistant", "content": None, "tool_calls": [OPENAI_CALL]},
                {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
            ],
            "system": "Be brief.",
        },
        # The messages say OpenAI (docs/rules.md#auto rule 5 comes before the system's shape),
        # whose system prompt is a message: the top-level one is refused.
        [("system",)],
        id="top-level-system-with-openai-messages",
    ),
    pytest.param(
        {
            "messages": [
                QUESTION,
                {"role": "assistant", "content": [TOOL_USE, TOOL_RESULT]},
            ]
        },
        [("messages", 1, "content", 1)],
        id="anthropic-tool-result-in-an-assistant-message",
    ),
    pytest.param(
        {
            "messages": [QUESTION, {"role": "assistant", "content": [TOOL_RESULT]}],
            "format": "anthropic",
        },
        [("messages", 1, "content", 0)],
        id="anthropic-tool-result-in-an-assistant-message-format-given",
    ),
    pytest.param(
        {
            "messages": [
                QUESTION,
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{k: v for k, v in OPENAI_CALL.items() if k != "id"}],
                },
            ]
        },
        [("messages", 1, "tool_calls", 0, "id")],
        id="openai-call-without-id",
    ),
    pytest.param(
        {
            "messages": [
                QUESTION,
                {"role": "assistant", "content": None, "tool_calls": [{**OPENAI_CALL, "id": ""}]},
            ]
        },
        [("messages", 1, "tool_calls", 0, "id")],
        id="openai-call-with-empty-id",
    ),
    pytest.param(
        {
            "messages": [
                QUESTION,
                {"role": "user", "content": [{**TOOL_RESULT, "tool_use_id": ""}]},
            ],
            "format": "anthropic",
        },
        [("messages", 1, "content", 0, "tool_use_id")],
        id="anthropic-result-with-empty-tool-use-id",
    ),
    pytest.param(
        {"messages": [QUESTION, {"role": "system", "content": "Be brief."}], "format": "anthropic"},
        [("messages", 1, "role")],
        id="anthropic-system-role-in-messages",
    ),
]


def error_locs(response: Any) -> list[tuple[Any, ...]]:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    return [tuple(error["loc"]) for error in response.json()["errors"]]


@pytest.mark.anyio
@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize(("request_body", "locs"), BAD_MESSAGES)
async def test_bad_messages_are_a_422_naming_the_message(
    client: Any, endpoint: str, request_body: dict[str, Any], locs: list[tuple[Any, ...]]
) -> None:
    response = await client.post(endpoint, json=request_body)
    assert error_locs(response) == [("body", *loc) for loc in locs]


LEGACY = [
    pytest.param(
        [
            QUESTION,
            {"role": "assistant", "content": None, "tool_calls": [OPENAI_CALL]},
            {"role": "function", "name": "look", "content": "ok"},
        ],
        (2, "role"),
        id="function-role",
    ),
    pytest.param(
        [
            QUESTION,
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "look", "arguments": "{}"},
            },
        ],
        (1, "function_call"),
        id="function-call-field",
    ),
]


@pytest.mark.anyio
@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize(("messages", "loc"), LEGACY)
async def test_legacy_function_calling_is_refused_pointing_to_tool_calls(
    client: Any, endpoint: str, messages: list[Any], loc: tuple[Any, ...]
) -> None:
    response = await client.post(endpoint, json={"messages": messages, "format": "openai"})
    assert error_locs(response) == [("body", "messages", *loc)]
    assert "tool_calls" in response.json()["errors"][0]["msg"]


@pytest.mark.anyio
@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_null_legacy_fields_count_as_absent(client: Any, endpoint: str) -> None:
    messages = [
        QUESTION,
        {
            "role": "assistant",
            "content": "Hot: lab1-rack-a.",
            "function_call": None,
            "tool_calls": None,
        },
    ]
    response = await client.post(endpoint, json={"messages": messages, "format": "openai"})
    assert response.status_code == 200, response.text
