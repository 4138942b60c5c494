"""The clear boundary held with the cut under `fit` (docs/rules.md#holding-the-boundary) over the
route, in every wire format: a full-history agent grows its run one call turn (sometimes several
parallel calls) per request under `{"kind": "fit", "max_tokens": M}` with `"clear": {}`, sending
back the last two records it was given. Across the run:

(a) between two moves (a request whose `budget.clear_held` is true), the window starts with the
    previous window, byte for byte (orjson bytes of each message). The whole previous window is
    compared: the run only appends an assistant turn and its results after a window that ends
    with a result, so no format's writer merges the new messages into the previous last one (the
    roles alternate there in every format). Asserted when the run has no last-tool-result pins
    and the previous plan's cut was the first span's and the further spans' (`stage` `span` or
    `further-spans`): `fit`'s held cut (docs/rules.md#within-the-limit) holds a count of caller
    messages along the removal order, so a pin that moves to a newer result, or a previous cut
    that reached into the keep window or capped results, makes the same count a different cut
    (a different notice, or texts no longer capped); `fit` alone does the same;
(b) `record.cleared_results` never decreases (the agent never sends a cut's frame);
(c) on a held request the boundary and the cut are the previous record's, both;
(d) the records carry `cleared_results`, and the budgets `clear_held`, exactly when `clear` is on
    (the same run without it has neither key);
(e) every window keeps the format's pairing rules, and a window over `max_tokens` is the smallest
    the stages reach (the same request at a limit of one token gives the same window: nothing that
    may still leave was left).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.test_fit_http import SYSTEM_APART, messages_in
from tests.api.test_formats_equivalence import plan
from tests.api.test_frames_http import pairing_violations

FORMATS = ("native", "openai", "anthropic", "responses", "gemini", "bedrock")
TOOLS = ("read", "grep", "ls")
TASK = "Find which service writes the stale cache entries and fix it."
SIZES = (2, 40, 150, 400, 900, 1600)

# A run is a list of steps; a step is the calls of one assistant turn, each (tool, result size).
Step = list[tuple[str, int]]


@st.composite
def agent_runs(draw: Any) -> tuple[list[Step], int, int]:
    steps = draw(
        st.lists(
            st.lists(
                st.tuples(st.sampled_from(TOOLS), st.sampled_from(SIZES)),
                min_size=1,
                max_size=3,
            ),
            min_size=12,
            max_size=20,
        )
    )
    max_tokens = draw(st.integers(500, 3000))
    return steps, max_tokens, draw(st.sampled_from([0, 2]))


def native_run(steps: list[Step], count: int, system: bool) -> list[dict[str, Any]]:
    """The run's native transcript after its first `count` steps."""
    messages: list[dict[str, Any]] = []
    if system:
        messages.append({"role": "system", "content": "You are a careful engineer."})
    messages.append({"role": "user", "content": TASK})
    for number, calls in enumerate(steps[:count]):
        ids = [f"s{number}c{index}" for index in range(len(calls))]
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": call_id, "name": tool, "arguments": {"path": f"src/{number}"}}
                    for call_id, (tool, _) in zip(ids, calls, strict=True)
                ],
            }
        )
        for index, (call_id, (tool, size)) in enumerate(zip(ids, calls, strict=True)):
            text = "abcdefghij"[(number + index) % 10] * size
            messages.append(
                {"role": "tool", "tool_call_id": call_id, "tool_name": tool, "content": text}
            )
    return messages


def window_bytes(window: list[Any]) -> list[bytes]:
    return [orjson.dumps(message) for message in window]


def check_run(
    format_name: str, steps: list[Step], max_tokens: int, clear: bool, pins: int = 0
) -> int:
    """Run the agent over `steps` in `format_name` and check (a)–(e); the number of held
    requests."""
    system = format_name not in SYSTEM_APART
    records: list[Any] = []
    previous: dict[str, Any] | None = None  # the last answer
    last_record: dict[str, Any] | None = None
    held_requests = 0
    for count in range(1, len(steps) + 1):
        body: dict[str, Any] = {
            **messages_in(format_name, native_run(steps, count, system)),
            "format": format_name,
            "strategy": {"kind": "fit", "max_tokens": max_tokens},
            "tokenizer": "estimate",
            "prior_records": records[-2:],
            "keep_last_tool_results": pins,
        }
        if clear:
            body["clear"] = {}
        answer = plan(body)
        budget, record = answer["budget"], answer["record"]
        # (d) the keys exactly when clear is on.
        assert ("clear_held" in budget) is clear
        assert record is None or ("cleared_results" in record) is clear
        # (e) the format's rules, and a window over the limit is the smallest reachable.
        sent = body["messages"]
        if not pairing_violations(format_name, sent, sent):
            assert pairing_violations(format_name, sent, answer["window"]) == []
        if budget["total_after"] > max_tokens:
            assert not budget["met"]
            floor_body = {**body, "strategy": {**body["strategy"], "max_tokens": 1}}
            floor = plan(floor_body)
            assert floor["window"] == answer["window"]
            assert floor["evicted"] == answer["evicted"]
        if clear and budget["clear_held"]:
            held_requests += 1
            assert previous is not None and last_record is not None
            # (c) the boundary and the cut are the previous record's.
            assert record is not None
            assert record["cleared_results"] == last_record["cleared_results"]
            assert record["removed_message_count"] == last_record["removed_message_count"]
            assert answer["stats"]["removed_message_count"] == last_record["removed_message_count"]
            assert budget["held"] is (record["removed_message_count"] > 0)
            assert answer["engaged"] is (record["removed_message_count"] > 0)
            assert budget["total_after"] <= max_tokens and budget["met"]
            # (a) the previous window, byte for byte, then what the run added.
            if pins == 0 and previous["budget"]["stage"] in ("span", "further-spans"):
                before = window_bytes(previous["window"])
                assert window_bytes(answer["window"])[: len(before)] == before
        if clear and record is not None and last_record is not None:
            # (b) the boundary never goes back.
            assert record["cleared_results"] >= last_record["cleared_results"]
        if record is not None:
            records.append(record)
            last_record = record
        previous = answer
    return held_requests


RUNS = settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.slow
@pytest.mark.parametrize("format_name", FORMATS)
@RUNS
@given(agent_runs())
def test_the_boundary_and_the_cut_hold_together(
    format_name: str, run: tuple[list[Step], int, int]
) -> None:
    steps, max_tokens, pins = run
    check_run(format_name, steps, max_tokens, clear=True, pins=pins)


@pytest.mark.slow
@pytest.mark.parametrize("format_name", FORMATS)
@settings(RUNS, max_examples=2)
@given(agent_runs())
def test_without_clear_no_record_or_budget_has_the_keys(
    format_name: str, run: tuple[list[Step], int, int]
) -> None:
    steps, max_tokens, pins = run
    check_run(format_name, steps, max_tokens, clear=False, pins=pins)


@pytest.mark.parametrize("format_name", FORMATS)
def test_a_long_run_holds_the_boundary_and_moves_it(format_name: str) -> None:
    """One fixed run, fast: results of 400 characters, one call per turn, M = 1,500. The run
    passes the limit, holds and moves, so the properties above see every kind of request."""
    steps: list[Step] = [[(TOOLS[number % 3], 400)] for number in range(24)]
    held_requests = check_run(format_name, steps, 1500, clear=True)
    assert held_requests >= 8
