"""Provider compaction artifacts through HTTP: Anthropic `compaction` blocks, Responses
`compaction` items.

- The last summary is a system turn: it refuses with `system-envelope` (or sits in the keep
  window) and is never removed, under every strategy; its block or item comes back verbatim.
- Earlier summaries and failed compactions leave with their turn; a bad `content` is a 422
  naming it; `auto` detects both formats from them.
- In `anthropic` the current request and the pins are only after the last artifact's turn (the
  API reads nothing before it): the turns before it leave as any others, a person's message there
  included; one and two summaries, every strategy, `fit` at several budgets. A Responses
  `compaction` item changes nothing else: a person's message before it is still the request.
- A property over random Anthropic and Responses transcripts with compaction artifacts: the last
  one is always in the window, the Anthropic request and pins are after its turn, and the window
  keeps the provider's pairing rules whenever the input is not already broken.
"""

from __future__ import annotations

import copy
from typing import Any

import anthropic
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from app.audit.validity.chat import anthropic_violations, opening_violations
from app.formats import read_messages
from tests.api.test_bedrock_http import native_view
from tests.api.test_formats_equivalence import plan, plan_options, post_ok
from tests.api.test_formats_http import sdk_valid, without_extensions
from tests.api.test_responses_http import (
    INPUT_ITEM,
    PAIRING_BREAKERS,
    check_window,
    transcripts,
)
from tests.api.test_responses_http import (
    native_view as responses_native_view,
)
from tests.formats.test_properties import anthropic_transcripts

PLAN = "/v1/window/plan"
SUMMARY = "Summary: rack a reads 39C, rack c 38C; rack b is next."
BETA_MESSAGE = TypeAdapter(anthropic.types.beta.BetaMessageParam)
Draw = Any

STRATEGIES = [
    pytest.param({"kind": "sliding-window", "keep_recent_turns": 1}, id="sliding-window"),
    pytest.param(
        {
            "kind": "token-budget",
            "threshold_tokens": 10,
            "keep_recent_turns": 1,
            "measured": {"input_tokens": 5000, "output_tokens": 10},
        },
        id="token-budget",
    ),
    pytest.param({"kind": "fit", "max_tokens": 1, "keep_recent_turns": 1}, id="fit"),
]


def tool_use(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "look", "input": {"rack": call_id}}


def tool_result(call_id: str, text: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}],
    }


def compaction(content: Any) -> dict[str, Any]:
    return {"type": "compaction", "content": content}


def anthropic_run() -> list[dict[str, Any]]:
    """A run compacted twice: an earlier summary, then the last one mid-run, in the assistant
    message that goes on with a call."""
    return [
        {"role": "user", "content": "Audit every rack."},
        {"role": "assistant", "content": [compaction("Old summary."), tool_use("a")]},
        tool_result("a", "rack a: 39C " + "a" * 300),
        {"role": "assistant", "content": [tool_use("c")]},
        tool_result("c", "rack c: 38C " + "c" * 300),
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "compacting", "signature": "sig"},
                compaction(SUMMARY),
                {"type": "text", "text": "Going on with rack b."},
                tool_use("b"),
            ],
        },
        tool_result("b", "rack b: 41C " + "b" * 300),
        {"role": "assistant", "content": [compaction(None), tool_use("d")]},
        tool_result("d", "rack d: 40C " + "d" * 300),
        {"role": "assistant", "content": "Rack b is the hottest."},
    ]


def blocks_in(window: list[dict[str, Any]]) -> list[Any]:
    return [
        block
        for message in window
        if isinstance(message.get("content"), list)
        for block in message["content"]
    ]


def assert_anthropic_window(sent: list[dict[str, Any]], answer: dict[str, Any]) -> None:
    window = answer["window"]
    assert anthropic_violations(window) == []
    assert opening_violations(sent, window) == []
    for message in window:
        sdk_valid(BETA_MESSAGE, without_extensions(message))


@pytest.mark.anyio
@pytest.mark.parametrize("strategy", STRATEGIES)
async def test_the_anthropic_artifact_is_never_removed(
    client: Any, strategy: dict[str, Any]
) -> None:
    sent = anthropic_run()
    body = {"messages": sent, "strategy": strategy, "keep_last_tool_results": 0}
    answer = await post_ok(client, body)
    assert answer["format"] == "anthropic"  # detected
    assert answer["stats"]["removed_message_count"] > 0
    refusals = [(r["reason"], r["message_index"]) for r in answer["refusals"]]
    assert ("system-envelope", 5) in refusals
    artifact = sent[5]["content"][1]
    assert artifact in blocks_in(answer["window"])
    # The earlier summary left with its turn; the failed one stays with its own turn.
    assert sent[1]["content"][0] not in blocks_in(answer["window"])
    assert_anthropic_window(sent, answer)


@pytest.mark.anyio
async def test_the_turns_before_the_artifact_leave_and_it_opens_its_message(client: Any) -> None:
    sent = anthropic_run()
    strategy = {"kind": "sliding-window", "keep_recent_turns": 3}
    answer = await post_ok(
        client, {"messages": sent, "strategy": strategy, "keep_last_tool_results": 0}
    )
    # Turns: the task, a, c, the thinking before the summary, the artifact, b, d, the answer.
    assert [t["start"] for t in answer["turns"]] == [0, 1, 3, 5, 5, 5, 7, 9]
    # The API reads nothing before the artifact: the task before it is no request and leaves.
    assert answer["current_request"] is None
    assert answer["evicted"] == [0, 1, 2, 3]
    window = answer["window"]
    assert window[0]["content"][0]["text"] == answer["notice"]["content"]
    # The thinking block left with its turn; the artifact and the blocks after it are verbatim.
    held = next(m for m in window if compaction(SUMMARY) in blocks_in([m]))
    assert held == {"role": "assistant", "content": sent[5]["content"][1:]}
    assert answer["stats"]["chars_before"] == sum(
        len(text) for text in ("Audit every rack.", SUMMARY, "Going on with rack b.")
    ) + 4 * len("rack a: 39C " + "a" * 300) + len("Rack b is the hottest.")
    assert_anthropic_window(sent, answer)


@pytest.mark.anyio
async def test_the_artifact_counts_its_characters_and_tokens(client: Any) -> None:
    bare = anthropic_run()
    bare[5]["content"][1] = compaction(None)
    bare[1]["content"][0] = compaction(None)  # else the earlier summary is the last one
    strategy = {"kind": "fit", "max_tokens": 100_000}  # counts tokens
    with_summary = await post_ok(client, {"messages": anthropic_run(), "strategy": strategy})
    without = await post_ok(client, {"messages": bare, "strategy": strategy})
    stats, other = with_summary["stats"], without["stats"]
    assert stats["chars_before"] - other["chars_before"] == len(SUMMARY)
    # The summary's tokens, and two more messages' framing: the artifact is a message of its own,
    # and the thinking block before it another.
    summary_tokens = -(-len(SUMMARY.encode()) // 4)
    assert stats["tokens_before"] - other["tokens_before"] == summary_tokens + 2 * 4


@pytest.mark.anyio
@pytest.mark.parametrize("content", [5, ["summary"], {"text": "summary"}, False])
async def test_a_compaction_content_neither_string_nor_null_is_a_422(
    client: Any, content: Any
) -> None:
    sent = anthropic_run()
    sent[7]["content"][0] = compaction(content)
    for format_name in ("anthropic", None):
        body: dict[str, Any] = {"messages": sent}
        if format_name:
            body["format"] = format_name
        response = await client.post(PLAN, json=body)
        assert response.status_code == 422, response.text
        locs = [tuple(error["loc"]) for error in response.json()["errors"]]
        assert locs == [("body", "messages", 7, "content", 0, "content")]


@pytest.mark.anyio
async def test_auto_detects_anthropic_from_compaction_and_text_blocks(client: Any) -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "go on"}]},
        {"role": "assistant", "content": [compaction(SUMMARY), {"type": "text", "text": "On."}]},
    ]
    answer = await post_ok(client, {"messages": messages})
    assert answer["format"] == "anthropic"
    assert answer["stats"]["chars_before"] == len("go on") + len(SUMMARY) + len("On.")


# ---- anthropic: the request and the pins after the last artifact ------------------------------

REMINDER = "<system-reminder>\nThe todo list is empty.\n</system-reminder>"
FOLLOW_UP = "Skip rack d; it is being moved."
AFTER = "Also check rack e."


def look(call_id: str) -> dict[str, Any]:
    """A call to a tool of its own, so that every rack can hold a last-tool-result pin."""
    block = tool_use(call_id)
    return {**block, "name": f"look_{call_id}"}


def result_and(call_id: str, text: str) -> dict[str, Any]:
    message = tool_result(call_id, f"rack {call_id}: 40C " + call_id * 300)
    return {**message, "content": [*message["content"], {"type": "text", "text": text}]}


def compacted_run(summaries: int, person_after: bool) -> list[dict[str, Any]]:
    """The task and a person's follow-up before the last summary (message 5), a reminder after
    it, and, with `person_after`, a person's message after it (message 8)."""
    first = [compaction("Old summary.")] if summaries == 2 else []
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Audit every rack."},
        {"role": "assistant", "content": [*first, look("a")]},
        tool_result("a", "rack a: 39C " + "a" * 300),
        {"role": "assistant", "content": [look("c")]},
        result_and("c", FOLLOW_UP),
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "compacting", "signature": "sig"},
                compaction(SUMMARY),
                {"type": "text", "text": "Going on with rack b."},
                look("b"),
            ],
        },
        result_and("b", REMINDER),
        {"role": "assistant", "content": [look("d")]},
        result_and("d", AFTER) if person_after else tool_result("d", "rack d: 40C " + "d" * 300),
        {"role": "assistant", "content": [look("e")]},
        tool_result("e", "rack e: 37C " + "e" * 300),
        {"role": "assistant", "content": "Rack b is the hottest."},
    ]
    return messages


def artifact_turn(messages: list[dict[str, Any]]) -> int | None:
    """The turn of the core `system` message (the artifact), counted on the core transcript."""
    turn = -1
    for message in read_messages(messages, "anthropic"):
        if message.role != "tool" or turn < 0:
            turn += 1
        if message.role == "system":
            return turn
    return None


def assert_anchored_after_the_artifact(messages: list[dict[str, Any]], answer: Any) -> None:
    """The request and every pin lie in turns after the artifact's, which is kept."""
    turn = artifact_turn(messages)
    if turn is None:
        return
    assert answer["turns"][turn]["fate"] == "kept"
    request = answer["current_request"]
    if request is not None:
        assert request["turn_index"] > turn
    for kind in ("last_tool_result", "ledger_fact"):
        block = answer["pins"][kind]
        for pin in [] if block is None else block["pinned"]:
            assert pin["turn_index"] > turn


ANCHOR_STRATEGIES = [
    *STRATEGIES,
    pytest.param({"kind": "sliding-window", "keep_recent_turns": 3}, id="sliding-window-3"),
    *(
        pytest.param({"kind": "fit", "max_tokens": budget}, id=f"fit-{budget}")
        for budget in (300, 500, 700, 100_000)
    ),
]


@pytest.mark.anyio
@pytest.mark.parametrize("strategy", ANCHOR_STRATEGIES)
@pytest.mark.parametrize("summaries", [1, 2])
@pytest.mark.parametrize("person_after", [False, True], ids=["none-after", "person-after"])
async def test_the_anthropic_request_and_pins_are_after_the_last_artifact(
    client: Any, strategy: dict[str, Any], summaries: int, person_after: bool
) -> None:
    sent = compacted_run(summaries, person_after)
    answer = await post_ok(client, {"messages": sent, "strategy": strategy})
    assert compaction(SUMMARY) in blocks_in(answer["window"])
    assert_anchored_after_the_artifact(sent, answer)
    request = answer["current_request"]
    if person_after:
        assert request is not None and request["message_index"] == 8
    else:
        assert request is None  # the task and the follow-up are before the artifact
    assert_anthropic_window(sent, answer)


@pytest.mark.anyio
async def test_the_turns_before_the_artifact_are_ordinary_candidates(client: Any) -> None:
    sent = compacted_run(1, person_after=False)
    strategy = {"kind": "sliding-window", "keep_recent_turns": 1}
    answer = await post_ok(client, {"messages": sent, "strategy": strategy})
    # The task, the follow-up and their results leave up to the artifact, notice included; no pin
    # holds a result from before it (c was the follow-up's, the last result before it).
    assert answer["evicted_messages"][:5] == [0, 1, 2, 3, 4]
    assert answer["notice"] is not None
    assert "Audit every rack." not in str(answer["window"])
    assert FOLLOW_UP not in str(answer["window"])
    pinned = [pin["tool_name"] for pin in answer["pins"]["last_tool_result"]["pinned"]]
    assert pinned and "look_a" not in pinned and "look_c" not in pinned
    assert_anthropic_window(sent, answer)


@pytest.mark.anyio
async def test_request_text_before_the_artifact_names_nothing(client: Any) -> None:
    body = {
        "messages": compacted_run(1, person_after=False),
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
        "request_text": FOLLOW_UP,
    }
    assert (await post_ok(client, body))["current_request"] is None
    body["messages"] = compacted_run(1, person_after=True)
    body["request_text"] = AFTER
    assert (await post_ok(client, body))["current_request"]["message_index"] == 8


@pytest.mark.anyio
async def test_without_a_summary_the_task_is_the_request(client: Any) -> None:
    """The rule is the artifact's: a failed compaction (null content) leaves the request alone."""
    sent = compacted_run(1, person_after=False)
    sent[5]["content"][1] = compaction(None)
    answer = await post_ok(
        client, {"messages": sent, "strategy": {"kind": "sliding-window", "keep_recent_turns": 1}}
    )
    assert answer["current_request"] == {"message_index": 4, "turn_index": 3}


# ---- responses ---------------------------------------------------------------------------------


def compaction_item(name: str) -> dict[str, Any]:
    return {"type": "compaction", "id": name, "encrypted_content": f"gAAA{name}=="}


def call(call_id: str) -> list[dict[str, Any]]:
    return [
        {"type": "function_call", "call_id": call_id, "name": "look", "arguments": "{}"},
        {"type": "function_call_output", "call_id": call_id, "output": call_id * 200},
    ]


def responses_run() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Audit every rack."},
        compaction_item("cmp_1"),
        *call("a"),
        *call("c"),
        compaction_item("cmp_2"),
        {"role": "user", "content": "Now rack b."},
        *call("b"),
        *call("d"),
        {"role": "assistant", "content": "Rack b is the hottest."},
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("strategy", STRATEGIES)
async def test_the_last_compaction_item_is_never_removed(
    client: Any, strategy: dict[str, Any]
) -> None:
    sent = responses_run()
    body = {"messages": sent, "strategy": strategy, "keep_last_tool_results": 0}
    answer = await post_ok(client, body)
    assert answer["format"] == "responses"  # detected
    assert answer["stats"]["removed_message_count"] > 0
    window = answer["window"]
    assert compaction_item("cmp_2") in window
    assert ("system-envelope", 6) in [(r["reason"], r["message_index"]) for r in answer["refusals"]]
    assert 6 not in answer["evicted_messages"]
    for item in window:
        sdk_valid(INPUT_ITEM, item)
    check_window(sent, answer)


@pytest.mark.anyio
async def test_an_earlier_compaction_item_leaves_with_its_run(client: Any) -> None:
    sent = responses_run()
    strategy = {"kind": "sliding-window", "keep_recent_turns": 4}
    answer = await post_ok(
        client, {"messages": sent, "strategy": strategy, "keep_last_tool_results": 0}
    )
    # Turns: the first question, the run of the earlier compaction item and call a, call c, the
    # artifact, the request, b, d, the answer.
    assert [t["start"] for t in answer["turns"]] == [0, 1, 4, 6, 7, 8, 10, 12]
    assert answer["current_request"] == {"message_index": 7, "turn_index": 4}
    assert answer["evicted_messages"] == [0, 1, 2, 3, 4, 5]
    assert compaction_item("cmp_1") not in answer["window"]
    # The notice opens the window, the artifact right after it.
    assert answer["notice"]["window_index"] == 0
    assert answer["window"][1:] == sent[6:]
    check_window(sent, answer)


@pytest.mark.anyio
async def test_a_person_before_a_compaction_item_is_still_the_request(client: Any) -> None:
    """`/responses/compact` keeps the person's messages before its item on purpose."""
    sent = [
        {"role": "user", "content": "Audit every rack."},
        *call("a"),
        compaction_item("cmp_1"),
        *call("c"),
        *call("d"),
    ]
    strategy = {"kind": "sliding-window", "keep_recent_turns": 1}
    answer = await post_ok(
        client, {"messages": sent, "strategy": strategy, "keep_last_tool_results": 0}
    )
    assert answer["current_request"] == {"message_index": 0, "turn_index": 0}
    assert answer["window"][0] == sent[0]
    check_window(sent, answer)


@pytest.mark.anyio
async def test_auto_detects_responses_from_a_compaction_item(client: Any) -> None:
    answer = await post_ok(
        client, {"messages": [{"role": "user", "content": "go"}, compaction_item("cmp")]}
    )
    assert answer["format"] == "responses"
    assert answer["diagnostics"] == []  # the artifact is no empty message


# ---- properties --------------------------------------------------------------------------------


def last_summary(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    found = None
    for message in messages:
        if message.get("role") == "assistant" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "compaction" and block.get("content"):
                    found = block
    return found


@st.composite
def compacted_anthropic(draw: Draw) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    messages = draw(anthropic_transcripts())
    core = read_messages(messages, "anthropic")
    return messages, draw(plan_options(native_view(core)))


@given(compacted_anthropic())
def test_random_anthropic_transcripts_keep_their_artifact(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    messages, options = case
    answer = plan({**options, "messages": messages, "format": "anthropic"})
    assert "errors" not in answer, answer
    artifact = last_summary(messages)
    if artifact is not None:
        assert any(block is artifact or block == artifact for block in blocks_in(answer["window"]))
    assert_anchored_after_the_artifact(messages, answer)
    codes = {finding["code"] for finding in answer["diagnostics"]}
    if not codes & PAIRING_BREAKERS and anthropic_violations(messages) == []:
        assert anthropic_violations(answer["window"]) == []
        assert opening_violations(messages, answer["window"]) == []


@st.composite
def summarized_anthropic(draw: Draw) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Random Anthropic transcripts with a summary in one assistant message at least (so there is
    an artifact, often with person messages and results before it), the calls spread over a few
    tools so that several last-tool-result pins compete."""
    messages = copy.deepcopy(draw(anthropic_transcripts()))
    assistants = [index for index, m in enumerate(messages) if m.get("role") == "assistant"]
    if assistants:
        message = messages[draw(st.sampled_from(assistants))]
        if not isinstance(message["content"], list):
            message["content"] = [{"type": "text", "text": message["content"]}]
        place = draw(st.integers(0, len(message["content"])))
        message["content"].insert(place, compaction(SUMMARY))
    for message in messages:
        for block in message["content"] if isinstance(message["content"], list) else ():
            if block.get("type") == "tool_use":
                block["name"] = f"look_{int(block['id'][-1]) % 3}"
    core = read_messages(messages, "anthropic")
    return messages, draw(plan_options(native_view(core)))


@given(summarized_anthropic())
def test_random_summarized_anthropic_transcripts_anchor_after_the_artifact(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    messages, options = case
    answer = plan({**options, "messages": messages, "format": "anthropic"})
    assert "errors" not in answer, answer
    assert_anchored_after_the_artifact(messages, answer)
    codes = {finding["code"] for finding in answer["diagnostics"]}
    if not codes & PAIRING_BREAKERS and anthropic_violations(messages) == []:
        assert anthropic_violations(answer["window"]) == []
        assert opening_violations(messages, answer["window"]) == []


@st.composite
def compacted_responses(draw: Draw) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Responses transcripts with compaction items between the turns (the last one the
    artifact)."""
    items = draw(transcripts())
    for number in range(draw(st.integers(0, 2))):
        place = draw(st.integers(0, len(items)))
        # Only between whole runs: never inside a run, nor between a call and its output.
        while 0 < place < len(items) and not starts_a_turn(items[place]):
            place -= 1
        items.insert(place, compaction_item(f"cmp_mid_{number}"))
    return items, draw(plan_options(responses_native_view(items)))


def starts_a_turn(item: dict[str, Any]) -> bool:
    return item.get("type", "message") == "message" and item.get("role") == "user"


@given(compacted_responses())
def test_random_responses_transcripts_keep_their_last_compaction_item(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    items, options = case
    answer = plan({**options, "messages": copy.deepcopy(items), "format": "responses"})
    assert "errors" not in answer, answer
    compactions = [item for item in items if item.get("type") == "compaction"]
    if compactions:
        assert compactions[-1] in answer["window"]
    check_window(items, answer)
