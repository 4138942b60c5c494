"""Clear's properties over random agent runs, through the core (docs/rules.md#clear).

An agent run here is a task, then steps of an assistant message calling one to three tools and
their results (long, short, already shaped), with a person's message now and then. The properties:
what is never cleared; clearing is idempotent; appending steps moves the boundary only forward,
by `step` read results, and changes a text at or before the old boundary only where a result
stopped being an exception (a tool's latest there, once a newer one of the tool came before the
new boundary); under `fit`, a plan whose clearing alone meets the target removes nothing, and the
budget counts the total before clearing. The exact choice is checked against the reference of
`tests/core/test_shaping_properties.py`, which the shaping properties also run with `clear`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.core.ledger import StandingRow
from app.core.messages import Message, ToolCall
from app.core.plan_types import CapOption, ClearOption, Fit, PlanOptions, SlidingWindow, WindowPlan
from app.core.tokens import estimate_tokens, message_tokens
from app.core.window import plan_window
from tests.core.test_shaping_properties import (
    reference_at_or_before,
    reference_name_of,
    reference_of,
    reference_placeholder,
    reference_read,
    window,
)

TOOLS = ("read", "grep", "bash")
Draw = Any


def texts_of(draw: Draw, call_id: str) -> str:
    kind = draw(st.sampled_from(["long"] * 5 + ["short", "edge", "cleared"]))
    if kind == "long":
        return draw(st.sampled_from("abc")) * draw(st.sampled_from([107, 150, 400]))
    if kind == "short":
        return "ok"
    if kind == "edge":  # as long as its placeholder, or one longer
        return "e" * (len(reference_placeholder(call_id, "read", 999)) + draw(st.integers(-1, 1)))
    return reference_placeholder(call_id, draw(st.sampled_from(TOOLS)), 800)


@st.composite
def steps(draw: Draw, start: int, count: int) -> list[Message]:
    """`count` steps with call ids numbered from `start`; each an assistant message with calls
    and their results, or a person's message."""
    messages: list[Message] = []
    number = start
    for _ in range(count):
        if draw(st.integers(0, 6)) == 0:
            messages.append(Message("user", "and then?"))
            continue
        calls = []
        for _ in range(draw(st.integers(1, 3))):
            number += 1
            calls.append(ToolCall(f"c{number}", draw(st.sampled_from(TOOLS))))
        messages.append(Message("assistant", draw(st.sampled_from(["", "next"])), tuple(calls)))
        for call in calls:
            named = draw(st.booleans())
            messages.append(
                Message(
                    "tool",
                    texts_of(draw, call.id),
                    tool_call_id=call.id,
                    tool_name=call.name if named else None,
                    not_dispatched=draw(st.integers(0, 9)) == 0,
                )
            )
    return messages


@st.composite
def clear_options(draw: Draw) -> ClearOption:
    return ClearOption(
        keep_last=draw(st.sampled_from([0, 1, 3])),
        step=draw(st.sampled_from([1, 2, 3, 5])),
        exclude_tools=frozenset(draw(st.lists(st.sampled_from(TOOLS), max_size=1))),
    )


@st.composite
def runs(draw: Draw) -> tuple[list[Message], PlanOptions]:
    messages = [Message("user", "TASK"), *draw(steps(0, draw(st.integers(1, 12))))]
    ids = [m.tool_call_id for m in messages if m.tool_call_id]
    ledger = None
    if ids and draw(st.booleans()):
        standings = st.sampled_from(["fact", "open", "noise", "ruled-out"])
        ledger = tuple(
            StandingRow(draw(st.sampled_from(ids)), draw(standings))
            for _ in range(draw(st.integers(0, 4)))
        )
    cap = CapOption(draw(st.sampled_from([120, 300]))) if draw(st.booleans()) else None
    collapse = "ledger-and-facts" if ledger is not None and draw(st.booleans()) else None
    options = PlanOptions(
        strategy=SlidingWindow(draw(st.integers(1, 30))),
        keep_last_tool_results=draw(st.integers(0, 2)),
        ledger=ledger,
        collapse=collapse,
        cap=cap,
        clear=draw(clear_options()),
    )
    return messages, options


def cleared_indices(result: WindowPlan) -> list[int]:
    return [s.index for s in result.shaped_results if s.action == "cleared"]


def shaped_texts(messages: list[Message], result: WindowPlan) -> list[str]:
    out = [m.content for m in messages]
    for entry in result.shaped_results:
        out[entry.index] = entry.content
    return out


@given(runs())
def test_the_plan_clears_what_the_reference_clears(case: tuple[list[Message], PlanOptions]) -> None:
    messages, options = case
    result = plan_window(messages, options)
    assert [(s.index, s.action, s.content) for s in result.shaped_results] == [
        (s.index, s.action, s.content) for s in reference_of(messages, options)[1]
    ]


@given(runs())
def test_what_is_never_cleared(case: tuple[list[Message], PlanOptions]) -> None:
    messages, options = case
    assert options.clear is not None
    cleared = set(cleared_indices(plan_window(messages, options)))
    read = reference_read(messages)
    latest: dict[str, int] = {}
    for index, message in enumerate(messages):
        name = reference_name_of(messages, message)
        if name is not None and message.role == "tool" and message.tool_call_id:
            latest[name] = index
    fold = {row.tool_call_id: row.standing for row in options.ledger or ()}
    for index in cleared:
        message = messages[index]
        name = reference_name_of(messages, message)
        assert index in read  # results after the last assistant message: never
        if options.keep_last_tool_results > 0:
            assert latest.get(name or "") != index  # each tool's latest result: never
        assert name not in options.clear.exclude_tools
        assert fold.get(message.tool_call_id or "") not in ("fact", "open")
        placeholder = reference_placeholder(message.tool_call_id or "", name, len(message.content))
        assert len(message.content) > len(placeholder)
        assert index in reference_at_or_before(messages, options.clear)


@given(runs())
def test_clearing_is_idempotent(case: tuple[list[Message], PlanOptions]) -> None:
    messages, options = case
    first = plan_window(messages, options)
    sent = [
        m._replace(content=t) for m, t in zip(messages, shaped_texts(messages, first), strict=True)
    ]
    again = plan_window(sent, options)
    assert again.shaped_results == ()
    assert window(sent, again) == window(messages, first)


@given(runs(), st.data())
def test_appending_steps_moves_the_boundary_forward_by_steps(
    case: tuple[list[Message], PlanOptions], data: st.DataObject
) -> None:
    messages, options = case
    clear = options.clear
    assert clear is not None
    longer = [*messages, *data.draw(steps(1000, data.draw(st.integers(1, 6))))]
    old_before = reference_at_or_before(messages, clear)
    new_before = reference_at_or_before(longer, clear)
    # Forward only, and by whole steps of read results.
    assert new_before[: len(old_before)] == old_before
    assert (len(new_before) - len(old_before)) % clear.step == 0
    old, new = plan_window(messages, options), plan_window(longer, options)
    old_texts, new_texts = shaped_texts(messages, old), shaped_texts(longer, new)
    old_actions = {s.index: s.action for s in old.shaped_results}
    new_actions = {s.index: s.action for s in new.shaped_results}
    for index in range(len(messages)):
        if old_texts[index] == new_texts[index]:
            continue
        # Only a result that was spared before and is cleared now: at or before the new boundary.
        assert new_actions.get(index) == "cleared" and old_actions.get(index) != "cleared", index
        assert index in new_before
        if index <= (old_before[-1] if old_before else -1):
            # Before the old boundary, only a tool's latest there can stop being an exception.
            name = reference_name_of(messages, messages[index])
            later = [
                i
                for i in old_before
                if i > index and reference_name_of(messages, messages[i]) == name
            ]
            assert options.keep_last_tool_results > 0 and name is not None and not later


def tokens(messages: list[Message]) -> int:
    return sum(message_tokens(message, estimate_tokens) for message in messages)


@given(runs(), st.data())
def test_under_fit_clearing_first_and_nothing_removed_when_it_is_enough(
    case: tuple[list[Message], PlanOptions], data: st.DataObject
) -> None:
    messages, options = case
    options = replace(options, clear=replace(options.clear, trigger_tokens=None))  # type: ignore[type-var]
    unclear, _ = reference_of(messages, replace(options, clear=None))
    before = tokens(unclear)
    max_tokens = data.draw(st.integers(max(1, before // 2), before + 5))
    target = data.draw(st.integers(max(1, max_tokens // 3), max_tokens))
    fitted = replace(options, strategy=Fit(max_tokens, target, 0, data.draw(st.integers(1, 3))))
    result = plan_window(messages, fitted)
    assert result.budget is not None
    assert result.budget.total_before == before  # the total before clearing
    if before <= max_tokens:
        assert not result.engaged and cleared_indices(result) == []
        return
    cleared_total = tokens(
        [
            m._replace(content=t)
            for m, t in zip(messages, shaped_texts(messages, result), strict=True)
        ]
    )
    if cleared_total <= target:
        assert not result.engaged and result.removed == () and result.record is None
        assert result.budget.total_after == cleared_total and result.budget.met
    else:
        assert result.engaged
