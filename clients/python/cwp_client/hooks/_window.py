"""Where each entry of a plan's window came from: what every hook needs to map the window back
onto its framework's messages. No framework is imported here.

The planner returns a kept message verbatim, writes the drop notice itself, and, when the plan
shapes results (`collapse`, `cap`), returns a shaped result as the caller's message with only its
text replaced; the plan's `shaped` list names each one by its index in the transcript as sent
(`message_index`) and in the window (`window_index`).

A summary request's model request (`Plan.summary_request["request"]`) is written as the window
is, from the same messages, but comes with no such list: `placed_request` finds a shaped result
there by its tool call id instead. Its other new entries are the planner's own user messages (the
summary it holds and the instruction).

Recall (`docs/rules.md#recall`): every hook gives the model the recall tool as a tool of its
framework and answers a call of it with `answer_recall` (or `aanswer_recall`): the session's
`recall` over the history it last planned, and the text its `recall_text` makes of the answer; a
call whose arguments the service would refuse gets a sentence saying what to give instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cwp_client.planner import Plan
from cwp_client.recall import recall_arguments
from cwp_client.session import AsyncPlannerSession, PlannerSession

# What every hook's `recall` defaults to: on, with the tool's default name.
RECALL_ON: Mapping[str, Any] = {}


@dataclass(frozen=True)
class Placed:
    """One window entry: `source` is the index of the message sent that it is (None for one the
    planner wrote, the notice); `shaped` says its text replaced that message's text."""

    entry: Any
    source: int | None
    shaped: bool


def placed_window(plan: Plan, sent: Sequence[Any]) -> list[Placed]:
    """Each entry of `plan.window` with its source among `sent` (the messages as planned)."""
    shaped = {
        item["window_index"]: item["message_index"]
        for item in plan.shaped
        if item.get("window_index") is not None
    }
    placed: list[Placed] = []
    start = 0
    for position, entry in enumerate(plan.window):
        source = shaped.get(position)
        if source is not None:
            placed.append(Placed(entry, source, True))
            start = source + 1
            continue
        found = next((k for k in range(start, len(sent)) if sent[k] == entry), None)
        placed.append(Placed(entry, found, False))
        if found is not None:
            start = found + 1
    return placed


def placed_request(entries: Sequence[Any], sent: Sequence[Any]) -> list[Placed]:
    """Each message of a summary request's model request with its source among `sent`: a
    message as sent, a result with the call id of one sent (shaped), or the planner's own."""
    placed: list[Placed] = []
    start = 0
    for entry in entries:
        found = next((k for k in range(start, len(sent)) if sent[k] == entry), None)
        shaped = False
        call_id = result_call_id(entry)
        if found is None and call_id is not None:
            found = next(
                (k for k in range(start, len(sent)) if result_call_id(sent[k]) == call_id), None
            )
            shaped = found is not None
        placed.append(Placed(entry, found, shaped))
        if found is not None:
            start = found + 1
    return placed


def result_call_id(message: Any) -> str | None:
    """The call id a tool result answers: a `tool` message's `tool_call_id` (OpenAI, native), a
    `function_call_output` item's `call_id` (Responses); None for anything else."""
    if not isinstance(message, dict):
        return None
    if message.get("role") == "tool":
        found = message.get("tool_call_id")
    elif message.get("type") == "function_call_output":
        found = message.get("call_id")
    else:
        return None
    return found if isinstance(found, str) else None


def text_of(content: Any) -> str:
    """A message's text: a string as it is, a list of parts as the text of its text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = (part.get("text") if isinstance(part, dict) else part for part in content)
        return "".join(text for text in texts if isinstance(text, str))
    return "" if content is None else str(content)


def chosen_summarizer(
    summarize: Any, session: Any, framework_model: Callable[[], Callable[..., Any]]
) -> Callable[..., Any] | None:
    """The summarizer a hook gives one plan: with `True` (every hook's default) the framework's own
    model (`framework_model()`), unless the session was made with a summarizer of its own, which
    then serves; a function, that function; `None` or `False`, none from the hook (a session's own
    still serves)."""
    if summarize is True:
        return None if getattr(session, "summarize", None) is not None else framework_model()
    if summarize is None or summarize is False:
        return None
    return summarize  # type: ignore[no-any-return]


def recall_option(recall: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A hook's `recall` as the plan option it sends (a copy), None for off."""
    return None if recall is None else dict(recall)


def answer_recall(session: PlannerSession | AsyncPlannerSession, arguments: Any) -> str:
    """The recall tool's text for a model's call with `arguments`, through a `PlannerSession`."""
    if not isinstance(session, PlannerSession):
        raise TypeError("a synchronous recall is answered through a PlannerSession")
    call, problem = recall_arguments(arguments)
    if problem is not None:
        return problem
    return session.recall_text(session.recall(**call))


async def aanswer_recall(session: PlannerSession | AsyncPlannerSession, arguments: Any) -> str:
    """`answer_recall` through either session (a `PlannerSession`'s request then blocks)."""
    if isinstance(session, PlannerSession):
        return answer_recall(session, arguments)
    call, problem = recall_arguments(arguments)
    if problem is not None:
        return problem
    return session.recall_text(await session.recall(**call))
