"""The agent run `python -m bench.agent_tokens` measures: each request is the previous transcript
and one more turn, the same in both tokenizers but for the tokenizer."""

from __future__ import annotations

import itertools

import orjson

from bench.agent_tokens import agent_bodies


def test_each_request_is_the_previous_transcript_and_one_turn() -> None:
    exact = [orjson.loads(body) for body in agent_bodies(40, 4, "o200k_base")]
    estimate = [orjson.loads(body) for body in agent_bodies(40, 4, "estimate")]
    assert len(exact[0]["messages"]) >= 40
    for previous, body in itertools.pairwise(exact):
        assert body["messages"][: len(previous["messages"])] == previous["messages"]
        assert len(body["messages"]) > len(previous["messages"])
    for counted, estimated in zip(exact, estimate, strict=True):
        assert {**counted, "tokenizer": "estimate"} == estimated
        assert counted["strategy"]["kind"] == "fit"
