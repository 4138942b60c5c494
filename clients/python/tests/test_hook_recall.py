"""Each framework hook gives the model the recall tool as a tool of its framework
(`docs/rules.md#recall`): a scripted model reads a window the planner cut, calls the tool, and its
next request carries the original text as the tool's result, answered by the session from the
whole history. Two cuts: a result `clear` replaced by a placeholder (recalled by its ref) and a
turn the sliding window removed (recalled by a query). With `recall=None` the hook is as it was;
the OpenAI Agents filter plans with recall only when the agent has the tool."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Sequence
from typing import Any

import pytest

from cwp_client import AsyncPlanner, Planner
from cwp_client.recall import DESCRIPTION

LOG = "deploy log: " + "step ok; " * 60 + "failed at ZK-4471 with exit 3"
STATUS = "status: red, " + "checked; " * 10
QUESTION = "Why did the deploy fail?"
ANSWER = "It failed at ZK-4471."
TOOL = "context_recall"
# The log's result cleared (no newest result kept, the boundary moving with every result, no
# tool's latest result kept whole).
CLEARING = {"clear": {"keep_last": 0, "step": 1}, "keep_last_tool_results": 0}
# The log's turn removed: only the newest turn kept, no tool's latest result pinned.
EVICTING = {
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
    "keep_last_tool_results": 0,
}
BY_REF = {"ref": "call_log"}
BY_QUERY = {"query": "ZK-4471"}
FOUND_BY_QUERY = f"[message 2 · result of read_log · ref call_log]\n{LOG}"
CASES = [(CLEARING, BY_REF, LOG), (EVICTING, BY_QUERY, FOUND_BY_QUERY)]
ROUNDS = (("call_log", "read_log", LOG), ("call_status", "read_status", STATUS))


def test_the_hooks_declare_the_services_tool(server) -> None:
    """The words a hook declares before any plan are the ones a plan's `recall_tool` carries."""
    with Planner(server.url) as planner:
        plan = planner.plan([{"role": "user", "content": QUESTION}], recall={})
    assert plan.recall_tool is not None
    assert plan.recall_tool["function"]["description"] == DESCRIPTION


# LangChain ----------------------------------------------------------------------------------------


def langchain_run(
    url: str, options: dict[str, Any], arguments: dict[str, Any] | None, run: str, **hook: Any
) -> tuple[Any, list[list[Any]], list[str]]:
    """A LangChain agent over the history; the model calls the recall tool with `arguments`
    (None: it answers at once). The hook, what each model call got, the tools offered."""
    pytest.importorskip("langchain")
    from langchain.agents import create_agent
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    from cwp_client.hooks.langchain import PlannedWindow

    received: list[list[BaseMessage]] = []
    offered: list[str] = []
    script: list[AIMessage] = [AIMessage(ANSWER)]
    if arguments is not None:
        call = {"name": TOOL, "args": arguments, "id": "recall_1"}
        script.insert(0, AIMessage("", tool_calls=[call]))

    class Scripted(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Scripted:
            offered[:] = [tool.name for tool in tools]
            return self

        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
            received.append(list(messages))
            return ChatResult(generations=[ChatGeneration(message=script[len(received) - 1])])

    history: list[Any] = [HumanMessage(QUESTION)]
    for call_id, name, text in ROUNDS:
        history.append(AIMessage("", tool_calls=[{"name": name, "args": {}, "id": call_id}]))
        history.append(ToolMessage(text, tool_call_id=call_id))

    def read_log() -> str:
        """Read the deploy log."""
        return LOG

    if run == "sync":
        with Planner(url) as planner:
            planned = PlannedWindow(planner.session(**options), **hook)
            agent = create_agent(model=Scripted(), tools=[read_log], middleware=[planned])
            state = agent.invoke({"messages": history})
    else:

        async def arun() -> Any:
            async with AsyncPlanner(url) as planner:
                planned = PlannedWindow(planner.session(**options), **hook)
                agent = create_agent(model=Scripted(), tools=[read_log], middleware=[planned])
                return planned, await agent.ainvoke({"messages": history})

        planned, state = asyncio.run(arun())
    assert state["messages"][-1].content == ANSWER
    texts = [[str(m.content) for m in messages] for messages in received]
    results = {
        m.tool_call_id: str(m.content) for m in state["messages"] if isinstance(m, ToolMessage)
    }
    return planned, texts, [offered, results]  # type: ignore[list-item]


@pytest.mark.parametrize("run", ["sync", "async"])
@pytest.mark.parametrize(("options", "arguments", "expected"), CASES)
def test_langchain_answers_the_recall_tool_from_the_history(
    server, run: str, options: dict[str, Any], arguments: dict[str, Any], expected: str
) -> None:
    planned, texts, (offered, results) = langchain_run(server.url, options, arguments, run)
    assert TOOL in offered and "read_log" in offered
    first, second = texts
    assert LOG not in first and any(TOOL in text for text in first)  # cut, pointing at the tool
    assert results["recall_1"] == expected
    assert second[-1] == expected  # the model's next request carries it as the tool's result
    assert all(plan.recall_tool is not None for plan in planned.plans)


def test_langchain_without_recall_is_as_before(server) -> None:
    planned, texts, (offered, _) = langchain_run(server.url, CLEARING, None, "sync", recall=None)
    assert offered == ["read_log"]
    assert planned.tools == []
    assert LOG not in texts[0] and not any(TOOL in text for text in texts[0])
    assert planned.plans[0].recall_tool is None


# Pydantic AI --------------------------------------------------------------------------------------


def pydantic_ai_run(
    url: str, options: dict[str, Any], arguments: dict[str, Any] | None, **hook: Any
) -> tuple[Any, list[list[str]], list[list[str]], dict[str, str]]:
    """A Pydantic AI agent over the history, its model calling the recall tool with `arguments`
    (None: answering at once): the hook, the texts each request sent, the tools each offered and
    the results of the run."""
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from cwp_client.hooks.pydantic_ai import PlannedWindow

    received: list[list[ModelMessage]] = []
    offered: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append(copy.deepcopy(messages))
        offered.append([tool.name for tool in info.function_tools])
        if arguments is not None and len(received) == 1:
            return ModelResponse(parts=[ToolCallPart(TOOL, arguments, tool_call_id="recall_1")])
        return ModelResponse(parts=[TextPart(ANSWER)])

    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart(content=QUESTION)])]
    for call_id, name, text in ROUNDS:
        history.append(ModelResponse(parts=[ToolCallPart(name, {}, tool_call_id=call_id)]))
        history.append(ModelRequest(parts=[ToolReturnPart(name, text, tool_call_id=call_id)]))

    async def run() -> tuple[Any, Any]:
        async with AsyncPlanner(url) as planner:
            planned = PlannedWindow(planner.session(**options), **hook)
            agent = Agent(FunctionModel(respond), capabilities=[planned])
            return planned, await agent.run(message_history=history)

    planned, result = asyncio.run(run())
    assert result.output == ANSWER

    def texts(messages: list[ModelMessage]) -> list[str]:
        return [
            str(part.content)
            for message in messages
            for part in message.parts
            if isinstance(part, ToolReturnPart | UserPromptPart | TextPart)
        ]

    results = {
        part.tool_call_id: str(part.content)
        for message in result.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    return planned, [texts(messages) for messages in received], offered, results


@pytest.mark.parametrize(("options", "arguments", "expected"), CASES)
def test_pydantic_ai_answers_the_recall_tool_from_the_history(
    server, options: dict[str, Any], arguments: dict[str, Any], expected: str
) -> None:
    planned, texts, offered, results = pydantic_ai_run(server.url, options, arguments)
    assert offered[0] == [TOOL]
    first, second = texts
    assert LOG not in first and any(TOOL in text for text in first)
    assert results["recall_1"] == expected
    assert second[-1] == expected
    assert all(plan.recall_tool is not None for plan in planned.plans)


def test_pydantic_ai_without_recall_is_as_before(server) -> None:
    planned, texts, offered, _ = pydantic_ai_run(server.url, CLEARING, None, recall=None)
    assert offered == [[]]
    assert planned.get_toolset() is None
    assert LOG not in texts[0] and not any(TOOL in text for text in texts[0])
    assert planned.plans[0].recall_tool is None


# OpenAI Agents ------------------------------------------------------------------------------------


def openai_agents_run(
    url: str,
    options: dict[str, Any],
    arguments: dict[str, Any] | None,
    with_tool: bool,
    **hook: Any,
) -> tuple[Any, list[list[Any]], list[list[str]]]:
    """An OpenAI Agents run over the history, the model calling the recall tool with `arguments`
    (None: answering at once), the agent given the hook's tool when `with_tool`: the filter, the
    input of each model call, the tools each offered."""
    pytest.importorskip("agents")
    from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    from cwp_client.hooks.openai_agents import PlannedInput

    received: list[list[Any]] = []
    offered: list[list[str]] = []

    class Scripted(Model):
        async def get_response(
            self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, *a: Any,
            **k: Any,
        ) -> ModelResponse:  # fmt: skip
            received.append(copy.deepcopy(input))
            offered.append([tool.name for tool in tools])
            output: list[Any]
            if arguments is not None and len(received) == 1:
                output = [
                    ResponseFunctionToolCall(
                        type="function_call",
                        call_id="recall_1",
                        name=TOOL,
                        arguments=json.dumps(arguments),
                    )
                ]
            else:
                text = ResponseOutputText(type="output_text", text=ANSWER, annotations=[])
                output = [
                    ResponseOutputMessage(
                        type="message", id="msg", role="assistant", status="completed",
                        content=[text],
                    )
                ]  # fmt: skip
            return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    items: list[Any] = [{"role": "user", "content": QUESTION}]
    for call_id, name, text in ROUNDS:
        items.append({"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}"})
        items.append({"type": "function_call_output", "call_id": call_id, "output": text})

    async def run() -> tuple[Any, Any]:
        async with AsyncPlanner(url) as planner:
            planned = PlannedInput(planner.session(**options), **hook)
            tools = [planned.recall_tool] if with_tool else []
            agent = Agent(name="deploys", instructions="Be brief.", model=Scripted(), tools=tools)
            config = RunConfig(call_model_input_filter=planned, tracing_disabled=True)
            return planned, await Runner.run(agent, input=items, run_config=config)

    planned, result = asyncio.run(run())
    assert result.final_output == ANSWER
    return planned, received, offered


def output_of(item: Any) -> str:
    return str(item.get("output") if item.get("type") == "function_call_output" else item)


@pytest.mark.parametrize(("options", "arguments", "expected"), CASES)
def test_openai_agents_answers_the_recall_tool_from_the_history(
    server, options: dict[str, Any], arguments: dict[str, Any], expected: str
) -> None:
    planned, received, offered = openai_agents_run(server.url, options, arguments, True)
    assert offered[0] == [TOOL]
    first, second = ([output_of(item) for item in items] for items in received)
    assert LOG not in first and any(TOOL in text for text in first)
    assert received[1][-1] == {
        "type": "function_call_output",
        "call_id": "recall_1",
        "output": expected,
    }
    assert second[-1] == expected
    assert all(plan.recall_tool is not None for plan in planned.plans)


def test_openai_agents_plans_with_recall_only_when_the_agent_has_the_tool(server) -> None:
    planned, received, offered = openai_agents_run(server.url, CLEARING, None, False)
    assert offered == [[]] and planned.recall_tool is not None  # offered, not taken
    texts = [output_of(item) for item in received[0]]
    assert LOG not in texts and not any(TOOL in text for text in texts)
    assert planned.plans[0].recall_tool is None


def test_openai_agents_without_recall_offers_no_tool(server) -> None:
    planned, received, _ = openai_agents_run(server.url, CLEARING, None, False, recall=None)
    assert planned.recall_tool is None
    assert not any(TOOL in output_of(item) for item in received[0])
    assert planned.plans[0].recall_tool is None


def test_openai_agents_recall_tool_answers_bad_arguments_in_words(server) -> None:
    pytest.importorskip("agents")
    from cwp_client.hooks.openai_agents import PlannedInput

    async def run() -> list[str]:
        async with AsyncPlanner(server.url) as planner:
            planned = PlannedInput(planner.session())
            tool = planned.recall_tool
            assert tool is not None
            await planned.session.plan([{"role": "user", "content": QUESTION}])
            calls = ["not json", '{"ref": "a", "query": "b"}', '{"ref": "a", "page": 0}']
            return [await tool.on_invoke_tool(None, call) for call in calls]  # type: ignore[arg-type]

    assert asyncio.run(run()) == [
        "Call it with an object: ref or query, and page.",
        "Give exactly one of ref (a tool_call_id) and query (words to search for).",
        "page is a whole number from 1.",
    ]
