"""Tokens and the `fit` strategy over HTTP (docs/rules.md#tokens): F1–F3 in every wire format (F2h,
the held cut, sending back the record F1 gave in that format), the token figures and their key
order, calibration from a provider's usage object, the exact tokenizers, and the validation rows
(docs/rules.md#validation).

The worked examples are written once (`tests/core/fit_examples.py`) as native messages and
converted to each dialect by the benchmark's converters. In the formats whose system prompt is
sent apart (`system`), `S("sys")` goes there: it is then no turn (the first `held` word goes),
counts as `system_tokens` (5), and the totals are the same.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from bench.generate import to_anthropic, to_bedrock, to_gemini, to_openai, to_responses
from tests.api.test_window import assert_key_order
from tests.core.fit_examples import (
    EXAMPLES_BY_NAME,
    F_NOTICE_LENGTH,
    F_TURN_TOKENS,
    FIT_EXAMPLES,
    B,
    FitExample,
)
from tests.core.native_wire import wire
from tests.core.window_fixtures import TASK, R, S, U, W, held_words

pytestmark = pytest.mark.anyio
PATH = "/v1/window/plan"
JSON = {"content-type": "application/json"}
FORMATS = ("native", "openai", "anthropic", "responses", "gemini", "bedrock")
SYSTEM_APART = {"anthropic", "responses", "gemini", "bedrock"}
SYSTEM_TOKENS = 5  # "sys": 1 + 4
F3 = EXAMPLES_BY_NAME["F3"]


# The native example's evicted messages (system message 0, request 1, then two per turn) as each
# format numbers its own.
EVICTED = {
    "native": lambda native: native,
    "openai": lambda native: native,
    "anthropic": lambda native: [index - 1 for index in native],
    "gemini": lambda native: [index - 1 for index in native],
    "bedrock": lambda native: [index - 1 for index in native],
    "responses": lambda native: list(range(1, 1 + 3 * len(native) // 2)),
}


def messages_in(format_name: str, native: list[dict[str, Any]]) -> dict[str, Any]:
    """The request fields carrying `native` in `format_name`."""
    for message in native:
        message.setdefault("content", "")
    if format_name == "native":
        return {"messages": native}
    if format_name == "openai":
        return {"messages": to_openai(native)}
    converter = {
        "anthropic": to_anthropic,
        "responses": to_responses,
        "gemini": to_gemini,
        "bedrock": to_bedrock,
    }[format_name]
    system, messages = converter(native)
    return {"system": system, "messages": messages}


def fit_body(format_name: str, example: FitExample, **options: Any) -> dict[str, Any]:
    return {
        **messages_in(format_name, wire(example.transcript)),
        "format": format_name,
        "strategy": example.strategy,
        **example.options,
        **options,
    }


def shifted_budget(budget: dict[str, Any], apart: bool) -> dict[str, Any]:
    """The budget as a format whose system prompt is sent apart reports it: its spans' turns are
    one lower (the system prompt is no turn)."""
    if not apart:
        return budget
    spans = [
        {**span, "from_turn": span["from_turn"] - 1, "through_turn": span["through_turn"] - 1}
        for span in budget["spans"]
    ]
    return {**budget, "spans": spans}


async def post(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    assert_key_order(answer)
    return answer


@pytest.mark.parametrize("format_name", FORMATS)
@pytest.mark.parametrize("example", FIT_EXAMPLES, ids=lambda example: example.name)
async def test_worked_example_in_every_format(client, format_name: str, example: FitExample):
    prior = []
    if example.prior is not None:
        earlier = await post(client, fit_body(format_name, EXAMPLES_BY_NAME[example.prior]))
        prior = [earlier["record"]]
    answer = await post(client, fit_body(format_name, example, prior_records=prior))
    apart = format_name in SYSTEM_APART
    expected_held = example.held.split(" ")[1:] if apart else example.held.split(" ")
    assert held_words(answer["turns"]).split(" ") == expected_held
    assert [turn["tokens"] for turn in answer["turns"]] == example.turn_tokens[1 if apart else 0 :]
    assert answer["budget"] == shifted_budget(example.budget, apart)
    assert list(answer)[list(answer).index("stats") + 1] == "budget"
    stats = answer["stats"]
    window_tokens = example.tokens_after - (SYSTEM_TOKENS if apart else 0)
    expected = {
        "tokenizer": "estimate",
        "tokens_before": example.tokens_before - (SYSTEM_TOKENS if apart else 0),
        "tokens_after": window_tokens,
        "tokens_counted": example.tokens_after,
    }
    if apart:
        expected["system_tokens"] = SYSTEM_TOKENS
    assert {key: stats[key] for key in list(stats)[-len(expected) :]} == expected
    assert list(stats)[-len(expected) :] == list(expected)
    assert answer["engaged"] == (example.name != "F3")
    notice = answer["notice"]
    if example.notice is None:
        assert notice is None and answer["record"] is None
    else:
        assert notice["rung"] == "rich" and len(notice["content"]) == F_NOTICE_LENGTH
        assert "by the 'fit' strategy" in notice["content"]
        assert answer["record"]["strategy"] == "fit"
        # `{N}` counts the caller messages that leave: a Responses turn is three items (the
        # reasoning item, the call, its output), a block format's turn two messages.
        evicted = EVICTED[format_name](example.evicted_messages)
        assert answer["evicted_messages"] == evicted
        native_count = f"— {len(example.evicted_messages)} earlier"
        assert notice["content"] == example.notice.replace(
            native_count, f"— {len(evicted)} earlier"
        )


async def test_a_tokenizer_alone_reports_tokens_and_changes_no_decision(client):
    body = fit_body(
        "openai", FIT_EXAMPLES[0], strategy={"kind": "sliding-window", "keep_recent_turns": 2}
    )
    plain = await post(client, body)
    counted = await post(client, {**body, "tokenizer": "estimate"})
    assert "budget" not in counted and "tokens" not in plain["turns"][0]
    assert list(counted["turns"][0]) == [
        "index",
        "start",
        "length",
        "chars",
        "tokens",
        "fate",
        "held_by",
    ]
    for answer in (plain, counted):
        for turn in answer["turns"]:
            turn.pop("tokens", None)
        for key in ("tokenizer", "tokens_before", "tokens_after", "tokens_counted"):
            answer["stats"].pop(key, None)
    assert counted == plain


PINNED = W(S("sys"), U(TASK), R("c1", "look", B), R("c2", "grep", B), R("c3", "look", B))


async def test_pins_carry_tokens_only_when_counted(client):
    body = {"messages": wire(PINNED), "format": "native", "request_text": TASK}
    strategy = {"kind": "fit", "max_tokens": 350, "keep_recent_turns": 1}
    counted = await post(client, {**body, "strategy": strategy})
    pinned = counted["pins"]["last_tool_result"]["pinned"]
    assert [list(pin) for pin in pinned] == [
        ["tool_name", "turn_index", "message_index", "chars", "tokens"]
    ]
    assert pinned[0]["tokens"] == 113
    assert counted["record"]["pins"] == counted["pins"]
    plain = await post(
        client, {**body, "strategy": {"kind": "sliding-window", "keep_recent_turns": 1}}
    )
    assert list(plain["pins"]["last_tool_result"]["pinned"][0]) == [
        "tool_name", "turn_index", "message_index", "chars"
    ]  # fmt: skip


async def test_ledger_fact_pins_put_tokens_before_the_ids(client):
    body = {
        "messages": wire(PINNED),
        "format": "native",
        "request_text": TASK,
        "keep_last_tool_results": 0,
        "ledger": [{"tool_call_id": "c2", "standing": "fact"}],
        "strategy": {"kind": "fit", "max_tokens": 350, "keep_recent_turns": 1},
    }
    pinned = (await post(client, body))["pins"]["ledger_fact"]["pinned"]
    assert list(pinned[0]) == [
        "tool_name", "turn_index", "message_index", "chars", "tokens", "tool_call_ids"
    ]  # fmt: skip


async def test_shaping_adds_tokens_shaped_between_before_and_after(client):
    body = fit_body("native", F3, cap={"max_chars": 100})
    stats = (await post(client, body))["stats"]
    keys = list(stats)
    assert keys[keys.index("tokenizer") :] == [
        "tokenizer", "tokens_before", "tokens_shaped", "tokens_after", "tokens_counted"
    ]  # fmt: skip
    assert stats["tokens_before"] == 474 and stats["tokens_shaped"] < 474


async def test_calibration_reads_a_provider_usage_object(client):
    # Chat Completions' usage: 948 prompt tokens for a window counted 474 → scale 2.
    usage = {"prompt_tokens": 948, "completion_tokens": 12, "total_tokens": 960}
    body = fit_body("openai", F3, calibration={"counted": 474, "measured": usage})
    answer = await post(client, body)
    assert [turn["tokens"] for turn in answer["turns"]] == [2 * t for t in F_TURN_TOKENS]
    assert answer["engaged"] and answer["budget"]["total_before"] == 948
    assert answer["stats"]["tokens_counted"] == 236  # raw: what the next calibration takes back


async def test_calibration_of_an_anthropic_usage_counts_its_cache_reads(client):
    usage = {
        "input_tokens": 400,
        "cache_read_input_tokens": 548,
        "cache_creation_input_tokens": None,
        "output_tokens": 3,
    }
    body = fit_body("anthropic", F3, calibration={"counted": 474, "measured": usage})
    answer = await post(client, body)
    assert answer["stats"]["system_tokens"] == 10 and answer["budget"]["total_before"] == 948


@pytest.mark.parametrize(
    ("tokenizer", "tokens"),
    # "hello world": [24912, 2375] in o200k_base, [15339, 1917] in cl100k_base; 11 bytes → 3.
    [("o200k_base", 2 + 4), ("cl100k_base", 2 + 4), ("estimate", 3 + 4)],
)
async def test_the_exact_tokenizers_count_over_http(client, tokenizer: str, tokens: int):
    body = {"messages": [{"role": "user", "content": "hello world"}], "tokenizer": tokenizer}
    answer = await post(client, body)
    assert answer["turns"][0]["tokens"] == tokens
    assert answer["stats"]["tokenizer"] == tokenizer


async def test_info_lists_the_tokenizers(client):
    info = (await client.get("/v1/info")).json()
    assert {"o200k_base", "cl100k_base", "estimate"} <= set(info["tokenizers"])


def f1(**changes: Any) -> dict[str, Any]:
    body = fit_body("native", FIT_EXAMPLES[0])
    strategy = {**body["strategy"], **changes.pop("strategy", {})}
    return {**body, "strategy": strategy, **changes}


def cal(**fields: Any) -> dict[str, Any]:
    """`f1` with a calibration of these fields (`counted` 10 and own counts 1/1 unless given)."""
    return f1(
        calibration={"counted": 10, "measured": {"input_tokens": 1, "output_tokens": 1}, **fields}
    )


def own(input_tokens: Any, output_tokens: Any, **extra: Any) -> dict[str, Any]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens, **extra}


BAD = [
    (f1(tokenizer="gpt2"), ["tokenizer"]),
    (f1(tokenizer=3), ["tokenizer"]),
    (f1(strategy={"max_tokens": 0}), ["strategy", "max_tokens"]),
    (f1(strategy={"max_tokens": 1.5}), ["strategy", "max_tokens"]),
    (f1(strategy={"max_tokens": "450"}), ["strategy", "max_tokens"]),
    (f1(strategy={"max_tokens": True}), ["strategy", "max_tokens"]),
    (f1(strategy={"target_tokens": 0}), ["strategy", "target_tokens"]),
    (f1(strategy={"target_tokens": None}), ["strategy", "target_tokens"]),
    (f1(strategy={"target_tokens": 451}), ["strategy", "target_tokens"]),
    (f1(strategy={"reserve_tokens": -1}), ["strategy", "reserve_tokens"]),
    (f1(strategy={"reserve_tokens": 0.5}), ["strategy", "reserve_tokens"]),
    (f1(strategy={"keep_recent_turns": 0}), ["strategy", "keep_recent_turns"]),
    (f1(strategy={"threshold_tokens": 5}), ["strategy", "threshold_tokens"]),
    (f1(strategy={"max_tokens": 450, "budget": 1}), ["strategy", "budget"]),
    (f1(strategy={"kind": "fits"}), ["strategy", "kind"]),
    (f1(calibration=[]), ["calibration"]),
    (f1(calibration={"measured": own(1, 1)}), ["calibration", "counted"]),
    (cal(counted=0), ["calibration", "counted"]),
    (cal(counted=2.5), ["calibration", "counted"]),
    (f1(calibration={"counted": 10}), ["calibration", "measured"]),
    (cal(measured=None), ["calibration", "measured"]),
    (cal(measured={"tokens": 3}), ["calibration", "measured"]),
    (cal(measured=own(0, 5)), ["calibration", "measured"]),
    (cal(measured={"prompt_tokens": 0, "completion_tokens": 5}), ["calibration", "measured"]),
    (cal(measured=own(-1, 5)), ["calibration", "measured", "input_tokens"]),
    (cal(measured=own(1, 5, x=1)), ["calibration", "measured", "x"]),
    (cal(scale=2), ["calibration", "scale"]),
    # Counts no answer can carry: scaled past 2⁶³ − 1, or a budget's totals taken past it.
    (cal(counted=1, measured=own(2**63 - 1, 1)), ["calibration", "measured"]),
    (
        f1(strategy={"max_tokens": 2**63 - 1, "reserve_tokens": 2**63 - 1}),
        ["strategy", "reserve_tokens"],
    ),
]


@pytest.mark.parametrize(("body", "loc"), BAD)
async def test_validation_rows_are_422_naming_the_field(client, body: dict[str, Any], loc):
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    assert response.status_code == 422, response.text
    locs = [error["loc"] for error in response.json()["errors"]]
    assert ["body", *loc] in locs, locs


async def test_every_violation_of_one_request_is_listed(client):
    body = f1(tokenizer="gpt2", strategy={"max_tokens": 0, "reserve_tokens": -1})
    response = await client.post(PATH, content=orjson.dumps(body), headers=JSON)
    locs = {tuple(error["loc"]) for error in response.json()["errors"]}
    assert {
        ("body", "tokenizer"),
        ("body", "strategy", "max_tokens"),
        ("body", "strategy", "reserve_tokens"),
    } <= locs


async def test_integral_numbers_are_echoed_as_integers(client):
    answer = await post(client, f1(strategy={"max_tokens": 450.0, "target_tokens": 3.5e2}))
    assert orjson.dumps(answer["budget"]).startswith(b'{"max_tokens":450,"target_tokens":350,')


@pytest.mark.parametrize("strategy", ["sliding-window", "token-budget", "fits", 5, None, "absent"])
async def test_a_record_of_another_strategy_holds_no_cut_and_is_no_error(client, strategy: Any):
    # F2h at max_tokens 470 would hold F1's cut; relabelled, the record holds nothing.
    example = EXAMPLES_BY_NAME["F2h (max 470)"]
    record = (await post(client, fit_body("native", EXAMPLES_BY_NAME["F1"])))["record"]
    if strategy == "absent":
        del record["strategy"]
    else:
        record["strategy"] = strategy
    answer = await post(client, fit_body("native", example, prior_records=[record]))
    fresh = await post(client, fit_body("native", example))
    assert answer == fresh
    assert answer["budget"]["held"] is False and answer["budget"]["total_after"] == 349
