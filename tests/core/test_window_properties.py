"""The guarantees of docs/rules.md#guarantees, over random transcripts and options (`clear` on
in some of them, docs/rules.md#clear; summaries asked for and sent in some,
docs/rules.md#summaries)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from itertools import groupby
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from app.core.current_request import current_request_index
from app.core.defaults import DEFAULT_FRAME_DETECTION
from app.core.ledger import STANDINGS, StandingRow
from app.core.messages import Message, ToolCall
from app.core.plan_types import ClearOption, Fit, SummarizeOption, SummaryEntry
from app.core.tokens import estimate_tokens, message_tokens, text_message_tokens
from app.core.turns import segment_turns
from app.core.window import (
    Measured,
    Paused,
    PlanOptions,
    PriorRecord,
    SlidingWindow,
    TokenBudget,
    WindowPlan,
    plan_window,
)
from tests.core.window_fixtures import new_window, prior_record

TOOLS = ("look", "move", "probe", "has space", "x" * 49)
TEXTS = ("", "ok", "go", "x" * 60, "y" * 250, "z" * 500)
FRAMES = (
    "[dropped history — 1 earlier message(s)",
    "[compacted history] old",
    "[image removed from the context window]",
)
KINDS = (
    "user",
    "injected",
    "frame",
    "system",
    "text",
    "calls",
    "calls",
    "calls",
    "calls",
    "orphan",
)
REASONS = ("last-tool-result", "last-tool-result", "ledger-fact", "inside-keep-window")


@dataclass(frozen=True)
class Case:
    messages: list[Message]
    options: PlanOptions


@st.composite
def transcripts(draw: st.DrawFn) -> list[Message]:
    """Well-formed batches (results right after their call), plus the oddities the rules allow:
    leading and orphan results, unanswered calls, results that never ran, nameless results."""
    messages: list[Message] = []
    counter = 0
    # The system envelope most OpenAI and native transcripts open with
    # (docs/rules.md#front-or-further-in).
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
        messages.append(Message("system", draw(st.sampled_from(["Be brief.", "x" * 60]))))
    opening = draw(st.sampled_from(["request", "request", "lead", "none"]))
    if opening == "lead":
        messages.append(Message("tool", draw(st.sampled_from(TEXTS)), tool_call_id="lead"))
    elif opening == "request":
        messages.append(Message("user", draw(st.sampled_from(["ask", "x" * 60]))))
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(KINDS))
        text = draw(st.sampled_from(TEXTS))
        if kind == "user":
            messages.append(Message("user", draw(st.sampled_from(["ask", "again", *TEXTS]))))
        elif kind == "injected":
            messages.append(Message("user", text, injected=True))
        elif kind == "frame":
            messages.append(Message("user", draw(st.sampled_from(FRAMES))))
        elif kind == "system":
            messages.append(Message("system", text))
        elif kind == "text":
            messages.append(Message("assistant", text))
        elif kind == "orphan":
            messages.append(Message("tool", text, tool_call_id="nobody", tool_name="look"))
        else:
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                counter += 1
                calls.append(ToolCall(f"c{counter}", draw(st.sampled_from(TOOLS))))
            messages.append(Message("assistant", text, tool_calls=tuple(calls)))
            for call in calls:
                fate = draw(st.sampled_from(["named", "named", "nameless", "not-run", "none"]))
                if fate == "none":
                    continue
                messages.append(
                    Message(
                        "tool",
                        draw(st.sampled_from(TEXTS)),
                        tool_call_id=call.id,
                        tool_name=call.name if fate == "named" else None,
                        not_dispatched=fate == "not-run",
                    )
                )
    return messages


@st.composite
def fit_strategies(draw: st.DrawFn, messages: list[Message], keep: int) -> Fit:
    """A `fit` budget around the transcript's own total, so it engages about half the time."""
    total = sum(message_tokens(message, estimate_tokens) for message in messages)
    reserve = draw(st.sampled_from([0, 0, 7, 40]))
    max_tokens = draw(st.integers(max(1, (total + reserve) // 3), total + reserve + 20))
    target = draw(st.one_of(st.none(), st.integers(1, max_tokens)))
    overflow = draw(st.sampled_from(["cap", "report"]))
    return Fit(max_tokens, target, reserve, keep, overflow)


def call_ids(messages: list[Message]) -> list[str]:
    return [call.id for message in messages for call in message.tool_calls]


@st.composite
def cases(draw: st.DrawFn, prior: bool = True) -> Case:
    messages = draw(transcripts())
    ids = call_ids(messages)
    keep = draw(st.integers(1, 5))
    strategy: SlidingWindow | TokenBudget | Fit
    kind = draw(st.integers(0, 5))
    if kind == 0:
        measured = draw(
            st.sampled_from([None, Measured(0, 0), Measured(50, 1), Measured(5000, 10)])
        )
        strategy = TokenBudget(100.0, keep, measured)
    elif kind == 1:
        strategy = draw(fit_strategies(messages, keep))
    else:
        strategy = SlidingWindow(keep)
    ledger = None
    if draw(st.booleans()):
        ledger = tuple(
            StandingRow(call_id, draw(st.sampled_from(["fact", *STANDINGS])))
            for call_id in ids
            if draw(st.integers(0, 2)) > 0
        )
    user_texts = [m.content for m in messages if m.role == "user"]
    request_text = draw(st.sampled_from([None, "absent", *user_texts]))
    paused = None
    if ids and draw(st.booleans()):
        paused = Paused(draw(st.sampled_from(ids)), draw(st.booleans()))
    prior_records: tuple[PriorRecord, ...] = ()
    if prior:
        prior_records = tuple(
            draw(
                st.lists(
                    st.builds(
                        PriorRecord,
                        st.sampled_from([0, 0, 1]),
                        st.lists(st.sampled_from(REASONS), min_size=1, max_size=2).map(tuple),
                        st.sampled_from([None, "fit", "sliding-window", "token-budget"]),
                    ),
                    min_size=draw(st.sampled_from([0, 2])),
                    max_size=3,
                )
            )
        )
    options = PlanOptions(
        strategy=strategy,
        keep_last_tool_results=draw(st.integers(0, 3)),
        ledger=ledger,
        keep_ledger_facts=draw(st.integers(0, 3)),
        request_text=request_text,
        paused=paused,
        iteration=draw(st.integers(1, 12)),
        prior_records=prior_records,
        # The guarantees hold with old results cleared too (docs/rules.md#clear).
        clear=draw(st.sampled_from([None, None, ClearOption(), ClearOption(keep_last=0, step=1)])),
        # And with summaries asked for and sent (docs/rules.md#summaries): entries near the
        # front, so that some apply.
        summarize=draw(st.sampled_from([None, SummarizeOption(min_span_tokens=0)])),
        summaries=tuple(
            draw(
                st.lists(
                    st.builds(
                        summary_entry,
                        st.integers(0, 3),
                        st.integers(0, 12),
                        st.sampled_from(["S", "s" * 400]),
                        st.sampled_from([None, None, "changed"]),
                    ),
                    max_size=3,
                )
            )
        ),
    )
    return Case(messages, options)


def summary_entry(first: int, extra: int, summary: str, mismatch: Any) -> SummaryEntry:
    return SummaryEntry(first, first + extra, summary, mismatch)


def cc_of(case: Case, result: WindowPlan) -> int:
    return max(0, len(result.turns) - case.options.strategy.keep_recent_turns)


def turn_end(result: WindowPlan, index: int) -> int:
    return result.turns[index]["start"] + result.turns[index]["length"]


def evicted_runs(result: WindowPlan) -> list[tuple[int, int]]:
    """The maximal runs of consecutive evicted turns."""
    runs: list[tuple[int, int]] = []
    for index in result.evicted:
        if runs and runs[-1][1] == index - 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Reported spans with the ones that touch joined (a run two stages took is two spans)."""
    runs: list[tuple[int, int]] = []
    for first, last in spans:
        if runs and runs[-1][1] == first - 1:
            runs[-1] = (runs[-1][0], last)
        else:
            runs.append((first, last))
    return runs


def first_span(result: WindowPlan) -> tuple[int, int] | None:
    """The turns of the span of docs/rules.md#choosing-the-span that left (None: none), the
    one the notice stands for."""
    if result.budget is not None:
        spans = [span for span in result.budget.spans if span.stage == "span"]
        return (spans[0].from_turn, spans[0].through_turn) if spans else None
    return (result.evicted[0], result.evicted[-1]) if result.evicted else None


def last_assistant_turn(messages: list[Message]) -> int:
    """The turn of the last assistant message (the turn count when there is none)."""
    segments = segment_turns(messages)
    for segment in reversed(segments):
        if any(m.role == "assistant" for m in messages[segment.start : segment.end]):
            return segment.turn
    return len(segments)


@given(cases())
def test_every_turn_is_kept_or_evicted_once_and_one_span_leaves(case: Case) -> None:
    result = plan_window(case.messages, case.options)
    turns = range(len(result.turns))
    assert sorted([*result.kept, *result.evicted]) == list(turns)
    assert [t["fate"] == "evicted" for t in result.turns] == [i in result.evicted for i in turns]
    runs = evicted_runs(result)
    if not isinstance(case.options.strategy, Fit):
        assert len(runs) <= 1  # one span
    else:
        # Several spans only as docs/rules.md#within-the-limit takes them, each reported.
        assert result.budget is not None
        reported = [(span.from_turn, span.through_turn) for span in result.budget.spans]
        assert merged(reported) == runs
        assert len(runs) <= 1 or result.budget.stage != "span"
    if result.removed == ():
        assert result.evicted == () and result.evicted_messages == () and result.notice is None
    else:
        # whole turns only: the ranges start and end on turn boundaries, and are apart
        covered = [p for start, end in result.removed for p in range(start, end)]
        assert covered == [
            p
            for index in result.evicted
            for p in range(result.turns[index]["start"], turn_end(result, index))
        ]
        assert all(a[1] < b[0] for a, b in itertools.pairwise(result.removed))
        assert result.evicted_messages == tuple(covered)
        assert result.stats.removed_message_count == len(covered)
    if not result.engaged:
        assert result.refusals == () and result.record is None and result.removed == ()
        assert all(turn["held_by"] is None for turn in result.turns)


@given(cases())
def test_calls_and_results_leave_together(case: Case) -> None:
    result = plan_window(case.messages, case.options)
    window = new_window(case.messages, result)
    called = set(call_ids(case.messages))
    calls_in_window = set(call_ids(window))
    answered_in_input = {m.tool_call_id for m in case.messages if m.role == "tool"}
    answered_in_window = {m.tool_call_id for m in window if m.role == "tool"}
    for call_id in called:
        if call_id in answered_in_input:
            assert (call_id in calls_in_window) == (call_id in answered_in_window)


@given(cases())
def test_protected_turns_never_leave(case: Case) -> None:
    result = plan_window(case.messages, case.options)
    segments = segment_turns(case.messages)
    answered = {m.tool_call_id for m in case.messages if m.role == "tool"}
    request = current_request_index(
        case.messages, case.options.request_text, frames=DEFAULT_FRAME_DETECTION
    )
    paused = case.options.paused
    # Under `fit`, the keep window yields only to its stage, and the stages never take the
    # last assistant message's turn or any after it (docs/rules.md#within-the-limit).
    budget = result.budget
    keep_yields = budget is not None and budget.stage in ("keep-window", "caps")
    staged = set()
    if budget is not None:
        for span in budget.spans:
            if span.stage != "span":
                staged.update(range(span.from_turn, span.through_turn + 1))
    assert all(turn < last_assistant_turn(case.messages) for turn in staged)
    for segment in segments:
        held = case.messages[segment.start : segment.end]
        protected = (
            (request is not None and segment.start <= request < segment.end)
            or any(m.role == "system" for m in held)
            or any(call.id not in answered for m in held for call in m.tool_calls)
            or (paused is not None and paused.tool_call_id in call_ids(held))
            or (segment.turn >= cc_of(case, result) and not keep_yields)
        )
        if protected:
            assert segment.turn not in result.evicted


@given(cases())
def test_pins_never_exceed_their_ceilings(case: Case) -> None:
    result = plan_window(case.messages, case.options)
    blocks = [
        (result.pins.last_tool_result, case.options.keep_last_tool_results),
        (result.pins.ledger_fact, case.options.keep_ledger_facts),
    ]
    if case.options.ledger is None:
        assert result.pins.ledger_fact is None and result.dropped_standings is None
    for block, ceiling in blocks:
        if ceiling == 0 or not result.engaged:
            assert block is None
        if block is None:
            continue
        assert block.limit == ceiling
        assert len(block.pinned) <= ceiling and block.yielded >= 0
        if block.stand_down:
            assert block.pinned == () and block.yielded == 0
        else:
            assert block.pinned
        for pin in block.pinned:
            assert pin.turn_index < cc_of(case, result)
            assert result.turns[pin.turn_index]["fate"] == "kept"


@given(cases())
def test_the_new_window_is_consistent_and_opens_on_a_user_after_a_front_removal(
    case: Case,
) -> None:
    result = plan_window(case.messages, case.options)
    # The window carries the shaped texts (cleared and capped results): its figures count them.
    texts = {
        shaped.index: shaped.content
        for shaped in result.shaped_results
        if shaped.action != "image-cleared"
    }
    sent = [
        message._replace(content=texts[index]) if index in texts else message
        for index, message in enumerate(case.messages)
    ]
    window = new_window(sent, result)
    stats = result.stats
    assert stats.messages_after == len(window)
    assert stats.chars_after == sum(len(m.content) for m in window)
    assert stats.turns_after == len(segment_turns(window))
    if result.removed != () and result.removed[0][0] == 0:
        assert window[0].role == "user"
    if result.notice is not None:
        assert result.removed != ()
        assert result.notice.window_index == result.removed[0][0]
        span_turns = first_span(result)
        assert span_turns is not None
        start, end = result.turns[span_turns[0]]["start"], turn_end(result, span_turns[1])
        assert start == result.removed[0][0]
        span = sent[start:end]
        if isinstance(case.options.strategy, Fit):  # the ladder compares tokens
            notice = text_message_tokens(result.notice.content, estimate_tokens)
            assert notice < sum(message_tokens(m, estimate_tokens) for m in span)
        else:
            assert len(result.notice.content) < sum(len(m.content) for m in span)


def envelope_messages(messages: list[Message]) -> int:
    """Messages in the system envelope: the leading turns whose first message is a system one."""
    count = 0
    for segment in segment_turns(messages):
        if messages[segment.start].role != "system":
            break
        count = segment.end
    return count


@given(cases())
def test_a_removal_right_after_the_envelope_leaves_a_user_message_there(case: Case) -> None:
    result = plan_window(case.messages, case.options)
    window = new_window(case.messages, result)
    front = envelope_messages(case.messages)
    assert window[:front] == case.messages[:front]
    if result.removed != () and result.removed[0][0] == front:
        assert window[front].role == "user"
    if result.notice is not None:
        assert result.notice.window_index >= front
        assert window[result.notice.window_index].content == result.notice.content


def held_in(result: WindowPlan) -> set[int]:
    """The turns a first plan pinned or refused (a refusal row or a refused drop)."""
    pinned = {
        pin.turn_index
        for block in (result.pins.last_tool_result, result.pins.ledger_fact)
        if block is not None
        for pin in block.pinned
    }
    refused = {
        t["index"]
        for t in result.turns
        if t["held_by"] not in (None, "not-reached", "within-budget")
    }
    return pinned | refused


@given(cases(prior=False))
def test_sending_the_window_back_never_evicts_what_was_held(case: Case) -> None:
    first = plan_window(case.messages, case.options)
    window = new_window(case.messages, first)
    records = () if first.record is None else (prior_record(first.record),)
    second = plan_window(window, replace(case.options, prior_records=records))
    before, after = segment_turns(case.messages), segment_turns(window)
    for index in held_in(first):
        assert index not in first.evicted
        gone = sum(1 for turn in first.evicted if turn < index)
        notice = first.notice is not None and bool(first.evicted) and first.evicted[0] < index
        mapped = index - gone + notice
        assert window[after[mapped].start] is case.messages[before[index].start]
        assert mapped not in second.evicted


@given(cases())
def test_the_same_request_gives_the_same_plan(case: Case) -> None:
    copied: Any = [message._replace() for message in case.messages]
    assert orjson.dumps(plan_window(case.messages, case.options)) == orjson.dumps(
        plan_window(copied, case.options)
    )


def anthropic_sources(messages: list[Message]) -> list[Message]:
    """Group core messages as the Anthropic reader would: a user caller message holds the results
    of consecutive tool messages and, after them, at most one text message."""
    sourced: list[Message] = []
    caller = -1
    previous_role: str | None = None
    for message in messages:
        joins = previous_role == "tool" and message.role in ("tool", "user")
        caller += 0 if joins else 1
        sourced.append(message._replace(source=caller))
        previous_role = message.role
    return sourced


@given(cases())
def test_indices_are_reported_in_caller_messages(case: Case) -> None:
    messages = anthropic_sources(case.messages)
    result = plan_window(messages, case.options)
    segments = segment_turns(messages)
    sources = [m.source for m in messages]
    assert [t["start"] for t in result.turns] == [sources[s.start] for s in segments]
    assert [t["length"] for t in result.turns] == [
        len(set(sources[s.start : s.end])) for s in segments
    ]
    for refusal in result.refusals:
        assert refusal.message_index == result.turns[refusal.turn_index]["start"]
    for block in (result.pins.last_tool_result, result.pins.ledger_fact):
        for pin in () if block is None else block.pinned:
            assert pin.message_index == result.turns[pin.turn_index]["start"]
    if result.current_request is not None:
        request = current_request_index(
            messages, case.options.request_text, frames=DEFAULT_FRAME_DETECTION
        )
        assert result.current_request.message_index == sources[request or 0]
    stats = result.stats
    assert stats.messages_before == len(set(sources))
    window = new_window(messages, result)
    keys = [object() if m.source is None else m.source for m in window]
    assert stats.messages_after == len(list(groupby(keys)))
    if result.removed == ():
        assert result.evicted_messages == () and stats.removed_message_count == 0
    else:
        covered = {sources[p] for start, end in result.removed for p in range(start, end)}
        assert result.evicted_messages == tuple(sorted(covered))
        assert stats.removed_message_count == len(result.evicted_messages)
        if result.notice is not None:
            start = result.removed[0][0]
            assert result.notice.window_index == len(set(sources[:start]))
            # The notice counts the span's caller messages alone (docs/rules.md#within-the-limit).
            span_turns = first_span(result)
            assert span_turns is not None
            first_turn, last_turn = segments[span_turns[0]], segments[span_turns[1]]
            removed = len(set(sources[first_turn.start : last_turn.end]))
            if result.notice.rung == "summary":  # `{M}` summarized and `{K}` more: N in all
                counts = re.findall(
                    r"— (\d+) earlier|and (\d+) more removed", result.notice.content
                )
                assert sum(int(m or k) for m, k in counts[:2]) == removed
            else:
                assert f"— {removed} earlier" in result.notice.content
