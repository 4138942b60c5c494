"""`PlannerSession`: the records of one run go back as `prior_records` (the last two), the
iteration moves on with each plan; checked by the service's own stand-down
(`docs/rules.md#the-stand-down`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from client_support import tool_round

from cwp_client import AsyncPlanner, Planner, RequestValidationError

KEEP_TWO = {"kind": "sliding-window", "keep_recent_turns": 2}
OBSERVATION = "the observer holds the north gate: steady!"  # 42 characters


def stand_down_transcript() -> list[dict[str, Any]]:
    """E13: a task, an observation the last-tool-result pin holds, two moves."""
    return [
        {"role": "user", "content": "TASK"},
        *tool_round("p", "observer", OBSERVATION),
        *tool_round("a", "move", "ok"),
        *tool_round("b", "move", "ok"),
    ]


class Recorder:
    """The JSON bodies a planner sent, captured by an httpx event hook."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> None:
        self.bodies.append(json.loads(request.content))


@pytest.fixture
def recorded(server):
    recorder = Recorder()
    http = httpx.Client(base_url=server.url, event_hooks={"request": [recorder]})
    with Planner(http_client=http) as planner:
        yield planner, recorder


def test_the_third_blocked_plan_stands_down_because_the_records_went_back(recorded):
    planner, recorder = recorded
    assert len(OBSERVATION) == 42
    session = planner.session(strategy=KEEP_TWO)
    messages = stand_down_transcript()
    first, second, third = (session.plan(messages) for _ in range(3))
    for blocked in (first, second):
        assert blocked.engaged and blocked.evicted_messages == []
        assert [r.reason for r in blocked.response.refusals][:2] == [
            "current-request",
            "last-tool-result",
        ]
    assert third.evicted_messages == [1, 2]
    assert third.response.pins.last_tool_result is not None
    assert third.response.pins.last_tool_result.stand_down is True
    assert [body["iteration"] for body in recorder.bodies] == [1, 2, 3]
    assert [body["prior_records"] for body in recorder.bodies] == [
        [],
        [first.record],
        [first.record, second.record],
    ]
    assert [plan.record["iteration"] for plan in (first, second, third)] == [1, 2, 3]


def test_without_the_session_the_same_plan_never_stands_down(server):
    with Planner(server.url) as planner:
        plans = [planner.plan(stand_down_transcript(), strategy=KEEP_TWO) for _ in range(3)]
    assert [plan.evicted_messages for plan in plans] == [[], [], []]


def test_only_the_last_two_records_are_sent(recorded):
    planner, recorder = recorded
    session = planner.session(strategy=KEEP_TWO)
    records = [session.plan(stand_down_transcript()).record for _ in range(3)]
    session.plan(stand_down_transcript())
    assert recorder.bodies[-1]["prior_records"] == records[1:]
    assert session.records == [records[2], session.records[-1]] and len(session.records) == 2


def test_a_plan_that_does_not_engage_files_nothing_but_counts_an_iteration(recorded):
    planner, recorder = recorded
    session = planner.session()
    plan = session.plan(stand_down_transcript())  # the default window keeps six turns
    assert not plan.engaged and session.records == []
    session.plan(stand_down_transcript())
    assert [body["iteration"] for body in recorder.bodies] == [1, 2]
    assert recorder.bodies[1]["prior_records"] == []


def test_a_failed_plan_does_not_move_the_iteration(recorded):
    planner, recorder = recorded
    session = planner.session()
    with pytest.raises(RequestValidationError):
        session.plan(stand_down_transcript(), strategy={"kind": "no-such-strategy"})
    assert session.iteration == 1
    session.plan(stand_down_transcript())
    assert [body["iteration"] for body in recorder.bodies] == [1, 1]


def test_an_explicit_iteration_wins_and_the_count_goes_on_from_it(recorded):
    planner, recorder = recorded
    session = planner.session(iteration=5)
    session.plan(stand_down_transcript())
    session.plan(stand_down_transcript(), iteration=9)
    session.plan(stand_down_transcript())
    assert [body["iteration"] for body in recorder.bodies] == [5, 9, 10]
    session.reset()
    assert session.iteration == 5 and session.records == []


def test_defaults_go_with_every_plan_and_the_call_overrides_them(recorded):
    planner, recorder = recorded
    session = planner.session(format="openai", keep_last_tool_results=1)
    session.plan(stand_down_transcript(), keep_last_tool_results=0)
    assert recorder.bodies[0]["format"] == "openai"
    assert recorder.bodies[0]["keep_last_tool_results"] == 0


def test_the_async_session_keeps_the_same_books(server):
    async def run() -> list[list[int]]:
        async with AsyncPlanner(server.url) as planner:
            session = planner.session(strategy=KEEP_TWO)
            return [(await session.plan(stand_down_transcript())).evicted_messages for _ in "abc"]

    assert asyncio.run(run()) == [[], [], [1, 2]]


def test_the_clear_only_record_goes_back_and_the_boundary_is_held(recorded):
    """docs/rules.md#holding-the-boundary: under `fit` with `clear`, a plan that clearing alone
    satisfied files the clear-only record; the session sends it back, and the next plan, whose
    history grew, holds its boundary."""
    planner, recorder = recorded
    session = planner.session(
        format="openai",
        strategy={"kind": "fit", "max_tokens": 1_200},
        clear={"keep_last": 1, "step": 2},
        keep_last_tool_results=0,
    )
    history: list[dict[str, Any]] = [{"role": "user", "content": "TASK"}]
    for k in range(1, 7):
        history += tool_round(f"c{k}", "read", "x" * 1_000)
    first = session.plan(history)
    assert not first.engaged and first.record is not None
    assert first.record["removed_message_count"] == 0 and first.record["cleared_results"] == 4
    history += tool_round("c7", "read", "x" * 1_000)
    second = session.plan(history)
    assert recorder.bodies[1]["prior_records"] == [first.record]
    assert second.raw["budget"]["clear_held"] is True
    assert second.record is not None and second.record["cleared_results"] == 4
