"""The token-count memo: the same answer bytes with it and without it, a bound it never passes,
hits and misses on `/metrics`, a setting validated like the others, and counts that stay right
when threads share it."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app import tokenizers
from app.api.answers import plan_answer
from app.api.metrics import create_metrics
from app.settings import SettingsError, load_settings
from app.tokenizers import (
    KEYINGS,
    MEMO,
    MEMO_DIGEST_CHARS,
    CountMemo,
    counter,
    exact_counter,
    hash_seed_fixed,
)
from bench.generate import native_transcript
from tests.conftest import client_for

LONG = "the rack's inlet read 41 C at noon, above its rating of 35 C; "


@pytest.fixture
def memo_bound() -> Iterator[None]:
    """Puts the process's memo back as it was after a test that resizes it."""
    entries = MEMO.entries
    try:
        yield
    finally:
        MEMO.resize(entries)


def fit_body(messages: list[dict[str, Any]], tokenizer: str, max_tokens: int) -> dict[str, Any]:
    return {
        "format": "native",
        "messages": messages,
        "strategy": {"kind": "fit", "max_tokens": max_tokens},
        "tokenizer": tokenizer,
        "iteration": 2,
    }


def answers(bodies: list[dict[str, Any]], entries: int, keying: str = "siphash") -> list[bytes]:
    """Each body planned in turn with a new memo of `entries` (0: off) in the process's place."""
    saved = tokenizers.MEMO
    tokenizers.MEMO = CountMemo(entries, keying)
    try:
        metrics = create_metrics()
        return [bytes(plan_answer(body, 10**9, metrics).body) for body in bodies]
    finally:
        tokenizers.MEMO = saved


def agent_run(messages: list[dict[str, Any]], tokenizer: str, max_tokens: int) -> list[dict]:
    """An agent's requests: each one the previous transcript and the next message."""
    return [fit_body(messages[:end], tokenizer, max_tokens) for end in range(2, len(messages) + 1)]


@pytest.mark.parametrize(
    ("tokenizer", "keying"), [("o200k_base", "siphash"), ("cl100k_base", "blake2b")]
)
def test_an_agent_run_is_answered_byte_for_byte_with_the_memo_on_small_and_off(
    tokenizer: str, keying: str
) -> None:
    messages, _, _ = native_transcript(40, seed=3)
    bodies = agent_run(messages, tokenizer, 4_000)
    off = answers(bodies, 0)
    assert answers(bodies, 100_000, keying) == off
    assert answers(bodies, 7, keying) == off  # turned over many times on every request
    assert any(orjson.loads(answer)["engaged"] for answer in off)


# Texts from a small pool, so messages repeat one another; long ones are looked up, short ones not.
TEXTS = st.sampled_from(
    ["", "ok", "a: 41C", LONG, LONG * 3, LONG.upper(), "日本語のテキスト " * 8, "🎉 " * 40]
) | st.text(min_size=MEMO_DIGEST_CHARS - 2, max_size=MEMO_DIGEST_CHARS + 40)


@st.composite
def transcripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": draw(TEXTS)}]
    for number in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            call = {"id": f"c{number}", "name": "measure", "arguments": {"note": draw(TEXTS)}}
            out.append({"role": "assistant", "content": draw(TEXTS), "tool_calls": [call]})
            out.append({"role": "tool", "tool_call_id": f"c{number}", "content": draw(TEXTS)})
        else:
            out.append({"role": "assistant", "content": draw(TEXTS)})
            out.append({"role": "user", "content": draw(TEXTS)})
    return out


@given(
    transcripts(),
    st.integers(0, 9),
    st.sampled_from(["o200k_base", "cl100k_base"]),
    st.sampled_from(KEYINGS),
)
def test_any_run_is_answered_byte_for_byte_with_the_memo_on_and_off(
    messages: list[dict[str, Any]], entries: int, tokenizer: str, keying: str
) -> None:
    bodies = agent_run(messages, tokenizer, 60)
    assert answers(bodies, entries, keying) == answers(bodies, 0)


@pytest.mark.parametrize("keying", KEYINGS)
def test_the_memo_never_holds_more_than_its_bound_and_counts_right(keying: str) -> None:
    count = exact_counter("o200k_base")
    for entries in (1, 2, 3, 10):
        memo = CountMemo(entries, keying)
        memoised = memo.counting("o200k_base", count)
        rng = random.Random(entries)
        texts = [f"{LONG}{number}" for number in range(3 * entries + 5)]
        for _ in range(200):
            text = rng.choice(texts)
            assert memoised(text) == count(text)
            assert len(memo) <= entries
        assert memo.hits + memo.misses == 200


@pytest.mark.parametrize("keying", KEYINGS)
def test_a_text_is_counted_once_then_found_whether_short_or_long(keying: str) -> None:
    memo = CountMemo(100, keying)
    memoised = memo.counting("o200k_base", exact_counter("o200k_base"))
    short = "x" * (MEMO_DIGEST_CHARS - 1)
    assert [memoised(LONG), memoised(LONG), memoised(short), memoised(short)] == [
        exact_counter("o200k_base")(text) for text in (LONG, LONG, short, short)
    ]
    assert (memo.hits, memo.misses, len(memo)) == (2, 2, 2)


@pytest.mark.parametrize("keying", KEYINGS)
def test_the_tokenizers_keep_apart_and_the_estimate_is_not_memoised(keying: str) -> None:
    memo = CountMemo(100, keying)
    o200k = memo.counting("o200k_base", exact_counter("o200k_base"))
    cl100k = memo.counting("cl100k_base", exact_counter("cl100k_base"))
    for text in ("<|endoftext|> counted as text; 日本語 " * 4, "日本語のテキスト"):
        assert o200k(text) == exact_counter("o200k_base")(text)
        assert cl100k(text) == exact_counter("cl100k_base")(text)
    assert (memo.misses, len(memo)) == (4, 4)
    assert counter("estimate") is not None and counter("estimate").__name__ == "estimate_tokens"


def test_a_bound_of_0_hands_out_the_tokenizer_s_own_function(memo_bound: None) -> None:
    MEMO.resize(0)
    assert counter("o200k_base") is exact_counter("o200k_base")
    MEMO.resize(50)
    handed_out = counter("o200k_base")
    assert handed_out is not exact_counter("o200k_base")
    MEMO.resize(0)  # while a request still holds the memoised function
    assert handed_out(LONG) == exact_counter("o200k_base")(LONG)
    assert len(MEMO) == 0
    with pytest.raises(ValueError):
        MEMO.resize(-1)


@pytest.mark.parametrize("keying", KEYINGS)
def test_threads_sharing_a_small_memo_all_get_the_right_counts(keying: str) -> None:
    count = exact_counter("o200k_base")
    memo = CountMemo(16, keying)
    memoised = memo.counting("o200k_base", count)
    texts = [f"{LONG}{number}" for number in range(40)]
    expected = {text: count(text) for text in texts}
    wrong: list[str] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(2_000):
            text = rng.choice(texts)
            if memoised(text) != expected[text]:
                wrong.append(text)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert memo.hits + memo.misses == 8_000
    assert len(memo) <= 16


def metric(text: str, name: str) -> float:
    line = next(line for line in text.splitlines() if line.startswith(name + " "))
    return float(line.split()[1])


@pytest.mark.anyio
async def test_metrics_show_the_memo_s_hits_and_misses_move(memo_bound: None) -> None:
    messages, _, _ = native_transcript(30, seed=5)
    async with client_for() as client:
        MEMO.resize(0)
        MEMO.resize(1_000)  # empty, whatever ran before in this process
        before = (await client.get("/metrics")).text
        body = fit_body(messages, "o200k_base", 100_000)
        first = await client.post("/v1/window/plan", json=body)
        middle = (await client.get("/metrics")).text
        second = await client.post("/v1/window/plan", json=body)
        after = (await client.get("/metrics")).text
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    misses = metric(middle, "cwp_token_memo_misses_total") - metric(
        before, "cwp_token_memo_misses_total"
    )
    assert misses > 0
    assert metric(middle, "cwp_token_memo_entries") == misses
    # The second request finds every long text the first counted.
    assert metric(after, "cwp_token_memo_misses_total") == metric(
        middle, "cwp_token_memo_misses_total"
    )
    hits = metric(after, "cwp_token_memo_hits_total") - metric(middle, "cwp_token_memo_hits_total")
    assert hits >= misses


def test_the_bound_is_a_validated_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CWP_TOKEN_MEMO_ENTRIES", "-1")
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert str(raised.value) == (
        "invalid setting: CWP_TOKEN_MEMO_ENTRIES='-1': expected an integer of at least 0"
    )
    monkeypatch.setenv("CWP_TOKEN_MEMO_ENTRIES", "0")
    assert load_settings().token_memo_entries == 0


def test_a_fixed_hash_seed_keys_by_blake2b(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    assert hash_seed_fixed()
    assert CountMemo(10).keying == "blake2b"
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    assert CountMemo(10).keying == "siphash"
    monkeypatch.delenv("PYTHONHASHSEED")
    assert CountMemo(10).keying == "siphash"
    with pytest.raises(ValueError):
        CountMemo(10, "md5")
