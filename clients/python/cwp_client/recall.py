"""Recall on the client's side (`docs/rules.md#recall`): the tool the model calls to get back text
the planner took out of its window, and the text a tool returns to the model.

A framework hook declares the tool to its framework before any plan is made (a LangChain tool, a
Pydantic AI toolset, an OpenAI Agents `FunctionTool`), so the tool's words are kept here as the
service writes them in a plan's `recall_tool`: the name's default, the description `D` and the
parameters `S`. A plan's own `recall_tool` is the declaration for a caller that sends its window
to a provider itself.

A recall answer comes in pages of `max_chars`; the tool's text tells the model how to ask for the
next one, naming the tool, so the text is made where the tool's name is known: `recall_text`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cwp_client.generated.models.recall_response import RecallResponse

DEFAULT_TOOL_NAME = "context_recall"

DESCRIPTION = (
    "Get back text that was taken out of your context window to save space: a tool result shown "
    "as cleared or truncated, or earlier messages that were dropped or summarized. Give ref (the "
    "tool_call_id shown in a cleared or truncated result) to get that result whole, or query "
    "(words or identifiers it contained: a path, an id, a number) to search everything earlier "
    "in this conversation. Long answers come in pages: ask again with page 2, 3, and so on."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ref": {
            "type": "string",
            "description": "the tool_call_id of a cleared or truncated result",
        },
        "query": {
            "type": "string",
            "description": "words or identifiers to search the earlier conversation for",
        },
        "page": {"type": "integer", "description": "which page of a long answer, from 1"},
    },
}


def tool_name_of(option: Any) -> str | None:
    """The tool's name for a plan's `recall` option as sent (a mapping or a generated
    `PlanRecall`); None when the option is absent or null (recall off)."""
    if option is None:
        return None
    if hasattr(option, "to_dict") and callable(option.to_dict):
        option = option.to_dict()
    name = option.get("tool_name") if isinstance(option, Mapping) else None
    return name if isinstance(name, str) else DEFAULT_TOOL_NAME


def recall_text(answer: RecallResponse, tool_name: str = DEFAULT_TOOL_NAME) -> str:
    """The text the recall tool returns to the model: the answer's `text`, and, when a page
    follows, a line saying how to ask for it."""
    if answer.page < answer.pages:
        return (
            f"{answer.text}\n[page {answer.page} of {answer.pages}: "
            f"call {tool_name} with page {answer.page + 1} for more]"
        )
    return answer.text


def recall_arguments(arguments: Any) -> tuple[dict[str, Any], str | None]:
    """A model's call of the recall tool as the keywords of a session's `recall`, or the text
    that tells the model what was wrong with it (no request is then made). An empty `ref` or
    `query` counts as absent, and a null `page` as page 1: models often fill every parameter."""
    if not isinstance(arguments, Mapping):
        return {}, "Call it with an object: ref or query, and page."
    ref, query, page = arguments.get("ref"), arguments.get("query"), arguments.get("page")
    given = {
        name: value for name, value in (("ref", ref), ("query", query)) if value not in (None, "")
    }
    if len(given) != 1:
        return {}, "Give exactly one of ref (a tool_call_id) and query (words to search for)."
    if any(not isinstance(value, str) for value in given.values()):
        return {}, "ref and query are strings."
    if page is None:
        page = 1
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        return {}, "page is a whole number from 1."
    return {**given, "page": page}, None
