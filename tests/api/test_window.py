"""`POST /v1/window/plan` through HTTP: the worked examples of `tests/core/window_examples.py`
posted as native JSON, the stand-down run with records sent back as returned, the response's key
order, the Swagger example, the metrics, and every refusal of docs/rules.md#validation (one 422
naming each field)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.api.examples import PLAN_EXAMPLES
from app.formats import SYSTEM_FORMATS
from app.settings import Settings
from tests.conftest import client_for
from tests.core.native_wire import wire
from tests.core.window_examples import (
    E11_SENT_BACK,
    E12_HELD,
    E13_HELD,
    WINDOW_EXAMPLES,
    WindowExample,
    request_body,
)
from tests.core.window_fixtures import (
    ABBREVIATION,
    AC,
    TASK,
    A,
    R,
    T,
    U,
    U_star,
    W,
    held_words,
)
from tests.core.window_transcripts import (
    DEFAULTS,
    E5,
    E11,
    E12,
    E13,
    E22,
    E23,
    E25_NAMES,
    E26,
    E26_RECORD,
    X3,
    e25,
)

pytestmark = pytest.mark.anyio

PATH = "/v1/window/plan"
JSON = {"content-type": "application/json"}
MAX_INT64 = 9_223_372_036_854_775_807

# ---- the key order of docs/rules.md#the-plans-answer ---------------------------------------------

TOP_KEYS = [
    "format",
    "strategy",
    "engaged",
    "current_request",
    "turns",
    "kept",
    "evicted",
    "evicted_messages",
    "pins",
    "refusals",
    "notice",
    "stats",
    "dropped_tool_names",
    "dropped_standings",
    "diagnostics",
    "record",
]
WITHOUT_TURNS = [key for key in TOP_KEYS if key not in ("turns", "kept", "evicted")]
DIAGNOSTIC_KEYS = ["code", "message_index", "detail"]
CURRENT_REQUEST_KEYS = ["message_index", "turn_index"]
TURN_KEYS = ["index", "start", "length", "chars", "fate", "held_by"]
PINS_KEYS = ["last_tool_result", "ledger_fact"]
BLOCK_KEYS = ["pinned", "yielded", "limit", "stand_down"]
PIN_KEYS = ["tool_name", "turn_index", "message_index", "chars"]
BUDGET_KEYS = [
    "max_tokens",
    "target_tokens",
    "reserve_tokens",
    "total_before",
    "total_after",
    "met",
    "held",
    "stage",
    "released_pins",
    "spans",
]
BUDGET_SPAN_KEYS = ["from_turn", "through_turn", "stage"]
SHAPED_KEYS = [
    "message_index",
    "window_index",
    "tool_call_id",
    "action",
    "chars_before",
    "chars_after",
]
REFUSAL_KEYS = ["reason", "turn_index", "message_index"]
NOTICE_KEYS = ["content", "window_index", "rung"]
STATS_KEYS = [
    "messages_before",
    "messages_after",
    "turns_before",
    "turns_after",
    "chars_before",
    "chars_after",
    "removed_message_count",
]
STANDING_KEYS = ["tool_call_id", "standing"]
RECORD_KEYS = ["strategy", "iteration", "removed_message_count", "refusals", "pins"]


def assert_pins_order(pins: dict[str, Any], counted: bool = False) -> None:
    """`counted`: a tokenizer was in use, so each pin has `tokens` right after `chars`."""
    assert list(pins) == PINS_KEYS
    pin_base = [*PIN_KEYS, "tokens"] if counted else PIN_KEYS
    for kind, pin_keys in (
        ("last_tool_result", pin_base),
        ("ledger_fact", [*pin_base, "tool_call_ids"]),
    ):
        block = pins[kind]
        if block is None:
            continue
        assert list(block) == BLOCK_KEYS
        for pin in block["pinned"]:
            assert list(pin) == pin_keys


def assert_key_order(answer: dict[str, Any]) -> None:
    """Every object of the answer lists its keys in the order docs/rules.md#the-plans-answer writes
    them."""
    counted = "tokenizer" in answer["stats"]
    summary_keys = ["summary_request", "summary_used", "summaries_ignored"]
    keys = [key for key in answer if key not in ("shaped", "budget", "recall_tool", *summary_keys)]
    # docs/rules.md#the-recall-option: right before diagnostics, after the summaries' keys.
    recall = ["recall_tool"] if "recall_tool" in answer else []
    if "summary_request" in answer:  # docs/rules.md#summaries: together, right before diagnostics
        at = list(answer).index("summary_request")
        assert list(answer)[at : at + 4 + len(recall)] == [*summary_keys, *recall, "diagnostics"]
    elif recall:
        assert list(answer)[list(answer).index("recall_tool") + 1] == "diagnostics"
    if "budget" in answer:  # docs/rules.md#the-fit-strategy: right after stats, under `fit` only
        assert answer["strategy"] == "fit"
        assert list(answer)[list(answer).index("stats") + 1] == "budget"
        assert list(answer["budget"]) == BUDGET_KEYS
        for span in answer["budget"]["spans"]:
            assert list(span) == BUDGET_SPAN_KEYS
    assert keys in (TOP_KEYS, [*TOP_KEYS, "window"], WITHOUT_TURNS, [*WITHOUT_TURNS, "window"])
    if "shaped" in answer:  # docs/rules.md#the-shaped-answer: right after dropped_standings
        assert list(answer)[list(answer).index("dropped_standings") + 1] == "shaped"
        for entry in answer["shaped"]:
            images = ["images"] if entry["action"] == "image-cleared" else []
            assert list(entry) == [*SHAPED_KEYS, *images]
    if answer["current_request"] is not None:
        assert list(answer["current_request"]) == CURRENT_REQUEST_KEYS
    turn_keys = [*TURN_KEYS[:4], "tokens", *TURN_KEYS[4:]] if counted else TURN_KEYS
    for turn in answer.get("turns", ()):
        assert list(turn) == turn_keys
    for finding in answer["diagnostics"]:
        assert list(finding) == DIAGNOSTIC_KEYS
    assert_pins_order(answer["pins"], counted)
    for refusal in answer["refusals"]:
        assert list(refusal) == REFUSAL_KEYS
    if answer["notice"] is not None:
        assert list(answer["notice"]) == NOTICE_KEYS
    system_chars = ["system_chars"] if answer["format"] in SYSTEM_FORMATS else []
    stats_keys = list(STATS_KEYS)
    if "shaped" in answer:
        stats_keys.insert(stats_keys.index("chars_before") + 1, "chars_shaped")
    token_keys: list[str] = []
    if counted:
        token_keys = ["tokenizer", "tokens_before", "tokens_after", "tokens_counted"]
        if "shaped" in answer:
            token_keys.insert(2, "tokens_shaped")
        if system_chars:
            token_keys.append("system_tokens")
    assert list(answer["stats"]) == [*stats_keys, *system_chars, *token_keys]
    for entry in answer["dropped_standings"] or ():
        assert list(entry) == STANDING_KEYS
    record = answer["record"]
    if record is not None:
        # `cleared_results`, last, exactly when the request has `clear` on (docs/rules.md#clear).
        cleared = ["cleared_results"] if "cleared_results" in record else []
        assert list(record) == [*RECORD_KEYS, *cleared]
        for refusal in record["refusals"]:
            assert list(refusal) == REFUSAL_KEYS
        assert_pins_order(record["pins"], counted)


# ---- the notation of the worked examples, read from a JSON answer --------------------------------


def held(answer: dict[str, Any]) -> str:
    return held_words(answer["turns"])


def ref(answer: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [
        (ABBREVIATION[r["reason"]], r["turn_index"], r["message_index"]) for r in answer["refusals"]
    ]


def pin_word(pin: dict[str, Any]) -> str:
    word = f"{pin['tool_name']}@{pin['turn_index']}/{pin['message_index']}:{pin['chars']}"
    if "tool_call_ids" in pin:
        word += "{" + ",".join(pin["tool_call_ids"]) + "}"
    return word


def block(pins: dict[str, Any] | None) -> str | None:
    if pins is None:
        return None
    if pins["stand_down"]:
        assert pins["pinned"] == [] and pins["yielded"] == 0
        return f"SD L{pins['limit']}"
    words = ", ".join(pin_word(pin) for pin in pins["pinned"])
    return f"[{words}] y{pins['yielded']} L{pins['limit']}"


def stats(answer: dict[str, Any]) -> str:
    s = answer["stats"]
    pairs = [
        (s["messages_before"], s["messages_after"]),
        (s["turns_before"], s["turns_after"]),
        (s["chars_before"], s["chars_after"]),
    ]
    if all(before == after for before, after in pairs):
        return "m {} t {} c {}".format(*(before for before, _ in pairs))
    return "m {}→{} t {}→{} c {}→{}".format(*(value for pair in pairs for value in pair))


def notice_field(name: str) -> Any:
    return lambda a: None if a["notice"] is None else a["notice"][name]


READERS: dict[str, Any] = {
    "engaged": lambda a: a["engaged"],
    "req": lambda a: (
        None
        if a["current_request"] is None
        else (a["current_request"]["message_index"], a["current_request"]["turn_index"])
    ),
    "held": held,
    "ref": ref,
    "ltr": lambda a: block(a["pins"]["last_tool_result"]),
    "lf": lambda a: block(a["pins"]["ledger_fact"]),
    "ev": lambda a: a["evicted_messages"],
    "evicted": lambda a: a["evicted"],
    "stats": stats,
    "removed": lambda a: a["stats"]["removed_message_count"],
    "dtn": lambda a: a["dropped_tool_names"],
    "dst": lambda a: (
        None
        if a["dropped_standings"] is None
        else [(e["tool_call_id"], e["standing"]) for e in a["dropped_standings"]]
    ),
    "notice": notice_field("content"),
    "notice_len": lambda a: None if a["notice"] is None else len(a["notice"]["content"]),
    "rung": notice_field("rung"),
    "window_index": notice_field("window_index"),
    "turns": lambda a: [(turn["start"], turn["length"]) for turn in a["turns"]],
    "record": lambda a: a["record"],
    "record_filed": lambda a: a["record"] is not None,
    "window": lambda a: a["window"],
}
# The notation leaves these out when they are null or empty.


def check(answer: dict[str, Any], expect: dict[str, Any]) -> None:
    for key, value in {**DEFAULTS, **expect}.items():
        if key == "notice" and "notice" not in expect and "notice_len" in expect:
            continue
        assert READERS[key](answer) == value, key


# ---- native JSON from the core fixtures ----------------------------------------------------------


def notice_message(content: str) -> dict[str, Any]:
    return {"role": "user", "content": content}


# ---- HTTP ----------------------------------------------------------------------------------------


async def post(client: httpx.AsyncClient, body: Any) -> httpx.Response:
    return await client.post(PATH, content=orjson.dumps(body), headers=JSON)


def expected_window(sent: list[Any], answer: dict[str, Any]) -> list[Any]:
    """The sent transcript without `evicted_messages`, the notice at `window_index` (native), and
    each shaped result's text taken from the window where `shaped` says it stays."""
    evicted = set(answer["evicted_messages"])
    shaped = {entry["message_index"]: entry for entry in answer.get("shaped", ())}
    sent_window = answer.get("window", [])
    window = [
        {**message, "content": sent_window[shaped[index]["window_index"]]["content"]}
        if index in shaped
        else message
        for index, message in enumerate(sent)
        if index not in evicted
    ]
    if answer["notice"] is not None:
        notice = answer["notice"]
        window.insert(notice["window_index"], notice_message(notice["content"]))
    return window


def assert_consistent(body: dict[str, Any], answer: dict[str, Any]) -> None:
    """What holds of every answer: key order, the record mirroring the answer, the window."""
    assert_key_order(answer)
    turns = answer["turns"]
    assert [turn["index"] for turn in turns] == list(range(len(turns)))
    assert answer["kept"] == [t["index"] for t in turns if t["fate"] == "kept"]
    assert answer["evicted"] == [t["index"] for t in turns if t["fate"] == "evicted"]
    assert answer["stats"]["removed_message_count"] == len(answer["evicted_messages"])
    if not answer["engaged"]:
        assert answer["record"] is None and answer["refusals"] == []
        assert answer["pins"] == {"last_tool_result": None, "ledger_fact": None}
        assert all(turn["held_by"] is None for turn in turns)
    else:
        record = {
            "strategy": answer["strategy"],
            "iteration": body.get("iteration", 1),
            "removed_message_count": answer["stats"]["removed_message_count"],
            "refusals": answer["refusals"],
            "pins": answer["pins"],
        }
        if body.get("clear") is not None:  # docs/rules.md#holding-the-boundary: the boundary too
            assert isinstance(answer["record"].get("cleared_results"), int)
            record["cleared_results"] = answer["record"]["cleared_results"]
        assert answer["record"] == record
    if "window" in answer and answer["format"] == "native":
        window = answer["window"]
        assert window == expected_window(body["messages"], answer)
        assert answer["stats"]["messages_after"] == len(window)
        assert answer["stats"]["chars_after"] == sum(len(m.get("content") or "") for m in window)


async def plan_ok(client: httpx.AsyncClient, body: Any) -> dict[str, Any]:
    response = await post(client, body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    answer: dict[str, Any] = response.json()
    assert_consistent(body, answer)
    return answer


async def run_requests(
    client: httpx.AsyncClient, body: dict[str, Any], count: int
) -> list[dict[str, Any]]:
    """`count` identical requests, each sending back every record returned so far, as returned."""
    records: list[Any] = []
    answers = []
    for _ in range(count):
        answer = await plan_ok(client, {**body, "prior_records": list(records)})
        if answer["record"] is not None:
            records.append(answer["record"])
        answers.append(answer)
    return answers


# ---- the transcripts of the worked examples ------------------------------------------------------


@pytest.mark.parametrize("case", WINDOW_EXAMPLES)
async def test_worked_example(client, case: WindowExample):
    body = request_body(case.messages, **case.options)
    answer = (await run_requests(client, body, case.requests))[-1]
    assert answer["format"] == "native"
    assert answer["strategy"] == body.get("strategy", {}).get("kind", "sliding-window")
    check(answer, case.expect)
    if case.window is not None:
        assert answer["window"] == wire(case.window)


async def test_a_budget_with_nothing_measured_does_not_engage(client):
    strategy = {"kind": "token-budget", "threshold_tokens": 1, "keep_recent_turns": 1}
    answer = await plan_ok(client, {"messages": wire(X3), "strategy": strategy})
    check(answer, {"engaged": False, "record": None})


async def test_E26_record_is_written_byte_for_byte(client):
    response = await post(
        client, request_body(E26, keep=2, it=5, ltr=2, ledger={"c1": "fact", "c2": "noise"})
    )
    assert b'"record":' + orjson.dumps(E26_RECORD) + b',"window":' in response.content


async def test_E25_notice_lists_only_safe_names(client):
    answers = {
        name: await plan_ok(client, request_body(e25(names), keep=1, ltr=0, it=12))
        for name, names in E25_NAMES.items()
    }
    lists = {
        "E25a": "(tool_0, tool_1, tool_2, tool_3, …)",
        "E25b": "(safe_one)",
        "E25d": f"({'x' * 48}, a.b:c-d_e)",
    }
    for name, listed in lists.items():
        assert f"Tool results are among them {listed}: " in answers[name]["notice"]["content"]
    assert "Tool results" not in answers["E25c"]["notice"]["content"]
    for answer in answers.values():
        assert answer["notice"]["content"].startswith(
            "[dropped history — 40 earlier message(s) were removed from this window at "
            "iteration 12 by the 'sliding-window' strategy"
        )
        assert "Your current request is kept" in answer["notice"]["content"]


# ---- records sent back: E11, the stand-down ------------------------------------------------------


async def test_E11_new_window_sent_back_with_its_record(client):
    body = request_body(E11, keep=2, ltr=2)
    first = await plan_ok(client, body)
    second = await plan_ok(
        client, {**body, "messages": first["window"], "prior_records": [first["record"]]}
    )
    check(second, E11_SENT_BACK)


async def test_E13_stand_down_is_reported_as_such_then_pins_again(client):
    """Requests 1 to 3 are worked examples; here: the stood-down block and record, request 4."""
    answers = await run_requests(client, request_body(E13, keep=2, ltr=2), 4)
    assert answers[2]["pins"]["last_tool_result"] == {
        "pinned": [],
        "yielded": 0,
        "limit": 2,
        "stand_down": True,
    }
    assert answers[2]["record"]["pins"]["last_tool_result"]["stand_down"] is True
    # the fourth request reads rec2 and rec3; rec3 removed messages and names no pin
    check(answers[3], E13_HELD)


async def test_E12_token_budget_stand_down_is_recorded_then_pins_again(client):
    """Requests 1 to 3 are worked examples; here: the record's strategy, request 4."""
    answers = await run_requests(client, request_body(E12, tb=(1, 999999, 10), keep=2, ltr=2), 4)
    assert answers[2]["record"]["strategy"] == "token-budget"
    check(answers[3], E12_HELD)


async def test_a_plan_that_does_not_engage_files_no_record_to_break_a_streak(client):
    body = request_body(E13, keep=2, ltr=2)
    first, second = await run_requests(client, body, 2)
    records = [first["record"], second["record"]]
    idle = await plan_ok(client, {**body, "strategy": {"kind": "sliding-window"}})
    assert idle["record"] is None
    third = await plan_ok(client, {**body, "prior_records": records})
    assert block(third["pins"]["last_tool_result"]) == "SD L2"


async def test_a_record_names_a_pin_only_when_it_blocked(client):
    """Two records that removed messages do not stand a kind down, whatever they name."""
    body = request_body(E13, keep=2, ltr=2)
    (first,) = await run_requests(client, body, 1)
    removing = {**first["record"], "removed_message_count": 2}
    answer = await plan_ok(client, {**body, "prior_records": [removing, removing]})
    check(answer, E13_HELD)
    answer = await plan_ok(client, {**body, "prior_records": [removing, first["record"]]})
    check(answer, E13_HELD)
    answer = await plan_ok(client, {**body, "prior_records": [removing, *[first["record"]] * 2]})
    assert block(answer["pins"]["last_tool_result"]) == "SD L2"


# ---- response shape, determinism, timing ---------------------------------------------------------


async def test_include_window_false_leaves_out_window_only(client):
    body = request_body(E5, keep=2, it=4, ltr=0)
    with_window = await plan_ok(client, body)
    without_window = await plan_ok(client, {**body, "include_window": False})
    assert list(without_window) == TOP_KEYS
    assert "window" not in without_window
    assert list(with_window) == [*TOP_KEYS, "window"]
    assert {k: v for k, v in with_window.items() if k != "window"} == without_window
    explicit = await plan_ok(client, {**body, "include_window": True})
    assert explicit == with_window


async def test_server_timing_header(client):
    response = await post(client, request_body(E5, keep=2, it=4, ltr=0))
    assert response.status_code == 200
    assert re.fullmatch(r"plan;dur=\d+(\.\d+)?", response.headers["server-timing"])


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            request_body(E26, keep=2, it=5, ltr=2, ledger={"c1": "fact", "c2": "noise"}), id="E26"
        ),
        pytest.param(request_body(E23, keep=2, paused="paused"), id="E23"),
        pytest.param(PLAN_EXAMPLES["native"]["value"], id="swagger-native"),
    ],
)
async def test_identical_requests_give_identical_bytes(client, body):
    first = await post(client, body)
    second = await post(client, body)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    async with client_for() as other:
        assert (await post(other, body)).content == first.content


async def test_message_extra_fields_come_back_verbatim(client):
    messages = wire(E5)
    messages[3] = {"trace": {"span": 7, "tags": ["a", "b"]}, **messages[3], "z_last": None}
    messages[5] = {**messages[5], "name": "kept-field", "content": "c" * 400}
    body = {**request_body(E5, keep=2, it=4, ltr=0), "messages": messages}
    answer = await plan_ok(client, body)
    assert answer["window"][1:] == messages[3:]
    assert list(answer["window"][1]) == list(messages[3])


async def test_anthropic_stats_end_with_system_chars(client):
    messages = [{"role": "user", "content": "Which rack is hottest?"}]
    answer = await plan_ok(client, {"messages": messages, "system": "You audit racks."})
    assert answer["format"] == "anthropic"
    assert list(answer["stats"]) == [*STATS_KEYS, "system_chars"]
    assert answer["stats"]["system_chars"] == len("You audit racks.")
    assert answer["stats"]["chars_before"] == len("Which rack is hottest?")
    answer = await plan_ok(client, {"messages": messages, "format": "anthropic"})
    assert answer["stats"]["system_chars"] == 0
    native_answer = await plan_ok(client, {"messages": messages})
    assert "system_chars" not in native_answer["stats"]


# ---- the Swagger example -------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PLAN_EXAMPLES))
async def test_every_swagger_example_is_planned(client, name):
    answer = await plan_ok(client, PLAN_EXAMPLES[name]["value"])
    if name in ("native-shaped", "openai-cleared"):  # shaping alone: nothing needs removing
        assert answer["engaged"] is False and len(answer["shaped"]) == 2
    elif name == "anthropic-clear-images-thinking":  # two results, one image, two thinkings
        assert answer["engaged"] is False and len(answer["shaped"]) == 5
    else:
        assert answer["engaged"] is True and answer["evicted"]


async def test_swagger_example_with_a_notice_after_the_system_prompt(client):
    """docs/rules.md#front-or-further-in: the system message is the envelope (L = 1), the request is
    turn 1, and the span (turns 2–3) leaves on the kept-request path with the rich notice after the
    request."""
    body = PLAN_EXAMPLES["openai-notice-after-system"]["value"]
    answer = await plan_ok(client, body)
    messages = body["messages"]
    check(
        answer,
        {
            "engaged": True,
            "req": (1, 1),
            "held": "se cr EV EV ikw ikw",
            "ref": [("se", 0, 0), ("cr", 1, 1), ("ikw", 4, 6), ("ikw", 5, 8)],
            "ev": [2, 3, 4, 5],
            "dtn": ["read_file", "run_tests"],
            "notice": (
                "[dropped history — 4 earlier message(s) were removed from this window at "
                "iteration 7 by the 'sliding-window' strategy of the context planner. Your "
                "current request is kept: it is still above this line, and no strategy may "
                "remove it. Tool results are among them (read_file, run_tests): call the tool "
                "again if you need that output; do not rebuild ids or values from memory. They "
                "were not summarized; they are simply not re-sent.]"
            ),
        },
    )
    notice = answer["notice"]
    assert (notice["rung"], notice["window_index"]) == ("rich", 2)
    assert answer["window"] == [
        *messages[:2],
        {"role": "user", "content": notice["content"]},
        *messages[6:],
    ]
    assert answer["diagnostics"] == []


async def test_swagger_example_native(client):
    """docs/rules.md on the example: a system turn, the request, then whats_here (c1), measure (c2,
    noise), measure (c3, fact), move (c4), measure (c5); keep 2, ltr 0. The fact turn is held and
    ends the span, so the two turns between the request and it leave, with no notice."""
    body = PLAN_EXAMPLES["native"]["value"]
    answer = await plan_ok(client, body)
    contents = [m["content"] for m in body["messages"]]
    chars_before = sum(map(len, contents))
    chars_after = chars_before - len(contents[3]) - len(contents[5])
    check(
        answer,
        {
            "engaged": True,
            "req": (1, 1),
            "held": "se cr EV EV lf ikw ikw",
            "ref": [("se", 0, 0), ("cr", 1, 1), ("lf", 4, 6), ("ikw", 5, 8), ("ikw", 6, 10)],
            "lf": "[measure@4/6:16{c3}] y0 L4",
            "ev": [2, 3, 4, 5],
            "evicted": [2, 3],
            "dtn": ["whats_here", "measure"],
            "dst": [("c1", None), ("c2", "noise")],
            "stats": f"m 12→8 t 7→5 c {chars_before}→{chars_after}",
            "window": body["messages"][:2] + body["messages"][6:],
        },
    )
    assert answer["record"]["iteration"] == 3
    auto = await post(client, {**body, "format": "auto"})
    assert auto.content == (await post(client, body)).content


async def test_openapi_documents_the_plan_examples(client):
    spec = (await client.get("/openapi.json")).json()
    operation = spec["paths"][PATH]["post"]
    media = operation["requestBody"]["content"]["application/json"]
    assert set(media["examples"]) == set(PLAN_EXAMPLES)
    for name, value in PLAN_EXAMPLES.items():
        assert media["examples"][name]["value"] == value["value"]


# ---- metrics -------------------------------------------------------------------------------------


def samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found


async def test_metrics_count_plans_and_refusals(client):
    await plan_ok(client, request_body(E13, keep=2, ltr=2))  # engaged; cr, ltr, ikw, ikw; removes 0
    await plan_ok(client, request_body(E5, keep=2, it=4, ltr=0))  # engaged; ikw, ikw; removes 3
    await plan_ok(client, request_body(X3))  # not engaged
    await plan_ok(client, request_body(X3, tb=(1000, 5000, 10)))  # engaged; ikw ×4
    await post(client, {"messages": "not a list"})  # refused: no plan
    text = (await client.get("/metrics")).text
    plans = samples(text, "cwp_plans_total")
    assert plans == {
        (("engaged", "true"), ("strategy", "sliding-window")): 2,
        (("engaged", "false"), ("strategy", "sliding-window")): 1,
        (("engaged", "true"), ("strategy", "token-budget")): 1,
    }
    assert samples(text, "cwp_plan_refusals_total") == {
        (("reason", "current-request"),): 1,
        (("reason", "last-tool-result"),): 1,
        (("reason", "inside-keep-window"),): 8,
    }
    assert samples(text, "cwp_plan_removed_messages_total") == {
        (("strategy", "sliding-window"),): 3,
    }
    requests = samples(text, "cwp_http_requests_total")
    assert requests[(("method", "POST"), ("route", PATH), ("status", "200"))] == 4
    assert requests[(("method", "POST"), ("route", PATH), ("status", "422"))] == 1


# ---- accepted on purpose -------------------------------------------------------------------------


async def test_integral_floats_are_used_and_echoed_as_integers(client):
    body = request_body(E5, keep=2, it=4, ltr=0)
    as_integers = await post(client, body)
    as_floats = await post(
        client,
        {
            **body,
            "strategy": {"kind": "sliding-window", "keep_recent_turns": 2.0},
            "iteration": 4e0,
            "keep_last_tool_results": 0.0,
        },
    )
    assert as_floats.status_code == 200, as_floats.text
    assert as_floats.content == as_integers.content
    answer = await plan_ok(
        client, {**request_body(E13, keep=2), "keep_last_tool_results": 2.0, "iteration": 7.0}
    )
    assert answer["pins"]["last_tool_result"]["limit"] == 2
    assert answer["record"]["iteration"] == 7
    raw = (await post(client, {**request_body(E13, keep=2), "iteration": 7.0})).content
    assert b'"iteration":7,' in raw
    tokens = await plan_ok(
        client,
        {
            **request_body(X3),
            "strategy": {
                "kind": "token-budget",
                "threshold_tokens": 1000,
                "keep_recent_turns": 6.0,
                "measured": {"input_tokens": 5000.0, "output_tokens": 1e1},
            },
        },
    )
    assert held(tokens) == "ikw ikw ikw ikw"


async def test_largest_integer_is_accepted(client):
    answer = await plan_ok(client, {**request_body(E5, keep=2, ltr=0), "iteration": MAX_INT64})
    assert f"at iteration {MAX_INT64} by" in answer["notice"]["content"]
    assert answer["record"]["iteration"] == MAX_INT64


@pytest.mark.parametrize(
    ("body", "reference"),
    [
        pytest.param(
            request_body(E22, keep=1, paused="nowhere"),
            request_body(E22, keep=1),
            id="paused-id-matching-nothing",
        ),
        pytest.param(
            request_body(E13, keep=2, rt="a text nobody sent"),
            request_body(E13, keep=2),
            id="request-text-matching-nothing",
        ),
        pytest.param(
            request_body(E13, keep=2, ledger={"zz": "fact", "yy": "noise"}),
            request_body(E13, keep=2, ledger={}),
            id="ledger-rows-for-unknown-ids",
        ),
        pytest.param(
            {**request_body(E13, keep=2), "prior_records": None},
            request_body(E13, keep=2),
            id="prior-records-null",
        ),
        pytest.param(
            {**request_body(E13, keep=2), "prior_records": []},
            request_body(E13, keep=2),
            id="prior-records-empty",
        ),
        pytest.param(
            {**request_body(E13, keep=2), "ledger": None},
            request_body(E13, keep=2),
            id="ledger-null",
        ),
        pytest.param(
            {**request_body(E13, keep=2), "keep_ledger_facts": 0},
            request_body(E13, keep=2),
            id="keep-ledger-facts-without-ledger",
        ),
        pytest.param(
            {**request_body(E13, keep=2), "request_text": None, "paused": None, "system": None},
            request_body(E13, keep=2),
            id="nulls-mean-absent",
        ),
        pytest.param(
            {
                **request_body(E13, keep=2),
                "prior_records": [
                    {
                        "strategy": "summarize-oldest",
                        "iteration": "seven",
                        "removed_message_count": 0,
                        "refusals": [{"reason": "a-reason-from-a-newer-version", "turn": 1}],
                        "pins": {"summary": True},
                        "written_by": "a newer version",
                    }
                ]
                * 2,
            },
            request_body(E13, keep=2),
            id="records-from-a-newer-version",
        ),
    ],
)
async def test_accepted_and_planned_as_the_reference(client, body, reference):
    answer = await post(client, body)
    expected = await post(client, reference)
    assert answer.status_code == expected.status_code == 200, answer.text
    assert answer.content == expected.content


async def test_duplicate_ids_are_accepted(client):
    duplicate_calls = [
        U(TASK),
        AC("c1:look", "c1:look"),
        T("c1"),
        *R("c2"),
    ]
    answer = await plan_ok(client, request_body(duplicate_calls, keep=1, ltr=0))
    # The one result answers the nearer call: the first is unresolved, and reported.
    assert held(answer) == "cr utc ikw"
    codes = [d["code"] for d in answer["diagnostics"]]
    assert codes == ["unanswered-call", "duplicate-call-id"]
    duplicate_results = W(U(TASK), AC("c1:look"), T("c1"), T("c1", "look", "again"), R("c2"))
    answer = await plan_ok(client, request_body(duplicate_results, keep=1, ltr=0))
    assert held(answer) == "cr EV ikw"
    assert answer["turns"][1]["length"] == 3


async def test_a_tool_message_answering_no_call_is_planned_as_it_is(client):
    """Named only by its `tool_name`, it is still that tool's latest result and holds its turn."""
    messages = W(U(TASK), A("thinking"), T("orphan", "probe"), R("c1"))
    answer = await plan_ok(client, request_body(messages, keep=1))
    assert held(answer) == "cr ltr ikw"
    assert block(answer["pins"]["last_tool_result"]) == "[probe@1/1:10] y0 L2"


async def test_a_fractional_threshold_is_a_number(client):
    body = request_body(X3, tb=(0.5, 1, 0), keep=6)
    answer = await plan_ok(client, body)
    assert answer["engaged"] is True and held(answer) == "ikw ikw ikw ikw"
    answer = await plan_ok(client, request_body(X3, tb=(1.5, 1, 0), keep=6))
    assert answer["engaged"] is False


async def test_native_defaults_and_empty_values_are_accepted(client):
    """`content` null or absent is "", `arguments` any JSON, an empty `tool_calls` none, a null
    `tool_name` absent."""
    messages = [
        {"role": "user", "content": TASK, "tool_calls": []},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "name": "look", "arguments": '{"x": 1}'}],
        },
        {"role": "tool", "tool_call_id": "c1", "tool_name": None},
        {"role": "assistant", "tool_calls": [{"id": "c2", "name": "look"}]},
        {"role": "tool", "tool_call_id": "c2", "content": "ok", "injected": False},
    ]
    answer = await plan_ok(
        client,
        {"messages": messages, "strategy": {"kind": "sliding-window", "keep_recent_turns": 1}},
    )
    assert held(answer) == "cr EV ikw"
    assert [turn["chars"] for turn in answer["turns"]] == [len(TASK), 0, 2]
    assert answer["dropped_tool_names"] == ["look"]  # a null tool_name is recovered from c1
    assert answer["window"] == [messages[0], *messages[3:]]


# ---- refused input -------------------------------------------------------------------------------


def assert_refused(response: httpx.Response, locs: list[list[Any]]) -> None:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == 422
    found = [error["loc"] for error in problem["errors"]]
    assert sorted(map(repr, found)) == sorted(repr(["body", *loc]) for loc in locs), found
    for error in problem["errors"]:
        assert error["msg"] and error["type"]


VALID = wire(E13)
PLAIN = {"messages": [{"role": "user", "content": TASK}]}
TOOL = {"role": "tool", "tool_call_id": "c1", "tool_name": "look", "content": "ok"}


def call(**fields: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [fields]}


def strategy(**fields: Any) -> dict[str, Any]:
    return {"messages": VALID, "strategy": fields}


def budget(**fields: Any) -> dict[str, Any]:
    return strategy(kind="token-budget", threshold_tokens=1000, **fields)


def measured(**counts: Any) -> dict[str, Any]:
    return budget(measured=counts)


def option(**fields: Any) -> dict[str, Any]:
    return {"messages": VALID, **fields}


def record(**fields: Any) -> dict[str, Any]:
    return {"removed_message_count": 0, "refusals": [], **fields}


def refused(name: str, body: Any, *locs: list[Any]) -> Any:
    return pytest.param(body, list(locs), id=name)


REFUSED = [
    # the body and messages
    refused("body-an-array", [{"messages": VALID}], []),
    refused("body-a-string", "plan", []),
    refused("body-null", None, []),
    refused("messages-missing", {}, ["messages"]),
    refused("messages-an-object", {"messages": {"role": "user", "content": "x"}}, ["messages"]),
    refused("messages-a-string", {"messages": "x"}, ["messages"]),
    refused("messages-null", {"messages": None}, ["messages"]),
    refused(
        "tool-without-tool_call_id",
        {"messages": [*VALID, {"role": "tool", "content": "ok"}]},
        ["messages", 7, "tool_call_id"],
    ),
    refused(
        "tool_call_id-empty",
        {"messages": [*VALID, {**TOOL, "tool_call_id": ""}]},
        ["messages", 7, "tool_call_id"],
    ),
    refused(
        "tool_call_id-not-a-string",
        {"messages": [*VALID, {**TOOL, "tool_call_id": 7}]},
        ["messages", 7, "tool_call_id"],
    ),
    refused(
        "tool_name-not-a-string",
        {"messages": [*VALID, {**TOOL, "tool_name": ["look"]}]},
        ["messages", 7, "tool_name"],
    ),
    refused("message-a-string", {"messages": [*VALID, "hello"]}, ["messages", 7]),
    refused("message-null", {"messages": [None, *VALID]}, ["messages", 0]),
    refused("message-without-role", {"messages": [{"content": TASK}]}, ["messages", 0, "role"]),
    refused(
        "content-a-number",
        {"messages": [{"role": "user", "content": 49}]},
        ["messages", 0, "content"],
    ),
    refused(
        "tool_calls-an-object",
        {"messages": [{"role": "assistant", "content": "", "tool_calls": {"id": "c1"}}]},
        ["messages", 0, "tool_calls"],
    ),
    refused(
        "call-a-string",
        {"messages": [{"role": "assistant", "content": "", "tool_calls": ["c1"]}]},
        ["messages", 0, "tool_calls", 0],
    ),
    refused(
        "tool_calls-on-a-tool-message",
        {"messages": [{**TOOL, "tool_calls": [{"id": "c2", "name": "look"}]}]},
        ["messages", 0, "tool_calls"],
    ),
    refused(
        "tool_calls-on-a-user-message",
        {"messages": [{"role": "user", "content": TASK, "tool_calls": [{"id": "c", "name": "n"}]}]},
        ["messages", 0, "tool_calls"],
    ),
    refused(
        "unknown-role",
        {"messages": [*VALID, {"role": "developer-bot", "content": "x"}]},
        ["messages", 7, "role"],
    ),
    refused(
        "call-id-missing", {"messages": [call(name="look")]}, ["messages", 0, "tool_calls", 0, "id"]
    ),
    refused(
        "call-id-empty",
        {"messages": [call(id="", name="look")]},
        ["messages", 0, "tool_calls", 0, "id"],
    ),
    refused(
        "call-name-missing", {"messages": [call(id="c1")]}, ["messages", 0, "tool_calls", 0, "name"]
    ),
    refused(
        "call-name-not-a-string",
        {"messages": [call(id="c1", name=None)]},
        ["messages", 0, "tool_calls", 0, "name"],
    ),
    refused(
        "injected-not-a-boolean",
        {"messages": [{"role": "user", "content": TASK, "injected": "yes"}]},
        ["messages", 0, "injected"],
    ),
    refused(
        "not_dispatched-not-a-boolean",
        {"messages": [*VALID, {**TOOL, "not_dispatched": 1}]},
        ["messages", 7, "not_dispatched"],
    ),
    # format and system
    refused("format-xml", option(format="xml"), ["format"]),
    refused("format-null", option(format=None), ["format"]),
    refused("system-with-native-messages", option(format="native", system="Be brief."), ["system"]),
    refused(
        "system-with-openai-messages", {**PLAIN, "format": "openai", "system": "Hi."}, ["system"]
    ),
    refused("system-a-number", {**PLAIN, "format": "anthropic", "system": 5}, ["system"]),
    refused("system-a-number-auto", {**PLAIN, "system": 5}, ["system"]),
    refused("system-a-non-text-block", {**PLAIN, "system": [{"type": "image"}]}, ["system"]),
    # strategy
    refused("strategy-null", option(strategy=None), ["strategy"]),
    refused("strategy-a-string", option(strategy="sliding-window"), ["strategy"]),
    refused("strategy-kind-missing", strategy(keep_recent_turns=2), ["strategy", "kind"]),
    refused("strategy-kind-unknown", strategy(kind="sliding_window"), ["strategy", "kind"]),
    refused("strategy-summarize-oldest", strategy(kind="summarize-oldest"), ["strategy", "kind"]),
    refused("strategy-kind-null", strategy(kind=None), ["strategy", "kind"]),
    *(
        refused(
            f"keep_recent_turns-{name}",
            strategy(kind="sliding-window", keep_recent_turns=value),
            ["strategy", "keep_recent_turns"],
        )
        for name, value in (("0", 0), ("1.5", 1.5), ("true", True), ("string", "2"), ("-1", -1))
    ),
    refused(
        "keep_recent_turns-0-token-budget",
        budget(keep_recent_turns=0),
        ["strategy", "keep_recent_turns"],
    ),
    refused(
        "strategy-field-of-another-kind",
        strategy(kind="sliding-window", threshold_tokens=1000),
        ["strategy", "threshold_tokens"],
    ),
    refused(
        "strategy-unknown-field",
        strategy(kind="sliding-window", keep_recent_turn=2),
        ["strategy", "keep_recent_turn"],
    ),
    refused(
        "threshold_tokens-missing", strategy(kind="token-budget"), ["strategy", "threshold_tokens"]
    ),
    *(
        refused(
            f"threshold_tokens-{name}",
            strategy(kind="token-budget", threshold_tokens=value),
            ["strategy", "threshold_tokens"],
        )
        for name, value in (("0", 0), ("string", "5"), ("-1", -1), ("true", True), ("null", None))
    ),
    refused("measured-0-0", measured(input_tokens=0, output_tokens=0), ["strategy", "measured"]),
    refused(
        "measured-0.0-0", measured(input_tokens=0.0, output_tokens=0), ["strategy", "measured"]
    ),
    refused("measured-a-number", budget(measured=5000), ["strategy", "measured"]),
    refused(
        "measured-input-negative",
        measured(input_tokens=-1, output_tokens=5),
        ["strategy", "measured", "input_tokens"],
    ),
    refused(
        "measured-output-negative",
        measured(input_tokens=5000, output_tokens=-1),
        ["strategy", "measured", "output_tokens"],
    ),
    refused(
        "measured-output-missing",
        measured(input_tokens=5000),
        ["strategy", "measured", "output_tokens"],
    ),
    refused(
        "measured-input-fraction",
        measured(input_tokens=1.5, output_tokens=1),
        ["strategy", "measured", "input_tokens"],
    ),
    refused(
        "measured-unknown-field",
        measured(input_tokens=5000, output_tokens=1, cached_tokens=0),
        ["strategy", "measured", "cached_tokens"],
    ),
    refused(
        "measured-under-sliding-window",
        strategy(kind="sliding-window", measured={"input_tokens": 1, "output_tokens": 1}),
        ["strategy", "measured"],
    ),
    # pin ceilings
    refused(
        "keep_last_tool_results--1", option(keep_last_tool_results=-1), ["keep_last_tool_results"]
    ),
    refused(
        "keep_last_tool_results-1.5", option(keep_last_tool_results=1.5), ["keep_last_tool_results"]
    ),
    refused(
        "keep_last_tool_results-string",
        option(keep_last_tool_results="2"),
        ["keep_last_tool_results"],
    ),
    refused(
        "keep_last_tool_results-true",
        option(keep_last_tool_results=True),
        ["keep_last_tool_results"],
    ),
    refused("keep_ledger_facts--1-no-ledger", option(keep_ledger_facts=-1), ["keep_ledger_facts"]),
    refused("keep_ledger_facts--1", option(keep_ledger_facts=-1, ledger=[]), ["keep_ledger_facts"]),
    refused("keep_ledger_facts-null", option(keep_ledger_facts=None), ["keep_ledger_facts"]),
    # ledger
    refused(
        "ledger-unknown-standing",
        option(
            ledger=[
                {"tool_call_id": "p", "standing": "fact"},
                {"tool_call_id": "a", "standing": "settled"},
            ]
        ),
        ["ledger", 1, "standing"],
    ),
    refused("ledger-an-object", option(ledger={"p": "fact"}), ["ledger"]),
    refused("ledger-row-a-string", option(ledger=["p"]), ["ledger", 0]),
    refused(
        "ledger-row-without-id",
        option(ledger=[{"standing": "fact"}]),
        ["ledger", 0, "tool_call_id"],
    ),
    # request_text, paused, iteration
    refused("request_text-a-number", option(request_text=5), ["request_text"]),
    refused("paused-a-string", option(paused="c1"), ["paused"]),
    refused(
        "paused-tool_call_id-empty", option(paused={"tool_call_id": ""}), ["paused", "tool_call_id"]
    ),
    refused(
        "paused-tool_call_id-missing", option(paused={"check_in": True}), ["paused", "tool_call_id"]
    ),
    refused(
        "paused-tool_call_id-a-number",
        option(paused={"tool_call_id": 1}),
        ["paused", "tool_call_id"],
    ),
    refused(
        "paused-check_in-a-string",
        option(paused={"tool_call_id": "c1", "check_in": "yes"}),
        ["paused", "check_in"],
    ),
    refused(
        "paused-check_in-null",
        option(paused={"tool_call_id": "c1", "check_in": None}),
        ["paused", "check_in"],
    ),
    refused(
        "paused-unknown-field",
        option(paused={"tool_call_id": "c1", "checkin": True}),
        ["paused", "checkin"],
    ),
    *(
        refused(f"iteration-{name}", option(iteration=value), ["iteration"])
        for name, value in (
            ("0", 0),
            ("-1", -1),
            ("1.5", 1.5),
            ("string", "1"),
            ("true", True),
            ("null", None),
            ("over-int64", MAX_INT64 + 1),
        )
    ),
    # prior_records
    refused("prior_records-an-object", option(prior_records={}), ["prior_records"]),
    refused("prior_records-[null]", option(prior_records=[None]), ["prior_records", 0]),
    refused(
        "prior_records-a-string-record", option(prior_records=[record(), "r"]), ["prior_records", 1]
    ),
    refused(
        "record-without-refusals",
        option(prior_records=[{"removed_message_count": 0}]),
        ["prior_records", 0, "refusals"],
    ),
    refused(
        "record-without-removed_message_count",
        option(prior_records=[{"refusals": []}]),
        ["prior_records", 0, "removed_message_count"],
    ),
    refused(
        "record-removed_message_count-negative",
        option(prior_records=[record(removed_message_count=-1)]),
        ["prior_records", 0, "removed_message_count"],
    ),
    refused(
        "record-removed_message_count-fraction",
        option(prior_records=[record(removed_message_count=0.5)]),
        ["prior_records", 0, "removed_message_count"],
    ),
    refused(
        "record-refusals-an-object",
        option(prior_records=[record(refusals={})]),
        ["prior_records", 0, "refusals"],
    ),
    refused(
        "record-refusal-null",
        option(prior_records=[record(refusals=[None])]),
        ["prior_records", 0, "refusals", 0],
    ),
    refused(
        "record-refusal-without-reason",
        option(prior_records=[record(refusals=[{"turn_index": 0}])]),
        ["prior_records", 0, "refusals", 0, "reason"],
    ),
    refused(
        "record-reason-a-number",
        option(prior_records=[record(refusals=[{"reason": 3}])]),
        ["prior_records", 0, "refusals", 0, "reason"],
    ),
    # include_window and unknown fields
    refused("include_window-yes", option(include_window="yes"), ["include_window"]),
    refused("include_window-1", option(include_window=1), ["include_window"]),
    refused("include_window-null", option(include_window=None), ["include_window"]),
    refused("unknown-top-level-field", option(keep_recent_turns=2), ["keep_recent_turns"]),
    refused("unknown-top-level-typo", option(includ_window=False), ["includ_window"]),
    # several violations, one answer
    refused(
        "several-violations",
        {
            "messages": [*VALID, {"role": "tool", "content": "ok"}],
            "strategy": {"kind": "token-budget", "threshold_tokens": 0},
            "keep_last_tool_results": -1,
            "ledger": [{"tool_call_id": "p", "standing": "settled"}],
            "paused": {"tool_call_id": ""},
            "iteration": 0,
            "prior_records": [None],
            "include_window": "yes",
            "colour": "blue",
        },
        ["messages", 7, "tool_call_id"],
        ["strategy", "threshold_tokens"],
        ["keep_last_tool_results"],
        ["ledger", 0, "standing"],
        ["paused", "tool_call_id"],
        ["iteration"],
        ["prior_records", 0],
        ["include_window"],
        ["colour"],
    ),
    refused(
        "several-violations-in-messages",
        {
            "messages": [
                {"role": "user", "content": TASK, "tool_calls": [{"id": "c", "name": "n"}]},
                {"role": "robot"},
                {"role": "tool", "content": "ok"},
            ],
            "strategy": None,
        },
        ["messages", 0, "tool_calls"],
        ["messages", 1, "role"],
        ["messages", 2, "tool_call_id"],
        ["strategy"],
    ),
]


@pytest.mark.parametrize(("body", "locs"), REFUSED)
async def test_refused(client, body, locs):
    assert_refused(await post(client, body), locs)


async def test_messages_over_the_limit():
    async with client_for(Settings(max_messages=3)) as small:
        messages = wire(W(U(TASK), R("c1"), U_star("note")))
        assert len(messages) == 4
        assert_refused(await post(small, {"messages": messages}), [["messages"]])
        assert (await post(small, {"messages": messages[:3]})).status_code == 200


async def test_messages_over_the_limit_with_other_violations():
    async with client_for(Settings(max_messages=3)) as small:
        body = {"messages": wire(W(U(TASK), R("c1"), U_star("note"))), "iteration": 0}
        assert_refused(await post(small, body), [["messages"], ["iteration"]])


async def test_not_json_is_a_400_and_wrong_content_type_a_415(client):
    response = await client.post(PATH, content=b'{"messages": [', headers=JSON)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    response = await client.post(PATH, content=b'{"messages": [], "iteration": NaN}', headers=JSON)
    assert response.status_code == 400
    response = await client.post(PATH, content=orjson.dumps({"messages": []}))
    assert response.status_code == 415
