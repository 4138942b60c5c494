"""One conversation, three wire formats, the same decisions.

Every worked example of `tests/core/window_examples.py` that has tool calls is written as native
JSON, converted to OpenAI Chat Completions and Anthropic Messages by the converter below, and posted
through `/v1/window/plan` in each format. The OpenAI answer must equal the native one byte for byte
except `format` and `window`; the Anthropic answer must equal the native one mapped through the
converter's index map (`docs/rules.md#wire-formats`: indices and counts are in caller messages
there, and the notice's `{N}` counts caller messages too). Each format's window must be the native
window written in that format. A property test does the same over random conversations.

The converter's Anthropic shape: a native `tool` message becomes a `tool_result` block of the next
user message; the results of one batch share that message, and a native `user` message that
directly follows tool results becomes a text block of that same message, after them. This is the
shape the Messages API asks for (results first, then the new question, in one user turn), and it
keeps the core transcript, hence every turn, exactly the native one: the reader splits such a
message back into the tool messages that join the previous turn and the user message that starts
the next. Writing the question as a separate user message would give two consecutive user
messages, which the API merges into the shape above anyway.

Where a wire cannot carry an example exactly, the example is skipped for that format, and the
skips are themselves tested (`STATED_SKIPS`): a `system` message (Anthropic has only the top-level
prompt, which is no turn), consecutive messages of one role (the Messages API merges them), and a
tool result named only by its own `tool_name` (neither wire carries a name on a result: it is
recovered from the call, so an orphan result loses it).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from app.api.answers import plan_answer
from app.api.metrics import create_metrics
from app.core.messages import Message
from tests.core.native_wire import native
from tests.core.window_examples import request_body
from tests.core.window_fixtures import (
    AC,
    REQ,
    TASK,
    R,
    T,
    T_not_run,
    U,
    U_star,
    W,
    held_words,
)
from tests.core.window_transcripts import (
    E3,
    E5,
    E6,
    E7,
    E8,
    E9,
    E10,
    E11,
    E12,
    E13,
    E14A,
    E14B,
    E15,
    E16,
    E17,
    E19,
    E20,
    E22,
    E23,
    E24,
    E26,
    E27A,
    E27B,
    X2,
    X3,
)

PATH = "/v1/window/plan"
WIRES = ("openai", "anthropic")


# ---- the converter -------------------------------------------------------------------------------


class Inexpressible(Exception):
    """The wire cannot carry this native transcript exactly; the message says why."""


@dataclass
class Conversion:
    """A native transcript written in another wire format.

    `places[i]` says where native message `i` went: (caller index, block position), the position
    being None when the native message is the whole caller message.
    """

    messages: list[Any]
    places: list[tuple[int, int | None]] = field(default_factory=list)

    def caller_index(self, native_index: int) -> int:
        return self.places[native_index][0]


def native_conversion(messages: list[Any]) -> Conversion:
    return Conversion(list(messages), [(index, None) for index in range(len(messages))])


def convert(messages: list[Any], wire: str, *, provider_shape: bool = True) -> Conversion:
    """`messages` (native JSON) in `wire`; raises Inexpressible when the wire cannot carry it.

    `provider_shape` also refuses what the provider itself would read differently (consecutive
    messages of one role); the service reads those exactly as native, so a test of the service
    alone may allow them.
    """
    if wire == "native":
        return native_conversion(messages)
    refuse_lost_tool_names(messages)
    if wire == "openai":
        return Conversion(
            [openai_message(m) for m in messages], [(i, None) for i in range(len(messages))]
        )
    conversion = anthropic_conversion(messages)
    if provider_shape:
        refuse_consecutive_roles(conversion.messages)
    return conversion


def refuse_lost_tool_names(messages: list[Any]) -> None:
    """Neither wire carries a tool name on a result: it is recovered from the first call with the
    result's id, so a native `tool_name` that recovery would not give back cannot be written."""
    call_names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            if call["name"]:
                call_names.setdefault(call["id"], call["name"])
    for index, message in enumerate(messages):
        name = message.get("tool_name")
        recovered = call_names.get(message.get("tool_call_id", ""))
        if (
            message["role"] == "tool"
            and name
            and not message.get("not_dispatched")
            and recovered != name
        ):
            raise Inexpressible(
                f"message {index} is a result named only by its own tool_name ({name!r}): "
                "the wire carries no name on a result, and no call gives it back"
            )


def openai_message(message: dict[str, Any]) -> dict[str, Any]:
    role, text = message["role"], message.get("content") or ""
    out: dict[str, Any] = {"role": role}
    if role == "tool":
        out["tool_call_id"] = message["tool_call_id"]
    calls = message.get("tool_calls") or []
    out["content"] = None if calls and not text else text
    if calls:
        out["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": arguments_text(call)},
            }
            for call in calls
        ]
    return with_flags(out, message)


def arguments_text(call: dict[str, Any]) -> str:
    return json.dumps(call.get("arguments", {}), separators=(",", ":"))


def with_flags(out: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    for flag in ("injected", "not_dispatched"):
        if message.get(flag):
            out[flag] = True
    return out


def anthropic_conversion(messages: list[Any]) -> Conversion:
    out: list[Any] = []
    places: list[tuple[int, int | None]] = []
    results: list[dict[str, Any]] = []

    def flush() -> None:
        if results:
            out.append({"role": "user", "content": list(results)})
            results.clear()

    for index, message in enumerate(messages):
        role, text = message["role"], message.get("content") or ""
        if role == "system":
            raise Inexpressible(
                f"message {index} is a system message: Anthropic has only the top-level system "
                "prompt, which is no turn"
            )
        if role == "tool":
            if message.get("injected"):
                raise Inexpressible(f"message {index} is an injected result: no block carries it")
            block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": text}
            results.append(with_flags(block, {"not_dispatched": message.get("not_dispatched")}))
            places.append((len(out), len(results) - 1))
        elif role == "user" and results:
            # The question after the results: a text block of the same user message.
            merged = {"role": "user", "content": [*results, {"type": "text", "text": text}]}
            places.append((len(out), len(results)))
            results.clear()
            out.append(with_flags(merged, message))
        elif role == "user":
            places.append((len(out), None))
            out.append(with_flags({"role": "user", "content": text}, message))
        else:
            flush()
            places.append((len(out), None))
            out.append(with_flags(anthropic_assistant(text, message), message))
    flush()
    return Conversion(out, places)


def anthropic_assistant(text: str, message: dict[str, Any]) -> dict[str, Any]:
    calls = message.get("tool_calls") or []
    if not calls:
        return {"role": "assistant", "content": text}
    blocks: list[Any] = [{"type": "text", "text": text}] if text else []
    for call in calls:
        arguments = call.get("arguments", {})
        blocks.append(
            {
                "type": "tool_use",
                "id": call["id"],
                "name": call["name"],
                "input": arguments if isinstance(arguments, dict) else {"value": arguments},
            }
        )
    return {"role": "assistant", "content": blocks}


def refuse_consecutive_roles(messages: list[Any]) -> None:
    for index in range(1, len(messages)):
        if messages[index]["role"] == messages[index - 1]["role"]:
            role = messages[index]["role"]
            raise Inexpressible(
                f"messages {index - 1} and {index} are both {role} messages: the Messages API "
                "merges consecutive messages of one role"
            )


# ---- what the other wire must answer, from the native answer -------------------------------------


def notice_message(wire: str, text: str) -> dict[str, Any]:
    if wire == "anthropic":
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    return {"role": "user", "content": text}


def native_kept(native: dict[str, Any], count: int) -> list[int | None]:
    """Native indices of the new window in order, None where the notice is."""
    evicted = native["evicted_messages"]
    if not evicted:
        return list(range(count))
    start, end = evicted[0], evicted[-1] + 1
    notice: list[int | None] = [None] if native["notice"] is not None else []
    return [*range(start), *notice, *range(end, count)]


def expected_window(conversion: Conversion, kept: list[int | None], notice: Any) -> list[Any]:
    """The native window written in the wire: consecutive kept native messages of one caller
    message form that message again, with only their blocks when some of it left."""
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
        message = conversion.messages[caller]
        if len(positions) == share[caller]:
            window.append(message)
        else:
            blocks = message["content"]
            window.append({**message, "content": [blocks[p] for p in sorted(positions)]})
    return window


def expected_answer(
    native: dict[str, Any], native_count: int, conversion: Conversion, wire: str
) -> dict[str, Any]:
    """The native answer as the wire must give it: indices and message counts in caller messages,
    the notice's `{N}` the number of caller messages that lose something."""
    to_caller = conversion.caller_index
    answer = copy.deepcopy(native)
    answer["format"] = wire
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
    window = expected_window(conversion, kept, notice_message(wire, notice_text or ""))
    stats["messages_after"] = len(window)
    if notice_text is not None:
        stats["chars_after"] += len(notice_text) - len(native["notice"]["content"])
    stats["removed_message_count"] = len(evicted)
    if wire == "anthropic":
        stats["system_chars"] = 0
    if answer["record"] is not None:
        answer["record"]["removed_message_count"] = len(evicted)
        map_refusals_and_pins(answer["record"], to_caller)
    if "window" in answer:
        answer["window"] = window
    return answer


def map_refusals_and_pins(holder: dict[str, Any], to_caller: Any) -> None:
    for refusal in holder["refusals"]:
        refusal["message_index"] = to_caller(refusal["message_index"])
    for block in holder["pins"].values():
        for pin in (block or {}).get("pinned", ()):
            pin["message_index"] = to_caller(pin["message_index"])


def held(answer: dict[str, Any]) -> str:
    return held_words(answer["turns"])


def assert_same_decisions(
    answer: dict[str, Any], native: dict[str, Any], native_count: int, conversion: Conversion
) -> None:
    expected = expected_answer(native, native_count, conversion, answer["format"])
    answer, window = without_window(answer)
    expected, expected_window_value = without_window(expected)
    assert orjson.dumps(answer) == orjson.dumps(expected)
    assert window == expected_window_value


def without_window(answer: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    rest = {key: value for key, value in answer.items() if key != "window"}
    return rest, answer.get("window")


# ---- the worked examples, as native JSON ---------------------------------------------------------


def body(**options: Any) -> dict[str, Any]:
    """A request's options in the notation of the worked examples, without its messages."""
    return {key: value for key, value in request_body([], **options).items() if key != "messages"}


@dataclass(frozen=True)
class Example:
    """A worked example: its transcript, its request, `held` per request (the notation of
    `tests/core/window_examples.py`)."""

    name: str
    transcript: list[Message]
    request: dict[str, Any]
    held: tuple[str, ...]
    sent_back: bool = False  # the second request sends back the first window

    def messages(self) -> list[dict[str, Any]]:
        return [native(message) for message in self.transcript]


EXAMPLES = [
    Example("E1-four-turns", W(U("do the thing"), R("c1"), R("c2"), R("c3")), body(), ("· · · ·",)),
    Example("E1-leading-tool", W(T("x9", "look"), U("a")), body(), ("· ·",)),
    Example(
        "E2",
        W(U_star("do the thing"), R("c1"), R("c2"), R("c3")),
        body(keep=2, ltr=0),
        ("rns rns ikw ikw",),
    ),
    Example("E3", E3, body(keep=1), ("rns utc nr nr ikw",)),
    Example("E3-derived", [U("go"), *E3[1:]], body(keep=1, rt="go"), ("cr utc EV EV ikw",)),
    Example("E4a", W(U("turn one"), R("c1"), U("turn two")), body(), ("· · ·",)),
    Example("E4b", W(U("first ask"), R("c1"), U("second ask")), body(rt="first ask"), ("· · ·",)),
    Example("E4d-no-person", R("c1"), body(), ("·",)),
    Example("E5", E5, body(keep=2, it=4, ltr=0), ("EV EV ikw ikw",)),
    Example("E6-ltr0", E6, body(keep=2, it=4, ltr=0), ("cr EV ikw ikw",)),
    Example("E6-ltr2", E6, body(keep=2, it=4, ltr=2), ("cr EV ikw ikw",)),
    Example("E7", E7, body(keep=1, rt=TASK), ("EV cr nr nr ikw",)),
    Example("E8", E8, body(keep=1), ("cr ltr ikw",)),
    Example("E9", E9, body(keep=2, ltr=2), ("cr EV EV ltr nr nr ikw ikw",)),
    Example("E10", E10, body(keep=2, ltr=1), ("cr ltr EV ikw ikw",)),
    Example(
        "E11-and-sent-back",
        E11,
        body(keep=2, ltr=2),
        ("cr EV EV EV ltr nr ikw ikw", "cr ltr EV ikw ikw"),
        sent_back=True,
    ),
    Example(
        "E12",
        E12,
        body(keep=2, tb=(1, 999999, 10)),
        ("cr ltr ltr ikw ikw", "cr ltr ltr ikw ikw", "cr EV EV ikw ikw"),
    ),
    Example("E13", E13, body(keep=2, ltr=2), ("cr ltr ikw ikw", "cr ltr ikw ikw", "cr EV ikw ikw")),
    Example(
        "E13-derived",
        E13[1:],
        body(keep=2, ltr=2),
        ("ltr ikw ikw", "ltr ikw ikw", "rns ikw ikw", "ltr ikw ikw"),
    ),
    Example("E14a-ltr0", E14A, body(keep=2, it=4, ltr=0), ("EV cr nr ikw ikw",)),
    Example("E14a-ltr2", E14A, body(keep=2, it=4, ltr=2), ("EV cr nr ikw ikw",)),
    Example("E14b", E14B, body(keep=2, ltr=0), ("rns rns ikw ikw",)),
    Example("E14b-derived-ltr2", E14B, body(keep=2, ltr=2), ("ltr EV ikw ikw",)),
    Example(
        "E15",
        E15,
        body(
            keep=2,
            lf=4,
            ltr=0,
            ledger={"a": "fact", "b": "noise", "c": "open", "d": "ruled-out", "f": "fact"},
        ),
        ("cr lf EV EV EV EV lf ikw ikw",),
    ),
    Example(
        "E16",
        E16,
        body(keep=2, lf=2, ltr=0, ledger={f"t{n}": "fact" for n in range(1, 8)}),
        ("cr EV EV EV lf nr ikw ikw",),
    ),
    Example(
        "E17",
        E17,
        body(keep=2, ltr=2, lf=4, ledger={"m1": "fact", "o": "fact"}),
        ("cr lf ltr ltr EV ikw ikw",),
    ),
    Example(
        "E18",
        E13,
        body(keep=2, ltr=2, lf=4, ledger={"p": "fact"}),
        ("cr ltr ikw ikw", "cr ltr ikw ikw", "cr EV ikw ikw"),
    ),
    Example(
        "E18-ltr0",
        E13,
        body(keep=2, ltr=0, lf=4, ledger={"p": "fact"}),
        ("cr lf ikw ikw", "cr lf ikw ikw", "cr EV ikw ikw"),
    ),
    Example(
        "E19",
        E19,
        body(keep=2, lf=4, ltr=0, ledger={"a": "noise", "b": "ruled-out"}),
        ("cr EV EV EV ikw ikw",),
    ),
    Example("E20", E20, body(keep=1, ltr=2), ("cr ltr ltr EV ikw",)),
    Example("E22-pt", E22, body(keep=1, paused="paused"), ("EV pt ikw",)),
    Example("E22-pci", E22, body(keep=1, paused="paused", check_in=True), ("EV pci ikw",)),
    Example("E22-utc", E22, body(keep=1), ("EV utc ikw",)),
    Example("E23", E23, body(keep=2, paused="paused"), ("EV EV utc ikw ikw",)),
    Example(
        "E23-token-budget",
        E23,
        body(keep=2, tb=(100, 500, 20), paused="paused"),
        ("EV EV utc ikw ikw",),
    ),
    Example("E24", E24, body(keep=2, ltr=2, rt=REQ), ("se cr EV ikw ikw",)),
    Example("E27a", E27A, body(keep=2, ltr=0), ("se EV cr ikw ikw",)),
    Example("E27b", E27B, body(keep=2, ltr=0), ("se rns rns ikw ikw",)),
    Example(
        "E26",
        E26,
        body(keep=2, it=5, ltr=2, ledger={"c1": "fact", "c2": "noise"}),
        ("cr lf EV ikw ikw",),
    ),
    Example("X2", X2, body(keep=1, it=3, ltr=2), ("EV cr nr ikw",)),
    Example("X3", X3, body(keep=6), ("· · · ·",)),
    Example("X3-token-budget", X3, body(keep=6, tb=(1000, 5000, 10)), ("ikw ikw ikw ikw",)),
]

CONSECUTIVE_ASSISTANTS = "consecutive assistant messages"
STATED_SKIPS = {
    ("E1-leading-tool", "openai"): "a result named only by its own tool_name",
    ("E1-leading-tool", "anthropic"): "a result named only by its own tool_name",
    ("X2", "openai"): "a result named only by its own tool_name",
    ("X2", "anthropic"): "a result named only by its own tool_name",
    ("E24", "anthropic"): "a system message",
    ("E27a", "anthropic"): "a system message",
    ("E27b", "anthropic"): "a system message",
    ("E3", "anthropic"): CONSECUTIVE_ASSISTANTS,
    ("E3-derived", "anthropic"): CONSECUTIVE_ASSISTANTS,
    ("E14a-ltr0", "anthropic"): "consecutive user messages",
    ("E14a-ltr2", "anthropic"): "consecutive user messages",
    ("E14b", "anthropic"): CONSECUTIVE_ASSISTANTS,
    ("E14b-derived-ltr2", "anthropic"): CONSECUTIVE_ASSISTANTS,
    ("E22-pt", "anthropic"): CONSECUTIVE_ASSISTANTS,
    ("E22-pci", "anthropic"): CONSECUTIVE_ASSISTANTS,
    ("E22-utc", "anthropic"): CONSECUTIVE_ASSISTANTS,
    ("E23", "anthropic"): CONSECUTIVE_ASSISTANTS,
    ("E23-token-budget", "anthropic"): CONSECUTIVE_ASSISTANTS,
}
SKIP_REASON_WORDS = {
    "a result named only by its own tool_name": "named only by its own tool_name",
    "a system message": "is a system message",
    CONSECUTIVE_ASSISTANTS: "are both assistant messages",
    "consecutive user messages": "are both user messages",
}


def test_the_examples_a_wire_cannot_carry_are_exactly_the_stated_ones() -> None:
    found = {}
    for example in EXAMPLES:
        for wire in WIRES:
            try:
                convert(example.messages(), wire)
            except Inexpressible as reason:
                found[(example.name, wire)] = str(reason)
    assert set(found) == set(STATED_SKIPS)
    for key, reason in found.items():
        assert SKIP_REASON_WORDS[STATED_SKIPS[key]] in reason, (key, reason)


def test_every_example_has_tool_calls_or_results() -> None:
    for example in EXAMPLES:
        assert any(m.tool_calls or m.role == "tool" for m in example.transcript), example.name


async def post_ok(client: Any, request: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(PATH, json=request)
    assert response.status_code == 200, response.text
    return response.json()


async def run_example(
    client: Any,
    example: Example,
    wire: str,
    native_runs: list[tuple[Conversion, dict[str, Any]]] | None,
) -> list[tuple[Conversion, dict[str, Any]]]:
    """Every request of the example in `wire`: (the transcript as posted, the answer).

    Each request sends back the records returned so far, exactly as returned; a sent-back
    request posts the previous window, which must be the previous native window in this wire.
    """
    runs: list[tuple[Conversion, dict[str, Any]]] = []
    records: list[Any] = []
    conversion = convert(example.messages(), wire)
    for request in range(len(example.held)):
        if request and example.sent_back:
            previous = runs[-1][1]["window"]
            native_window = native_runs[request - 1][1]["window"] if native_runs else previous
            conversion = convert(native_window, wire)
            assert previous == conversion.messages
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
async def test_native_examples_hold_what_window_md_says(client: Any, example: Example) -> None:
    runs = await run_example(client, example, "native", None)
    assert tuple(held(answer) for _, answer in runs) == example.held
    for conversion, answer in runs:
        if answer["stats"]["removed_message_count"] == 0:
            assert orjson.dumps(answer["window"]) == orjson.dumps(conversion.messages)


@pytest.mark.anyio
@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("example", EXAMPLES, ids=[example.name for example in EXAMPLES])
async def test_the_same_decisions_in_every_wire(client: Any, example: Example, wire: str) -> None:
    if (example.name, wire) in STATED_SKIPS:
        pytest.skip(
            f"{wire} cannot carry {example.name} exactly: {STATED_SKIPS[(example.name, wire)]}"
        )
    native_runs = await run_example(client, example, "native", None)
    runs = await run_example(client, example, wire, native_runs)
    assert len(runs) == len(native_runs)
    for (conversion, answer), (native_conversion, native_answer) in zip(
        runs, native_runs, strict=True
    ):
        assert_same_decisions(answer, native_answer, len(native_conversion.messages), conversion)
        if answer["stats"]["removed_message_count"] == 0:
            # Round trip: nothing removed gives back every field and block as sent.
            assert orjson.dumps(answer["window"]) == orjson.dumps(conversion.messages)


def test_the_anthropic_converter_merges_results_and_the_question() -> None:
    """E4a: the results of c1 and the next question are one user message; the question is its
    last block, and every index maps onto the caller message that holds it."""
    messages = [native(m) for m in W(U("turn one"), R("c1"), U("turn two"))]
    conversion = convert(messages, "anthropic")
    assert conversion.messages == [
        {"role": "user", "content": "turn one"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c1", "name": "look", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "ok"},
                {"type": "text", "text": "turn two"},
            ],
        },
    ]
    assert conversion.places == [(0, None), (1, None), (2, 0), (2, 1)]


def test_the_anthropic_converter_keeps_a_batch_in_one_message() -> None:
    messages = [
        native(m)
        for m in W(U(TASK), AC("c1:a", "c2:b"), T("c1", "a"), T_not_run("c2", "b"), R("c3", "d"))
    ]
    conversion = convert(messages, "anthropic")
    assert [m["role"] for m in conversion.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert conversion.messages[2]["content"][1] == {
        "type": "tool_result",
        "tool_use_id": "c2",
        "content": "ok",
        "not_dispatched": True,
    }
    assert conversion.places == [(0, None), (1, None), (2, 0), (2, 1), (3, None), (4, 0)]


def test_the_openai_converter_writes_calls_as_functions() -> None:
    messages = [native(m) for m in W(U_star(TASK), R("c1", "look", "seen"))]
    assert convert(messages, "openai").messages == [
        {"role": "user", "content": TASK, "injected": True},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "seen"},
    ]


# ---- the same decisions over random conversations ------------------------------------------------

METRICS = create_metrics()
MAX_MESSAGES = 100_000
TOOLS = ("look", "move", "probe")

Draw = Any


def plan(request: dict[str, Any]) -> dict[str, Any]:
    response = plan_answer(request, MAX_MESSAGES, METRICS)
    answer: dict[str, Any] = orjson.loads(response.body)
    return answer


def contents(draw: Draw) -> str:
    size = draw(st.sampled_from([0, 2, 2, 9, 40, 260, 520]))
    return draw(st.sampled_from("abxyz")) * size


@st.composite
def conversations(draw: Draw, *, system: bool, max_steps: int) -> list[dict[str, Any]]:
    """Native transcripts an agent could send: person and injected messages, assistant text,
    batches of calls answered, settled or left unanswered, orphan results, and (when `system`)
    system messages. Results name their tool as the call does, or not at all. Now and then a call
    reuses the id (and name) of a call of an earlier message."""
    steps = ["user", "user", "injected", "assistant", "calls", "calls", "calls", "orphan"]
    if system:
        steps.append("system")
    # Most runs open on what a person (or a system prompt) said; some open on anything.
    opening = st.sampled_from(["user", "user", "user", *(["system"] if system else [])])
    first = [draw(opening)] if draw(st.integers(0, 3)) else []
    messages: list[dict[str, Any]] = []
    count = 0
    for step in first + draw(st.lists(st.sampled_from(steps), min_size=3, max_size=max_steps)):
        if step in ("user", "injected", "system", "assistant"):
            message = {"role": "user" if step == "injected" else step, "content": contents(draw)}
            if step == "injected":
                message["injected"] = True
            messages.append(message)
            continue
        if step == "orphan":
            count += 1
            messages.append(
                {"role": "tool", "tool_call_id": f"x{count}", "content": contents(draw)}
            )
            continue
        calls = []
        earlier = [call for m in messages for call in m.get("tool_calls") or ()]
        for _ in range(draw(st.integers(1, 3))):
            if earlier and not draw(st.integers(0, 7)):
                # An id an earlier call already used (docs/rules.md#diagnostics), with its name.
                reused = draw(st.sampled_from(earlier))
                calls.append({"id": reused["id"], "name": reused["name"], "arguments": {}})
                continue
            count += 1
            calls.append({"id": f"c{count}", "name": draw(st.sampled_from(TOOLS)), "arguments": {}})
        text = draw(st.sampled_from(["", "", "calling"]))
        messages.append({"role": "assistant", "content": text, "tool_calls": calls})
        for call in draw(st.permutations(calls)):
            fate = draw(st.sampled_from(["answered", "answered", "named", "settled", "unanswered"]))
            if fate == "unanswered":
                continue
            result: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": call["id"],
                "content": contents(draw),
            }
            if fate == "named":
                result["tool_name"] = call["name"]
            if fate == "settled":
                result["not_dispatched"] = True
            messages.append(result)
    return messages


@st.composite
def plan_options(draw: Draw, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Strategy, ceilings, ledger, request text, pause and iteration for `messages`."""
    keep = draw(st.integers(1, 3))
    if draw(st.booleans()):
        strategy: dict[str, Any] = {"kind": "sliding-window", "keep_recent_turns": keep}
    else:
        strategy = {
            "kind": "token-budget",
            "threshold_tokens": 10,
            "keep_recent_turns": keep,
            "measured": {"input_tokens": draw(st.sampled_from([5, 500, 500])), "output_tokens": 1},
        }
    request: dict[str, Any] = {
        "strategy": strategy,
        "keep_last_tool_results": draw(st.integers(0, 3)),
        "iteration": draw(st.sampled_from([1, 9, 12])),
    }
    ids = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    if ids and draw(st.booleans()):
        standings = st.sampled_from(["fact", "open", "noise", "ruled-out"])
        chosen = draw(st.lists(st.sampled_from(ids), max_size=4))
        request["ledger"] = [{"tool_call_id": i, "standing": draw(standings)} for i in chosen]
        request["keep_ledger_facts"] = draw(st.integers(0, 3))
    texts = [m["content"] for m in messages if m["role"] == "user"]
    if texts and draw(st.booleans()):
        request["request_text"] = draw(st.sampled_from(texts))
    calls = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
    if calls and draw(st.booleans()):
        request["paused"] = {
            "tool_call_id": draw(st.sampled_from(calls)),
            "check_in": draw(st.booleans()),
        }
    return request


@st.composite
def planned_conversations(draw: Draw) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    messages = draw(conversations(system=False, max_steps=10))
    return messages, draw(plan_options(messages))


@given(planned_conversations())
def test_random_conversations_give_the_same_decisions_in_every_wire(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    messages, options = case
    native = plan({**options, "messages": messages, "format": "native"})
    for wire in WIRES:
        conversion = convert(messages, wire, provider_shape=False)
        evicted = {conversion.caller_index(i) for i in native["evicted_messages"]}
        # The notice counts caller messages: a shorter count can make a notice fit that did not.
        assume(len(str(len(evicted))) == len(str(len(native["evicted_messages"]))))
        answer = plan({**options, "messages": conversion.messages, "format": wire})
        assert_same_decisions(answer, native, len(messages), conversion)


def test_conversations_of_the_property_cover_what_they_claim() -> None:
    """The generator reaches every kind of step (a property over a narrow generator proves
    little)."""
    seen: set[str] = set()

    @given(conversations(system=True, max_steps=10))
    def collect(messages: Sequence[dict[str, Any]]) -> None:
        for message in messages:
            seen.add(message["role"])
            if message.get("injected"):
                seen.add("injected")
            if message.get("not_dispatched"):
                seen.add("settled")
            if message.get("tool_name"):
                seen.add("named")
            if message["role"] == "tool" and message["tool_call_id"].startswith("x"):
                seen.add("orphan")

    collect()
    assert seen == {"system", "user", "assistant", "tool", "injected", "settled", "named", "orphan"}
