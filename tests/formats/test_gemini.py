"""Gemini `contents`: part-level reading, generated call ids, validation and writing back.

The expected ids are computed here from the words of docs/rules.md#gemini (SHA-256 of the content's
compact JSON, first 12 hex digits), independently of the reader.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson
import pytest

from app.core.images import Image
from app.core.messages import Message, ToolCall
from app.formats import (
    non_text_part_predicate,
    read_messages,
    system_problem,
    system_prompt_text,
    write_window,
)
from app.formats.fields import Problems
from app.formats.gemini import Answers, read_content
from tests.formats.support import error_locs, errors_of, run_count, turn_bounds

NOTICE = "[dropped history — 2 earlier message(s) were removed]"
NOTICE_CONTENT = {"role": "user", "parts": [{"text": NOTICE}]}
SIGNATURE = "c2lnbmF0dXJlLW9mLXRoZS1jYWxs"


def digest(content: Any) -> str:
    """h of docs/rules.md#gemini, from the standard library's JSON in the compact spelling."""
    text = json.dumps(content, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def racks() -> list[dict[str, Any]]:
    """A request; a model content that thinks, says something and calls look twice (the first
    call signed, no ids); a user content answering both by name and asking again."""
    return [
        {"role": "user", "parts": [{"text": "Find the hottest rack."}]},
        {
            "role": "model",
            "parts": [
                {"text": "Two racks to measure.", "thought": True, "thoughtSignature": "dGg="},
                {"text": "Looking"},
                {"text": " now."},
                {
                    "functionCall": {"name": "look", "args": {"rack": "a"}},
                    "thoughtSignature": SIGNATURE,
                },
                {"functionCall": {"name": "look", "args": {"rack": "b"}}},
            ],
        },
        {
            "parts": [
                {"functionResponse": {"name": "look", "response": {"output": "39C"}}},
                {"functionResponse": {"name": "look", "response": {"celsius": 41, "ok": True}}},
                {"text": "And the coolest?"},
            ],
            "meta": {"turn": 2},
        },
        {"role": "model", "parts": [{"text": "Rack b is hottest."}]},
    ]


def test_contents_read_into_core_messages_with_generated_ids() -> None:
    raw = racks()
    h = digest(raw[1])
    assert read_messages(raw, "gemini") == [
        Message("user", "Find the hottest rack.", source=0, blocks=(0,)),
        Message(
            "assistant",
            "Looking now.",
            (
                ToolCall(f"look#1:{h}", "look", None, {"rack": "a"}),
                ToolCall(f"look#2:{h}", "look", None, {"rack": "b"}),
            ),
            source=1,
            blocks=(0, 1, 2, 3, 4),
        ),
        Message("tool", "39C", tool_call_id=f"look#1:{h}", tool_name="look", source=2, blocks=(0,)),
        Message(
            "tool",
            '{"celsius":41,"ok":true}',
            tool_call_id=f"look#2:{h}",
            tool_name="look",
            source=2,
            blocks=(1,),
        ),
        Message("user", "And the coolest?", source=2, blocks=(2,)),
        Message("assistant", "Rack b is hottest.", source=3, blocks=(0,)),
    ]


def test_the_generated_id_hashes_the_content_exactly_as_sent() -> None:
    """Key order and spelling matter: the same call in another key order is another name."""
    content = {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"é": 1.5}}}]}
    reordered = {"parts": content["parts"], "role": "model"}
    expected = hashlib.sha256(
        b'{"role":"model","parts":[{"functionCall":{"name":"f","args":{"\xc3\xa9":1.5}}}]}'
    ).hexdigest()[:12]
    assert read_messages([content], "gemini")[0].tool_calls == (
        ToolCall(f"f#1:{expected}", "f", None, {"é": 1.5}),
    )
    other = read_messages([reordered], "gemini")[0].tool_calls[0].id
    assert other == f"f#1:{digest(reordered)}" != f"f#1:{expected}"


def test_k_counts_calls_of_each_name_and_given_ids_are_kept() -> None:
    content = {
        "role": "model",
        "parts": [
            {"functionCall": {"name": "a", "args": {}}},
            {"functionCall": {"id": "given", "name": "b", "args": {}}},
            {"functionCall": {"name": "b"}},
            {"functionCall": {"name": "a", "id": None}},
        ],
    }
    h = digest(content)
    assert [call.id for call in read_messages([content], "gemini")[0].tool_calls] == [
        f"a#1:{h}",
        "given",
        f"b#2:{h}",
        f"a#2:{h}",
    ]


def test_responses_answer_by_id_and_by_name_in_order() -> None:
    model = {
        "role": "model",
        "parts": [
            {"functionCall": {"id": "x1", "name": "look", "args": {}}},
            {"functionCall": {"name": "move", "args": {}}},
            {"functionCall": {"id": "x3", "name": "look", "args": {}}},
        ],
    }
    user = {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "move", "response": {"output": "moved"}}},
            {"functionResponse": {"id": "x3", "name": "look", "response": {"output": "3"}}},
            {"functionResponse": {"name": "look", "response": {"output": "second"}}},
        ],
    }
    core = read_messages([{"parts": [{"text": "go"}]}, model, user], "gemini")
    h = digest(model)
    assert [m.tool_call_id for m in core if m.role == "tool"] == [f"move#1:{h}", "x3", "x3"]
    # The 2nd response of look answers the 2nd call of look (x3): a duplicate, as sent.


def test_a_response_by_name_answers_the_kth_call_of_its_name() -> None:
    model = {
        "role": "model",
        "parts": [
            {"functionCall": {"id": "p", "name": "look"}},
            {"functionCall": {"name": "look"}},
        ],
    }
    user = {
        "parts": [
            {"functionResponse": {"name": "look", "response": {}}},
            {"functionResponse": {"name": "look", "response": {}}},
        ]
    }
    core = read_messages([model, user], "gemini")
    assert [m.tool_call_id for m in core[1:]] == ["p", f"look#2:{digest(model)}"]
    assert [m.content for m in core[1:]] == ["{}", "{}"]


def test_a_response_answering_no_call_is_named_from_its_own_content() -> None:
    """Not the model content right before (a user content stands between), or more responses
    than calls of the name: a name no call carries, so the diagnostics call it an orphan."""
    model = {"role": "model", "parts": [{"functionCall": {"name": "look"}}]}
    late = {"parts": [{"functionResponse": {"name": "look", "response": {"output": "x"}}}]}
    extra = {
        "parts": [
            {"functionResponse": {"name": "look", "response": {"output": "1"}}},
            {"functionResponse": {"name": "look", "response": {"output": "2"}}},
        ]
    }
    core = read_messages([model, {"parts": [{"text": "wait"}]}, late], "gemini")
    assert core[2].tool_call_id == f"look#1:{digest(late)}"
    core = read_messages([model, extra], "gemini")
    assert [m.tool_call_id for m in core[1:]] == [
        f"look#1:{digest(model)}",
        f"look#2:{digest(extra)}",
    ]
    assert read_messages([late], "gemini")[0].tool_call_id == f"look#1:{digest(late)}"


def test_output_only_responses_are_their_text_others_compact_json() -> None:
    def text(response: Any) -> str:
        part: dict[str, Any] = {"name": "t"}
        if response is not None:
            part["response"] = response
        return read_messages([{"parts": [{"functionResponse": part}]}], "gemini")[0].content

    assert text({"output": "plain"}) == "plain"
    assert text({"output": 3}) == '{"output":3}'
    assert text({"output": "a", "error": None}) == '{"output":"a","error":null}'
    assert text({"error": "boom"}) == '{"error":"boom"}'
    assert text({"rows": [1, 2.5, "é"]}) == '{"rows":[1,2.5,"é"]}'
    assert text(None) == ""


def test_flags_and_the_mixed_user_content() -> None:
    model = {"role": "model", "parts": [{"functionCall": {"name": "look"}}]}
    user = {
        "role": "user",
        "injected": True,
        "parts": [
            {"inlineData": {"mimeType": "image/png", "data": "iVBO"}},
            {"functionResponse": {"name": "look", "not_dispatched": True, "response": {}}},
            {"text": "a"},
            {"fileData": {"fileUri": "gs://x", "mimeType": "text/plain"}},
            {"text": "b"},
        ],
    }
    core = read_messages([model, user], "gemini")
    assert core[1:] == [
        Message(
            "tool",
            "{}",
            tool_call_id=f"look#1:{digest(model)}",
            tool_name="look",
            not_dispatched=True,
            source=1,
            blocks=(1,),
        ),
        # The PNG part is an image at the default media resolution; the text file is none, but a
        # file the provider reads (docs/rules.md#the-tokens-of-a-message).
        Message(
            "user",
            "ab",
            injected=True,
            source=1,
            blocks=(0, 2, 3, 4),
            images=(Image("gemini"),),
            extra_tokens=1_600,
        ),
    ]


def test_parts_that_add_nothing_and_empty_contents() -> None:
    model = {
        "role": "model",
        "parts": [
            {"thought": True, "thoughtSignature": "AA=="},
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}},
            {"text": "done", "thought": False},
            {"futurePart": {"x": 1}},
        ],
    }
    core = read_messages([{"parts": []}, model, {"role": "model", "parts": []}], "gemini")
    assert core == [
        Message("user", "", source=0),
        Message("assistant", "done", source=1, blocks=(0, 1, 2, 3, 4)),
        Message("assistant", "", source=2),
    ]


def test_the_checking_path_reads_what_the_fast_path_reads() -> None:
    """Every valid content of these tests, read by the checking path alone, gives the same core
    messages (the fast path is only a faster way to the same answer)."""
    raw = racks()
    previous: tuple[ToolCall, ...] = ()
    checked: list[Message] = []
    for index, content in enumerate(raw):
        problems = Problems()
        previous = read_content(content, index, previous, problems, checked)
        assert not problems.errors
    assert checked == read_messages(raw, "gemini")


def test_answers_names_the_kth_call() -> None:
    answers = Answers((ToolCall("a", "f"), ToolCall("b", "g"), ToolCall("c", "f")), {})
    assert [answers.position("f"), answers.position("f"), answers.position("g")] == [1, 2, 1]
    assert answers.answer("f", 2) == "c"
    assert answers.answer("g", 2).startswith("g#2:")


# ---- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "loc"),
    [
        ("text", (0,)),
        ({"role": "assistant", "parts": []}, (0, "role")),
        ({"role": "system", "parts": []}, (0, "role")),
        ({"role": 3, "parts": []}, (0, "role")),
        ({"role": "user"}, (0, "parts")),
        ({"role": "user", "parts": "hello"}, (0, "parts")),
        ({"role": "user", "parts": [], "injected": "yes"}, (0, "injected")),
        ({"parts": ["hello"]}, (0, "parts", 0)),
        ({"parts": [{"text": 5}]}, (0, "parts", 0, "text")),
        ({"role": "model", "parts": [{"text": "x", "thought": "yes"}]}, (0, "parts", 0, "thought")),
        ({"role": "model", "parts": [{"functionCall": "f"}]}, (0, "parts", 0, "functionCall")),
        (
            {"role": "model", "parts": [{"functionCall": {"args": {}}}]},
            (0, "parts", 0, "functionCall", "name"),
        ),
        (
            {"role": "model", "parts": [{"functionCall": {"name": 7}}]},
            (0, "parts", 0, "functionCall", "name"),
        ),
        (
            {"role": "model", "parts": [{"functionCall": {"name": "f", "id": 1}}]},
            (0, "parts", 0, "functionCall", "id"),
        ),
        (
            {"role": "model", "parts": [{"functionCall": {"name": "f", "id": ""}}]},
            (0, "parts", 0, "functionCall", "id"),
        ),
        (
            {"role": "model", "parts": [{"functionResponse": {"name": "f"}}]},
            (0, "parts", 0, "functionResponse"),
        ),
        ({"parts": [{"functionCall": {"name": "f"}}]}, (0, "parts", 0, "functionCall")),
        ({"parts": [{"functionResponse": []}]}, (0, "parts", 0, "functionResponse")),
        (
            {"parts": [{"functionResponse": {"response": {}}}]},
            (0, "parts", 0, "functionResponse", "name"),
        ),
        (
            {"parts": [{"functionResponse": {"name": "f", "id": 2}}]},
            (0, "parts", 0, "functionResponse", "id"),
        ),
        (
            {"parts": [{"functionResponse": {"name": "f", "response": "ok"}}]},
            (0, "parts", 0, "functionResponse", "response"),
        ),
        (
            {"parts": [{"functionResponse": {"name": "f", "not_dispatched": 1}}]},
            (0, "parts", 0, "functionResponse", "not_dispatched"),
        ),
        ({"parts": [{"functionResponse": {"name": "f"}, "text": "x"}]}, (0, "parts", 0)),
        ({"parts": [{"function_response": {"name": "f"}}]}, (0, "parts", 0, "function_response")),
        (
            {"role": "model", "parts": [{"function_call": {"name": "f"}}]},
            (0, "parts", 0, "function_call"),
        ),
    ],
)
def test_malformed_contents_are_refused_naming_the_field(
    content: Any, loc: tuple[Any, ...]
) -> None:
    assert error_locs([content], "gemini") == [loc]


def test_every_violation_is_named_in_one_refusal() -> None:
    raw = [
        {"parts": [{"text": "ok"}]},
        {"role": "bot", "parts": []},
        {
            "role": "model",
            "parts": [{"functionCall": {"name": 1}}, {"text": None}, 5, {"functionCall": {}}],
        },
        {"parts": [{"functionResponse": {"name": "f", "id": ""}}, {"text": ["x"]}]},
    ]
    assert error_locs(raw, "gemini") == [
        (1, "role"),
        (2, "parts", 0, "functionCall", "name"),
        (2, "parts", 2),
        (2, "parts", 3, "functionCall", "name"),
        (3, "parts", 0, "functionResponse", "id"),
        (3, "parts", 1, "text"),
    ]
    [error] = errors_of([{"role": "assistant", "parts": []}], "gemini")
    assert "'user'" in error.msg and "'model'" in error.msg


def test_null_fields_count_as_absent() -> None:
    core = read_messages(
        [
            {"role": None, "parts": [{"text": None, "inlineData": {"data": "x"}}, {"text": "q"}]},
            {"role": "model", "parts": [{"text": "t", "functionCall": None, "thought": None}]},
        ],
        "gemini",
    )
    # An `inlineData` part with no image MIME type is a file: a fixed count, never characters.
    assert core == [
        Message("user", "q", source=0, blocks=(0, 1), extra_tokens=1_600),
        Message("assistant", "t", source=1, blocks=(0,)),
    ]


# ---- writing -------------------------------------------------------------------------------------


def written(raw: list[Any], removed: tuple[int, int] | None, notice: str | None) -> list[Any]:
    core = read_messages(raw, "gemini")
    return write_window(raw, core, () if removed is None else (removed,), notice, "gemini")


def test_nothing_removed_gives_the_contents_back() -> None:
    raw = racks()
    window = written(raw, None, None)
    assert window == raw and all(a is b for a, b in zip(window, raw, strict=True))


def test_a_removed_turn_leaves_its_results_and_the_question_stays() -> None:
    """Removing the call's turn (the model content and both results) keeps the question of
    content 2 with only its own part, every other key of the content as sent."""
    raw = racks()
    core = read_messages(raw, "gemini")
    assert turn_bounds(core) == [(0, 1), (1, 4), (4, 5), (5, 6)]
    window = write_window(raw, core, ((1, 4),), NOTICE, "gemini")
    assert window == [
        raw[0],
        NOTICE_CONTENT,
        {"parts": [{"text": "And the coolest?"}], "meta": {"turn": 2}},
        raw[3],
    ]
    assert window[2]["parts"][0] is raw[2]["parts"][2]
    assert len(window) == run_count(core, (1, 4), True)


def test_kept_parts_are_byte_identical_signature_included() -> None:
    raw = racks()
    core = read_messages(raw, "gemini")
    window = write_window(raw, core, ((0, 1),), None, "gemini")
    assert window[0] is raw[1]
    assert orjson.dumps(window) == orjson.dumps(raw[1:])
    assert window[0]["parts"][3]["thoughtSignature"] == SIGNATURE


def test_the_notice_without_removal_of_parts_and_at_the_end() -> None:
    raw = racks()
    core = read_messages(raw, "gemini")
    assert write_window(raw, core, ((4, 6),), NOTICE, "gemini") == [
        raw[0],
        raw[1],
        {**raw[2], "parts": raw[2]["parts"][:2]},
        NOTICE_CONTENT,
    ]


def test_shaped_results_are_written_as_response_output() -> None:
    raw = racks()
    core = read_messages(raw, "gemini")
    raw[2]["parts"][1]["functionResponse"]["id"] = "kept-id"
    window = write_window(raw, core, (), None, "gemini", {3: "[capped]"})
    assert window[2]["parts"][1] == {
        "functionResponse": {"name": "look", "response": {"output": "[capped]"}, "id": "kept-id"}
    }
    assert window[2]["parts"][0] is raw[2]["parts"][0]
    assert window[2]["meta"] == {"turn": 2}
    assert raw[2]["parts"][1]["functionResponse"]["response"] == {"celsius": 41, "ok": True}
    # Read back, the shaped result is the shaped text, answering the same call.
    again = read_messages(window, "gemini")
    assert again[3].content == "[capped]" and again[3].tool_call_id == "kept-id"
    assert again[2] == core[2]


def test_non_text_parts_make_a_user_message_not_empty() -> None:
    raw = [
        {"parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBO"}}]},
        {"parts": [{"fileData": {"fileUri": "gs://b/f"}}, {"text": ""}]},
        {"parts": [{"text": ""}]},
        {"parts": []},
        {"role": "model", "parts": [{"functionCall": {"name": "f"}}]},
        {"parts": [{"functionResponse": {"name": "f"}}, {"text": "x"}]},
    ]
    core = read_messages(raw, "gemini")
    has = non_text_part_predicate(raw, "gemini")
    users = [m for m in core if m.role == "user"]
    assert [m.source for m in users] == [0, 1, 2, 3, 5]
    assert [has(m) for m in users] == [True, True, False, False, False]


def test_the_system_instruction() -> None:
    system = {"role": "system", "parts": [{"text": "You are "}, {"text": "terse."}]}
    assert system_problem(system, "gemini") is None
    assert system_problem({"parts": []}, "gemini") is None
    assert system_prompt_text(system, "gemini") == "You are terse."
    assert system_prompt_text(None, "gemini") is None
    for bad in (
        "a string",
        [{"text": "blocks"}],
        {"parts": "x"},
        {"parts": [{"inlineData": {}}]},
        {"parts": [{"text": 1}]},
        {"parts": [], "role": 1},
        {"parts": [], "extra": 1},
        {"role": "system"},
    ):
        problem = system_problem(bad, "gemini")
        assert problem is not None and "gemini" in problem, bad
