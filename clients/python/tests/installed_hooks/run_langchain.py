"""The LangChain hook from the installed client, in an agent run against a live planner."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from scenario import ANSWER, OPTIONS, QUESTION, STATIONS, check_shaped, planner_url, reading, report

from cwp_client import Planner
from cwp_client.hooks.langchain import PlannedWindow

received: list[list[BaseMessage]] = []
offered: list[str] = []


class Answering(BaseChatModel):
    """Answers at once, keeping the messages it was sent."""

    @property
    def _llm_type(self) -> str:
        return "answering"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Answering:
        offered.extend(tool.name for tool in tools)
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        received.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(ANSWER))])


messages: list[Any] = [HumanMessage(QUESTION, id="question")]
for station in STATIONS:
    call = {"name": "read_station", "args": {"station": station}, "id": f"call_{station}"}
    messages.append(AIMessage("", tool_calls=[call], id=f"ai_{station}"))
    messages.append(ToolMessage(reading(station), tool_call_id=call["id"], id=f"tool_{station}"))
with Planner(planner_url()) as planner:
    planned = PlannedWindow(planner.session(**OPTIONS))
    agent = create_agent(model=Answering(), tools=[], middleware=[planned])
    state = agent.invoke({"messages": messages})
assert state["messages"][-1].content == ANSWER
assert offered == ["context_recall"]  # the hook's recall tool, on by default
[sent] = received
results = [m for m in sent if isinstance(m, ToolMessage)]
assert [m.id for m in results] == ["tool_2", "tool_3"]  # the agent's own messages, ids kept
check_shaped({m.tool_call_id: str(m.content) for m in results})
assert [m.content for m in state["messages"][: len(messages)]] == [m.content for m in messages]
report("langchain")
