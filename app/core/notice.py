"""The drop notice: its exact text, which tool names it may quote, and the ladder of rungs.

When a removal reaches the front of the window, a user message may take the span's place so the
model knows history is gone (and, on the rich rung, which tools to call again rather than recall
their output from memory). A notice is inserted only when it is strictly smaller than what it
replaces. Tool names are model-visible text written by tools, so only plain identifiers are quoted;
others are left out, never shortened or escaped. When nothing fits and a non-user message would
open the window, providers would refuse it, so the removal is refused instead. Under `fit` the
notice names no iteration.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.core.plan_types import Rung, StrategyKind

SAFE_TOOL_NAME = re.compile(r"[A-Za-z0-9_.:\-]{1,48}")
LISTED_TOOL_NAMES = 4

KEPT_REQUEST_SENTENCE = (
    "Your current request is kept: it is still above this line, and no strategy may remove it. "
)
# With recall on, both rungs say how to get the removed messages back
# (docs/rules.md#the-recall-option).
RECALL_SENTENCE = (
    "You can get any of them back: call {tool} with a query (words or identifiers they contained). "
)


def is_safe_tool_name(name: str) -> bool:
    """1 to 48 ASCII letters, digits, `_`, `.`, `:` or `-`, the whole name (no trailing newline)."""
    return SAFE_TOOL_NAME.fullmatch(name) is not None


def tool_name_list(names: Sequence[str]) -> str | None:
    """The first four safe names, `, …` when more are safe; None when no name is safe."""
    safe = [name for name in names if is_safe_tool_name(name)]
    if not safe:
        return None
    listed = ", ".join(safe[:LISTED_TOOL_NAMES])
    return listed + ", …" if len(safe) > LISTED_TOOL_NAMES else listed


def notice_text(
    *,
    removed_count: int,
    iteration: int,
    strategy: StrategyKind,
    kept_request: bool,
    tool_list: str | None,
    recall_tool: str | None = None,
) -> str:
    """The notice; `kept_request` adds the kept-request sentence, `recall_tool` (recall on: the
    tool's name) the recall sentence, `tool_list` the tool sentence.

    Under `fit` the iteration is left out: the notice is then the same text for as long as the
    span is the same, so a provider's prompt cache keeps serving the window after it (an agent
    that counts its iterations would otherwise miss the cache on every request).
    """
    kept = KEPT_REQUEST_SENTENCE if kept_request else ""
    recall = "" if recall_tool is None else RECALL_SENTENCE.format(tool=recall_tool)
    when = "" if strategy == "fit" else f" at iteration {iteration}"
    tools = (
        ""
        if tool_list is None
        else f"Tool results are among them ({tool_list}): call the tool again if you need that "
        "output; do not rebuild ids or values from memory. "
    )
    return (
        f"[dropped history — {removed_count} earlier message(s) were removed from this window"
        f"{when} by the '{strategy}' strategy of the context planner. {kept}{recall}{tools}"
        "They were not summarized; they are simply not re-sent.]"
    )


@dataclass(frozen=True, slots=True)
class LadderResult:
    """What takes the span's place: a notice (`content`, `rung`), nothing, or a refusal."""

    content: str | None = None
    rung: Rung | None = None
    refused: bool = False


def climb_ladder(
    *,
    span_size: int,
    size: Callable[[str], int] = len,
    removed_count: int,
    iteration: int,
    strategy: StrategyKind,
    kept_request: bool,
    dropped_names: Sequence[str],
    non_user_would_open: bool,
    recall_tool: str | None = None,
) -> LadderResult:
    """Rich if it fits, else plain if it fits, else silent, unless a non-user would open the window.

    A rung fits when its `size` is strictly below the span's (`span_size`): characters, or under
    the `fit` strategy tokens. Only the tool-name sentence is traded for size; the kept-request
    sentence, and with recall on the recall sentence, are on both rungs.
    """
    tool_list = tool_name_list(dropped_names)
    rungs: list[tuple[Rung, str | None]] = [("plain", None)]
    if tool_list is not None:
        rungs.insert(0, ("rich", tool_list))
    for rung, listed in rungs:
        content = notice_text(
            removed_count=removed_count,
            iteration=iteration,
            strategy=strategy,
            kept_request=kept_request,
            tool_list=listed,
            recall_tool=recall_tool,
        )
        if size(content) < span_size:
            return LadderResult(content, rung)
    return LadderResult(refused=non_user_would_open)
