"""Amazon Bedrock Converse transcripts in, a window Converse accepts out, through HTTP.

- Converse request bodies (tests/fixtures/bedrock_*.json: parallel `toolUse`, `toolResult`s with
  `json` and `text` blocks, cache points, reasoning, images, documents, guard blocks) validate
  against botocore's own service model of `bedrock-runtime` `Converse` (offline, the model ships
  with botocore), are planned with a strategy that removes something, and the window that comes
  back validates against it too and keeps Converse's pairing and alternation rules
  (app/audit/validity/bedrock.py).
- Every worked example of `tests/core/window_examples.py` that Converse can carry gives the native
decisions, index
  mapped, and the offer the native ids; the window is the native window written in Bedrock with
  the notice beside a user message and no two neighbours of one role.
- A property over random Converse transcripts and plan options: the pairing rules hold whenever
  the input is not already broken, the roles alternate (the notice included), the window never
  opens on an assistant message when the input did not, and every reported window figure points
  where the window has it.
- `auto` detects Bedrock; shaping writes the `toolResult` content; `system` is counted apart.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import botocore.session
import botocore.validate
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.audit.validity.bedrock import OPENING, bedrock_violations
from app.core.messages import Message
from app.formats import bedrock, read_messages
from app.formats.fields import Problems
from tests.api.test_formats_equivalence import (
    EXAMPLES,
    TOOLS,
    Conversion,
    Example,
    Inexpressible,
    contents,
    expected_answer,
    expected_window,
    native_kept,
    plan,
    plan_options,
    post_ok,
    refuse_consecutive_roles,
    refuse_lost_tool_names,
    without_window,
)
from tests.core.window_fixtures import held_words

PLAN = "/v1/window/plan"
OFFER = "/v1/offer"
FIXTURES = Path(__file__).parent.parent / "fixtures"
EXTENSIONS = ("injected", "not_dispatched")
CONVERSE = (
    botocore.session.get_session()
    .get_service_model("bedrock-runtime")
    .operation_model("Converse")
    .input_shape
)
VALIDATOR = botocore.validate.ParamValidator()
KEPT_REQUEST = "Your current request is kept"


def without_extensions(message: dict[str, Any]) -> dict[str, Any]:
    """A message as Converse sees it once the service's extension fields are taken off: on the
    message, on its blocks, and inside a `toolResult` object."""
    out = {key: value for key, value in message.items() if key not in EXTENSIONS}
    blocks = []
    for block in out.get("content") or ():
        block = {key: value for key, value in block.items() if key not in EXTENSIONS}
        if isinstance(block.get("toolResult"), dict):
            result = block["toolResult"]
            block["toolResult"] = {k: v for k, v in result.items() if k not in EXTENSIONS}
        blocks.append(block)
    if "content" in out:
        out["content"] = blocks
    return out


def converse_report(messages: list[Any], system: Any = None) -> str:
    """botocore's validation report of a Converse request with these messages ("" = valid)."""
    request: dict[str, Any] = {
        "modelId": "m",
        "messages": [without_extensions(message) for message in messages],
    }
    if system is not None:
        request["system"] = system
    report = VALIDATOR.validate(request, CONVERSE)
    return str(report.generate_report()) if report.has_errors() else ""


def test_converse_validation_is_strict() -> None:
    """The check itself can fail: an unknown key, two kinds in one block, a call without its
    input, a system block of Anthropic's shape."""
    assert converse_report([{"role": "user", "content": [{"text": "hi"}]}]) == ""
    assert converse_report([{"role": "user", "content": [{"text": "hi", "meta": 1}]}])
    assert converse_report([{"role": "user", "content": [{"text": "hi", "image": {}}]}])
    call = {"toolUse": {"toolUseId": "t", "name": "look"}}
    assert converse_report([{"role": "assistant", "content": [call]}])
    assert converse_report([], [{"type": "text", "text": "x"}])
    # The extension fields are taken off before validating, wherever they are.
    marked = [
        {"role": "user", "content": [{"text": "hi", "injected": True}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t", "name": "n", "input": {}}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "t", "content": [], "not_dispatched": True}}],
        },
    ]
    assert converse_report(marked) == ""


# ---- pairing rules -------------------------------------------------------------------------------


def u(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def a(*blocks: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"text": value, **extra}


def use(call_id: str, name: str = "look") -> dict[str, Any]:
    return {"toolUse": {"toolUseId": call_id, "name": name, "input": {}}}


def result(call_id: str, *content: Any, **extra: Any) -> dict[str, Any]:
    return {"toolResult": {"toolUseId": call_id, "content": list(content), **extra}}


@pytest.mark.parametrize(
    ("window", "words"),
    [
        pytest.param([a(text("hi")), u(text("q"))], OPENING, id="opens-on-assistant"),
        pytest.param([u(text("a")), u(text("b"))], "in a row", id="two-users"),
        pytest.param([u(text("a")), a(text("b")), a(text("c"))], "in a row", id="two-assistants"),
        pytest.param([u(text("a")), a(use("c1")), u(text("b"))], "no toolResult here", id="unans"),
        pytest.param(
            [u(text("a")), a(use("c1"), use("c2")), u(result("c1"))],
            "['c2'] have no toolResult",
            id="half-a-batch",
        ),
        pytest.param([u(result("c1"), text("a"))], "answers no toolUse", id="orphan"),
        pytest.param(
            [u(text("a")), a(use("c1")), u(result("c1")), a(text("b")), u(result("c1"))],
            "answers no toolUse",
            id="result-two-messages-late",
        ),
        pytest.param([u(use("c1"))], "holds toolUse", id="call-in-user"),
        pytest.param([u(text("a")), a(result("c1"))], "holds toolResult", id="result-in-assistant"),
    ],
)
def test_the_pairing_checker_refuses_known_bad_windows(window: list[Any], words: str) -> None:
    problems = bedrock_violations(window)
    assert any(words in problem for problem in problems), problems


def test_the_pairing_checker_accepts_a_call_about_to_run() -> None:
    window = [u(text("a")), a(use("c1"), use("c2")), u(result("c1"), result("c2")), a(use("c3"))]
    assert bedrock_violations(window) == []


# ---- the fixtures: request bodies as Converse takes them -----------------------------------------


def fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return loaded


KEEP_TWO = {"kind": "sliding-window", "keep_recent_turns": 2}
FIXTURE_PLANS: dict[str, tuple[dict[str, Any], str, tuple[str, int], int]] = {
    # Two parallel listings, then three parallel measures answered with json, text and an error,
    # a cache point after them: all of it leaves; the notice opens the window on its own, since
    # an assistant message follows it. (options, held, (rung, notice window_index), messages_after)
    # The cache point after the last results is theirs: no empty user message of its own.
    "bedrock_parallel_tools": ({"strategy": KEEP_TWO}, "EV EV EV ikw ikw", ("rich", 0), 3),
    # The request is kept with its document; the notice joins it as its last block, and the next
    # question, whose results left, joins that same message.
    "bedrock_kept_request": (
        {
            "strategy": KEEP_TWO,
            "keep_last_tool_results": 0,
            "request_text": fixture("bedrock_kept_request")["messages"][0]["content"][0]["text"],
        },
        "cr EV EV EV ikw ikw",
        ("plain", 0),
        3,
    ),
}
FIXTURE_NAMES = sorted(path.stem for path in FIXTURES.glob("bedrock_*.json"))


def test_every_fixture_is_planned() -> None:
    assert set(FIXTURE_NAMES) == set(FIXTURE_PLANS)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixtures_are_what_converse_takes(name: str) -> None:
    body = fixture(name)
    assert VALIDATOR.validate(body, CONVERSE).generate_report() == ""
    assert bedrock_violations(body["messages"]) == []


@pytest.mark.anyio
@pytest.mark.parametrize("name", FIXTURE_NAMES)
async def test_fixtures_are_planned_into_a_window_converse_accepts(client: Any, name: str) -> None:
    provider_body = fixture(name)
    options, expected_held, expected_notice, messages_after = FIXTURE_PLANS[name]
    request = {"messages": provider_body["messages"], "system": provider_body["system"], **options}
    answer = await post_ok(client, request)
    assert answer["format"] == "bedrock"  # detected
    assert held_words(answer["turns"]) == expected_held
    notice = answer["notice"]
    assert (notice["rung"], notice["window_index"]) == expected_notice
    window = answer["window"]
    assert answer["stats"]["messages_after"] == len(window) == messages_after
    assert text(notice["content"]) in window[notice["window_index"]]["content"]
    assert converse_report(window, provider_body["system"]) == ""
    assert bedrock_violations(window) == []
    system_text = "".join(block.get("text", "") for block in provider_body["system"])
    assert answer["stats"]["system_chars"] == len(system_text)


@pytest.mark.anyio
async def test_the_kept_request_holds_the_notice_and_the_next_question(client: Any) -> None:
    provider_body = fixture("bedrock_kept_request")
    options = FIXTURE_PLANS["bedrock_kept_request"][0]
    answer = await post_ok(client, {"messages": provider_body["messages"], **options})
    sent = provider_body["messages"]
    notice = answer["notice"]["content"]
    assert KEPT_REQUEST in notice
    assert answer["window"] == [
        {"role": "user", "content": [*sent[0]["content"], text(notice), sent[4]["content"][2]]},
        sent[5],
        sent[6],
    ]
    assert answer["evicted_messages"] == [1, 2, 3, 4]
    assert answer["stats"]["turns_after"] == 4  # the notice is a turn of its own


@pytest.mark.anyio
@pytest.mark.parametrize("name", FIXTURE_NAMES)
async def test_nothing_removed_gives_back_every_block(client: Any, name: str) -> None:
    provider_body = fixture(name)
    strategy = {"kind": "sliding-window", "keep_recent_turns": 50}
    response = await client.post(
        PLAN, json={"messages": provider_body["messages"], "strategy": strategy}
    )
    assert response.status_code == 200
    assert orjson.dumps(provider_body["messages"]) in response.content


# ---- the worked examples, in Bedrock -------------------------------------------------------------


def bedrock_conversion(messages: list[Any]) -> Conversion:
    """Native messages in Converse: results are `toolResult` blocks of the next user message, and
    a user message right after results is a text block of that same message (the reader splits
    it back into exactly the native core messages). Raises Inexpressible."""
    refuse_lost_tool_names(messages)
    out: list[Any] = []
    places: list[tuple[int, int | None]] = []
    results: list[Any] = []

    def flush() -> None:
        if results:
            out.append(u(*results))
            results.clear()

    for index, message in enumerate(messages):
        role, content = message["role"], message.get("content") or ""
        if role == "system":
            raise Inexpressible(
                f"message {index} is a system message: Converse has only the top-level system "
                "prompt, which is no turn"
            )
        if role == "tool":
            if message.get("injected"):
                raise Inexpressible(f"message {index} is an injected result: no block carries it")
            flags = {"not_dispatched": True} if message.get("not_dispatched") else {}
            results.append(result(message["tool_call_id"], text(content), **flags))
            places.append((len(out), len(results) - 1))
            continue
        if role == "user":
            block = text(content, injected=True) if message.get("injected") else text(content)
            places.append((len(out), len(results) if results else None))
            results.append(block)
            flush()
            continue
        flush()
        blocks = [text(content)] if content or not message.get("tool_calls") else []
        blocks += [use(call["id"], call["name"]) for call in message.get("tool_calls") or ()]
        places.append((len(out), None))
        out.append(a(*blocks))
    flush()
    refuse_consecutive_roles(out)
    return Conversion(out, places)


def conversion_of(messages: list[Any]) -> Conversion:
    """A Bedrock transcript with the place of each of its core messages (a window sent back)."""
    core = read_messages(messages, "bedrock")
    share = Counter(message.source for message in core)
    places = [(m.source or 0, None if share[m.source] == 1 else m.blocks[0]) for m in core]
    return Conversion(messages, places)


def core_shape(core: list[Message]) -> list[tuple[Any, ...]]:
    """What the plan reads of a core transcript, the notice's digits aside."""
    return [
        (m.role, len(m.content), m.tool_calls, m.tool_call_id, m.injected, m.not_dispatched)
        for m in core
    ]


def alternating(
    window: list[Any], notice_at: int | None, kept_request: bool
) -> tuple[list[Any], int | None]:
    """The Bedrock layout (docs/rules.md#where-the-notice-goes) of a window written with the notice
    as a message of its own: the notice's block joins the user message on its path's side (the
    request before it on the kept-request path, the message after it on the ordinary path), or the
    other side's, or stands alone; then neighbours of one role are one message. Returns the window
    and the index of the message holding the notice."""
    messages = [copy.deepcopy(message) for message in window]
    marker: dict[str, Any] | None = None
    if notice_at is not None:
        marker = messages[notice_at]["content"][0]
        sides = [notice_at - 1, notice_at + 1]
        for side in sides if kept_request else reversed(sides):
            if 0 <= side < len(messages) and messages[side]["role"] == "user":
                neighbour = messages[side]
                neighbour["content"] = (
                    [*neighbour["content"], marker]
                    if side < notice_at
                    else [marker, *neighbour["content"]]
                )
                del messages[notice_at]
                break
    merged: list[Any] = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1] = {**merged[-1], "content": [*merged[-1]["content"], *message["content"]]}
        else:
            merged.append(message)
    holder = None
    if marker is not None:
        holder = next(i for i, m in enumerate(merged) if any(b is marker for b in m["content"]))
    return merged, holder


def bedrock_expected(
    native: dict[str, Any], native_count: int, conversion: Conversion
) -> dict[str, Any]:
    """The native answer as Bedrock must give it: `expected_answer`'s caller-message mapping,
    then the window laid out with alternating roles, and the figures that describe it."""
    answer = expected_answer(native, native_count, conversion, "bedrock")
    answer["stats"]["system_chars"] = 0
    notice = answer["notice"]
    standalone = u(text(notice["content"] if notice else ""))
    kept = native_kept(native, native_count)
    written = expected_window(conversion, kept, standalone)
    notice_at = kept.index(None) if None in kept else None
    window, holder = alternating(
        written, notice_at, notice is not None and KEPT_REQUEST in notice["content"]
    )
    answer["stats"]["messages_after"] = len(window)
    if notice is not None:
        notice["window_index"] = holder
    if "window" in answer:
        answer["window"] = window
    return answer


BEDROCK_SKIPS = {
    "E1-leading-tool": "a result named only by its own tool_name",
    "X2": "a result named only by its own tool_name",
    "E24": "a system message",
    "E27a": "a system message",
    "E27b": "a system message",
    "E3": "consecutive assistant messages",
    "E3-derived": "consecutive assistant messages",
    "E14a-ltr0": "consecutive user messages",
    "E14a-ltr2": "consecutive user messages",
    "E14b": "consecutive assistant messages",
    "E14b-derived-ltr2": "consecutive assistant messages",
    "E22-pt": "consecutive assistant messages",
    "E22-pci": "consecutive assistant messages",
    "E22-utc": "consecutive assistant messages",
    "E23": "consecutive assistant messages",
    "E23-token-budget": "consecutive assistant messages",
}
SKIP_WORDS = {
    "a result named only by its own tool_name": "named only by its own tool_name",
    "a system message": "is a system message",
    "consecutive assistant messages": "are both assistant messages",
    "consecutive user messages": "are both user messages",
}


def test_the_examples_bedrock_cannot_carry_are_exactly_the_stated_ones() -> None:
    found = {}
    for example in EXAMPLES:
        try:
            bedrock_conversion(example.messages())
        except Inexpressible as reason:
            found[example.name] = str(reason)
    assert set(found) == set(BEDROCK_SKIPS)
    for name, reason in found.items():
        assert SKIP_WORDS[BEDROCK_SKIPS[name]] in reason, (name, reason)


def test_the_converter_writes_results_and_the_next_question_as_one_message() -> None:
    native = [
        {"role": "user", "content": "go", "injected": True},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "look"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok", "not_dispatched": True},
        {"role": "user", "content": "next"},
    ]
    conversion = bedrock_conversion(native)
    assert conversion.messages == [
        u(text("go", injected=True)),
        a(use("c1")),
        u(result("c1", text("ok"), not_dispatched=True), text("next")),
    ]
    assert conversion.places == [(0, None), (1, None), (2, 0), (2, 1)]
    assert conversion_of(conversion.messages).places == conversion.places


async def run_requests(
    client: Any, example: Example, wire: str, first: list[Any]
) -> list[tuple[list[Any], dict[str, Any]]]:
    """Every request of the example in `wire`, each sending back the records so far and, when
    the example says so, the previous window as returned."""
    runs: list[tuple[list[Any], dict[str, Any]]] = []
    records: list[Any] = []
    messages = first
    for request in range(len(example.held)):
        if request and example.sent_back:
            messages = runs[-1][1]["window"]
        body = {**example.request, "messages": messages, "format": wire, "prior_records": records}
        answer = await post_ok(client, body)
        if answer["record"] is not None:
            records.append(answer["record"])
        runs.append((messages, answer))
    return runs


EXPRESSIBLE = [example for example in EXAMPLES if example.name not in BEDROCK_SKIPS]


@pytest.mark.anyio
@pytest.mark.parametrize("example", EXPRESSIBLE, ids=[example.name for example in EXPRESSIBLE])
async def test_bedrock_gives_the_native_decisions(client: Any, example: Example) -> None:
    native_runs = await run_requests(client, example, "native", example.messages())
    runs = await run_requests(
        client, example, "bedrock", bedrock_conversion(example.messages()).messages
    )
    for (messages, answer), (native_messages, native) in zip(runs, native_runs, strict=True):
        assert core_shape(read_messages(messages, "bedrock")) == core_shape(
            read_messages(native_messages, "native")
        )
        expected = bedrock_expected(native, len(native_messages), conversion_of(messages))
        rest, window = without_window(answer)
        expected_rest, expected_window_value = without_window(expected)
        assert orjson.dumps(rest) == orjson.dumps(expected_rest)
        assert window == expected_window_value
        broken = {finding["code"] for finding in answer["diagnostics"]} & BROKEN
        if messages[0]["role"] == "user" and not broken:
            assert bedrock_violations(window) == []
        if answer["stats"]["removed_message_count"] == 0:
            assert orjson.dumps(window) == orjson.dumps(messages)


@pytest.mark.anyio
@pytest.mark.parametrize("example", EXPRESSIBLE, ids=[example.name for example in EXPRESSIBLE])
async def test_the_offer_lists_the_native_ids(client: Any, example: Example) -> None:
    ledger = [
        {"tool_call_id": m["tool_call_id"], "standing": "fact"}
        for m in example.messages()[:3]
        if m["role"] == "tool"
    ]
    answers = []
    for wire, messages in (
        ("native", example.messages()),
        ("bedrock", bedrock_conversion(example.messages()).messages),
    ):
        response = await client.post(
            OFFER, json={"messages": messages, "format": wire, "ledger": ledger}
        )
        assert response.status_code == 200, response.text
        answers.append(response.content)
    assert answers[0] == answers[1]


# ---- the window property over random Converse transcripts ----------------------------------------

BROKEN = {"orphan-result", "result-outside-its-turn", "unanswered-call", "duplicate-call-id"}
IMAGE = {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}}
DOCUMENT = {"document": {"format": "txt", "name": "notes", "source": {"bytes": "aGk="}}}
CACHE = {"cachePoint": {"type": "default"}}
REASONING = {"reasoningContent": {"reasoningText": {"text": "hm", "signature": "sig"}}}
Draw = Any


def server_run(call_id: str) -> list[Any]:
    """A tool the provider runs itself (Nova's code interpreter): its `toolUse` and its
    `toolResult`, both in the assistant message."""
    return [
        {
            "toolUse": {
                "toolUseId": call_id,
                "name": "nova_code_interpreter",
                "input": {"code": "print(41)"},
                "type": "server_tool_use",
            }
        },
        {
            "toolResult": {
                "toolUseId": call_id,
                "content": [{"json": {"stdout": "41"}}],
                "type": "nova_code_interpreter_result",
            }
        },
    ]


def attachments(draw: Draw) -> list[Any]:
    return draw(st.lists(st.sampled_from([IMAGE, DOCUMENT, CACHE]), max_size=2))


@st.composite
def converse_transcripts(draw: Draw) -> list[dict[str, Any]]:
    """Alternating Converse messages: person words and reminders as text blocks (several to a
    message), attachments around them, parallel calls answered in json or text, settled or left
    unanswered, orphan results; most open on a user message, some on an assistant."""
    messages: list[dict[str, Any]] = []
    role = "assistant" if draw(st.integers(0, 7)) == 0 else "user"
    pending: list[str] = []
    used: list[str] = []
    count = 0
    length = draw(st.integers(2, 12))
    for step in range(length):
        last = step == length - 1
        if role == "assistant":
            blocks: list[Any] = [REASONING] if draw(st.integers(0, 3)) == 0 else []
            if draw(st.booleans()):
                blocks.append(text(contents(draw) or "calling"))
            if draw(st.integers(0, 4)) == 0:
                count += 1
                blocks += server_run(f"s{count}")
            pending = []
            for _ in range(draw(st.sampled_from([0, 1, 1, 2, 3]))):
                count += 1
                call_id = f"c{count}"
                if used and not draw(st.integers(0, 7)):  # an id an earlier call already used
                    call_id = draw(st.sampled_from(used))
                pending.append(call_id)
                blocks.append(use(call_id, draw(st.sampled_from(TOOLS))))
            used += pending
            messages.append(a(*(blocks or [text("ok")])))
            role = "user"
            continue
        # Attachments may come first: a cache point or an image before the results or the text.
        blocks = attachments(draw) if draw(st.integers(0, 5)) == 0 else []
        for call_id in draw(st.permutations(pending)):
            fate = draw(st.sampled_from(["text", "json", "both", "settled", "unanswered"]))
            if fate == "unanswered" and not last:
                continue
            body = {"text": [text(contents(draw))], "json": [{"json": {"v": contents(draw)}}]}
            parts = body.get(fate, [text(contents(draw)), {"json": [1, 2]}])
            flags = {"not_dispatched": True} if fate == "settled" else {}
            blocks.append(result(call_id, *parts, **flags))
            blocks += [CACHE] if draw(st.integers(0, 4)) == 0 else []
        if draw(st.integers(0, 9)) == 0:
            count += 1
            blocks.append(result(f"x{count}", text(contents(draw))))
        blocks += attachments(draw) if draw(st.integers(0, 3)) == 0 else []
        for _ in range(draw(st.integers(0 if blocks else 1, 3))):
            flags = {"injected": True} if draw(st.integers(0, 3)) == 0 else {}
            blocks.append(text(contents(draw), **flags))
            blocks += attachments(draw) if draw(st.integers(0, 3)) == 0 else []
        messages.append(u(*blocks))
        pending, role = [], "assistant"
    return messages


def native_view(core: list[Message]) -> list[dict[str, Any]]:
    """The core transcript in the shape `plan_options` reads (roles, ids, user texts)."""
    return [
        {
            "role": m.role,
            "content": m.content,
            "tool_call_id": m.tool_call_id,
            "tool_calls": [{"id": call.id} for call in m.tool_calls],
        }
        for m in core
    ]


@st.composite
def planned_transcripts(draw: Draw) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    messages = draw(converse_transcripts())
    options = draw(plan_options(native_view(read_messages(messages, "bedrock"))))
    if draw(st.integers(0, 3)) == 0:
        options["cap"] = {"max_chars": draw(st.sampled_from([30, 200]))}
    return messages, options


def flat_blocks(messages: list[Any]) -> list[Any]:
    """Every block in order, a result's content left out (shaping may replace it)."""
    out = []
    for message in messages:
        for block in message["content"]:
            if "toolResult" in block:
                block = {**block, "toolResult": {**block["toolResult"], "content": None}}
            out.append(block)
    return out


def check_window(sent: list[Any], answer: dict[str, Any]) -> None:
    window = answer["window"]
    notice = answer["notice"]
    assert answer["stats"]["messages_after"] == len(window)
    # The roles alternate, the notice's block included, and the window opens as the input did.
    roles = [message["role"] for message in window]
    assert all(one != other for one, other in pairwise(roles)), roles
    if sent[0]["role"] == "user" and window:
        assert roles[0] == "user"
    # Every kept block is the caller's, in order, the notice's between the head and the tail.
    core = read_messages(sent, "bedrock")
    bounds = [i for i, m in enumerate(core) if i == 0 or m.role != "tool"]
    ends = [*bounds[1:], len(core)]
    evicted = answer["evicted"]
    start, end = (bounds[evicted[0]], ends[evicted[-1]]) if evicted else (len(core), len(core))
    kept = [p for p in range(len(core)) if not start <= p < end]
    groups: list[tuple[Any, list[int]]] = []
    for position in kept:
        source = core[position].source
        after_notice = notice is not None and position == end
        if groups and groups[-1][0] == source and not after_notice:
            groups[-1][1].extend(core[position].blocks)
        else:
            groups.append((source, list(core[position].blocks)))
    expected = [sent[source]["content"][b] for source, blocks in groups for b in sorted(blocks)]
    if notice is not None:
        expected.insert(
            sum(len(core[p].blocks) for p in kept if p < start), text(notice["content"])
        )
        assert text(notice["content"]) in window[notice["window_index"]]["content"]
    assert flat_blocks(window) == flat_blocks([u(*expected)])
    for entry in answer.get("shaped") or ():
        if entry["window_index"] is not None:
            held = window[entry["window_index"]]["content"]
            assert any(
                b.get("toolResult", {}).get("toolUseId") == entry["tool_call_id"] for b in held
            )
    # Converse's pairing holds whenever the input was not already broken.
    if not {d["code"] for d in answer["diagnostics"]} & BROKEN:
        problems = bedrock_violations(window)
        if sent[0]["role"] != "user":
            problems = [p for p in problems if OPENING not in p]
        assert problems == [], (problems, window)
        assert converse_report(window) == ""


@given(planned_transcripts())
def test_random_converse_transcripts_give_windows_converse_accepts(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    messages, options = case
    # The fast path and the checking path read every message alike.
    slow: list[Message] = []
    for index, message in enumerate(messages):
        bedrock.read_message(message, index, Problems(), slow)
    assert slow == read_messages(messages, "bedrock")
    answer = plan({**options, "messages": messages, "format": "bedrock"})
    check_window(messages, answer)
    # The window reads back (the notice as a frame) and plans again.
    again = plan({**options, "messages": answer["window"], "format": "bedrock"})
    assert again["format"] == "bedrock"


def test_the_generator_reaches_what_it_claims() -> None:
    seen: set[str] = set()

    # A fixed sample large enough to reach every case under either profile (derandomized, so
    # the same sample on every run).
    @settings(max_examples=150, derandomize=True, deadline=None)
    @given(converse_transcripts())
    def collect(messages: list[dict[str, Any]]) -> None:
        if messages[0]["role"] == "assistant":
            seen.add("opens-on-assistant")
        for message in messages:
            blocks = message["content"]
            if sum("text" in block for block in blocks) > 1 and message["role"] == "user":
                seen.add("several-texts")
            if sum("toolUse" in block for block in blocks) > 1:
                seen.add("parallel")
            if message["role"] == "assistant" and any("toolResult" in b for b in blocks):
                seen.add("server-tool")
            if message["role"] == "user" and blocks and "cachePoint" in blocks[0]:
                seen.add("cache-point-first")
            kinds = [next(iter(block)) for block in blocks]
            if "toolResult" in kinds and "cachePoint" in kinds and "text" not in kinds:
                seen.add("results-and-cache-point")
            for block in blocks:
                seen.update(key for key in block if key != "text" or message["role"] == "user")
                if block.get("injected"):
                    seen.add("injected")
                inner = block.get("toolResult", {})
                if inner.get("not_dispatched"):
                    seen.add("settled")
                if str(inner.get("toolUseId", "")).startswith("x"):
                    seen.add("orphan")
                if any("json" in part for part in inner.get("content", ())):
                    seen.add("json")

    collect()
    assert seen >= {
        "server-tool",
        "cache-point-first",
        "results-and-cache-point",
        "opens-on-assistant",
        "several-texts",
        "parallel",
        "injected",
        "settled",
        "orphan",
        "json",
        "image",
        "document",
        "cachePoint",
        "reasoningContent",
        "toolUse",
        "toolResult",
        "text",
    }


def test_the_window_check_can_fail() -> None:
    sent = [
        u(text("task")),
        a(use("c1")),
        u(result("c1", text("x" * 600)), text("q")),
        a(text("z")),
    ]
    options = {"strategy": KEEP_TWO, "keep_last_tool_results": 0}
    answer = plan({**options, "messages": sent, "format": "bedrock"})
    check_window(sent, answer)
    assert answer["notice"]["window_index"] == 0
    broken = [
        {**answer, "window": [u(text(answer["notice"]["content"])), *answer["window"]]},
        {**answer, "notice": {**answer["notice"], "window_index": 1}},
        {**answer, "stats": {**answer["stats"], "messages_after": 3}},
        {**answer, "window": [answer["window"][0], a(text("other")), *answer["window"][1:]]},
    ]
    for wrong in broken:
        with pytest.raises(AssertionError):
            check_window(sent, wrong)


# ---- blocks with their core message: cache points, screenshots, server-side tools ----------------

REMINDER = text("<reminder>report in degrees</reminder>", injected=True)


def block_mixes() -> list[dict[str, Any]]:
    """Every user block mix of the reading rule, and a Nova server-side tool run."""
    return [
        u(text("Plot the rack temperatures.")),
        a(text("Running the interpreter."), *server_run("srv_1"), text("41C."), use("c1")),
        u(result("c1", text("saved")), CACHE),  # one tool message
        a(use("c2")),
        u(result("c2", text("z" * 600)), IMAGE, text("Here is what I see.")),  # the screenshot
        a(text("Noted.")),
        u(CACHE, text("Which rack is hottest?")),  # one user message
        a(use("c3")),
        u(result("c3", text("rack b")), CACHE),
        a(text("Rack b.")),
        u(REMINDER, text("Thanks, and rack d?")),  # two user messages
    ]


@pytest.mark.anyio
async def test_no_block_mix_makes_an_empty_core_message(client: Any) -> None:
    sent = block_mixes()
    strategy = {"kind": "sliding-window", "keep_recent_turns": 50}
    answer = await post_ok(client, {"messages": sent, "strategy": strategy})
    assert answer["format"] == "bedrock"
    # The results with their cache points join the call's turn; every user text is a turn.
    assert [t["start"] for t in answer["turns"]] == [0, 1, 3, 4, 5, 6, 7, 9, 10, 10]
    assert answer["diagnostics"] == []
    assert answer["stats"]["chars_before"] == sum(
        len(block.get("text", "")) for block in flat_blocks(sent) if "toolUse" not in block
    ) + len("saved") + 600 + len("rack b")


@pytest.mark.anyio
async def test_the_screenshot_stays_with_the_persons_words(client: Any) -> None:
    sent = block_mixes()
    body = {
        "messages": sent,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 7},
        "request_text": "Plot the rack temperatures.",
        "keep_last_tool_results": 0,
    }
    answer = await post_ok(client, body)
    assert answer["evicted"] == [1, 2]
    window = answer["window"]
    notice = text(answer["notice"]["content"])
    # The request, the notice, and the screenshot with the words it was sent with: one message.
    assert window[0] == u(sent[0]["content"][0], notice, IMAGE, text("Here is what I see."))
    assert window[1:] == sent[5:]
    assert converse_report(window) == ""
    assert bedrock_violations(window) == []


@pytest.mark.anyio
@pytest.mark.parametrize("keep", [1, 2, 3, 4, 5, 6, 8])
@pytest.mark.parametrize("ltr", [0, 2])
async def test_every_cut_of_the_block_mixes_is_a_window_converse_accepts(
    client: Any, keep: int, ltr: int
) -> None:
    sent = block_mixes()
    strategy = {"kind": "sliding-window", "keep_recent_turns": keep}
    answer = await post_ok(
        client, {"messages": sent, "strategy": strategy, "keep_last_tool_results": ltr}
    )
    window = answer["window"]
    assert converse_report(window) == ""
    assert bedrock_violations(window) == []
    check_window(sent, answer)
    # A cache point never outlives the block it marks, nor is left alone in a message.
    for message in window:
        kinds = [next(iter(block)) for block in message["content"]]
        assert kinds[0] != "cachePoint" or "text" in kinds
        assert kinds != ["cachePoint"]
    # The server-side tool's blocks stay in their assistant message, together.
    kept = [
        m for m in window if any("toolUse" in b and "type" in b["toolUse"] for b in m["content"])
    ]
    assert kept in ([], [sent[1]])


@pytest.mark.anyio
async def test_a_shaped_result_keeps_its_cache_point_as_sent(client: Any) -> None:
    sent = [u(text("task")), a(use("c1")), u(result("c1", text("r" * 900)), CACHE), a(text("ok"))]
    body = {"messages": sent, "cap": {"max_chars": 200}, "strategy": {"kind": "sliding-window"}}
    answer = await post_ok(client, body)
    assert [(s["tool_call_id"], s["action"]) for s in answer["shaped"]] == [("c1", "capped")]
    shaped = answer["window"][2]["content"]
    assert [next(iter(block)) for block in shaped] == ["toolResult", "cachePoint"]
    assert shaped[1] == CACHE
    assert converse_report(answer["window"]) == ""


# ---- auto, shaping, the system prompt ------------------------------------------------------------


@pytest.mark.anyio
async def test_auto_detects_bedrock_from_blocks_or_from_the_system_prompt(client: Any) -> None:
    answer = await post_ok(client, {"messages": [u(text("hi"))]})
    assert answer["format"] == "bedrock"
    plain = [{"role": "user", "content": "hi"}]
    answer = await post_ok(client, {"messages": plain, "system": [text("be brief"), CACHE]})
    assert (answer["format"], answer["stats"]["system_chars"]) == ("bedrock", 8)


@pytest.mark.anyio
async def test_a_bedrock_message_after_an_anthropic_call_is_refused_naming_it(client: Any) -> None:
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "look", "input": {}}],
        },
        u(result("t1", text("ok"))),
    ]
    for path in (PLAN, OFFER):
        response = await client.post(path, json={"messages": messages})
        assert response.status_code == 422
        locs = [tuple(error["loc"]) for error in response.json()["errors"]]
        assert locs == [("body", "messages", 2)]


@pytest.mark.anyio
async def test_bad_bedrock_messages_are_a_422_naming_the_field(client: Any) -> None:
    messages = [u(text("go")), a({"toolUse": {"name": "look", "input": {}}})]
    response = await client.post(PLAN, json={"messages": messages, "format": "bedrock"})
    assert response.status_code == 422
    locs = [tuple(error["loc"]) for error in response.json()["errors"]]
    assert locs == [("body", "messages", 1, "content", 0, "toolUse", "toolUseId")]


@pytest.mark.anyio
@pytest.mark.parametrize("system", ["a string", [{"type": "text", "text": "x"}], {"text": "x"}])
async def test_a_system_prompt_of_another_shape_is_refused(client: Any, system: Any) -> None:
    body = {"messages": [u(text("hi"))], "format": "bedrock", "system": system}
    response = await client.post(PLAN, json=body)
    assert response.status_code == 422
    assert [tuple(e["loc"]) for e in response.json()["errors"]] == [("body", "system")]


@pytest.mark.anyio
async def test_shaping_writes_the_tool_result_content(client: Any) -> None:
    long_text = "r" * 900
    messages = [
        u(text("task")),
        a(use("c1"), use("c2", "probe")),
        u(
            result("c1", text(long_text), {"json": {"more": True}}, status="success"),
            result("c2", text("noise " * 50)),
            text("next"),
        ),
        a(text("done")),
    ]
    system = [text("You are terse."), CACHE]
    body = {
        "messages": messages,
        "system": system,
        "ledger": [{"tool_call_id": "c2", "standing": "noise"}],
        "collapse": "ledger-and-facts",
        "cap": {"max_chars": 300},
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 6},
    }
    answer = await post_ok(client, body)
    assert answer["format"] == "bedrock"
    assert answer["stats"]["system_chars"] == len("You are terse.")
    assert [(s["tool_call_id"], s["action"], s["window_index"]) for s in answer["shaped"]] == [
        ("c1", "capped", 2),
        ("c2", "collapsed", 2),
    ]
    shaped = answer["window"][2]["content"]
    capped, collapsed = shaped[0]["toolResult"], shaped[1]["toolResult"]
    assert capped["status"] == "success" and capped["toolUseId"] == "c1"
    assert [list(block) for block in capped["content"]] == [["text"]]
    assert json.loads(capped["content"][0]["text"])["truncated"] is True
    assert [list(block) for block in collapsed["content"]] == [["text"]]
    assert shaped[2] == text("next")
    assert converse_report(answer["window"], system) == ""
    # The caller's own transcript is read with its full texts: the chars before count them.
    assert (
        answer["stats"]["chars_before"] == len(long_text) + len('{"more":true}') + 300 + 4 + 4 + 4
    )


# `clear` (docs/rules.md#clear): small values, so the boundary moves in short transcripts.
CLEARS = st.fixed_dictionaries(
    {"keep_last": st.sampled_from([0, 1]), "step": st.sampled_from([1, 2])},
    optional={"exclude_tools": st.just(["look"])},
)


@given(planned_transcripts(), CLEARS)
def test_cleared_windows_are_windows_converse_accepts(
    case: tuple[list[dict[str, Any]], dict[str, Any]], clear: dict[str, Any]
) -> None:
    messages, options = case
    body = {**options, "clear": clear, "format": "bedrock"}
    answer = plan({**body, "messages": messages})
    check_window(messages, answer)
    if answer["stats"]["removed_message_count"] == 0:
        again = plan({**body, "messages": answer["window"]})
        assert again["shaped"] == [] and again["window"] == answer["window"]
