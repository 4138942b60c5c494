"""The offline tokenizers: exact counts that a second, independent implementation agrees with,
tiktoken's published ids for known strings, the estimate rule, and a start-up that fails in one
line when a vocabulary cannot be loaded."""

from __future__ import annotations

from typing import Any

import bpe_openai
import pytest
import quicktok

from app.core.tokens import estimate_tokens
from app.tokenizers import (
    EXACT_TOKENIZERS,
    TOKENIZERS,
    TokenizerUnavailable,
    check_installed,
    counter,
    exact_counter,
)
from tests.core.window_transcripts import E5_NOTICE, E6_NOTICE, N0

CORPUS = [
    "",
    "hello world",
    "def parse(text):\n    return datetime.fromisoformat(text).replace(tzinfo=None)\n",
    '{"rows": [{"id": 1, "name": "rack-a"}, {"id": 2, "name": "rack-b"}], "ok": true}',
    "日本語のテキストと中文的文本，还有한국어 문장도 있습니다。",
    "emoji: 🎉🎉👩‍👩‍👧‍👦 🏳️‍🌈 and flags 🇫🇷🇯🇵",
    "x" * 5_000,
    "ab" * 3_000 + " " * 700 + "\n\n\n" * 50,
    "<|endoftext|> special-token text counts as ordinary text <|im_start|>",
    "tab\tseparated\tvalues\r\nwith\u00a0odd\u2028spaces",
    N0,
    E5_NOTICE,
    E6_NOTICE,
]
# tiktoken's ids for known strings (its documentation and test suite).
PUBLISHED = {
    ("cl100k_base", "hello world"): [15339, 1917],
    ("o200k_base", "hello world"): [24912, 2375],
}


@pytest.mark.parametrize("name", EXACT_TOKENIZERS)
def test_counts_agree_with_an_independent_implementation(name: str) -> None:
    count = counter(name)
    reference = bpe_openai.get_encoding(name)
    for text in CORPUS:
        assert count(text) == len(reference.encode(text, disallowed_special=())), text[:40]


@pytest.mark.parametrize(("key", "ids"), PUBLISHED.items())
def test_ids_are_tiktoken_s(key: tuple[str, str], ids: list[int]) -> None:
    name, text = key
    assert quicktok.get_encoding(name).encode(text) == ids
    assert bpe_openai.get_encoding(name).encode(text) == ids
    assert counter(name)(text) == len(ids)


def test_the_estimate_is_a_quarter_of_the_utf8_bytes_rounded_up() -> None:
    assert [estimate_tokens(text) for text in ("", "a", "abcd", "abcde", "—", "🎉🎉")] == [
        0,
        1,
        1,
        2,
        1,
        2,
    ]
    assert estimate_tokens("b" * 400) == 100
    assert counter("estimate") is estimate_tokens


def test_each_tokenizer_is_loaded_once() -> None:
    assert counter("o200k_base") is counter("o200k_base")
    assert check_installed() == TOKENIZERS
    with pytest.raises(ValueError):
        counter("p50k_base")


@pytest.mark.anyio
async def test_info_lists_the_tokenizers(client: Any) -> None:
    info = (await client.get("/v1/info")).json()
    assert info["tokenizers"] == ["o200k_base", "cl100k_base", "estimate"]


def test_a_missing_vocabulary_stops_the_start_up_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from app import __main__ as entry
    from app import tokenizers

    served: list[Any] = []
    monkeypatch.setitem(tokenizers.VOCABULARIES, "o200k_base", "o200k.missing")
    monkeypatch.setattr(entry.uvicorn, "run", lambda *args, **kwargs: served.append(args))
    with pytest.raises(SystemExit) as stopped:
        entry.main()
    assert stopped.value.code == 2 and served == []
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert "tokenizer o200k_base cannot be loaded" in lines[0] and "Traceback" not in lines[0]


def test_a_vocabulary_that_fails_to_load_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(name: str) -> Any:
        raise OSError(f"no vocabulary file for {name}")

    exact_counter.cache_clear()
    monkeypatch.setattr(quicktok, "get_encoding", broken)
    try:
        with pytest.raises(TokenizerUnavailable, match="cl100k_base cannot be loaded"):
            counter("cl100k_base")
    finally:
        exact_counter.cache_clear()
