"""The benchmark's generated requests are deterministic and are answered 200 by every endpoint."""

from __future__ import annotations

import orjson
import pytest

from app.api.answers import cap_answer, offer_answer, plan_answer
from app.api.metrics import create_metrics
from bench.__main__ import FORMATS
from bench.generate import cap_body, native_transcript, offer_body, plan_body


@pytest.mark.parametrize("format_name", FORMATS)
def test_plan_and_offer_bodies_are_deterministic_and_valid(format_name):
    body = plan_body(300, format_name)
    assert body == plan_body(300, format_name)
    answer = plan_answer(orjson.loads(body), 10**6, create_metrics())
    assert answer.status_code == 200
    plan = orjson.loads(answer.body)
    assert plan["format"] == format_name and plan["engaged"]
    assert plan["stats"]["removed_message_count"] > 0
    assert plan["diagnostics"] == []
    offer = offer_answer(orjson.loads(offer_body(300, format_name)), 10**6)
    assert offer.status_code == 200
    # Every format carries the same conversation: the same results are served (Responses, whose
    # runs take several items, a shorter one: the same results up to where it ends).
    native = offer_answer(orjson.loads(offer_body(300, "native")), 10**6)
    served, native_served = orjson.loads(offer.body)["served"], orjson.loads(native.body)["served"]
    if format_name == "responses":
        assert len(orjson.loads(body)["messages"]) <= 300 and served
        native_served = native_served[: len(served)]
    assert served == native_served


def test_the_shaped_plan_body_shapes_results():
    plan = orjson.loads(
        plan_answer(
            orjson.loads(plan_body(1_000, "native", shaped=True)), 10**6, create_metrics()
        ).body
    )
    actions = {entry["action"] for entry in plan["shaped"]}
    assert actions == {"collapsed", "capped"}


def test_transcripts_mix_parallel_calls_and_result_sizes():
    messages = orjson.loads(plan_body(2_000, "native"))["messages"]
    assert messages[0]["role"] == "system"
    assert sum(m["role"] == "user" for m in messages) > 5
    assert any(len(m.get("tool_calls", ())) > 1 for m in messages)
    sizes = [len(m["content"]) for m in messages if m["role"] == "tool"]
    assert min(sizes) >= 20 and max(sizes) > 5_000


def test_cap_body_is_valid():
    raw = orjson.loads(cap_body(1_000))
    assert len(raw["results"]) == 1_000
    assert cap_answer(raw, create_metrics()).status_code == 200


@pytest.mark.parametrize("tokenizer", ["estimate", "cl100k_base", "o200k_base"])
def test_the_token_plan_body_counts_with_its_tokenizer(tokenizer):
    body = orjson.loads(plan_body(300, "native", tokenizer=tokenizer))
    plan = orjson.loads(plan_answer(body, 10**6, create_metrics()).body)
    assert plan["stats"]["tokenizer"] == tokenizer
    assert plan["stats"]["tokens_after"] < plan["stats"]["tokens_before"]


def test_the_cache_run_tallies_what_it_sent():
    from bench.cache import run, window_tokens

    tally = run("fit", {"kind": "fit", "max_tokens": 6_000}, requests=60, seed=11)
    assert tally.requests == 60 and 0 < tally.cuts < 60
    # A window over the budget is cut on the request that sees it: none is sent over it.
    assert tally.largest <= 6_000
    assert tally.billed < tally.sent and tally.misses <= tally.cuts
    sliding = run("sliding", {"kind": "sliding-window", "keep_recent_turns": 4}, 60, 11)
    assert sliding.misses > tally.misses  # a full sliding window is cut on every request
    assert window_tokens([{"role": "user", "content": "abcd"}]) == [1 + 4]


def test_the_full_history_agent_holds_fits_cut():
    from bench.cache import run

    fit = run("fit", {"kind": "fit", "max_tokens": 6_000}, 60, 11, "full-history")
    sliding = run(
        "sliding", {"kind": "sliding-window", "keep_recent_turns": 4}, 60, 11, "full-history"
    )
    # Over the budget on every request once cut, but the cut is held: a miss only when it moves.
    assert fit.largest <= 6_000 and fit.held > 0 and fit.held + fit.misses >= fit.cuts
    assert 4 * fit.misses <= sliding.misses


def test_a_transcript_never_holds_more_messages_than_asked():
    # The largest benchmark size is the service's message limit: one message more is a 422.
    for size in range(1, 400):
        messages, _, _ = native_transcript(size)
        assert len(messages) <= size
    assert len(native_transcript(100_000)[0]) == 100_000


def test_the_cache_run_sends_clear_beside_the_strategy():
    from bench.cache import run

    fit = run("fit", {"kind": "fit", "max_tokens": 24_000}, 200, 11, "full-history")
    cleared = run(
        "fit + clear",
        {"kind": "fit", "max_tokens": 24_000},
        200,
        11,
        "full-history",
        {"clear": {}},
    )
    # Old results go as placeholders before turns are removed, and the boundary is held with the
    # cut (docs/rules.md#holding-the-boundary): fewer tokens sent and billed, fewer cuts, and at
    # most half as many misses again as `fit` alone.
    assert cleared.largest <= 24_000 and cleared.cuts <= fit.cuts
    assert cleared.sent < fit.sent and cleared.billed < fit.billed
    assert cleared.misses <= 1.5 * fit.misses


def test_the_cache_run_answers_summary_requests_and_bills_them():
    from bench.cache import model_turns, run

    fit = run("fit", {"kind": "fit", "max_tokens": 6_000}, 60, 11, "full-history", ids=True)
    summarized = run(
        "fit + summaries",
        {"kind": "fit", "max_tokens": 6_000},
        60,
        11,
        "full-history",
        {"summarize": {}},
        ids=True,
    )
    requests = summarized.summaries
    assert requests and fit.summaries == []
    row = summarized.row()
    assert row["summary_requests"] == len(requests)
    for request in requests:
        assert 0 <= request["cached"] <= request["tokens"]
        assert request["share"] == request["cached"] / request["tokens"]
    # Each summary request is sent and billed beside the windows (its cached part at a tenth).
    asked = sum(request["tokens"] for request in requests)
    assert summarized.sent > asked and summarized.largest <= 6_000
    weighted = sum(request["cached"] for request in requests) / asked
    assert row["summary_cached_share"] == weighted
    assert row["summary_share_min"] == min(request["share"] for request in requests)
    # The results open with their call's id only when asked: the other rows see the same turns.
    plain, with_ids = next(model_turns(11)), next(model_turns(11, ids=True))
    assert [m.get("tool_call_id") for m in plain] == [m.get("tool_call_id") for m in with_ids]
    assert with_ids[1]["content"] == f"{plain[1]['tool_call_id']}: {plain[1]['content']}"
