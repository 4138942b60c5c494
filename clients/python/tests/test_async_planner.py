"""`AsyncPlanner` against the real service: the same endpoints and errors as `Planner`."""

from __future__ import annotations

import asyncio

import pytest

from cwp_client import AsyncPlanner, RequestValidationError

KEEP_TWO = {"kind": "sliding-window", "keep_recent_turns": 2}


def test_every_endpoint(server, long_transcript):
    async def run():
        async with AsyncPlanner(server.url) as planner:
            return await asyncio.gather(
                planner.plan(long_transcript, strategy=KEEP_TWO),
                planner.cap([{"tool_name": "read", "result": "z" * 300}], max_chars=100),
                planner.offer(long_transcript),
                planner.kept_answers.keep(
                    turn=3, tool_name="ask", answers=[{"argument": "city", "value": "Oslo"}]
                ),
                planner.info(),
            )

    plan, cap, offer, keep, info = asyncio.run(run())
    assert plan.evicted_messages == [1, 2, 3, 4] and plan.window[0] == long_transcript[0]
    assert cap.truncated_count == 1
    assert offer.listed == ["call_4", "call_3", "call_2", "call_1"]
    assert [entry.value for entry in keep.kept] == ["Oslo"]
    assert info.version


def test_kept_answers_round_trip(server):
    async def run():
        async with AsyncPlanner(server.url) as planner:
            kept = (
                await planner.kept_answers.keep(
                    turn=2, tool_name="ask", answers=[{"argument": "city", "value": "Oslo"}]
                )
            ).kept
            found = await planner.kept_answers.lookup(
                kept=kept, turn=2, tool_name="ask", argument="city"
            )
            left = await planner.kept_answers.use(
                kept=kept, turn=2, used=[{"tool_name": "ask", "argument": "other"}]
            )
            return found, left

    found, left = asyncio.run(run())
    assert found.answer is not None and found.answer.value == "Oslo"
    assert left.kept is not None and [entry.argument for entry in left.kept] == ["city"]


def test_errors_are_typed(server):
    async def run():
        async with AsyncPlanner(server.url) as planner:
            await planner.plan([{"role": "user", "content": "hi"}], format="klingon")

    with pytest.raises(RequestValidationError) as raised:
        asyncio.run(run())
    assert raised.value.errors[0].loc == ("body", "format")
