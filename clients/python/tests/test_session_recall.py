"""A session's recall (`docs/rules.md#recall`), through the service: `recall_tool` as the last plan
declared it, `recall` by ref and by query over the messages last planned (with their format and
system), pages, and the text a tool returns to the model with its page line."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from client_support import tool_round

from cwp_client import AsyncPlanner, Planner
from cwp_client.recall import DEFAULT_TOOL_NAME, DESCRIPTION, PARAMETERS, recall_text

LOG = "deploy log: " + "step ok; " * 60 + "failed at ZK-4471 with exit 3"  # 581 characters
KEEP_ONE = {"kind": "sliding-window", "keep_recent_turns": 1}


def history() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Why did the deploy fail?"},
        *tool_round("call_log", "read_log", LOG),
        *tool_round("call_status", "read_status", "status: red"),
    ]


def test_recall_tool_is_the_last_plans_declaration(server) -> None:
    with Planner(server.url) as planner:
        session = planner.session(format="openai")
        assert session.recall_tool is None  # before a plan
        session.plan(history())
        assert session.recall_tool is None  # recall off
        plan = session.plan(history(), recall={})
        assert (
            session.recall_tool
            == plan.recall_tool
            == {
                "type": "function",
                "function": {
                    "name": DEFAULT_TOOL_NAME,
                    "description": DESCRIPTION,
                    "parameters": PARAMETERS,
                },
            }
        )
        session.reset()
        assert session.recall_tool is None


def test_recall_by_ref_and_by_query_answers_from_the_history(server) -> None:
    with Planner(server.url) as planner:
        session = planner.session(strategy=KEEP_ONE, keep_last_tool_results=0, recall={})
        plan = session.plan(history())
        assert 1 in plan.evicted_messages  # the log's call is not in the window
        by_ref = session.recall(ref="call_log")
        assert (by_ref.found, by_ref.text, by_ref.page, by_ref.pages) == (True, LOG, 1, 1)
        assert by_ref.hits is None
        assert session.recall_text(by_ref) == LOG  # one page: no page line
        by_query = session.recall(query="zk-4471 exit")
        assert by_query.found and by_query.hits == 1
        assert by_query.text == f"[message 2 · result of read_log · ref call_log]\n{LOG}"
        missing = session.recall(ref="call_none")
        assert not missing.found
        assert missing.text == "No result with id call_none in this conversation."


def test_pages_and_the_page_line(server) -> None:
    with Planner(server.url) as planner:
        session = planner.session(recall={"tool_name": "get_back"})
        session.plan(history())
        first = session.recall(ref="call_log", max_chars=256)
        assert (first.page, first.pages, first.text) == (1, 3, LOG[:256])
        assert session.recall_text(first) == (
            LOG[:256] + "\n[page 1 of 3: call get_back with page 2 for more]"
        )
        last = session.recall(ref="call_log", page=3, max_chars=256)
        assert session.recall_text(last) == last.text == LOG[512:]
        past = session.recall(ref="call_log", page=4, max_chars=256)
        assert (past.found, past.text, past.pages) == (True, "", 3)
    assert recall_text(first) == LOG[:256] + (
        "\n[page 1 of 3: call context_recall with page 2 for more]"
    )


def test_the_async_session_recalls_from_responses_items(server) -> None:
    items = [
        {"role": "user", "content": "Why did the deploy fail?"},
        {"type": "function_call", "call_id": "call_log", "name": "read_log", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_log", "output": LOG},
    ]

    async def run() -> tuple[Any, Any, Any]:
        async with AsyncPlanner(server.url) as planner:
            session = planner.session(format="responses", system="Be brief.")
            before = session.recall_tool
            await session.plan(items, recall={})
            # Read as OpenAI messages these items would be refused: the format goes with it.
            return before, session.recall_tool, await session.recall(ref="call_log")

    before, tool, answer = asyncio.run(run())
    assert before is None
    assert tool is not None and tool["name"] == DEFAULT_TOOL_NAME and tool["strict"] is False
    assert (answer.found, answer.text) == (True, LOG)


def test_recall_before_any_plan_is_an_error(server) -> None:
    with Planner(server.url) as planner:
        session = planner.session()
        with pytest.raises(RuntimeError, match="last plan"):
            session.recall(ref="call_log")
        session.plan(history())
        session.reset()
        with pytest.raises(RuntimeError, match="last plan"):
            session.recall(ref="call_log")


def test_the_planner_recalls_over_the_messages_given(server) -> None:
    with Planner(server.url) as planner:
        answer = planner.recall(history(), query="red", max_chars=300)
    assert answer.found and answer.hits == 1
    assert answer.text == "[message 4 · result of read_status · ref call_status]\nstatus: red"
