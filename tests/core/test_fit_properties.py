"""The `fit` strategy's promises (docs/rules.md#the-fit-strategy), over random transcripts and
budgets.

- it never engages at or under `max_tokens`;
- engaged, the window's total is within `target_tokens` with the span shortened, or the whole
  removable span went (or the ladder refused it), and only then do the stages of
  docs/rules.md#within-the-limit run;
- a plan the span alone brings to the target removed the fewest turns: one turn fewer would not
  have met it;
- no window is over `max_tokens` unless every turn it keeps is one that never leaves and, with
  `overflow` `cap`, every kept result is capped as far as the caps go;
- the budget block adds up: total = system + window + reserve, before and after;
- in a full-history agent run (each request the whole history grown by one turn, the last two
  records sent back, the iteration counting), the previous cut is held whenever the span starts
  where it started, a turn ends where it ended, and its window fits `max_tokens` without the
  ladder refusing it; a held cut removes the caller messages the last one did; a last record of
  another strategy holds nothing and never errors.

The guarantees of docs/rules.md#guarantees (pins, the current request, unanswered calls, the keep
window, one span) are the properties of `test_window_properties.py`, whose cases include `fit`.
"""

from __future__ import annotations

from dataclasses import replace

import orjson
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from app.core.cap import marker_for
from app.core.messages import Message
from app.core.notice import climb_ladder
from app.core.plan_types import Fit, PlanOptions, PriorRecord, WindowPlan
from app.core.shaping import is_shaped
from app.core.tokens import estimate_tokens, message_tokens, text_message_tokens
from app.core.turns import segment_turns
from app.core.window import plan_window
from tests.core.test_window_properties import TEXTS, TOOLS, cases, fit_strategies, transcripts
from tests.core.window_fixtures import R, prior_record

# The two properties about an engaged plan keep only the cases that cut (about a third).
FILTERED = settings(suppress_health_check=[HealthCheck.filter_too_much])


def tokens(messages: list[Message]) -> int:
    return sum(message_tokens(message, estimate_tokens) for message in messages)


@st.composite
def fit_cases(draw: st.DrawFn, engaged: bool = False) -> tuple[list[Message], PlanOptions]:
    """A random case under `fit`; `engaged` draws a budget just under the total and a target
    close to it, so every plan engages and many can meet their target."""
    case = draw(cases(prior=False))
    keep = draw(st.integers(1, 4))
    strategy = draw(fit_strategies(case.messages, keep))
    total = tokens(case.messages) + strategy.reserve_tokens
    if engaged and total > 1:
        max_tokens = draw(st.integers(max(1, total - total // 4), total - 1))
        target = draw(st.integers(max(1, max_tokens - max_tokens // 8), max_tokens))
        strategy = replace(strategy, max_tokens=max_tokens, target_tokens=target)
    # The recounts below model cutting, not clearing: `clear` under `fit` has its own properties
    # (tests/core/test_clear_properties.py).
    # The notice's ladder is what these properties recount: no summaries (test_summaries.py).
    options = replace(case.options, strategy=strategy, clear=None, summarize=None, summaries=())
    return case.messages, options


def fit_of(options: PlanOptions) -> Fit:
    assert isinstance(options.strategy, Fit)
    return options.strategy


@given(fit_cases())
def test_fit_engages_iff_the_total_is_over_max_tokens(case: tuple[list[Message], PlanOptions]):
    messages, options = case
    result = plan_window(messages, options)
    fit = fit_of(options)
    total = tokens(messages) + fit.reserve_tokens
    assert result.engaged == (total > fit.max_tokens)
    assert result.budget is not None
    assert result.budget.total_before == total
    assert result.budget.total_after == result.stats.tokens_after + fit.reserve_tokens
    if not result.engaged:
        assert result.budget.met and result.budget.total_after == total
        assert result.removed == ()


def whole_span(messages: list[Message], options: PlanOptions) -> WindowPlan:
    """The plan of the longest removable span: a target no window can meet (each message costs
    at least 4 tokens)."""
    return plan_window(
        messages, replace(options, strategy=replace(fit_of(options), target_tokens=1))
    )


@FILTERED
@given(fit_cases(engaged=True))
def test_an_engaged_fit_meets_its_target_or_removes_the_whole_span(
    case: tuple[list[Message], PlanOptions],
):
    messages, options = case
    result = plan_window(messages, options)
    assume(result.engaged and not (result.budget and result.budget.held))
    budget = result.budget
    assert budget is not None
    longest = whole_span(messages, options)
    span = span_of(longest)
    ours = span_of(result)
    if budget.stage != "span":
        # The stages ran: the span left whole (or was refused) and left the window over target.
        assert ours == span
        event(f"stage {budget.stage}")
        return
    assert budget.met == (budget.total_after <= budget.target_tokens)
    if not budget.met:
        assert ours == span
        assert result.evicted == longest.evicted or not longest.budget.spans[1:]
    else:
        # The shortened span starts where the longest does and ends no later.
        assert span is not None and ours is not None
        assert ours[0] == span[0] and ours[1] <= span[1]
    within = [t["index"] for t in result.turns if t["held_by"] == "within-budget"]
    if within:
        assert span is not None and ours is not None
        assert within == list(range(ours[1] + 1, span[1] + 1))


def span_of(plan: WindowPlan) -> tuple[int, int] | None:
    """The span the engine chose: the turns the first span took, or the turns whose drop the
    ladder refused."""
    assert plan.budget is not None
    taken = [(s.from_turn, s.through_turn) for s in plan.budget.spans if s.stage == "span"]
    if taken:
        return taken[0]
    turns = [t["index"] for t in plan.turns if t["held_by"] == "replacement-not-smaller"]
    return (turns[0], turns[-1]) if turns else None


def window_total(
    messages: list[Message], result: WindowPlan, first: int, last: int, options: PlanOptions
) -> int | None:
    """The total the window would have without turns `first … last`, with the notice the ladder
    would give it; None when the ladder would refuse the drop."""
    segments = segment_turns(messages)
    start, end = segments[first].start, segments[last].end
    envelope = 0
    for segment in segments:
        if messages[segment.start].role != "system":
            break
        envelope += 1
    request = result.current_request
    kept_request = first == envelope + 1 and request is not None and request.turn_index == envelope
    ordinary = first == envelope
    fit = fit_of(options)
    rest = tokens(messages) - tokens(messages[start:end]) + fit.reserve_tokens
    if not ordinary and not kept_request:
        return rest
    names: dict[str, None] = {}
    calls = {call.id: call.name for m in messages for call in m.tool_calls}
    for message in messages[start:end]:
        if message.role == "tool" and not message.not_dispatched:
            name = message.tool_name or calls.get(message.tool_call_id or "")
            if name:
                names[name] = None
    ladder = climb_ladder(
        span_size=tokens(messages[start:end]),
        size=lambda text: text_message_tokens(text, estimate_tokens),
        removed_count=end - start,
        iteration=options.iteration,
        strategy="fit",
        kept_request=kept_request,
        dropped_names=tuple(names),
        non_user_would_open=ordinary and end < len(messages) and messages[end].role != "user",
    )
    if ladder.refused:
        return None
    return rest + (
        0 if ladder.content is None else text_message_tokens(ladder.content, estimate_tokens)
    )


@FILTERED
@given(fit_cases(engaged=True))
def test_one_turn_fewer_would_not_have_met_the_target(case: tuple[list[Message], PlanOptions]):
    messages, options = case
    result = plan_window(messages, options)
    assume(result.engaged and result.budget is not None and result.budget.met and result.evicted)
    assume(result.budget.stage == "span")
    first, last = result.evicted[0], result.evicted[-1]
    assert window_total(messages, result, first, last, options) == result.budget.total_after
    for shorter in range(first, last):
        total = window_total(messages, result, first, shorter, options)
        assert total is None or total > result.budget.target_tokens


@given(transcripts(), st.integers(1, 3))
def test_a_budget_at_the_total_never_engages(messages: list[Message], keep: int):
    total = tokens(messages)
    result = plan_window(messages, PlanOptions(strategy=Fit(max(1, total), keep_recent_turns=keep)))
    assert not result.engaged or total == 0


@st.composite
def full_history_runs(
    draw: st.DrawFn,
) -> tuple[list[Message], list[list[Message]], PlanOptions]:
    """A transcript, the turns an agent that keeps its whole history adds to it (one per
    request), and options under `fit` whose budget the run outgrows part of the way."""
    case = draw(cases(prior=False))
    # Mostly short results, so a cut often leaves room for several turns before the window
    # outgrows `max_tokens` again.
    texts = st.sampled_from([*TEXTS[:4], *TEXTS])
    turns = [
        R(f"g{number}", draw(st.sampled_from(TOOLS)), draw(texts))
        for number in range(draw(st.integers(3, 12)))
    ]
    final = tokens([*case.messages, *(message for turn in turns for message in turn)])
    max_tokens = draw(st.integers(max(1, final // 2), max(1, final * 4 // 5)))
    target = draw(st.one_of(st.none(), st.integers(max(1, max_tokens // 2), max_tokens)))
    strategy = Fit(max_tokens, target, 0, draw(st.integers(1, 3)))
    # Pins hold turns in the middle of the span, so a cut often cannot reach the target; fewer
    # pins let more runs reach the state where a cut can be held.
    pins = draw(st.sampled_from([0, 0, case.options.keep_last_tool_results]))
    return (
        case.messages,
        turns,
        replace(
            case.options,
            strategy=strategy,
            keep_last_tool_results=pins,
            clear=None,
            summarize=None,
            summaries=(),
        ),
    )


def without_held_cut(options: PlanOptions) -> PlanOptions:
    """The same request with records that hold no cut (the stand-down still reads them)."""
    records = tuple(replace(record, strategy=None) for record in options.prior_records)
    return replace(options, prior_records=records)


def held_cut_expected(
    messages: list[Message], result: WindowPlan, options: PlanOptions, count: int
) -> tuple[int, int] | None:
    """The span's first turn and the total of the window without the first `count` messages of
    the span (native: one core message per caller message), when the rule holds that cut: a
    turn ends there, the ladder does not refuse the drop and the window fits `max_tokens`."""
    span = span_of(whole_span(messages, without_held_cut(options)))
    if span is None or count == 0:
        return None
    first, last = span
    start = result.turns[first]["start"]
    ends = [
        turn["index"]
        for turn in result.turns[first : last + 1]
        if turn["start"] + turn["length"] == start + count
    ]
    if not ends:
        return None
    total = window_total(messages, result, first, ends[0], options)
    if total is None or total > fit_of(options).max_tokens:
        return None
    return start, total


@given(full_history_runs(), st.sampled_from([None, "sliding-window", "token-budget"]))
def test_a_full_history_agent_keeps_its_cut_while_it_fits(
    run: tuple[list[Message], list[list[Message]], PlanOptions], other: str | None
) -> None:
    messages, turns, options = run
    records: list[PriorRecord] = []
    cuts: list[tuple[int, ...]] = []
    held = 0
    for iteration, turn in enumerate([[], *turns], start=1):
        messages = [*messages, *turn]
        request = replace(options, iteration=iteration, prior_records=tuple(records[-2:]))
        result = plan_window(messages, request)
        budget = result.budget
        assert budget is not None
        last = records[-1] if records else None
        count = 0 if last is None or last.strategy != "fit" else last.removed_message_count
        expected = None
        if result.engaged:
            expected = held_cut_expected(messages, result, request, count)
        # A cut the span alone can hold is held; a held cut that the span alone cannot make
        # reaches into the turns after the span (docs/rules.md#within-the-limit).
        if expected is not None:
            assert budget.held
        held += budget.held
        if budget.held:
            assert len(result.evicted_messages) == count
            assert budget.total_after <= budget.max_tokens and budget.met
            assert budget.stage in ("span", "further-spans")
            if expected is None:
                assert budget.stage == "further-spans"
            # The span starts where it did: the cut is the previous one, kept, and the window's
            # prefix with it.
            if result.evicted_messages[0] == cuts[-1][0]:
                assert result.evicted_messages == cuts[-1]
        if expected is not None:
            start, total = expected
            assert result.evicted_messages == tuple(range(start, start + count))
            assert budget.total_after == total
        # A last record of another strategy (or none named) holds nothing and is no error.
        if records:
            relabelled = (*records[-2:-1], replace(records[-1], strategy=other))
            unheld = plan_window(messages, replace(request, prior_records=relabelled))
            assert unheld == plan_window(messages, without_held_cut(request))
            assert unheld.budget is not None and not unheld.budget.held
        if result.record is not None:
            records.append(prior_record(result.record))
            cuts.append(result.evicted_messages)
    event("a cut was held" if held else "no cut was held")


# The refusals whose turns never leave in any stage (docs/rules.md#within-the-limit).
NEVER_LEAVING = {
    "current-request",
    "system-envelope",
    "paused-tool",
    "pending-check-in",
    "unresolved-tool-call",
    "replacement-not-smaller",
}


def never_leaves(
    messages: list[Message], result: WindowPlan, index: int, options: PlanOptions
) -> bool:
    """Whether a kept turn is one the stages may not take: what holds it now, what it holds, the
    last assistant message's turn and those after, or a turn whose removal would open the window
    on a non-user message."""
    segments = segment_turns(messages)
    turn = result.turns[index]
    held = messages[segments[index].start : segments[index].end]
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    request = result.current_request
    if turn["held_by"] in NEVER_LEAVING or index >= last_assistant_turn(messages):
        return True
    if request is not None and request.turn_index == index:
        return True
    if any(m.role == "system" for m in held):
        return True
    if any(call.id not in answered for m in held for call in m.tool_calls):
        return True
    paused = options.paused
    if paused is not None and any(
        m.tool_call_id == paused.tool_call_id or paused.tool_call_id in [c.id for c in m.tool_calls]
        for m in held
    ):
        return True
    kept_after = [t["index"] for t in result.turns if t["fate"] == "kept" and t["index"] > index]
    opening = all(
        t["fate"] == "evicted" or messages[segments[t["index"]].start].role == "system"
        for t in result.turns[:index]
    )
    if opening and result.notice is None and kept_after:
        return messages[segments[kept_after[0]].start].role != "user"
    return False


def last_assistant_turn(messages: list[Message]) -> int:
    segments = segment_turns(messages)
    for segment in reversed(segments):
        if any(m.role == "assistant" for m in messages[segment.start : segment.end]):
            return segment.turn
    return len(segments)


@given(fit_cases(engaged=True))
def test_no_window_is_over_the_limit_while_anything_may_still_leave(
    case: tuple[list[Message], PlanOptions],
):
    messages, options = case
    result = plan_window(messages, options)
    budget = result.budget
    assert budget is not None
    fit = fit_of(options)
    if budget.stage in ("pins", "keep-window", "caps"):
        assert budget.met == (budget.total_after <= budget.max_tokens)
    if fit.overflow == "report":
        assert budget.stage != "caps"
        assert not any(s.action == "capped" for s in result.shaped_results if options.cap is None)
    if budget.total_after <= budget.max_tokens:
        return
    event(f"over the limit, {fit.overflow}")
    for turn in result.turns:
        if turn["fate"] == "kept":
            assert never_leaves(messages, result, turn["index"], options), turn
    if fit.overflow == "cap":
        texts = {s.index: s.content for s in result.shaped_results}
        evicted = set(result.evicted)
        segments = segment_turns(messages)
        for segment in segments:
            if segment.turn in evicted:
                continue
            for position in range(segment.start, segment.end):
                message = messages[position]
                text = texts.get(position, message.content)
                if message.role != "tool" or message.not_dispatched or not message.tool_call_id:
                    continue
                if len(text) <= 256 or is_shaped(text):
                    continue
                marker = orjson.dumps(marker_for(text, "x", 256)).decode()
                assert len(marker) >= len(text)  # no cap could shorten it
