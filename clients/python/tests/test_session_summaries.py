"""`PlannerSession` and `AsyncPlannerSession` with a summarizer: the summary protocol of
`docs/rules.md#summaries` run for the caller.

The protocol tests answer each plan with the real service's plan plus summary fields of their own
(`Scripted`), so that every case (a second summary request, seventeen summaries) is asked for
exactly; the last tests run the protocol against the service itself (its worked examples S-1 to
S-3)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from cwp_client import AsyncPlanner, AsyncPlannerSession, Planner, PlannerSession

KEEP_ONE = {"kind": "sliding-window", "keep_recent_turns": 1}
SUMMARY = "station 1 read 19 °C; station 2 read 20 °C."


def look_transcript(rounds: int = 3) -> list[dict[str, Any]]:
    """S-1: a task, then `rounds` native tool rounds of 500 characters each."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "TASK"}]
    for number in range(1, rounds + 1):
        call_id = f"c{number}"
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call_id, "name": "look", "arguments": {}}],
            }
        )
        messages.append(
            {"role": "tool", "tool_call_id": call_id, "tool_name": "look", "content": "x" * 500}
        )
    return messages


def summary_request(first: int, through: int, text: str = "R") -> dict[str, Any]:
    return {
        "from": first,
        "through": through,
        "key": hashlib.sha256(f"{first}-{through}".encode()).hexdigest(),
        "request": {"messages": [{"role": "user", "content": text}]},
    }


class Scripted:
    """Plans through the real service, without the summary options, and adds to the n-th answer
    the n-th entry of `script` (none once it runs out); `bodies` are the requests as sent."""

    def __init__(self, url: str, script: list[dict[str, Any]]) -> None:
        self.script = list(script)
        self.bodies: list[dict[str, Any]] = []
        self.real = httpx.Client(base_url=url)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        passed = {k: v for k, v in body.items() if k not in ("summarize", "summaries")}
        answer = self.real.post(request.url.path, json=passed).json()
        fields = self.script.pop(0) if self.script else {}
        summary_fields = {"summary_request": None, "summary_used": None, "summaries_ignored": []}
        return httpx.Response(200, json={**answer, **summary_fields, **fields})


class Summarizer:
    """Answers `texts` in turn (the last one again once they run out); `requests` are what it
    was asked."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts) or [SUMMARY]
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> str:
        self.requests.append(request)
        return self.texts[min(len(self.requests), len(self.texts)) - 1]


@pytest.fixture
def scripted(server) -> Iterator[Any]:
    made: list[Scripted] = []

    def make(*script: dict[str, Any]) -> tuple[Planner, Scripted]:
        stub = Scripted(server.url, list(script))
        made.append(stub)
        http = httpx.Client(base_url=server.url, transport=httpx.MockTransport(stub))
        return Planner(http_client=http), stub

    yield make
    for stub in made:
        stub.real.close()


def test_a_summary_request_is_summarized_once_and_planned_again_at_once(scripted):
    first = summary_request(1, 4)
    planner, stub = scripted(
        {"summary_request": first}, {"summary_used": {"from": 1, "through": 4}}
    )
    summarize = Summarizer()
    session = planner.session(
        strategy=KEEP_ONE, summarize=summarize, summary_instructions="Be brief.", min_span_tokens=0
    )
    plan = session.plan(look_transcript())
    assert summarize.requests == [first["request"]]
    entry = {"from": 1, "through": 4, "key": first["key"], "summary": SUMMARY}
    assert session.summaries == [entry]
    assert len(stub.bodies) == 2
    asked, again = stub.bodies
    assert asked["summarize"] == {"instructions": "Be brief.", "min_span_tokens": 0}
    assert "summaries" not in asked
    assert again["summaries"] == [entry]
    # The re-plan stands for the same model request: same iteration, same records.
    assert again["iteration"] == asked["iteration"] == 1
    assert again["prior_records"] == asked["prior_records"] == []
    assert plan.summary_used == {"from": 1, "through": 4}
    assert plan.replaces is not None and plan.replaces.summary_request == first
    assert session.iteration == 2 and session.records == [plan.record]
    # The next plan sends the summary and asks for summaries again.
    session.plan(look_transcript())
    assert stub.bodies[-1]["summaries"] == [entry] and stub.bodies[-1]["iteration"] == 2
    assert "summarize" in stub.bodies[-1] and len(summarize.requests) == 1


def test_a_summary_request_in_the_second_answer_waits_for_the_next_plan(scripted):
    planner, stub = scripted(
        {"summary_request": summary_request(1, 4)},
        {"summary_request": summary_request(1, 6)},
        {"summary_request": summary_request(1, 8)},
        {},
    )
    summarize = Summarizer("first", "second")
    session = planner.session(strategy=KEEP_ONE, summarize=summarize)
    plan = session.plan(look_transcript())
    assert len(stub.bodies) == 2 and len(summarize.requests) == 1
    assert plan.summary_request == summary_request(1, 6)  # handed back, not looped on
    session.plan(look_transcript())
    assert len(stub.bodies) == 4 and len(summarize.requests) == 2
    assert [s["summary"] for s in session.summaries] == ["first", "second"]
    assert [s["through"] for s in session.summaries] == [4, 8]


def test_replan_false_leaves_the_summary_to_the_next_plan(scripted):
    planner, stub = scripted({"summary_request": summary_request(1, 4)})
    summarize = Summarizer()
    session = planner.session(strategy=KEEP_ONE, summarize=summarize, replan=False)
    plan = session.plan(look_transcript())
    assert len(stub.bodies) == 1 and plan.replaces is None
    assert plan.summary_request == summary_request(1, 4)
    assert len(session.summaries) == 1 and session.records == [plan.record]
    session.plan(look_transcript())
    assert stub.bodies[1]["summaries"] == session.summaries
    assert stub.bodies[1]["iteration"] == 2


def test_an_empty_summary_keeps_nothing_and_plans_nothing_again(scripted):
    planner, stub = scripted({"summary_request": summary_request(1, 4)})
    session = planner.session(strategy=KEEP_ONE, summarize=Summarizer("  \n"))
    plan = session.plan(look_transcript())
    assert len(stub.bodies) == 1 and session.summaries == [] and plan.replaces is None
    session.plan(look_transcript())
    assert "summaries" not in stub.bodies[1]


def test_the_newest_sixteen_summaries_are_kept_and_sent(scripted):
    script = [{"summary_request": summary_request(1, through)} for through in range(2, 20)]
    planner, stub = scripted(*script)
    summarize = Summarizer(*(f"summary {n}" for n in range(18)))
    session = planner.session(strategy=KEEP_ONE, summarize=summarize, replan=False)
    for _ in range(18):
        session.plan(look_transcript())
    assert len(summarize.requests) == 18
    assert [s["through"] for s in session.summaries] == list(range(4, 20))
    assert stub.bodies[-1]["summaries"] == [
        {**{k: v for k, v in summary_request(1, t).items() if k != "request"}, "summary": text}
        for t, text in zip(range(3, 19), (f"summary {n}" for n in range(1, 17)), strict=True)
    ]
    assert len(stub.bodies[-1]["summaries"]) == 16


def test_the_same_request_summarized_again_replaces_its_entry(scripted):
    planner, _ = scripted(*[{"summary_request": summary_request(1, 4)}] * 2)
    session = planner.session(strategy=KEEP_ONE, summarize=Summarizer("a", "b"), replan=False)
    session.plan(look_transcript())
    session.plan(look_transcript())
    assert [s["summary"] for s in session.summaries] == ["b"]


def test_without_a_summarizer_nothing_is_asked_and_a_request_is_left_alone(scripted):
    planner, stub = scripted({"summary_request": summary_request(1, 4)})
    session = planner.session(strategy=KEEP_ONE)
    plan = session.plan(look_transcript())
    assert "summarize" not in stub.bodies[0] and "summaries" not in stub.bodies[0]
    assert plan.summary_request is not None and session.summaries == []


def test_a_summarizer_given_to_one_plan_serves_that_plan_only(scripted):
    planner, stub = scripted(*[{"summary_request": summary_request(1, 4)}] * 2)
    session = planner.session(strategy=KEEP_ONE, replan=False)
    summarize = Summarizer()
    session.plan(look_transcript(), summarize=summarize)
    assert stub.bodies[0]["summarize"] == {} and len(summarize.requests) == 1
    session.plan(look_transcript())
    assert "summarize" not in stub.bodies[1] and len(summarize.requests) == 1
    assert stub.bodies[1]["summaries"] == session.summaries


def test_summarize_must_be_the_function_and_reset_forgets_the_summaries(scripted):
    planner, _ = scripted({"summary_request": summary_request(1, 4)})
    with pytest.raises(TypeError, match="summary_instructions"):
        planner.session(summarize={"min_span_tokens": 0})
    session = planner.session(strategy=KEEP_ONE, summarize=Summarizer(), replan=False)
    session.plan(look_transcript())
    assert session.summaries
    session.reset()
    assert session.summaries == [] and session.iteration == 1


def test_the_async_session_awaits_its_summarizer(server):
    first = summary_request(1, 4)
    stub = Scripted(server.url, [{"summary_request": first}])
    asked: list[dict[str, Any]] = []

    async def summarize(request: dict[str, Any]) -> str:
        asked.append(request)
        await asyncio.sleep(0)
        return SUMMARY

    async def run() -> Any:
        http = httpx.AsyncClient(base_url=server.url, transport=httpx.MockTransport(stub))
        async with AsyncPlanner(http_client=http) as planner:
            session = planner.session(strategy=KEEP_ONE, summarize=summarize)
            assert isinstance(session, AsyncPlannerSession)
            return await session.plan(look_transcript()), session

    plan, session = asyncio.run(run())
    stub.real.close()
    assert asked == [first["request"]] and plan.replaces is not None
    assert len(stub.bodies) == 2 and stub.bodies[1]["summaries"] == session.summaries
    assert stub.bodies[1]["iteration"] == stub.bodies[0]["iteration"] == 1


def test_a_sync_session_refuses_a_coroutine_summarizer(scripted):
    planner, _ = scripted({"summary_request": summary_request(1, 4)})

    async def summarize(request: dict[str, Any]) -> str:
        return SUMMARY

    session = PlannerSession(planner, strategy=KEEP_ONE, summarize=summarize)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="awaitable"):
        session.plan(look_transcript())
    assert session.iteration == 1


# Against the service itself.


def test_the_worked_example_s1_then_s2_against_the_service(server):
    summarize = Summarizer("S")
    transcript = look_transcript()
    with Planner(server.url) as planner:
        session = planner.session(
            strategy=KEEP_ONE, keep_last_tool_results=0, summarize=summarize, min_span_tokens=0
        )
        plan = session.plan(transcript)
    [asked] = summarize.requests
    assert asked["messages"][:5] == transcript[:5]
    assert asked["messages"][-1]["role"] == "user" and len(asked["messages"]) == 6
    first = plan.replaces
    assert first is not None and first.summary_request is not None
    assert first.summary_request["request"] == asked
    assert (first.summary_request["from"], first.summary_request["through"]) == (1, 4)
    assert plan.summary_used == {"from": 1, "through": 4} and plan.summary_request is None
    assert plan.window == [
        transcript[0],
        {
            "role": "user",
            "content": "[compacted history — 4 earlier message(s) summarized by the model]\n\nS",
        },
        *transcript[5:],
    ]
    assert plan.notice is not None and plan.notice.rung == "summary"


def test_the_async_session_against_the_service_leaves_it_to_the_next_plan(server):
    async def run() -> list[Any]:
        async with AsyncPlanner(server.url) as planner:
            session = planner.session(
                strategy=KEEP_ONE,
                keep_last_tool_results=0,
                summarize=Summarizer("S"),
                min_span_tokens=0,
                replan=False,
            )
            return [await session.plan(look_transcript(n)) for n in (3, 4)]

    first, second = asyncio.run(run())
    assert first.summary_request is not None and first.summary_used is None
    assert second.summary_used == {"from": 1, "through": 4}
    assert second.window[1]["content"].startswith("[compacted history — 4 earlier message(s)")
    assert second.summary_request is not None and second.summary_request["through"] == 6
