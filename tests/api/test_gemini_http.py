"""Gemini `contents` in, a ready-to-send window out, through HTTP.

1. A conversation built with `google-genai`'s own types (thought parts with signatures, parallel
   calls, responses without ids), dumped as the SDK writes it for the REST API (camelCase keys,
   base64 signatures), is planned into a window whose every content validates back into
   `types.Content`, every kept part byte-identical (signature included).
2. Every worked example of `tests/core/window_examples.py` that Gemini can carry gives the native
decisions, mapped
   through the converter's index map; the offer gives the native ids. The converter mirrors the
   Anthropic one of `test_formats_equivalence.py`: tool results go into the next user content as
   `functionResponse` parts (explicit ids), and a question after results joins them as a text
   part. Inexpressible, and pinned in `STATED_SKIPS`: a `system` message (Gemini's system prompt
   is `systemInstruction`, outside `contents`, no turn) and an injected result (no part carries
   the flag). Consecutive contents of one role are kept as they are (the API accepts them and the
   service reads them one by one), and a result named only by its own `tool_name` is fine here:
   `functionResponse` carries `name`.
3. A property over random Gemini transcripts (ids given or left out, thought parts, signatures,
   images, split texts) and random plan options: the window keeps Gemini's pairing rules
   (`app/audit/validity/gemini.py`) whenever the diagnostics say the input did, every kept part is
   byte-identical, every signature stays, and the window never opens on a model content when the
   input did not.
4. `auto` detects Gemini, and a Gemini content after an Anthropic block is refused naming it.
5. Shaping writes `response.output`; `system` (`systemInstruction`) is accepted and counted.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import orjson
import pytest
from google.genai import types
from hypothesis import given
from hypothesis import strategies as st

from app.audit.validity.gemini import (
    gemini_violations,
    opening_violations,
    pairing_violations,
    signature_violations,
)
from app.core.messages import Message
from app.formats import read_messages
from tests.api.test_formats_equivalence import (
    EXAMPLES,
    Conversion,
    Example,
    Inexpressible,
    conversations,
    held,
    map_refusals_and_pins,
    native_kept,
    plan,
    plan_options,
    post_ok,
    with_flags,
    without_window,
)

PLAN = "/v1/window/plan"
OFFER = "/v1/offer"
PAIRING_BREAKERS = {
    "orphan-result",
    "result-outside-its-turn",
    "unanswered-call",
    "duplicate-call-id",
}
KEEP_ONE = {"kind": "sliding-window", "keep_recent_turns": 1}


def dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def notice_content(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


# ---- 1. contents as the SDK writes them ----------------------------------------------------------

SIG_PLAN = b"\x12\x0a plan the floor \xff"
SIG_MEASURE = b"\x12\x0b measure both \x00"
SIG_ANSWER = b"\x12\x0c hottest"
SIG_AGAIN = b"\x12\x0d again"


RACKS = "rack-a, rack-b; " + "both in row 2, eight sensors each, last serviced in May. " * 10


def call_part(name: str, signature: bytes | None = None, **args: Any) -> types.Part:
    return types.Part(
        function_call=types.FunctionCall(name=name, args=args), thought_signature=signature
    )


def response_part(name: str, output: Any) -> types.Part:
    response = output if isinstance(output, dict) else {"output": output}
    return types.Part(function_response=types.FunctionResponse(name=name, response=response))


def sdk_contents() -> list[types.Content]:
    """A floor survey: a thought and a signed call, two parallel calls (the first signed), the
    answer with a signed thought, a new question and one more signed call; no ids anywhere."""
    return [
        types.Content(role="user", parts=[types.Part(text="Find the hottest rack on floor 2.")]),
        types.Content(
            role="model",
            parts=[
                types.Part(text="List the racks first.", thought=True),
                call_part("list_racks", SIG_PLAN, floor=2),
            ],
        ),
        types.Content(role="user", parts=[response_part("list_racks", RACKS)]),
        types.Content(
            role="model",
            parts=[
                call_part("measure", SIG_MEASURE, rack="a"),
                call_part("measure", rack="b"),
            ],
        ),
        types.Content(
            role="user",
            parts=[response_part("measure", "39C"), response_part("measure", {"celsius": 41})],
        ),
        types.Content(
            role="model",
            parts=[
                types.Part(text="b is warmer.", thought=True, thought_signature=SIG_ANSWER),
                types.Part(text="Rack b is the hottest at 41C."),
            ],
        ),
        types.Content(role="user", parts=[types.Part(text="Measure rack b again.")]),
        types.Content(role="model", parts=[call_part("measure", SIG_AGAIN, rack="b")]),
        types.Content(role="user", parts=[response_part("measure", "42C")]),
    ]


def as_sent(content: types.Content) -> dict[str, Any]:
    dumped: dict[str, Any] = content.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def sdk_valid(content: dict[str, Any]) -> None:
    """`content` is exactly a `types.Content` (the SDK forbids unknown keys): it validates, and
    dumps back to itself."""
    assert as_sent(types.Content.model_validate(content)) == content


SYSTEM_INSTRUCTION = types.Content(
    parts=[types.Part(text="You are the on-call assistant. "), types.Part(text="Never guess.")]
)


def test_the_sdk_writes_camel_case_keys_and_base64_signatures() -> None:
    contents = [as_sent(content) for content in sdk_contents()]
    signed = contents[1]["parts"][1]
    assert signed == {
        "functionCall": {"args": {"floor": 2}, "name": "list_racks"},
        "thoughtSignature": base64.urlsafe_b64encode(SIG_PLAN).decode(),  # URL-safe
    }
    assert contents[2]["parts"][0] == {
        "functionResponse": {"name": "list_racks", "response": {"output": RACKS}}
    }
    assert contents[1]["parts"][0] == {"text": "List the racks first.", "thought": True}
    for content in contents:
        sdk_valid(content)
    with pytest.raises(ValueError):
        sdk_valid({**contents[0], "injected": True})
    assert as_sent(SYSTEM_INSTRUCTION) == {
        "parts": [{"text": "You are the on-call assistant. "}, {"text": "Never guess."}]
    }


def kept_parts_are_the_callers(window: list[Any], sent: list[Any], notice_at: int | None) -> None:
    """Every window content but the notice is a caller content, in order: the same object, or a
    copy with every other key as sent and some of its parts, each byte-identical, in order."""
    position = 0
    for window_index, item in enumerate(window):
        if window_index == notice_at:
            assert dumps(item) == dumps(notice_content(item["parts"][0]["text"]))
            continue
        while position < len(sent) and not same_or_fewer_parts(item, sent[position]):
            position += 1
        assert position < len(sent), f"window content {window_index} is not the caller's"
        position += 1


def same_or_fewer_parts(item: dict[str, Any], sent: dict[str, Any]) -> bool:
    if dumps(item) == dumps(sent):
        return True
    if list(item) != list(sent):
        return False
    if any(dumps(item[key]) != dumps(sent[key]) for key in sent if key != "parts"):
        return False
    parts, sent_parts = item["parts"], sent["parts"]
    if not 0 < len(parts) < len(sent_parts):
        return False
    remaining = iter(dumps(part) for part in sent_parts)
    return all(any(dumps(part) == other for other in remaining) for part in parts)


@pytest.mark.anyio
async def test_an_sdk_conversation_is_planned_into_a_window_the_sdk_accepts(client: Any) -> None:
    sent = [as_sent(content) for content in sdk_contents()]
    system = as_sent(SYSTEM_INSTRUCTION)
    body = {
        "messages": sent,
        "system": system,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 3},
        "keep_last_tool_results": 0,
        "request_text": "Find the hottest rack on floor 2.",
    }
    answer = await post_ok(client, {**body})
    assert answer["format"] == "gemini"  # detected
    assert answer["stats"]["system_chars"] == len("You are the on-call assistant. Never guess.")
    # The request is kept; the two survey turns leave; the answer and the new question stay.
    assert held(answer) == "cr EV EV ikw ikw ikw"
    assert answer["evicted_messages"] == [1, 2, 3, 4]
    assert (answer["notice"]["rung"], answer["notice"]["window_index"]) == ("rich", 1)
    assert "(list_racks, measure)" in answer["notice"]["content"]
    window = answer["window"]
    assert window == [sent[0], notice_content(answer["notice"]["content"]), *sent[5:]]
    for content in window:
        sdk_valid(content)
    assert dumps(window[2:]) == dumps(sent[5:])  # signatures included, byte for byte
    assert gemini_violations(window, sent) == []
    kept_parts_are_the_callers(window, sent, 1)
    restored = [types.Content.model_validate(content) for content in window]
    assert restored[4].parts is not None and restored[4].parts[0].thought_signature == SIG_AGAIN


@pytest.mark.anyio
async def test_generated_ids_pair_the_sdk_calls_and_survive_eviction(client: Any) -> None:
    """Responses without ids answer the calls by name and order: nothing is orphaned, each
    parallel response answers its own call, and the offer's ids stay the same once the first
    turns left (the names hash the contents, which are kept verbatim)."""
    sent = [as_sent(content) for content in sdk_contents()]
    answer = await post_ok(client, {"messages": sent, "strategy": KEEP_ONE})
    assert answer["diagnostics"] == []
    core = read_messages(sent, "gemini")
    calls = [call.id for message in core for call in message.tool_calls]
    results = [message.tool_call_id for message in core if message.role == "tool"]
    assert results == calls and len(set(calls)) == 4
    offer = (await client.post(OFFER, json={"messages": sent})).json()
    assert offer["served"] == calls
    later = (await client.post(OFFER, json={"messages": answer["window"]})).json()
    assert later["served"] == calls[-1:]
    assert all("#" not in dumps(content).decode() for content in answer["window"])


@pytest.mark.anyio
async def test_nothing_removed_gives_back_every_part(client: Any) -> None:
    sent = [as_sent(content) for content in sdk_contents()]
    strategy = {"kind": "sliding-window", "keep_recent_turns": 50}
    response = await client.post(PLAN, json={"messages": sent, "strategy": strategy})
    assert response.json()["stats"]["removed_message_count"] == 0
    assert dumps(sent) in response.content


# ---- the checker itself --------------------------------------------------------------------------


def model(*calls: dict[str, Any], signature: str | None = None) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"functionCall": call} for call in calls]
    if signature is not None and parts:
        parts[0]["thoughtSignature"] = signature
    return {"role": "model", "parts": parts}


def answers(*responses: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"functionResponse": r} for r in responses]
    if text is not None:
        parts.append({"text": text})
    return {"role": "user", "parts": parts}


ASK = {"role": "user", "parts": [{"text": "go"}]}
LOOK = {"name": "look", "args": {}}
LOOK_A = {"id": "a", "name": "look", "args": {}}
LOOK_B = {"id": "b", "name": "look", "args": {}}
DONE = {"role": "model", "parts": [{"text": "done"}]}


def test_the_checker_accepts_answered_calls() -> None:
    assert not pairing_violations(
        [ASK, model(LOOK, LOOK), answers({"name": "look"}, {"name": "look"})]
    )
    assert not pairing_violations(
        [ASK, model(LOOK, LOOK), answers({"name": "look"}, {"name": "look"}), DONE]
    )
    assert not pairing_violations(
        [ASK, model(LOOK_A, LOOK_B), answers({"id": "b", "name": "look"}, {"id": "a"}), DONE]
    )
    # A batch whose first results are written, at the very end: still running.
    assert not pairing_violations([ASK, model(LOOK_A, LOOK_B), answers({"id": "a"})])
    assert not pairing_violations([ASK, model(LOOK)])


@pytest.mark.parametrize(
    ("window", "words"),
    [
        ([ASK, model(LOOK, LOOK), answers({"name": "look"}), DONE], "have no functionResponse"),
        ([ASK, model(LOOK), DONE], "have no functionResponse"),
        ([ASK, model(LOOK), ASK, answers({"name": "look"}), DONE], "answers no call"),
        ([ASK, answers({"name": "look"}), DONE], "answers no call"),
        ([ASK, model(LOOK_A), answers({"id": "b", "name": "look"}), DONE], "answers no call"),
        ([ASK, model(LOOK), answers({"name": "move"}), DONE], "answers no call"),
        ([ASK, model(LOOK), answers({"name": "look"}, {"name": "look"}), DONE], "no call"),
        (
            [ASK, model(LOOK, LOOK), answers({"name": "look"}, text="more?")],
            "have no functionResponse",
        ),
    ],
)
def test_the_checker_refuses_broken_pairing(window: list[Any], words: str) -> None:
    problems = gemini_violations(window)
    assert problems and any(words in problem for problem in problems), problems


def test_the_checker_refuses_a_lost_signature_and_a_model_opening() -> None:
    sent = [ASK, model(LOOK, signature="c2ln"), answers({"name": "look"}), DONE]
    assert gemini_violations(sent, sent) == []
    unsigned = [ASK, model(LOOK), answers({"name": "look"}), DONE]
    assert any("missing a thought_signature" in p for p in gemini_violations(unsigned, sent))
    other = [ASK, model(LOOK, signature="b3RoZXI="), answers({"name": "look"}), DONE]
    assert signature_violations(sent, other)
    assert opening_violations(sent, sent[1:]) and opening_violations(sent, [DONE])
    assert not opening_violations([DONE, ASK], [DONE]) and not opening_violations(sent, [ASK])


# ---- 2. the worked examples, native and Gemini ---------------------------------------------------


def call_names(messages: list[Any]) -> dict[str, str]:
    """The name of the first call with each id (a result's name when it carries none)."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            if call["name"]:
                names.setdefault(call["id"], call["name"])
    return names


def convert(messages: list[Any]) -> Conversion:
    """`messages` (native JSON) as Gemini contents; raises Inexpressible when Gemini cannot carry
    them. `places[i]` = (content index, part position or None for a whole content)."""
    names = call_names(messages)
    out: list[Any] = []
    places: list[tuple[int, int | None]] = []
    results: list[dict[str, Any]] = []

    def flush() -> None:
        if results:
            out.append({"role": "user", "parts": list(results)})
            results.clear()

    for index, message in enumerate(messages):
        role, text = message["role"], message.get("content") or ""
        if role == "system":
            raise Inexpressible(
                f"message {index} is a system message: Gemini's system prompt is "
                "systemInstruction, outside contents, which is no turn"
            )
        if role == "tool":
            if message.get("injected"):
                raise Inexpressible(f"message {index} is an injected result: no part carries it")
            call_id = message["tool_call_id"]
            response: dict[str, Any] = {
                "id": call_id,
                "name": message.get("tool_name") or names.get(call_id, ""),
                "response": {"output": text},
            }
            if message.get("not_dispatched"):
                response["not_dispatched"] = True
            results.append({"functionResponse": response})
            places.append((len(out), len(results) - 1))
        elif role == "user" and results:
            merged = {"role": "user", "parts": [*results, {"text": text}]}
            places.append((len(out), len(results)))
            results.clear()
            out.append(with_flags(merged, message))
        elif role == "user":
            places.append((len(out), None))
            out.append(with_flags({"role": "user", "parts": [{"text": text}]}, message))
        else:
            flush()
            places.append((len(out), None))
            out.append(with_flags(model_content(text, message), message))
    flush()
    return Conversion(out, places)


def model_content(text: str, message: dict[str, Any]) -> dict[str, Any]:
    parts: list[Any] = [{"text": text}] if text else []
    for call in message.get("tool_calls") or ():
        parts.append(
            {"functionCall": {"id": call["id"], "name": call["name"], "args": call["arguments"]}}
        )
    return {"role": "model", "parts": parts}


STATED_SKIPS = {
    "E24": "a system message",
    "E27a": "a system message",
    "E27b": "a system message",
}
SKIP_REASON_WORDS = {"a system message": "is a system message"}


def test_the_examples_gemini_cannot_carry_are_exactly_the_stated_ones() -> None:
    found = {}
    for example in EXAMPLES:
        try:
            convert(example.messages())
        except Inexpressible as reason:
            found[example.name] = str(reason)
    assert set(found) == set(STATED_SKIPS)
    for name, reason in found.items():
        assert SKIP_REASON_WORDS[STATED_SKIPS[name]] in reason, (name, reason)


def test_the_converter_merges_results_and_the_question() -> None:
    messages = [
        {"role": "user", "content": "turn one"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "look", "arguments": {}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok", "not_dispatched": True},
        {"role": "user", "content": "turn two", "injected": True},
    ]
    conversion = convert(messages)
    assert conversion.messages == [
        {"role": "user", "parts": [{"text": "turn one"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "look", "args": {}}}]},
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "c1",
                        "name": "look",
                        "response": {"output": "ok"},
                        "not_dispatched": True,
                    }
                },
                {"text": "turn two"},
            ],
            "injected": True,
        },
    ]
    assert conversion.places == [(0, None), (1, None), (2, 0), (2, 1)]


def expected_window(conversion: Conversion, kept: list[int | None], notice: Any) -> list[Any]:
    """The native window written as contents: consecutive kept native messages of one content
    form that content again, with only their parts when some of it left."""
    share = [0] * len(conversion.messages)
    for caller, _ in conversion.places:
        share[caller] += 1
    runs: list[tuple[int, list[int | None]] | None] = []
    for index in kept:
        if index is None:
            runs.append(None)
            continue
        caller, position = conversion.places[index]
        last = runs[-1] if runs else None
        if last is not None and last[0] == caller:
            last[1].append(position)
        else:
            runs.append((caller, [position]))
    window: list[Any] = []
    for run in runs:
        if run is None:
            window.append(notice)
            continue
        caller, positions = run
        content = conversion.messages[caller]
        if len(positions) == share[caller]:
            window.append(content)
        else:
            parts = content["parts"]
            window.append({**content, "parts": [parts[p] for p in sorted(positions)]})  # type: ignore[index]
    return window


def expected_answer(
    native: dict[str, Any], native_count: int, conversion: Conversion
) -> dict[str, Any]:
    """The native answer as Gemini must give it (`docs/rules.md#gemini`: as for Anthropic, in
    contents)."""
    to_caller = conversion.caller_index
    answer = copy.deepcopy(native)
    answer["format"] = "gemini"
    for turn in answer["turns"]:
        touched = {to_caller(i) for i in range(turn["start"], turn["start"] + turn["length"])}
        turn["start"], turn["length"] = to_caller(turn["start"]), len(touched)
    if answer["current_request"] is not None:
        request = answer["current_request"]
        request["message_index"] = to_caller(request["message_index"])
    evicted = sorted({to_caller(i) for i in native["evicted_messages"]})
    answer["evicted_messages"] = evicted
    map_refusals_and_pins(answer, to_caller)
    for finding in answer["diagnostics"]:
        if finding["message_index"] is not None:
            finding["message_index"] = to_caller(finding["message_index"])
    notice_text = None
    if native["notice"] is not None:
        native_text = native["notice"]["content"]
        before = f"[dropped history — {len(native['evicted_messages'])} earlier message(s)"
        assert native_text.startswith(before)
        notice_text = (
            f"[dropped history — {len(evicted)} earlier message(s)" + native_text[len(before) :]
        )
        head = native["notice"]["window_index"]
        answer["notice"]["content"] = notice_text
        answer["notice"]["window_index"] = len({to_caller(i) for i in range(head)})
    stats = answer["stats"]
    stats["messages_before"] = len(conversion.messages)
    kept = native_kept(native, native_count)
    window = expected_window(conversion, kept, notice_content(notice_text or ""))
    stats["messages_after"] = len(window)
    if notice_text is not None:
        stats["chars_after"] += len(notice_text) - len(native["notice"]["content"])
    stats["removed_message_count"] = len(evicted)
    stats["system_chars"] = 0
    if answer["record"] is not None:
        answer["record"]["removed_message_count"] = len(evicted)
        map_refusals_and_pins(answer["record"], to_caller)
    if "window" in answer:
        answer["window"] = window
    return answer


def assert_same_decisions(
    answer: dict[str, Any], native: dict[str, Any], native_count: int, conversion: Conversion
) -> None:
    expected = expected_answer(native, native_count, conversion)
    answer, window = without_window(answer)
    expected, expected_window_value = without_window(expected)
    assert orjson.dumps(answer) == orjson.dumps(expected)
    assert window == expected_window_value


async def run_example(
    client: Any, example: Example, wire: str, native_runs: list[tuple[Conversion, Any]] | None
) -> list[tuple[Conversion, dict[str, Any]]]:
    """Every request of the example in `wire` (native or gemini), records sent back as returned;
    a sent-back request posts the previous window, which must be the previous native window
    written as contents."""
    runs: list[tuple[Conversion, dict[str, Any]]] = []
    records: list[Any] = []
    messages = example.messages()
    conversion = convert(messages) if wire == "gemini" else Conversion(messages, [])
    for request in range(len(example.held)):
        if request and example.sent_back:
            previous = runs[-1][1]["window"]
            if wire == "gemini":
                assert native_runs is not None
                conversion = convert(native_runs[request - 1][1]["window"])
                assert previous == conversion.messages
            else:
                conversion = Conversion(previous, [])
        answer = await post_ok(
            client,
            {
                **example.request,
                "messages": conversion.messages,
                "format": wire,
                "prior_records": records,
            },
        )
        if answer["record"] is not None:
            records.append(answer["record"])
        runs.append((conversion, answer))
    return runs


@pytest.mark.anyio
@pytest.mark.parametrize("example", EXAMPLES, ids=[example.name for example in EXAMPLES])
async def test_the_same_decisions_as_native(client: Any, example: Example) -> None:
    if example.name in STATED_SKIPS:
        pytest.skip(f"gemini cannot carry {example.name}: {STATED_SKIPS[example.name]}")
    native_runs = await run_example(client, example, "native", None)
    runs = await run_example(client, example, "gemini", native_runs)
    assert tuple(held(answer) for _, answer in runs) == example.held
    for (conversion, answer), (native_conversion, native_answer) in zip(
        runs, native_runs, strict=True
    ):
        assert_same_decisions(answer, native_answer, len(native_conversion.messages), conversion)
        assert gemini_violations(answer["window"], conversion.messages) == [] or any(
            finding["code"] in PAIRING_BREAKERS for finding in answer["diagnostics"]
        )
        if answer["stats"]["removed_message_count"] == 0:
            assert dumps(answer["window"]) == dumps(conversion.messages)


@pytest.mark.anyio
@pytest.mark.parametrize("example", EXAMPLES, ids=[example.name for example in EXAMPLES])
async def test_the_offer_gives_the_native_ids(client: Any, example: Example) -> None:
    if example.name in STATED_SKIPS:
        pytest.skip(f"gemini cannot carry {example.name}: {STATED_SKIPS[example.name]}")
    messages = example.messages()
    ledger = example.request.get("ledger")
    extra = {} if ledger is None else {"ledger": ledger}
    native = await client.post(OFFER, json={"messages": messages, "format": "native", **extra})
    gemini = await client.post(
        OFFER, json={"messages": convert(messages).messages, "format": "gemini", **extra}
    )
    assert native.status_code == gemini.status_code == 200, gemini.text
    assert gemini.json() == native.json()


# ---- 3. the window properties over random Gemini transcripts -------------------------------------

Draw = Any
SIGNATURES = ("EqQBCkgIBhAB", "c2lnbmF0dXJl", "AP9zaWc=")


@st.composite
def gemini_transcripts(draw: Draw) -> list[dict[str, Any]]:
    """Native conversations written as contents, then given what Gemini sends too: calls and
    their responses without ids (paired by name), signed thought parts and calls, code parts,
    images and split texts. Which call an id-less response answers may change; the pairing the
    service reads is Gemini's (by name and order), as the checker's is."""
    contents = copy.deepcopy(convert(draw(conversations(system=False, max_steps=10))).messages)
    anonymous: set[str] = set()
    for content in contents:
        parts = content["parts"]
        if content["role"] == "model":
            calls = [part["functionCall"] for part in parts if "functionCall" in part]
            if calls and draw(st.booleans()):
                for call in calls:
                    anonymous.add(call.pop("id"))
            first_call = next((part for part in parts if "functionCall" in part), None)
            if first_call is not None and draw(st.booleans()):
                first_call["thoughtSignature"] = draw(st.sampled_from(SIGNATURES))
            if draw(st.integers(0, 2)) == 0:
                thought = {"text": "weighing it", "thought": True}
                if draw(st.booleans()):
                    thought["thoughtSignature"] = draw(st.sampled_from(SIGNATURES))
                parts.insert(0, thought)
            if draw(st.integers(0, 4)) == 0:
                parts.append({"executableCode": {"language": "PYTHON", "code": "print(1)"}})
            continue
        for part in parts:
            response = part.get("functionResponse")
            if response is not None and response.get("id") in anonymous and draw(st.booleans()):
                del response["id"]
        texts = [i for i, part in enumerate(parts) if part.get("text")]
        if texts and draw(st.booleans()):
            at = texts[-1]
            text = parts[at]["text"]
            parts[at : at + 1] = [{"text": text[:1]}, {"text": text[1:]}]
        if draw(st.integers(0, 3)) == 0:
            parts.append({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}})
    return contents


def as_native(core: list[Message]) -> list[dict[str, Any]]:
    """Enough of the core transcript for `plan_options` to draw ledger rows, request texts and
    paused calls from its ids."""
    out: list[dict[str, Any]] = []
    for message in core:
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.tool_calls:
            item["tool_calls"] = [{"id": call.id} for call in message.tool_calls]
        if message.role == "tool":
            item["tool_call_id"] = message.tool_call_id
        out.append(item)
    return out


@st.composite
def planned_transcripts(draw: Draw) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    contents = draw(gemini_transcripts())
    return contents, draw(plan_options(as_native(read_messages(contents, "gemini"))))


def opens_on_a_person(contents: list[dict[str, Any]]) -> bool:
    """Whether the first core message is a user message (a user content holding responses opens
    with them: they are read first)."""
    if not contents:
        return True
    first = contents[0]
    return first.get("role", "user") == "user" and not any(
        "functionResponse" in part for part in first["parts"]
    )


@given(planned_transcripts())
def test_random_windows_keep_gemini_pairing_parts_and_signatures(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    contents, options = case
    answer = plan({**options, "messages": contents, "format": "gemini"})
    window = answer["window"]
    notice = answer["notice"]
    kept_parts_are_the_callers(window, contents, None if notice is None else notice["window_index"])
    assert signature_violations(contents, window) == []
    if opens_on_a_person(contents):
        assert opening_violations(contents, window) == []
    codes = {finding["code"] for finding in answer["diagnostics"]}
    if not codes & PAIRING_BREAKERS:
        assert gemini_violations(window, contents) == []


def test_the_generated_transcripts_cover_what_they_claim() -> None:
    seen: set[str] = set()

    @given(gemini_transcripts())
    def collect(contents: list[dict[str, Any]]) -> None:
        for content in contents:
            for part in content["parts"]:
                call = part.get("functionCall")
                response = part.get("functionResponse")
                if call is not None:
                    seen.add("call with id" if "id" in call else "call without id")
                if response is not None:
                    seen.add("response with id" if "id" in response else "response without id")
                if "thoughtSignature" in part:
                    seen.add("signed call" if call is not None else "signed thought")
                if "inlineData" in part:
                    seen.add("image")

    collect()
    assert seen == {
        "call with id",
        "call without id",
        "response with id",
        "response without id",
        "signed call",
        "signed thought",
        "image",
    }


# ---- 4. auto -------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_auto_detects_gemini(client: Any) -> None:
    contents = [{"parts": [{"text": "hi"}]}, {"role": "model", "parts": [{"text": "hello"}]}]
    assert (await post_ok(client, {"messages": contents}))["format"] == "gemini"
    by_role = [{"role": "model", "content": "x"}]
    response = await client.post(PLAN, json={"messages": by_role})
    assert response.status_code == 422  # detected as gemini by the role; it has no parts
    assert response.json()["errors"][0]["loc"] == ["body", "messages", 0, "parts"]
    by_system = {"messages": [{"role": "user", "content": "hi"}], "system": {"parts": []}}
    response = await client.post(PLAN, json=by_system)
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "messages", 0, "parts"]


@pytest.mark.anyio
async def test_a_gemini_content_after_an_anthropic_block_is_refused(client: Any) -> None:
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "look", "input": {}}],
        },
        {"role": "user", "parts": [{"functionResponse": {"name": "look", "response": {}}}]},
    ]
    response = await client.post(PLAN, json={"messages": messages})
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["loc"] == ["body", "messages", 2]
    assert "gemini" in error["msg"] and "anthropic" in error["msg"]


@pytest.mark.anyio
async def test_malformed_contents_are_refused_with_their_locs(client: Any) -> None:
    messages = [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"args": {}}}]},
        {"role": "tool", "parts": []},
    ]
    response = await client.post(PLAN, json={"messages": messages, "format": "gemini"})
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["errors"]] == [
        ["body", "messages", 1, "parts", 0, "functionCall", "name"],
        ["body", "messages", 2, "role"],
    ]


# ---- 5. shaping and the system prompt ------------------------------------------------------------


CAP = {"max_chars": 120, "max_chars_by_tool": {"list_racks": 5000}}


@pytest.mark.anyio
async def test_shaping_writes_the_response_output(client: Any) -> None:
    sent = [as_sent(content) for content in sdk_contents()]
    sent[4]["parts"][1]["functionResponse"]["response"] = {"rows": ["x" * 300]}
    body = {"messages": sent, "strategy": {"kind": "sliding-window", "keep_recent_turns": 9}}
    answer = await post_ok(client, {**body, "cap": CAP})
    [shaped] = answer["shaped"]
    assert (shaped["message_index"], shaped["window_index"], shaped["action"]) == (4, 4, "capped")
    part = answer["window"][4]["parts"][1]
    output = part["functionResponse"]["response"]["output"]
    assert part == {"functionResponse": {"name": "measure", "response": {"output": output}}}
    assert orjson.loads(output)["truncated"] is True and len(output) <= 120
    assert answer["window"][4]["parts"][0] == sent[4]["parts"][0]
    sdk_valid(answer["window"][4])
    # Planned again, the shaped window shapes nothing more.
    again = await post_ok(client, {**body, "messages": answer["window"], "cap": CAP})
    assert again["shaped"] == [] and again["window"] == answer["window"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("system", "chars"),
    [
        (None, 0),
        ({"parts": [{"text": "Be terse."}]}, 9),
        ({"role": "system", "parts": [{"text": "a"}, {"text": "bc"}]}, 3),
        ({"parts": []}, 0),
    ],
)
async def test_the_system_instruction_is_counted_apart(
    client: Any, system: Any, chars: int
) -> None:
    body = {"messages": [{"parts": [{"text": "hi"}]}], "format": "gemini", "system": system}
    answer = await post_ok(client, body)
    assert answer["stats"]["system_chars"] == chars
    assert answer["stats"]["chars_before"] == 2


@pytest.mark.anyio
@pytest.mark.parametrize("system", ["a string", [{"text": "x"}], {"parts": [{"inlineData": {}}]}])
async def test_a_system_prompt_of_another_shape_is_refused(client: Any, system: Any) -> None:
    body = {"messages": [{"parts": [{"text": "hi"}]}], "format": "gemini", "system": system}
    response = await client.post(PLAN, json=body)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["errors"]] == [["body", "system"]]


# `clear` (docs/rules.md#clear): small values, so the boundary moves in short transcripts.
CLEARS = st.fixed_dictionaries(
    {"keep_last": st.sampled_from([0, 1]), "step": st.sampled_from([1, 2])},
    optional={"exclude_tools": st.just(["look"])},
)


@given(planned_transcripts(), CLEARS)
def test_cleared_windows_keep_gemini_pairing_and_signatures(
    case: tuple[list[dict[str, Any]], dict[str, Any]], clear: dict[str, Any]
) -> None:
    contents, options = case
    body = {**options, "clear": clear, "format": "gemini"}
    answer = plan({**body, "messages": contents})
    window = answer["window"]
    for entry in answer["shaped"]:
        assert entry["action"] == "cleared"
    assert signature_violations(contents, window) == []
    codes = {finding["code"] for finding in answer["diagnostics"]}
    # An input already broken is planned as it is, not repaired (docs/rules.md#diagnostics): a
    # not-dispatched response to a call of another id is one the diagnostics do not name.
    if not codes & PAIRING_BREAKERS and not pairing_violations(contents):
        assert gemini_violations(window, contents) == []
    if answer["stats"]["removed_message_count"] == 0:
        again = plan({**body, "messages": window})
        assert again["shaped"] == [] and again["window"] == window
