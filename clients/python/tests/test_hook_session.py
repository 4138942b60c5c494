"""A framework hook's session, as an agent that keeps its whole history uses it: every model call
plans the whole history grown by one tool round, sends the last two records back and counts the
iteration, so the `fit` strategy can hold its cut (`docs/rules.md#the-fit-strategy`) and the
window keeps its prefix between cuts. Checked through the OpenAI Agents SDK's input filter."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from cwp_client import AsyncPlanner

pytest.importorskip("agents")

from agents.run_config import CallModelData, ModelInputData

from cwp_client.hooks.openai_agents import PlannedInput

INSTRUCTIONS = "Read the stations one by one."
RESULT = "r" * 400  # 104 tokens with `estimate`; a round of call and result is 113
# Cut once the window is over 600 tokens, to 400: the window then grows by a round per call
# and the cut is held until it outgrows 600 again.
FIT = {"kind": "fit", "max_tokens": 600, "target_tokens": 400, "keep_recent_turns": 1}
CALLS = 8


def round_items(number: int) -> list[dict[str, Any]]:
    call_id = f"call_{number}"
    return [
        {"type": "function_call", "call_id": call_id, "name": "read", "arguments": "{}"},
        {"type": "function_call_output", "call_id": call_id, "output": RESULT},
    ]


def test_a_hooks_session_sends_the_last_two_records_and_counts_iterations(server):
    bodies: list[dict[str, Any]] = []

    async def record(request: httpx.Request) -> None:
        bodies.append(json.loads(request.content))

    async def run() -> list[list[Any]]:
        http = httpx.AsyncClient(base_url=server.url, event_hooks={"request": [record]})
        async with AsyncPlanner(http_client=http) as planner:
            hook = PlannedInput(planner.session(strategy=FIT))
            history: list[Any] = [{"role": "user", "content": "Which station is the warmest?"}]
            windows = []
            for number in range(1, CALLS + 1):
                history = [*history, *round_items(number)]  # the whole history, every time
                data = CallModelData(ModelInputData(list(history), INSTRUCTIONS), None, None)
                windows.append((await hook(data)).input)
            assert len(hook.plans) == CALLS
            plans.extend(hook.plans)
            return windows

    plans: list[Any] = []
    windows = asyncio.run(run())
    assert [body["iteration"] for body in bodies] == list(range(1, CALLS + 1))
    records: list[dict[str, Any]] = []
    for body, plan in zip(bodies, plans, strict=True):
        assert body["prior_records"] == records[-2:]
        if plan.record is not None:
            records.append(plan.record)
    # The cut is held while the window fits: then the window opens as the one before did.
    held = [index for index, plan in enumerate(plans) if plan.raw["budget"]["held"]]
    assert held, [plan.raw["budget"] for plan in plans]
    for index in held:
        assert plans[index].evicted_messages == plans[index - 1].evicted_messages
        assert windows[index][: len(windows[index - 1])] == windows[index - 1]
        assert plans[index].raw["budget"]["total_after"] <= FIT["max_tokens"]
