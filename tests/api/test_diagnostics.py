"""docs/rules.md#diagnostics over HTTP: each code from a minimal transcript in every format that can
write it, the guarantee the report makes testable, and that a report never changes a decision."""

from __future__ import annotations

from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from app.api.answers import plan_answer
from app.api.metrics import create_metrics
from app.audit.validity.chat import PAIRING, window_violations
from app.core.diagnostics import diagnose
from app.formats import read_messages
from tests.api.test_formats_equivalence import Inexpressible, convert, plan_options

pytestmark = pytest.mark.anyio
PLAN = "/v1/window/plan"


def call(call_id: str, name: str = "look") -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": {}}


def oa_call(call_id: str, name: str = "look") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def use(call_id: str, name: str = "look") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {}}


def result(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "ok"}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


GO = {"role": "user", "content": "go"}

# (code, format, messages, the message index the finding must name)
MINIMAL: list[tuple[str, str, list[Any], int]] = [
    ("orphan-result", "native", [GO, {"role": "tool", "tool_call_id": "x1", "content": "r"}], 1),
    ("orphan-result", "openai", [GO, {"role": "tool", "tool_call_id": "x1", "content": "r"}], 1),
    ("orphan-result", "anthropic", [{"role": "user", "content": [result("x1")]}], 0),
    (
        "result-outside-its-turn",
        "native",
        [
            GO,
            {"role": "assistant", "content": "", "tool_calls": [call("c1")]},
            {"role": "user", "content": "still there?"},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ],
        3,
    ),
    (
        "result-outside-its-turn",
        "openai",
        [
            GO,
            {"role": "assistant", "content": None, "tool_calls": [oa_call("c1")]},
            {"role": "user", "content": "still there?"},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ],
        3,
    ),
    (
        "result-outside-its-turn",
        "anthropic",
        [
            GO,
            {"role": "assistant", "content": [use("c1")]},
            {"role": "user", "content": "still there?"},
            {"role": "user", "content": [result("c1")]},
        ],
        3,
    ),
    (
        "duplicate-result",
        "native",
        [
            GO,
            {"role": "assistant", "content": "", "tool_calls": [call("c1")]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ],
        3,
    ),
    (
        "duplicate-result",
        "openai",
        [
            GO,
            {"role": "assistant", "content": None, "tool_calls": [oa_call("c1")]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ],
        3,
    ),
    (
        "duplicate-result",
        "anthropic",
        [
            GO,
            {"role": "assistant", "content": [use("c1")]},
            {"role": "user", "content": [result("c1"), result("c1")]},
        ],
        2,
    ),
    (
        "unanswered-call",
        "native",
        [
            GO,
            {"role": "assistant", "content": "", "tool_calls": [call("c1"), call("c2")]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
            {"role": "user", "content": "and?"},
        ],
        1,
    ),
    (
        "unanswered-call",
        "openai",
        [
            GO,
            {"role": "assistant", "content": None, "tool_calls": [oa_call("c1"), oa_call("c2")]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
            {"role": "user", "content": "and?"},
        ],
        1,
    ),
    (
        "unanswered-call",
        "anthropic",
        [
            GO,
            {"role": "assistant", "content": [use("c1"), use("c2")]},
            {"role": "user", "content": [result("c1"), text("and?")]},
        ],
        1,
    ),
    # A Gemini content sent as native: no `content`, so no text at all.
    ("empty-message", "native", [{"role": "user", "parts": [{"text": "hello"}]}], 0),
    ("empty-message", "native", [{"role": "system", "content": ""}, GO], 0),
    ("empty-message", "openai", [{"role": "user", "content": []}], 0),
    ("empty-message", "openai", [{"role": "developer", "content": [text("")]}, GO], 0),
    ("empty-message", "anthropic", [{"role": "user", "content": []}], 0),
    ("empty-message", "anthropic", [{"role": "user", "content": [text("")]}], 0),
]

NOT_EMPTY: list[tuple[str, list[Any]]] = [
    (
        "openai",
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]}],
    ),
    ("openai", [{"role": "user", "content": [{"type": "file", "file": {"file_id": "f1"}}]}]),
    (
        "anthropic",
        [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}
                ],
            }
        ],
    ),
    (
        "anthropic",
        [
            {
                "role": "user",
                "content": [
                    result("x1") | {"not_dispatched": True},
                    {"type": "document", "source": {"type": "text", "data": "d"}},
                ],
            }
        ],
    ),
]


@pytest.mark.parametrize(
    ("code", "wire", "messages", "index"),
    MINIMAL,
    ids=[f"{code}-{wire}-{n}" for n, (code, wire, _, _) in enumerate(MINIMAL)],
)
async def test_each_code_from_a_minimal_transcript(
    client: Any, code: str, wire: str, messages: list[Any], index: int
) -> None:
    response = await client.post(PLAN, json={"messages": messages, "format": wire})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert [(d["code"], d["message_index"]) for d in answer["diagnostics"]] == [(code, index)]
    assert answer["diagnostics"][0]["detail"]
    assert answer["engaged"] is False  # computed whether or not the strategy engages


@pytest.mark.parametrize(("wire", "messages"), NOT_EMPTY)
async def test_a_message_with_only_a_non_text_part_is_not_empty(
    client: Any, wire: str, messages: list[Any]
) -> None:
    response = await client.post(PLAN, json={"messages": messages, "format": wire})
    assert response.status_code == 200, response.text
    assert response.json()["diagnostics"] == []


async def test_the_detail_names_the_ids(client: Any) -> None:
    messages = MINIMAL[9][2]  # unanswered c2 (move is not the name: look)
    answer = (await client.post(PLAN, json={"messages": messages})).json()
    assert "'c2'" in answer["diagnostics"][0]["detail"]


async def test_auto_detection_reports_the_same_findings(client: Any) -> None:
    for code, wire, messages, index in MINIMAL:
        if code == "empty-message" and wire == "native":
            continue  # `parts` would be read as another dialect under auto
        answer = (await client.post(PLAN, json={"messages": messages})).json()
        assert [(d["code"], d["message_index"]) for d in answer["diagnostics"]] == [(code, index)]


async def test_include_turns_false_leaves_out_turns_kept_and_evicted(client: Any) -> None:
    messages = [
        {"role": "system", "content": "You audit deployments."},
        {"role": "user", "content": "Audit."},
        *[
            item
            for n in range(8)
            for item in (
                {"role": "assistant", "content": "", "tool_calls": [call(f"c{n}")]},
                {"role": "tool", "tool_call_id": f"c{n}", "content": "x" * 300},
            )
        ],
    ]
    body = {"messages": messages, "strategy": {"kind": "sliding-window", "keep_recent_turns": 2}}
    full = (await client.post(PLAN, json=body)).json()
    lean = (await client.post(PLAN, json={**body, "include_turns": False})).json()
    assert full["engaged"] and full["notice"] is not None
    for key in ("turns", "kept", "evicted"):
        assert key in full and key not in lean
    assert lean == {k: v for k, v in full.items() if k not in ("turns", "kept", "evicted")}
    assert len(orjson.dumps(lean)) < len(orjson.dumps(full))


@pytest.mark.parametrize("value", [None, 0, "false", []])
async def test_include_turns_must_be_a_boolean(client: Any, value: Any) -> None:
    response = await client.post(PLAN, json={"messages": [], "include_turns": value})
    assert response.status_code == 422
    assert [e["loc"] for e in response.json()["errors"]] == [["body", "include_turns"]]


# ---- properties ----------------------------------------------------------------------------------

METRICS = create_metrics()
PAIRING_CODES = {"orphan-result", "result-outside-its-turn", "unanswered-call"}


def plan(request: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = orjson.loads(plan_answer(request, 100_000, METRICS).body)
    return answer


@st.composite
def defective_conversations(draw: Any) -> list[dict[str, Any]]:
    """Native transcripts with every defect docs/rules.md#diagnostics names, each now and then:
    orphan, misplaced, duplicate and missing results, empty messages, and system prompts in
    front."""
    messages: list[dict[str, Any]] = []
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        messages.append({"role": "system", "content": draw(st.sampled_from(["Be brief.", ""]))})
    count = 0
    late: list[dict[str, Any]] = []  # results held back to land outside their turn
    # Half the transcripts are clean, so the guarantee is tested on many windows.
    defective = draw(st.booleans())
    steps = ["user", "user", "assistant", "calls", "calls", "calls"]
    if defective:
        steps += ["orphan", "empty", "late"]
    fates = ["answered"] * 5 + (["twice", "late", "missing"] if defective else ["twice"])
    for step in draw(st.lists(st.sampled_from(steps), min_size=2, max_size=12)):
        size = draw(st.sampled_from([2, 40, 300, 700]))
        if step in ("user", "assistant", "empty"):
            role = "user" if step != "assistant" else "assistant"
            messages.append({"role": role, "content": "" if step == "empty" else "u" * size})
        elif step == "orphan":
            count += 1
            messages.append({"role": "tool", "tool_call_id": f"x{count}", "content": "o" * size})
        elif step == "late" and late:
            messages.append(late.pop(0))
        else:
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                count += 1
                calls.append(call(f"c{count}", draw(st.sampled_from(["look", "move"]))))
            messages.append({"role": "assistant", "content": "", "tool_calls": calls})
            for made in calls:
                fate = draw(st.sampled_from(fates))
                answer = {"role": "tool", "tool_call_id": made["id"], "content": "r" * size}
                if fate == "late":
                    late.append(answer)
                elif fate != "missing":
                    messages.append(answer)
                    if fate == "twice":
                        messages.append(dict(answer))
    return messages


@st.composite
def planned(draw: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    messages = draw(defective_conversations())
    return messages, draw(plan_options(messages))


@given(planned(), st.sampled_from(["native", "openai", "anthropic"]))
def test_without_pairing_findings_every_window_is_accepted(
    case: tuple[list[dict[str, Any]], dict[str, Any]], wire: str
) -> None:
    messages, options = case
    try:
        sent = convert(messages, wire, provider_shape=False).messages
    except Inexpressible:
        assume(False)
    answer = plan({**options, "messages": sent, "format": wire})
    codes = {d["code"] for d in answer["diagnostics"]}
    input_refused = bool(PAIRING[wire](sent))
    # The checker and the report agree on the input (so neither is vacuous) ...
    assert input_refused == bool(codes & PAIRING_CODES), (codes, PAIRING[wire](sent), sent)
    # ... and the report's guarantee holds for the window.
    if not codes & PAIRING_CODES:
        assert window_violations(wire, sent, answer["window"]) == []


@given(planned())
def test_diagnostics_never_change_a_decision(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    messages, options = case
    request = {**options, "messages": messages, "format": "native"}
    answer = plan(request)
    # The report is the core's, read from the transcript as sent ...
    core = read_messages(messages, "native")
    assert answer["diagnostics"] == orjson.loads(orjson.dumps(diagnose(core)))
    # ... and the plan is the same with the report silenced: nothing else reads it.
    with mock.patch("app.service.plan.diagnose", return_value=()):
        silenced = plan(request)
    assert silenced["diagnostics"] == []
    assert {**answer, "diagnostics": []} == silenced
    lean = plan({**request, "include_turns": False})
    assert lean["diagnostics"] == answer["diagnostics"]


def test_the_defective_generator_reaches_every_code() -> None:
    seen: set[str] = set()

    @given(defective_conversations())
    def collect(messages: list[dict[str, Any]]) -> None:
        seen.update(d.code for d in diagnose(read_messages(messages, "native")))

    collect()
    assert seen == {
        "orphan-result",
        "result-outside-its-turn",
        "duplicate-result",
        "unanswered-call",
        "empty-message",
    }


def test_the_checkers_refuse_known_bad_windows() -> None:
    user, assistant = {"role": "user", "content": "go"}, {"role": "assistant", "content": "hm"}
    calling = {"role": "assistant", "content": "", "tool_calls": [call("c1")]}
    answer = {"role": "tool", "tool_call_id": "c1", "content": "r"}
    chat = PAIRING["native"]
    assert chat([user, calling, answer, assistant]) == []
    assert chat([user, calling]) == []  # the agent is about to run it
    assert chat([user, answer]) != []  # a result without its call
    assert chat([user, calling, assistant]) != []  # a call whose result was removed
    assert chat([user, calling, user, answer]) != []  # a result outside its call's turn
    use_c1 = {"role": "assistant", "content": [use("c1")]}
    answered = {"role": "user", "content": [result("c1")]}
    anthropic = PAIRING["anthropic"]
    assert anthropic([user, use_c1, answered]) == []
    assert anthropic([user, answered]) != []
    assert anthropic([user, use_c1, user]) != []
    assert anthropic([user, use_c1, {"role": "assistant", "content": "x"}]) != []
    batch = {"role": "assistant", "content": [use("c1"), use("c2")]}
    assert anthropic([user, batch, answered]) == []  # the rest of the batch is still running
    assert anthropic([user, batch, answered, user]) != []
    assert anthropic([user, batch, {"role": "user", "content": [result("c1"), text("so?")]}]) != []
    assert window_violations("native", [user, calling, answer], [calling, answer]) != []
    assert window_violations("native", [calling, answer], [calling, answer]) == []
