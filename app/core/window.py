"""The window plan: whether the strategy acts, which span leaves, and what the plan reports.

`plan_window` is the single entry point. It segments the transcript, finds the current request,
asks the strategy whether to act and, when it does, admits pins, chooses the span, climbs the
notice ladder and reports every turn's fate with the reason that kept it. It removes at most one
contiguous run of whole turns per request even when a budget is still exceeded: the next request
continues, and a plan that removed nothing says why. Under the `fit` strategy the span the engine
allows is then shortened to the fewest turns that bring the window under its token target, so a
cut leaves room to grow and the prefix stays the same for several requests (provider prompt caches
pay only for an unchanged prefix); and when the previous plan was a `fit` cut that still fits
`max_tokens`, that cut is held, so an agent that re-sends its whole history keeps its prefix too.

The span's removal and its notice are `app.core.span`'s, the figures `app.core.report`'s, the
summary fields `app.core.summary_plan`'s, the values the steps hand each other `app.core.steps`'.
It does not write the new window (the caller's format is not known here; `WindowPlan.removed`
says what leaves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from app.core.clear import cleared_results
from app.core.counting import TranscriptTokens, messages_tokens
from app.core.current_request import current_request_index, search_start
from app.core.ledger import fold_ledger
from app.core.messages import Message
from app.core.names import first_call_names
from app.core.pins import LedgerFold, PinPlan, plan_pins
from app.core.plan_types import (
    NO_PINS,
    Budget,
    CurrentRequest,
    DroppedStanding,
    Fit,
    HeldBy,
    LastToolResultPin,
    LedgerFactPin,
    Measured,
    Notice,
    Paused,
    PinBlock,
    Pins,
    PlanOptions,
    PriorRecord,
    Record,
    Refusal,
    SlidingWindow,
    Stats,
    Strategy,
    TokenBudget,
    Turn,
    WindowPlan,
)
from app.core.refusals import (
    RefusalContext,
    choose_span,
    keep_window_refusals,
    turns_touching_call,
    turns_with_unanswered_calls,
)
from app.core.report import (
    current_request_of,
    dropped_standings,
    reported_turns,
    sent_figures,
    shaped_entries,
    stats_of,
    with_pin_tokens,
)
from app.core.shaping import shape
from app.core.span import drop_span, dropped_tool_names, notice_of
from app.core.steps import Decision, Drop, FitGoal, Planning, Shaping
from app.core.summary_plan import summary_outcome
from app.core.tokens import ESTIMATE, calibration_scale, scaled, text_message_tokens
from app.core.transcript import SurveyOf, Transcript
from app.core.turns import survey

__all__ = [
    "CurrentRequest",
    "DroppedStanding",
    "LastToolResultPin",
    "LedgerFactPin",
    "Measured",
    "Notice",
    "Paused",
    "PinBlock",
    "PlanOptions",
    "PriorRecord",
    "Record",
    "Refusal",
    "SlidingWindow",
    "Stats",
    "TokenBudget",
    "Turn",
    "WindowPlan",
    "dropped_tool_names",
    "plan_window",
    "strategy_engages",
]


def strategy_engages(strategy: Strategy, turn_count: int, total_tokens: int | None) -> bool:
    """Whether the strategy acts on this request.

    A token budget acts only on a measurement above its threshold: with nothing measured (or a
    report of 0/0, which the HTTP layer refuses) there is nothing to judge. `fit` acts on the
    counted total (`total_tokens`, always counted under `fit`) above its `max_tokens`.
    """
    if isinstance(strategy, SlidingWindow):
        return turn_count > strategy.keep_recent_turns
    if isinstance(strategy, Fit):
        return total_tokens is not None and total_tokens > strategy.max_tokens
    measured = strategy.measured
    if measured is None or (measured.input_tokens == 0 and measured.output_tokens == 0):
        return False
    return measured.input_tokens > strategy.threshold_tokens


def held_count(prior_records: Sequence[PriorRecord]) -> int:
    """The caller messages the previous plan's cut removed, when that plan was a `fit` plan;
    else 0 (a record of another strategy, or none, holds no cut)."""
    if not prior_records:
        return 0
    record = prior_records[-1]
    return record.removed_message_count if record.strategy == "fit" else 0


def held_turn(transcript: Transcript, first: int, last: int, count: int) -> int | None:
    """The turn `j` in `first … last` whose end is exactly `count` caller messages from the
    start of turn `first` (its first message counted), or None.

    Caller messages follow the core messages in order, so the caller messages of `first … j` are
    those up to the last one turn `j` touches: one pass over the turns' ends, not a count per
    turn.
    """
    segments = transcript.segments
    start = segments[first].start
    if transcript.distinct_callers:
        for j in range(first, last + 1):
            length = segments[j].end - start
            if length >= count:
                return j if length == count else None
        return None
    found = transcript.caller_messages(start, segments[last].end)
    if count > len(found):
        return None
    wanted, callers, spans = found[count - 1], transcript.callers, transcript.survey.span_ends
    for j in range(first, last + 1):
        position = segments[j].end - 1
        reached = spans.get(position, callers[position])
        if reached >= wanted:
            return j if reached == wanted else None
    return None


def held_drop(
    planning: Planning, first: int, last: int, tokens: TranscriptTokens, goal: FitGoal
) -> Drop | None:
    """The previous `fit` cut, held: the drop of `first … j` when turn `j` ends where that cut
    ended (counted in caller messages) and its new window, notice included, is within
    `max_tokens` and not refused by the ladder; else None.

    An agent that keeps its whole history is over `max_tokens` on every request once cut: cut
    afresh to the target each time, its span would grow by a turn per request and the window's
    prefix would change every time. Held, the prefix changes only when the window outgrows
    `max_tokens`.
    """
    if goal.held_count <= 0:
        return None
    j = held_turn(planning.transcript, first, last, goal.held_count)
    if j is None:
        return None
    without = goal.total_before - tokens.span(first, j)
    if without > goal.max_tokens:  # a notice only adds
        return None
    drop = drop_span(planning, first, j)
    if drop.refused or without + drop.notice_tokens > goal.max_tokens:
        return None
    return replace(drop, held=True)


def fitted_drop(
    planning: Planning, first: int, last: int, tokens: TranscriptTokens, goal: FitGoal
) -> Drop:
    """The previous cut when it may be held, else the drop of `first … k` for the smallest `k`
    whose new window meets the target, else the drop of the whole span `first … last`
    (docs/rules.md#the-fit-strategy).

    The new window of a span is counted with the notice the ladder would insert for it
    (docs/rules.md#the-drop-notice), so a `k` is tried only when the window without the span
    could meet the target at all (a notice only adds), and a `k` whose drop the ladder refuses
    changes nothing and never meets it.
    """
    held = held_drop(planning, first, last, tokens, goal)
    if held is not None:
        return held
    for k in range(first, last + 1):
        without = goal.total_before - tokens.span(first, k)
        if without > goal.target:
            continue
        drop = drop_span(planning, first, k)
        if not drop.refused and without + drop.notice_tokens <= goal.target:
            return drop
    return drop_span(planning, first, last)


def carries_no_parts(message: Message) -> bool:
    return False


def plan_window(
    messages: Sequence[Message],
    options: PlanOptions | None = None,
    survey_of: SurveyOf = survey,
    carries_parts: Callable[[Message], bool] = carries_no_parts,
) -> WindowPlan:
    """Plan the window for one request (see the module docstring).

    With `collapse`, `cap` or `clear` on, the transcript is shaped first (`app.core.shaping`) and
    planned as shaped: every character and token figure counts what the wire will carry. `clear`
    applies (docs/rules.md#clear) on the total of the transcript shaped without it, and its
    results are chosen by `app.core.clear`. `survey_of` surveys the transcript planned
    (`app.core.turns.survey` unless a faster equal one is given); `carries_parts` tells whether a
    result carries an image or another non-text part (the caller's format knows; none by default).
    """
    options = PlanOptions() if options is None else options
    fold = None if options.ledger is None else fold_ledger(options.ledger)
    if options.collapse is None and options.cap is None and options.clear is None:
        return plan_transcript(messages, options, fold, None, survey_of)
    shaped_messages, shaped = shape(messages, fold, options.collapse, options.cap)
    clear, unmasked_total = options.clear, None
    if clear is not None:
        if clear.trigger_tokens is not None or isinstance(options.strategy, Fit):
            unmasked_total = unshaped_total(shaped_messages, options)
        if clear_applies(options, unmasked_total):
            cleared = cleared_results(
                messages,
                clear,
                fold,
                options.keep_last_tool_results > 0,
                first_call_names(messages),
                carries_parts,
            )
            if cleared:
                shaped_messages, shaped = shape(
                    messages, fold, options.collapse, options.cap, cleared
                )
        else:
            unmasked_total = None
    shaping = Shaping(messages, shaped, unmasked_total)
    return plan_transcript(shaped_messages, options, fold, shaping, survey_of)


def clear_applies(options: PlanOptions, total: int | None) -> bool:
    """Whether `clear` applies: with `trigger_tokens`, when the total before clearing is over it;
    without, under `fit` when that total is over `max_tokens`, and always under the other
    strategies (docs/rules.md#clear)."""
    clear, strategy = options.clear, options.strategy
    if clear is None:
        return False
    if clear.trigger_tokens is not None:
        return total is not None and total > clear.trigger_tokens
    if isinstance(strategy, Fit):
        return total is not None and total > strategy.max_tokens
    return True


def unshaped_total(messages: Sequence[Message], options: PlanOptions) -> int:
    """`system_tokens + tokens + reserve_tokens` of `messages` (the transcript shaped as if
    `clear` were off), with the request's tokenizer (`estimate` when none) and calibration."""
    strategy = options.strategy
    reserve = strategy.reserve_tokens if isinstance(strategy, Fit) else 0
    tokenizer = ESTIMATE if options.tokenizer is None else options.tokenizer
    scale = calibration_scale(options.calibration, reserve)
    text = options.system_text
    system = 0 if text is None else scaled(text_message_tokens(text, tokenizer.count), scale)
    return system + messages_tokens(messages, tokenizer, scale) + reserve


def count_tokens(
    transcript: Transcript, options: PlanOptions, unmasked_total: int | None = None
) -> tuple[TranscriptTokens | None, FitGoal | None]:
    """The transcript's tokens when a tokenizer is in use (`fit` counts with `estimate` when
    none is named), and what `fit` aims at."""
    strategy = options.strategy
    fit = strategy if isinstance(strategy, Fit) else None
    tokenizer = options.tokenizer
    if tokenizer is None:
        if fit is None:
            return None, None
        tokenizer = ESTIMATE
    reserve = 0 if fit is None else fit.reserve_tokens
    tokens = TranscriptTokens.of(
        transcript.messages,
        transcript.segments,
        tokenizer,
        calibration_scale(options.calibration, reserve),
        options.system_text,
        options.system_chars is not None,
    )
    if fit is None:
        return tokens, None
    total = (tokens.system or 0) + tokens.total + reserve
    return tokens, FitGoal(
        fit.target, fit.max_tokens, total, held_count(options.prior_records), unmasked_total
    )


def budget_of(planning: Planning, stats: Stats, drop: Drop | None) -> Budget | None:
    """The `fit` strategy's budget block: met when not engaged (the window is within
    `max_tokens`), for a held cut when the window's total is within `max_tokens` (the cut is
    held only then), else when it is within the target."""
    strategy, goal, tokens = planning.options.strategy, planning.goal, planning.tokens
    if goal is None or tokens is None or not isinstance(strategy, Fit):
        return None
    total_after = (tokens.system or 0) + (stats.tokens_after or 0) + strategy.reserve_tokens
    engaged = goal.engaged
    held = drop is not None and drop.held
    if held:
        met = total_after <= strategy.max_tokens
    else:
        met = total_after <= goal.target if engaged else True
    return Budget(
        strategy.max_tokens,
        goal.target,
        strategy.reserve_tokens,
        goal.reported_before,
        total_after,
        met,
        held,
    )


def plan_transcript(
    messages: Sequence[Message],
    options: PlanOptions,
    fold: LedgerFold | None,
    shaping: Shaping | None,
    survey_of: SurveyOf = survey,
) -> WindowPlan:
    """The plan of a transcript as it will be sent: the shaped one when `shaping` is not None."""
    strategy = options.strategy
    transcript = Transcript.of(messages, survey_of)
    turn_count = len(transcript.segments)
    start = search_start(transcript.segments, options.provider_reads_from)
    request = current_request_index(
        messages, options.request_text, frames=options.frames, start=start
    )
    current_request, request_turn = current_request_of(transcript, request)
    tokens, goal = count_tokens(
        transcript, options, None if shaping is None else shaping.unmasked_total
    )
    planning = Planning(transcript, options, request_turn, tokens, goal)
    shaped = None if shaping is None else shaping.results
    sent = None if shaping is None else sent_figures(shaping, tokens)

    engages = strategy_engages(
        strategy, turn_count, None if goal is None else goal.reported_before
    ) and (goal is None or goal.engaged)
    if not engages:
        stats = stats_of(planning, None, None, sent)
        return WindowPlan(
            engaged=False,
            current_request=current_request,
            turns=reported_turns(transcript, [None] * turn_count, range(0), tokens),
            kept=tuple(range(turn_count)),
            evicted=(),
            evicted_messages=(),
            pins=NO_PINS,
            refusals=(),
            notice=None,
            stats=stats,
            budget=budget_of(planning, stats, None),
            dropped_tool_names=(),
            dropped_standings=None if options.ledger is None else (),
            shaped=None if shaped is None else shaped_entries(transcript, shaped, None, False),
            record=None,
            strategy=strategy.kind,
            removed=None,
            shaped_results=() if shaped is None else shaped,
            summaries=summary_outcome(planning, None, None),
        )

    candidate_count = max(0, turn_count - strategy.keep_recent_turns)
    # Nothing at or before the request, nor before `start`, is pinnable.
    after = start - 1 if request is None else request
    pin_plan = plan_pins(transcript, fold, after, candidate_count, options)
    pins = with_pin_tokens(Pins(pin_plan.last_tool_result, pin_plan.ledger_fact), tokens)
    decision = decide(planning, candidate_count, pin_plan)
    drop = decision.drop
    evicted = range(0) if drop is None else range(drop.first, drop.last + 1)
    notice = notice_of(transcript, drop)
    stats = stats_of(planning, drop, notice, sent)
    standings: tuple[DroppedStanding, ...] | None = None
    if fold is not None:
        standings = () if drop is None else dropped_standings(messages, drop.start, drop.end, fold)
    # The turns' own index objects, not new ones: tens of thousands of them on a large body.
    numbers = [segment.turn for segment in transcript.segments]
    return WindowPlan(
        engaged=True,
        current_request=current_request,
        turns=reported_turns(transcript, decision.held, evicted, tokens),
        kept=(*numbers[: evicted.start], *numbers[evicted.stop :]),
        evicted=tuple(numbers[evicted.start : evicted.stop]),
        evicted_messages=() if drop is None else drop.caller_messages,
        pins=pins,
        refusals=decision.refusals,
        notice=notice,
        stats=stats,
        budget=budget_of(planning, stats, drop),
        dropped_tool_names=() if drop is None else drop.tool_names,
        dropped_standings=standings,
        shaped=None
        if shaped is None
        else shaped_entries(transcript, shaped, drop, notice is not None),
        record=Record(
            strategy.kind, options.iteration, stats.removed_message_count, decision.refusals, pins
        ),
        strategy=strategy.kind,
        removed=None if drop is None else (drop.start, drop.end),
        shaped_results=() if shaped is None else shaped,
        summaries=summary_outcome(planning, drop, decision.refused),
    )


def decide(planning: Planning, candidate_count: int, pin_plan: PinPlan) -> Decision:
    """Run the refusal engine over the candidates and drop the span it chooses, if it may leave.

    Under `fit` (`goal`), the span is shortened to what the budget needs, or to the previous cut
    when it is held; the turns it then keeps are `within-budget`.
    """
    transcript, paused = planning.transcript, planning.options.paused
    messages, segments, turn_starts = (
        transcript.messages,
        transcript.segments,
        transcript.turn_starts,
    )
    held: list[HeldBy | None] = [None] * len(segments)
    keep_refusals = keep_window_refusals(candidate_count, turn_starts)
    for refusal in keep_refusals:
        held[refusal.turn_index] = refusal.reason
    if candidate_count == 0:
        return Decision(tuple(keep_refusals), tuple(held), None)
    context = RefusalContext.of(
        request_turn=planning.request_turn,
        system_turns=transcript.survey.system_turns,
        paused_turns=turns_touching_call(messages, segments, paused),
        paused_check_in=paused is not None and paused.check_in,
        unanswered_turns=turns_with_unanswered_calls(
            transcript.survey.calls_by_turn, transcript.survey.answered
        ),
        held_by_last_tool_result=pin_plan.held_by_last_tool_result(),
        held_by_ledger_fact=pin_plan.held_by_ledger_fact(),
    )
    choice = choose_span(candidate_count, context, turn_starts)
    for refusal in choice.before:
        held[refusal.turn_index] = refusal.reason
    refusals = (*choice.before, *keep_refusals)
    if choice.first is None or choice.last is None:
        return Decision(refusals, tuple(held), None)
    for index in range(choice.last + 1, candidate_count):
        if held[index] is None:
            held[index] = "not-reached"
    tokens, goal = planning.tokens, planning.goal
    if goal is None or tokens is None:
        drop = drop_span(planning, choice.first, choice.last)
    else:
        drop = fitted_drop(planning, choice.first, choice.last, tokens, goal)
    if not drop.refused:
        for index in range(drop.last + 1, choice.last + 1):
            held[index] = "within-budget"
        return Decision(refusals, tuple(held), drop)
    for index in range(drop.first, drop.last + 1):
        held[index] = "replacement-not-smaller"
    refused = Refusal("replacement-not-smaller", drop.first, turn_starts[drop.first])
    return Decision((refused, *refusals), tuple(held), None, drop)
