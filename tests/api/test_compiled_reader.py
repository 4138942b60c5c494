"""The compiled reader against the Python path: byte-identical answers, or the same 4xx.

Every body goes through two apps, one reading plan requests with the compiled reader and one in
Python, and the two answers must be the same status and the same bytes (a 4xx problem document
included, so the same `loc`s). Bodies: the benchmark's, every worked example of
`tests/core/window_examples.py`, the plan examples of the API document, the formats' hypothesis
transcripts (sent as they are, re-spaced, with escapes, and under `auto`), and the fuzz harness's
seeds broken the ways the fuzz tests break them. Where the compiled path is meant to answer itself
(the benchmark's bodies, the worked examples), the test also checks that it did, so a silent
fallback cannot pass for a match. The compiled survey and findings are checked against
`app.core.turns.survey` and `app.core.diagnostics.findings` on every transcript read, and the
findings on arbitrary core transcripts (orphaned, repeated, unanswered and empty messages).

Without the module (not built) these tests are skipped, unless `CWP_REQUIRE_COMPILED_READER=1`
(set by `.ci/run`), where its absence fails them.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import compiled
from app.api.answers import scanned_plan_answer
from app.api.examples import PLAN_EXAMPLES
from app.api.metrics import create_metrics
from app.compiled import Unanswered
from app.core.diagnostics import diagnose, findings
from app.core.messages import Message, ToolCall
from app.core.tokens import arguments_text
from app.core.turns import Segment, Survey, survey
from app.formats import read_messages
from app.main import create_app
from app.settings import Settings
from bench.asgi import call_asgi
from bench.generate import plan_body
from fuzz.fuzz_compiled_reader import REUSED_ID_SEEDS, comparable
from fuzz.fuzz_requests import SEEDS
from tests.api.test_fit_http import fit_body
from tests.api.test_frames_http import INTERRUPTION, REMINDER, TASK, transcript
from tests.api.test_within_limit_http import example_body
from tests.core.fit_examples import FIT_EXAMPLES
from tests.core.window_examples import WINDOW_EXAMPLES, request_body
from tests.core.within_limit_examples import WITHIN_LIMIT_EXAMPLES
from tests.formats.test_properties import TRANSCRIPTS

if not compiled.available():
    if os.environ.get("CWP_REQUIRE_COMPILED_READER") == "1":
        raise RuntimeError("the compiled reader is required here but cwp_compiled_reader is absent")
    pytest.skip("the compiled reader is not built", allow_module_level=True)

PLAN = "/v1/window/plan"
DIALECTS = ["native", "openai", "anthropic", "responses", "gemini", "bedrock"]
COMPILED_APP = create_app(Settings(compiled_reader=True))
PYTHON_APP = create_app(Settings(compiled_reader=False))
METRICS = create_metrics()
PROPERTIES = settings(
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


INSTANCE = re.compile(rb'"instance":"[0-9a-f]{32}"')


def answer(app: Any, body: bytes) -> tuple[int, bytes, bytes | None]:
    """(status, body, content type); a problem's `instance`, unique to each answer, blanked."""
    status, headers, payload = asyncio.run(call_asgi(app, "POST", PLAN, body))
    return status, INSTANCE.sub(b'"instance":""', payload), headers.get(b"content-type")


def compiled_answers(body: bytes) -> bool:
    """Whether the compiled path answers `body` itself (rather than handing it to Python)."""
    try:
        scanned_plan_answer(bytearray(body), 64, 100_000, METRICS)
    except Unanswered:
        return False
    return True


def module_reads_every_message(body: bytes, format_name: str) -> bool:
    """Whether the module itself reads every caller message of `body` (none handed back to the
    format's Python reader), and reads them as that reader does."""
    read = compiled.scan(body, 64).read(format_name, Message, ToolCall)
    if read is None or any(type(item) is int for item in read):
        return False
    return bool(
        comparable(read) == comparable(read_messages(orjson.loads(body)["messages"], format_name))
    )


def scan_accepts(body: bytes) -> bool:
    """Whether the scan reads `body` (it leaves integers beyond 18 digits to Python, say)."""
    try:
        compiled.scan(body, 64)
    except ValueError:
        return False
    return True


def assert_same_answer(body: bytes) -> int:
    """The two apps' answers to `body` are the same bytes; returns the status."""
    fast = answer(COMPILED_APP, body)
    reference = answer(PYTHON_APP, body)
    assert fast == reference, (body[:300], fast[0], fast[1][:600], reference[1][:600])
    return fast[0]


def respaced(body: bytes) -> bytes:
    """The same JSON value written with whitespace and every non-ASCII character escaped."""
    return json.dumps(orjson.loads(body), indent=1, ensure_ascii=True).encode()


@pytest.mark.parametrize("format_name", DIALECTS)
@pytest.mark.parametrize("messages", [50, 1_000])
@pytest.mark.parametrize("shaped", [False, True])
def test_benchmark_bodies_are_answered_by_the_compiled_path_byte_for_byte(
    format_name: str, messages: int, shaped: bool
) -> None:
    body = plan_body(messages, format_name, shaped=shaped)
    assert compiled_answers(body)
    assert module_reads_every_message(body, format_name)
    assert assert_same_answer(body) == 200
    auto = orjson.loads(body)
    del auto["format"]
    assert assert_same_answer(orjson.dumps(auto)) == 200
    assert assert_same_answer(respaced(body)) == 200


@pytest.mark.parametrize("format_name", DIALECTS)
@pytest.mark.parametrize(
    "tokenizer", ["estimate", pytest.param("o200k_base", marks=pytest.mark.slow)]
)
def test_token_counting_bodies_are_answered_by_the_compiled_path(
    format_name: str, tokenizer: str
) -> None:
    """The arguments the compiled reader keeps on each call are the ones tokens count."""
    body = orjson.loads(plan_body(1_000, format_name, tokenizer=tokenizer))
    body["strategy"] = {"kind": "fit", "max_tokens": 60_000, "reserve_tokens": 500}
    body["calibration"] = {"counted": 1000, "measured": {"input_tokens": 1130, "output_tokens": 9}}
    encoded = orjson.dumps(body)
    assert compiled_answers(encoded)
    assert assert_same_answer(encoded) == 200
    assert assert_same_answer(respaced(encoded)) == 200


def test_arguments_written_as_orjson_writes_them_are_kept_as_that_text() -> None:
    """Not parsed into an object tree (memory): the same text for the tokens, which
    `arguments_text` takes as it is from a string and writes from a parsed value."""
    call = {"id": "c1", "name": "t", "arguments": {"path": "a.txt", "lines": [1, 2]}}
    message = {"role": "assistant", "content": "", "tool_calls": [call]}
    compact = orjson.dumps({"messages": [message]})
    for body, kept_as in ((compact, str), (respaced(compact), dict)):
        (read,) = compiled.scan(body, 64).read("native", Message, ToolCall)
        arguments = read.tool_calls[0].arguments
        assert type(arguments) is kept_as
        assert arguments_text(arguments) == '{"path":"a.txt","lines":[1,2]}'


@pytest.mark.parametrize("example", FIT_EXAMPLES, ids=lambda example: example.name)
@pytest.mark.parametrize("format_name", DIALECTS)
def test_the_fit_examples_give_the_python_answer(example: Any, format_name: str) -> None:
    encoded = orjson.dumps(fit_body(format_name, example))
    assert compiled_answers(encoded)
    assert assert_same_answer(encoded) == 200


@pytest.mark.parametrize("example", WITHIN_LIMIT_EXAMPLES, ids=lambda example: example.name)
@pytest.mark.parametrize("format_name", DIALECTS)
def test_the_within_limit_examples_give_the_python_answer(example: Any, format_name: str) -> None:
    """Further spans, the keep window and caps: several removed ranges and capped results,
    written by each dialect's one writer over the scan (docs/rules.md#within-the-limit)."""
    encoded = orjson.dumps(example_body(format_name, example))
    assert compiled_answers(encoded)
    assert assert_same_answer(encoded) == 200


def test_counts_past_the_largest_integer_give_the_python_422() -> None:
    body = fit_body("native", FIT_EXAMPLES[0])
    body["calibration"] = {
        "counted": 1,
        "measured": {"input_tokens": 2**63 - 1, "output_tokens": 1},
    }
    assert assert_same_answer(orjson.dumps(body)) == 422


@pytest.mark.parametrize("case", WINDOW_EXAMPLES)
def test_worked_examples_give_the_python_answer(case: Any) -> None:
    body = request_body(case.messages, **case.options)
    for include in (False, True):
        encoded = orjson.dumps({**body, "include_window": include})
        assert compiled_answers(encoded)
        assert assert_same_answer(encoded) == 200


@pytest.mark.parametrize("name", sorted(PLAN_EXAMPLES))
def test_api_plan_examples_give_the_python_answer(name: str) -> None:
    body = orjson.dumps({**PLAN_EXAMPLES[name]["value"], "include_window": True})
    status = assert_same_answer(body)
    assert status == 200
    value = PLAN_EXAMPLES[name]["value"]
    # An Anthropic compaction block, and summaries (their keys hash the parsed messages), are
    # what the compiled path leaves to Python.
    anthropic = value.get("format", "auto") in ("anthropic", "auto")
    summaries = "summarize" in value or "summaries" in value
    assert compiled_answers(body) == (
        not (anthropic and compacted(value["messages"])) and not summaries
    )


TRANSCRIPT_CASES = st.sampled_from(sorted(TRANSCRIPTS)).flatmap(
    lambda name: st.tuples(st.just(name), TRANSCRIPTS[name])
)
OPTIONS = st.fixed_dictionaries(
    {
        "strategy": st.fixed_dictionaries(
            {
                "kind": st.just("sliding-window"),
                "keep_recent_turns": st.integers(0, 4) | st.integers(1, 3),
            }
        )
    },
    optional={
        "keep_last_tool_results": st.integers(0, 3),
        "include_window": st.booleans(),
        "ledger": st.just([]),
        "cap": st.fixed_dictionaries({"max_chars": st.integers(1, 40)}),
        "collapse": st.just("ledger"),
        # `clear` is read in Python on both paths; its placeholders are written by both writers
        # and its images looked up in the scanned messages (a bad value is the same 422).
        "clear": st.fixed_dictionaries(
            {},
            optional={
                "keep_last": st.integers(0, 2),
                "step": st.integers(1, 3),
                "exclude_tools": st.lists(st.sampled_from(["look", "probe"]), max_size=1),
                "trigger_tokens": st.none() | st.integers(1, 500),
            },
        )
        | st.just({"step": 0}),
        # Read by the Python side in both paths; a bad value is the same 422.
        "detect_frames": st.none() | st.booleans(),
        "frame_tags": st.none()
        | st.lists(st.sampled_from(["my-note", "task", "x.y:z", "1bad", 5]), max_size=2),
    },
)


@PROPERTIES
@given(case=TRANSCRIPT_CASES, options=OPTIONS, auto=st.booleans(), spaced=st.booleans())
def test_property_transcripts_give_the_python_answer(
    case: tuple[str, list[Any]], options: dict[str, Any], auto: bool, spaced: bool
) -> None:
    format_name, messages = case
    body: dict[str, Any] = {"messages": messages, **options}
    if not auto:
        body["format"] = format_name
    encoded = orjson.dumps(body)
    encoded = respaced(encoded) if spaced else encoded
    if assert_same_answer(encoded) == 200:
        # An Anthropic compaction block is the one thing the compiled path leaves to Python.
        assert compiled_answers(encoded) == (format_name != "anthropic" or not compacted(messages))


@pytest.mark.parametrize("format_name", DIALECTS)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"detect_frames": False},
        {"detect_frames": None, "frame_tags": None},
        {"frame_tags": ["my-note"]},
        {"request_text": REMINDER},
        {"detect_frames": True, "frame_tags": ["my-note", "x.y:z"], "request_text": "other"},
    ],
    ids=repr,
)
def test_frame_bodies_are_answered_by_the_compiled_path_byte_for_byte(
    format_name: str, options: dict[str, Any]
) -> None:
    """Reminders, a note and an interruption after the task: the frame options are read by the
    Python side of the request in both paths, so both find the same current request."""
    frames = [REMINDER, "<my-note>checked</my-note>", None, INTERRUPTION, REMINDER]
    body = {
        "messages": transcript(format_name, [TASK], frames),
        "format": format_name,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
        "include_window": True,
        **options,
    }
    encoded = orjson.dumps(body)
    assert compiled_answers(encoded)
    assert assert_same_answer(encoded) == 200
    auto = {key: value for key, value in body.items() if key != "format"}
    assert assert_same_answer(respaced(orjson.dumps(auto))) == 200


@pytest.mark.parametrize(
    "options",
    [{"detect_frames": "no"}, {"frame_tags": "x"}, {"frame_tags": ["ok", 5, "1bad"]}],
    ids=repr,
)
def test_bad_frame_options_give_the_python_422(options: dict[str, Any]) -> None:
    body = {"messages": transcript("anthropic", [TASK], [REMINDER]), **options}
    assert assert_same_answer(orjson.dumps(body)) == 422


def compacted(messages: list[Any]) -> bool:
    """Whether an assistant message holds a `compaction` block."""
    return any(
        message.get("role") == "assistant"
        and isinstance(message.get("content"), list)
        and any(block.get("type") == "compaction" for block in message["content"])
        for message in messages
    )


COMPACTED = [
    {"role": "user", "content": "Audit the racks."},
    {
        "role": "assistant",
        "content": [
            {"type": "compaction", "content": "Earlier summary."},
            {"type": "tool_use", "id": "c1", "name": "look", "input": {}},
        ],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "39C"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "compacting", "signature": "sig"},
            {"type": "compaction", "content": "Rack a reads 39C; rack b next."},
            {"type": "compaction", "content": None},
            {"type": "text", "text": "Continuing."},
        ],
    },
    {"role": "user", "content": "And rack b?"},
    {"role": "assistant", "content": [{"type": "text", "text": "41C."}]},
]


@pytest.mark.parametrize("keep", [1, 2, 6])
@pytest.mark.parametrize("format_name", ["anthropic", None])
@pytest.mark.parametrize("spaced", [False, True])
def test_compaction_bodies_are_handed_to_python_and_give_its_answer(
    keep: int, format_name: str | None, spaced: bool
) -> None:
    body: dict[str, Any] = {
        "messages": COMPACTED,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": keep},
        "include_window": True,
    }
    if format_name is not None:
        body["format"] = format_name
    encoded = respaced(orjson.dumps(body)) if spaced else orjson.dumps(body)
    assert not compiled_answers(encoded)
    assert assert_same_answer(encoded) == 200
    for content in (5, ["x"]):
        broken = orjson.loads(orjson.dumps(body))
        broken["messages"][3]["content"][1]["content"] = content
        assert assert_same_answer(orjson.dumps(broken)) == 422


@PROPERTIES
@given(case=TRANSCRIPT_CASES)
def test_compiled_survey_is_the_python_survey(case: tuple[str, list[Any]]) -> None:
    format_name, messages = case
    core = read_messages(messages, format_name)
    assert compiled.survey(core) == survey(core)
    for cut in (0, 1, len(core) // 2):
        assert compiled.survey(core[cut:]) == survey(core[cut:])


@PROPERTIES
@given(case=TRANSCRIPT_CASES)
def test_compiled_findings_are_the_python_findings(case: tuple[str, list[Any]]) -> None:
    format_name, messages = case
    core = read_messages(messages, format_name)
    for cut in (0, 1, len(core) // 2):
        assert compiled.findings(core[cut:]) == findings(core[cut:])


CALL_IDS = st.sampled_from(["a", "b", "c", "é"])
BROKEN_MESSAGES = st.lists(
    st.one_of(
        st.builds(
            Message,
            role=st.sampled_from(["user", "system", "assistant"]),
            content=st.sampled_from(["", "x"]),
            source=st.none() | st.integers(0, 5),
        ),
        st.builds(
            Message,
            role=st.just("assistant"),
            tool_calls=st.lists(
                st.builds(
                    ToolCall,
                    id=CALL_IDS,
                    name=st.sampled_from(["", "look"]),
                    source=st.none() | st.integers(0, 5),
                ),
                min_size=1,
                max_size=3,
            ).map(tuple),
            source=st.none() | st.integers(0, 5),
        ),
        st.builds(
            Message,
            role=st.just("tool"),
            content=st.sampled_from(["", "ok"]),
            tool_call_id=st.none() | st.just("") | CALL_IDS,
            not_dispatched=st.booleans(),
            source=st.none() | st.integers(0, 5),
        ),
    ),
    max_size=14,
)


@PROPERTIES
@given(messages=BROKEN_MESSAGES, parts=st.booleans())
def test_compiled_findings_of_broken_transcripts_are_the_python_findings(
    messages: list[Message], parts: bool
) -> None:
    assert compiled.findings(messages) == findings(messages)
    assert diagnose(messages, lambda message: parts, compiled.findings) == diagnose(
        messages, lambda message: parts
    )


@PROPERTIES
@given(messages=BROKEN_MESSAGES)
def test_compiled_survey_of_broken_transcripts_is_the_python_survey(
    messages: list[Message],
) -> None:
    # Reused ids among them: the unanswered calls per occurrence are the same on both.
    assert compiled.survey(messages) == survey(messages)


def test_more_findings_than_listed_are_counted_the_same() -> None:
    messages = [Message("tool", "ok", tool_call_id=f"c{n}") for n in range(150)]
    assert compiled.findings(messages) == findings(messages)
    assert diagnose(messages, findings_of=compiled.findings) == diagnose(messages)
    assert diagnose(messages)[-1].detail == "50 more findings not listed"


@PROPERTIES
@given(case=TRANSCRIPT_CASES, spaced=st.booleans())
def test_survey_taken_while_reading_is_the_python_survey(
    case: tuple[str, list[Any]], spaced: bool
) -> None:
    format_name, messages = case
    encoded = orjson.dumps({"messages": messages})
    encoded = respaced(encoded) if spaced else encoded
    try:
        scan = compiled.scan(encoded, 64)
    except ValueError:
        return
    read = scan.read(format_name, Message, ToolCall)
    surveyed_read, surveyed = scan.read_surveyed(format_name, Message, ToolCall, Segment, Survey)
    assert comparable(surveyed_read) == comparable(read)
    if all(type(item) is not int for item in read):
        assert surveyed == survey(read)
        assert comparable(read) == comparable(read_messages(messages, format_name))
    else:
        assert surveyed is None


def broken_seeds() -> list[bytes]:
    """The fuzz harness's plan seeds and the corpus the fuzz tests derive from them: cut short,
    invalid UTF-8, lone and paired surrogates, wrong types, big numbers, repeated keys, deep."""
    rng = random.Random(5)
    seeds = [seed for seed in SEEDS if b'"messages"' in seed] + list(REUSED_ID_SEEDS)
    out: list[bytes] = []
    for seed in seeds:
        out.append(seed)
        out.extend(seed[:cut] for cut in sorted(rng.sample(range(1, len(seed)), 12)))
        out.append(seed.replace(b'"go"', b'"g\xff"').replace(b"Find", b"F\xc3(d"))
        out.append(seed.replace(b'"c1"', b'"c\\ud800"', 1))
        out.append(seed.replace(b'"c1"', b'"c\\udc00"', 1))
        out.append(seed.replace(b'"c1"', b'"c\\ud83d\\ude00"'))
        out.append(seed.replace(b'"c1"', b'"\\u0063\\u0031"'))
        out.append(seed.replace(b'"role"', b'"\\u0072ole"', 1))
        out.append(seed.replace(b"{}", b'{"n":1e400}'))
        out.append(seed.replace(b"{}", b'{"n":123456789012345678901234567890}'))
        out.append(seed.replace(b"{}", b'{"n":-0,"f":1.5e3,"t":true,"z":null}'))
        out.append(seed.replace(b"{}", b'{"a":1,"a":2}'))
        out.append(seed.replace(b'"content":', b'"content":"dup","content":', 1))
        out.append(seed.replace(b'"user"', b"7", 1))
        out.append(seed.replace(b'"user"', b'"developer"', 1))
        out.append(seed.replace(b'"content":"', b'"content":["x","', 1))
        out.append(seed.replace(b'"c1"', b'""', 1))
        out.append(seed.replace(b"{}", b"[" * 70 + b"]" * 70))
        out.append(seed.replace(b"{}", b"[" * 40 + b"]" * 40))
        out.append(seed.replace(b'"messages":[', b'"messages":[1,', 1))
        out.append(
            seed.replace(b'"messages":[', b'"messages":{"a":[', 1).replace(b"]}]", b"]}]}", 1)
        )
        out.append(b"  " + seed + b"\n")
        out.append(seed + b"x")
        out.append(b"[" + seed + b"]")
        out.append(seed.replace(b'"content":"', b'"content":"\\/\\n\\u001f\\u001F\\u00e9', 1))
    return out


def test_the_reused_id_seeds_are_reported() -> None:
    for seed in REUSED_ID_SEEDS:
        status, body, _ = answer(COMPILED_APP, seed)
        assert status == 200 and compiled_answers(seed)
        assert "duplicate-call-id" in {d["code"] for d in orjson.loads(body)["diagnostics"]}


@pytest.mark.parametrize("body", broken_seeds())
def test_fuzz_corpus_gives_the_python_answer(body: bytes) -> None:
    status = assert_same_answer(body)
    assert status < 500


JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(
        [
            "user",
            "assistant",
            "tool",
            "system",
            "developer",
            "text",
            "tool_use",
            "model",
            "message",
            "function_call",
            "function_call_output",
            "reasoning",
            "output_text",
        ]
    ),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "role",
                    "content",
                    "tool_calls",
                    "id",
                    "name",
                    "arguments",
                    "type",
                    "text",
                    "tool_call_id",
                    "tool_name",
                    "tool_use_id",
                    "input",
                    "injected",
                    "not_dispatched",
                    "function",
                    "call_id",
                    "output",
                    "parts",
                    "functionCall",
                    "functionResponse",
                    "args",
                    "response",
                    "toolUse",
                    "toolResult",
                    "toolUseId",
                    "json",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@PROPERTIES
@given(
    messages=st.lists(JSON_VALUES, max_size=6),
    format_name=st.sampled_from(["auto", *DIALECTS]),
)
def test_arbitrary_messages_give_the_python_answer(messages: list[Any], format_name: str) -> None:
    body = {"messages": messages, "format": format_name}
    encoded = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    if assert_same_answer(encoded) == 200 and scan_accepts(encoded):
        assert compiled_answers(encoded)


@PROPERTIES
@given(data=st.binary(max_size=200))
def test_arbitrary_bytes_give_the_python_answer(data: bytes) -> None:
    assert_same_answer(b'{"messages":[' + data)
    assert_same_answer(data)


def test_info_says_whether_the_compiled_reader_is_in_use() -> None:
    for app, expected in ((COMPILED_APP, True), (PYTHON_APP, False)):
        status, _, payload = asyncio.run(call_asgi(app, "GET", "/v1/info"))
        assert status == 200
        assert orjson.loads(payload)["compiled_reader"] == expected


def test_the_environment_variable_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CWP_COMPILED_READER", "0")
    assert Settings().compiled_reader is False
    monkeypatch.setenv("CWP_COMPILED_READER", "1")
    assert Settings().compiled_reader is True


def test_a_body_the_scan_refuses_is_answered_by_python() -> None:
    for body in (
        b'{"messages":[],"x":1e400}',
        b'{"messages":[{"role":"user","content":"\\ud800"}]}',
    ):
        assert not compiled_answers(body)
        assert assert_same_answer(body) == 400


def image_bodies() -> list[tuple[str, bytes]]:
    """Plan bodies whose messages carry images (docs/rules.md#images), in the formats the compiled
    reader reads: the HTTP tests' cases and a screen-driving run, counted under `fit`."""
    from tests.api.test_images_http import CASES, STEPS, TASK, step

    bodies: list[tuple[str, bytes]] = []
    for format_name, with_images, _, _ in CASES:
        if format_name in DIALECTS:
            body = {
                "format": format_name,
                "messages": with_images,
                "tokenizer": "estimate",
                "include_window": True,
            }
            bodies.append((f"{format_name}-parts", orjson.dumps(body)))
    for format_name in ("openai", "anthropic"):
        run: list[Any] = [{"role": "user", "content": TASK}]
        for k in range(1, STEPS + 1):
            run += step(format_name, k, (1280, 800))
        body = {
            "format": format_name,
            "messages": run,
            "strategy": {"kind": "fit", "max_tokens": 12_000},
            "include_window": True,
        }
        bodies.append((f"{format_name}-screen-run", orjson.dumps(body)))
    return bodies


@pytest.mark.parametrize(("name", "body"), image_bodies(), ids=[n for n, _ in image_bodies()])
def test_bodies_with_images_give_the_python_answer(name: str, body: bytes) -> None:
    """A message holding an image is read by the Python reader (which reads its header); the
    compiled path still answers the request, with the same bytes."""
    assert compiled_answers(body)
    assert assert_same_answer(body) == 200
    assert assert_same_answer(respaced(body)) == 200
    auto = orjson.loads(body)
    del auto["format"]
    assert assert_same_answer(orjson.dumps(auto)) == 200


def counted_item_bodies() -> list[tuple[str, bytes]]:
    """Plan bodies whose messages carry what counts with no core text (a shell's output, a server
    tool's result, a document: docs/rules.md#the-tokens-of-a-message), counted under `fit`."""
    from tests.api.test_counting_http import CASES

    bodies = []
    for format_name, case in CASES.items():
        with_items, _, _ = case()
        body = {
            "format": format_name,
            "messages": with_items,
            "tokenizer": "estimate",
            "strategy": {"kind": "fit", "max_tokens": 3_000},
            "include_window": True,
        }
        bodies.append((format_name, orjson.dumps(body)))
    return bodies


@pytest.mark.parametrize(
    ("name", "body"), counted_item_bodies(), ids=[n for n, _ in counted_item_bodies()]
)
def test_bodies_with_items_counted_without_text_give_the_python_answer(
    name: str, body: bytes
) -> None:
    """The module leaves such a message to the Python reader, which counts it: the same tokens
    and the same window on both paths."""
    assert compiled_answers(body)
    assert not module_reads_every_message(body, name)
    assert assert_same_answer(body) == 200
    assert assert_same_answer(respaced(body)) == 200


@pytest.mark.parametrize("format_name", ["openai", "anthropic"])
def test_a_result_with_an_image_is_cleared_alike_on_both_paths(format_name: str) -> None:
    """`clear` asks the caller's messages whether a short result carries an image: the scanned
    messages answer as the parsed ones do."""
    from tests.api.test_clear import C1, OPTIONS
    from tests.api.test_formats_equivalence import convert

    sent = convert(C1, format_name).messages
    if format_name == "openai":
        image: dict[str, Any] = {"type": "image_url", "image_url": {"url": "data:image/png,AA"}}
        sent[2]["content"] = [{"type": "text", "text": "shot"}, image]
    else:
        image = {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "AA"},
        }
        sent[2]["content"][0]["content"] = [{"type": "text", "text": "shot"}, image]
    body = orjson.dumps({**OPTIONS, "messages": sent, "format": format_name})
    assert assert_same_answer(body) == 200
    assert compiled_answers(body)
    shaped = orjson.loads(answer(COMPILED_APP, body)[1])["shaped"]
    assert [(e["tool_call_id"], e["chars_before"]) for e in shaped] == [("c1", 4), ("c2", 300)]


GEMINI_WITHOUT_IDS = [
    {"role": "user", "parts": [{"text": "Check both racks."}]},
    {
        "role": "model",
        "parts": [
            {"text": "Looking.", "thought": True},
            {"functionCall": {"name": "look", "args": {"rack": "a"}}},
            {"functionCall": {"name": "look", "args": {"rack": "b"}}},
            {"functionCall": {"name": "probe", "id": "p1", "args": {}}},
        ],
    },
    {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "look", "response": {"output": "39C"}}},
            {"functionResponse": {"name": "look", "response": {"temp": 41, "unit": "C"}}},
            {"functionResponse": {"name": "look", "response": {"output": "extra"}}},
            {"functionResponse": {"name": "probe", "id": "p1"}},
            {"text": "Anything else?"},
        ],
    },
    {"role": "model", "parts": [{"text": "Rack b runs warm."}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "late", "response": {}}}]},
]


@pytest.mark.parametrize("spaced", [False, True])
@pytest.mark.parametrize("keep", [1, 3])
def test_gemini_calls_without_ids_are_named_as_in_python(spaced: bool, keep: int) -> None:
    """Generated ids (SHA-256 of the content's compact JSON): the module names them from the
    content's own bytes when orjson would write them so, and hands the list back otherwise."""
    body = orjson.dumps(
        {
            "messages": GEMINI_WITHOUT_IDS,
            "format": "gemini",
            "strategy": {"kind": "sliding-window", "keep_recent_turns": keep},
            "include_window": True,
        }
    )
    body = respaced(body) if spaced else body
    assert module_reads_every_message(body, "gemini") == (not spaced)
    assert compiled_answers(body)
    assert assert_same_answer(body) == 200


@pytest.mark.parametrize("format_name", ["responses", "gemini", "bedrock"])
@pytest.mark.parametrize("keep", [1, 2])
def test_windows_of_the_other_dialects_are_the_python_windows(format_name: str, keep: int) -> None:
    """Removed, shaped and kept messages: the format's own writer over the scanned messages."""
    body = orjson.loads(plan_body(200, format_name, shaped=True))
    body["strategy"] = {"kind": "sliding-window", "keep_recent_turns": keep}
    body["include_window"] = True
    encoded = orjson.dumps(body)
    assert compiled_answers(encoded)
    assert assert_same_answer(encoded) == 200
    assert assert_same_answer(respaced(encoded)) == 200
