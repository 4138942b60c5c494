"""The window plan: whether the strategy acts, which span leaves, and what the plan reports.

`plan_window` is the single entry point, and this module is its order of steps: it shapes the
transcript, segments it, finds the current request, counts tokens when they are needed, asks the
strategy whether to act and, when it does, admits pins, runs the refusal engine, lets the strategy
say how much of the allowed span leaves, and reports every turn's fate with the reason that kept
it. It removes at most one contiguous run of whole turns per request even when a budget is still
exceeded: the next request continues, and a plan that removed nothing says why.

Each step's rule is elsewhere: the strategies' in `app.core.strategies` (read only through their
protocol, never by asking which one it is), the span's removal and its notice in `app.core.span`,
the figures in `app.core.report`, the summary fields in `app.core.summary_plan`, the values the
steps hand each other in `app.core.steps`. It does not write the new window (the caller's format
is not known here; `WindowPlan.removed` says what leaves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from app.core.clear import (
    ReasoningOf,
    boundary_at,
    boundary_count,
    held_boundary,
    images_at,
    read_results,
    reasoning_at,
)
from app.core.counting import TranscriptTokens, messages_tokens
from app.core.current_request import current_request_index, search_start
from app.core.ledger import fold_ledger
from app.core.messages import Message
from app.core.names import first_call_names
from app.core.pins import LedgerFold, PinPlan, plan_pins
from app.core.plan_types import (
    NO_PINS,
    CurrentRequest,
    DroppedStanding,
    HeldBy,
    LastToolResultPin,
    LedgerFactPin,
    Measured,
    Notice,
    Paused,
    PinBlock,
    Pins,
    PinT,
    PlanOptions,
    PriorRecord,
    Record,
    Refusal,
    ShapedResult,
    SlidingWindow,
    Stats,
    TokenBudget,
    Turn,
    WindowPlan,
)
from app.core.refusals import (
    RefusalContext,
    SpanChoice,
    choose_span,
    keep_window_refusals,
    reason_for,
    turns_touching_call,
    turns_with_unanswered_calls,
)
from app.core.report import (
    Left,
    current_request_of,
    dropped_standings,
    reported_turns,
    sent_figures,
    shaped_entries,
    stats_of,
    with_pin_tokens,
)
from app.core.shaping import images_entry, in_report_order, shape, without_images
from app.core.span import drop_span, dropped_tool_names, notice_of
from app.core.steps import Decision, Drop, Planning, Removal, Shaping
from app.core.strategies import CLEAR_NOT_APPLIED, ClearState, FitGoal
from app.core.summary_plan import summary_outcome
from app.core.tokens import ESTIMATE, calibration_scale, scaled, text_message_tokens
from app.core.transcript import SurveyOf, Transcript
from app.core.turns import survey
from app.core.within_limit import beyond_span, held_cut, stage_one_turns

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
]


def carries_no_parts(message: Message) -> bool:
    return False


def no_reasoning(message: Message) -> Sequence[tuple[int, int]]:
    return ()


def plan_window(
    messages: Sequence[Message],
    options: PlanOptions | None = None,
    survey_of: SurveyOf = survey,
    carries_parts: Callable[[Message], bool] = carries_no_parts,
    reasoning_of: ReasoningOf = no_reasoning,
) -> WindowPlan:
    """Plan the window for one request (see the module docstring).

    With `collapse`, `cap` or `clear` on, the transcript is shaped first (`app.core.shaping`) and
    planned as shaped: every character and token figure counts what the wire will carry. `clear`
    applies (docs/rules.md#clear) on the total of the transcript shaped without it; its boundary
    is the last record's, held with its cut, when the strategy holds them and that window fits
    (docs/rules.md#holding-the-boundary), else the step rule's. `survey_of` surveys the
    transcript planned (`app.core.turns.survey` unless a faster equal one is given);
    `carries_parts` tells whether a result carries an image or another non-text part, and
    `reasoning_of` which reasoning an assistant message holds that may leave (the caller's format
    knows; none by default).
    """
    options = PlanOptions() if options is None else options
    fold = None if options.ledger is None else fold_ledger(options.ledger)
    if options.collapse is None and options.cap is None and options.clear is None:
        planned = plan_transcript(messages, options, fold, None, survey_of)
        assert planned is not None  # only a held clear state may give no plan
        return planned
    shaped_messages, shaped = shape(
        messages, fold, options.collapse, options.cap, recall_tool=options.recall_tool
    )
    clear, unmasked_total = options.clear, None
    if clear is not None:
        # The total is read by the trigger, and by a strategy that weighs tokens: for whether
        # clear applies, and for its goal (`FitGoal.unmasked_total`).
        if clear.trigger_tokens is not None or options.strategy.weighs_tokens:
            unmasked_total = unshaped_total(shaped_messages, options)
        if clear_applies(options, unmasked_total):
            clearing = Clearing(messages, options, fold, carries_parts, reasoning_of, survey_of)
            fresh = boundary_count(len(clearing.read), clear)
            strategy = options.strategy
            hold = None
            if strategy.holds_clear:
                hold = held_boundary(messages, fresh, options.prior_records, strategy.kind)
            if hold is not None:
                count, cut = hold
                held = ClearState(True, count, True, cut)
                cleared, shaping = clearing.at(count, unmasked_total, held)
                planned = plan_transcript(cleared, options, fold, shaping, survey_of)
                if planned is not None:
                    return planned
            state = ClearState(True, fresh)
            cleared, shaping = clearing.at(fresh, unmasked_total, state)
            planned = plan_transcript(cleared, options, fold, shaping, survey_of)
            assert planned is not None
            return planned
    not_applied = None if clear is None else CLEAR_NOT_APPLIED
    planned = plan_transcript(
        shaped_messages, options, fold, Shaping(messages, shaped, None, not_applied), survey_of
    )
    assert planned is not None
    return planned


class Clearing:
    """The transcript shaped with clear at a boundary: the other shaping rules first, then the
    results at or before the boundary as placeholders, then (when asked) the images and the
    reasoning there (docs/rules.md#clear)."""

    def __init__(
        self,
        messages: Sequence[Message],
        options: PlanOptions,
        fold: LedgerFold | None,
        carries_parts: Callable[[Message], bool],
        reasoning_of: ReasoningOf,
        survey_of: SurveyOf,
    ) -> None:
        self.messages, self.options, self.fold = messages, options, fold
        self.carries_parts, self.reasoning_of, self.survey_of = (
            carries_parts,
            reasoning_of,
            survey_of,
        )
        self.read = read_results(messages)
        self.call_names = first_call_names(messages)

    def request(self) -> int | None:
        """The current request's core index in the transcript as sent (its images stay)."""
        options, messages = self.options, self.messages
        start = 0
        if options.provider_reads_from is not None:
            segments = Transcript.of(messages, self.survey_of).segments
            start = search_start(segments, options.provider_reads_from)
        return current_request_index(
            messages, options.request_text, frames=options.frames, start=start
        )

    def at(
        self, count: int, unmasked_total: int | None, state: ClearState
    ) -> tuple[Sequence[Message], Shaping]:
        """The transcript shaped with the boundary at the `count`-th read result, and what was
        shaped."""
        options, messages = self.options, self.messages
        clear = options.clear
        assert clear is not None
        boundary = boundary_at(
            messages,
            count,
            clear,
            self.fold,
            options.keep_last_tool_results > 0,
            self.call_names,
            self.carries_parts,
            options.recall_tool,
        )
        shaped_messages, shaped = shape(
            messages,
            self.fold,
            options.collapse,
            options.cap,
            boundary.cleared,
            options.recall_tool,
        )
        extra: list[ShapedResult] = []
        if clear.images and boundary.index is not None:
            shaped_messages = list(shaped_messages)
            for index in images_at(shaped_messages, boundary, self.request()):
                shaped_messages[index], replaced = without_images(shaped_messages[index])
                extra.append(images_entry(index, replaced))
        if clear.thinking:
            extra += reasoning_at(messages, boundary, self.reasoning_of)
        if extra:
            caller_of = [
                index if message.source is None else message.source
                for index, message in enumerate(messages)
            ]
            shaped = in_report_order((*shaped, *extra), caller_of)
        return shaped_messages, Shaping(messages, shaped, unmasked_total, state)


def clear_applies(options: PlanOptions, total: int | None) -> bool:
    """Whether `clear` applies: with `trigger_tokens`, when the total before clearing is over it;
    without, as the strategy says (`fit`: when that total is over `max_tokens`; the others:
    always) (docs/rules.md#clear)."""
    clear = options.clear
    if clear is None:
        return False
    if clear.trigger_tokens is not None:
        return total is not None and total > clear.trigger_tokens
    return options.strategy.clear_applies(total)


def unshaped_total(messages: Sequence[Message], options: PlanOptions) -> int:
    """`system_tokens + tokens + reserve_tokens` of `messages` (the transcript shaped as if
    `clear` were off), with the request's tokenizer (`estimate` when none) and calibration."""
    reserve = options.strategy.reserve_tokens
    tokenizer = ESTIMATE if options.tokenizer is None else options.tokenizer
    scale = calibration_scale(options.calibration, reserve)
    text = options.system_text
    system = 0 if text is None else scaled(text_message_tokens(text, tokenizer.count), scale)
    return system + messages_tokens(messages, tokenizer, scale) + reserve


def count_tokens(
    transcript: Transcript, options: PlanOptions, shaping: Shaping | None = None
) -> tuple[TranscriptTokens | None, FitGoal | None]:
    """The transcript's tokens when a tokenizer is in use (a strategy that weighs tokens counts
    with `estimate` when none is named), and what the strategy aims at (`fit`'s goal)."""
    unmasked_total = None if shaping is None else shaping.unmasked_total
    clear = None if shaping is None else shaping.clear
    tokens = transcript_tokens(transcript, options)
    if tokens is None:
        return None, None
    strategy = options.strategy
    total = (tokens.system or 0) + tokens.total + strategy.reserve_tokens
    return tokens, strategy.goal(total, options.prior_records, unmasked_total, clear)


def transcript_tokens(transcript: Transcript, options: PlanOptions) -> TranscriptTokens | None:
    """The transcript's tokens under the request's tokenizer, `estimate` for a strategy that
    weighs tokens when none is named; None when none is counted."""
    tokenizer = options.tokenizer
    if tokenizer is None:
        if not options.strategy.weighs_tokens:
            return None
        tokenizer = ESTIMATE
    return TranscriptTokens.of(
        transcript.messages,
        transcript.segments,
        tokenizer,
        calibration_scale(options.calibration, options.strategy.reserve_tokens),
        options.system_text,
        options.system_chars is not None,
    )


def plan_transcript(
    messages: Sequence[Message],
    options: PlanOptions,
    fold: LedgerFold | None,
    shaping: Shaping | None,
    survey_of: SurveyOf = survey,
) -> WindowPlan | None:
    """The plan of a transcript as it will be sent: the shaped one when `shaping` is not None.
    None only for the held clear state whose window does not fit (docs/rules.md#holding-the-
    boundary): over `max_tokens`, or its cut not found or refused by the ladder."""
    strategy = options.strategy
    transcript = Transcript.of(messages, survey_of)
    turn_count = len(transcript.segments)
    start = search_start(transcript.segments, options.provider_reads_from)
    request = current_request_index(
        messages, options.request_text, frames=options.frames, start=start
    )
    current_request, request_turn = current_request_of(transcript, request)
    tokens, goal = count_tokens(transcript, options, shaping)
    planning = Planning(transcript, options, request_turn, tokens, goal, request)
    shaped = None if shaping is None else shaping.results
    sent = None if shaping is None else sent_figures(shaping, tokens)

    clear = None if shaping is None else shaping.clear
    if not strategy.engages(turn_count, goal):
        if goal is not None and goal.holding and goal.total_before > goal.max_tokens:
            return None
        stats = stats_of(planning, None, None, (0, 0), sent)
        record = None
        if clear is not None and clear.applied and strategy.holds_clear:
            # The clear-only record: a plan that blocked nothing, whose boundary the next holds.
            record = Record(strategy.kind, options.iteration, 0, (), NO_PINS, clear.count)
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
            budget=strategy.budget(planning, stats, None),
            dropped_tool_names=(),
            dropped_standings=None if options.ledger is None else (),
            shaped=None if shaped is None else shaped_entries(transcript, shaped, (), False),
            record=record,
            strategy=strategy.kind,
            removed=(),
            shaped_results=() if shaped is None else shaped,
            summaries=summary_outcome(planning, None, None),
        )

    candidate_count = max(0, turn_count - strategy.keep_recent_turns)
    # Nothing at or before the request, nor before `start`, is pinnable.
    after = start - 1 if request is None else request
    pin_plan = plan_pins(transcript, fold, after, candidate_count, options)
    decision = decide(planning, candidate_count, pin_plan)
    if decision is None:
        return None
    if decision.messages is not None:
        # The stages capped results or replaced images: every figure counts the texts sent.
        shaping = restaged(shaping, messages, decision, transcript.callers)
        transcript = Transcript.of(decision.messages)
        tokens = transcript_tokens(transcript, options)
        planning = replace(planning, transcript=transcript, tokens=tokens)
        shaped, sent = shaping.results, sent_figures(shaping, tokens)
        messages = decision.messages
    pins = with_pin_tokens(released(pin_plan, decision.released), tokens)
    drop, removal = decision.drop, decision.removal
    left = (
        None if removal is None or not removal.turns else Left.of(transcript, tokens, removal, drop)
    )
    notice = notice_of(transcript, drop)
    notice_counts = (0, 0) if drop is None else (drop.notice_tokens, drop.notice_raw_tokens)
    stats = stats_of(planning, left, notice, notice_counts, sent)
    ranges = () if left is None else left.ranges
    standings: tuple[DroppedStanding, ...] | None = None
    if fold is not None:
        standings = dropped_standings(messages, ranges, fold)
    # The turns' own index objects, not new ones: tens of thousands of them on a large body.
    numbers = [segment.turn for segment in transcript.segments]
    if removal is None:
        evicted: range | frozenset[int] = range(0)
        kept: tuple[int, ...] = tuple(numbers)
        gone: tuple[int, ...] = ()
    elif removal.single:
        evicted = removal.turn_set()
        assert isinstance(evicted, range)
        kept = (*numbers[: evicted.start], *numbers[evicted.stop :])
        gone = tuple(numbers[evicted.start : evicted.stop])
    else:
        evicted = removal.turn_set()
        kept = tuple(number for number in numbers if number not in evicted)
        gone = tuple(removal.turns)
    return WindowPlan(
        engaged=True,
        current_request=current_request,
        turns=reported_turns(transcript, decision.held, evicted, tokens),
        kept=kept,
        evicted=gone,
        evicted_messages=() if left is None else left.caller_messages,
        pins=pins,
        refusals=decision.refusals,
        notice=notice,
        stats=stats,
        budget=strategy.budget(planning, stats, removal),
        dropped_tool_names=() if left is None else left.tool_names,
        dropped_standings=standings,
        shaped=None
        if shaped is None
        else shaped_entries(transcript, shaped, ranges, notice is not None),
        record=Record(
            strategy.kind,
            options.iteration,
            stats.removed_message_count,
            decision.refusals,
            pins,
            None if clear is None else clear.count,
        ),
        strategy=strategy.kind,
        removed=ranges,
        shaped_results=() if shaped is None else shaped,
        summaries=summary_outcome(planning, drop, decision.refused),
    )


def released(pin_plan: PinPlan, turns: frozenset[int]) -> Pins:
    """The pin blocks, each listing only the pins whose turns stayed (the others left with the
    stage that releases pins; docs/rules.md#within-the-limit)."""
    blocks = Pins(pin_plan.last_tool_result, pin_plan.ledger_fact)
    if not turns:
        return blocks

    def stayed(block: PinBlock[PinT] | None) -> PinBlock[PinT] | None:
        if block is None:
            return None
        pinned = tuple(pin for pin in block.pinned if pin.turn_index not in turns)
        return replace(block, pinned=pinned)

    return Pins(stayed(blocks.last_tool_result), stayed(blocks.ledger_fact))


def restaged(
    shaping: Shaping | None, sent: Sequence[Message], decision: Decision, callers: Sequence[int]
) -> Shaping:
    """The shaping with the stages' capped results and replaced images beside the request's own:
    by caller message, its results in core order, then its image replacements."""
    if shaping is None:
        shaping = Shaping(sent, ())
    return replace(shaping, results=in_report_order((*shaping.results, *decision.shaped), callers))


def decide(planning: Planning, candidate_count: int, pin_plan: PinPlan) -> Decision | None:
    """Run the refusal engine over the candidates and drop what the strategy takes of the span
    it chooses, if it may leave.

    A strategy may take less than the whole span (`fit` shortens it to what the budget needs, or
    to the previous cut when it is held); the turns of the span it then keeps are `within-budget`.
    None when the goal is the held clear state and its cut cannot be held.
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
    strategy, goal, tokens = planning.options.strategy, planning.goal, planning.tokens
    # A strategy that fits a token limit holds its cut over several spans and, when the span
    # leaves the window over its target, goes on (docs/rules.md#within-the-limit).
    fits = strategy.overflow is not None and goal is not None and tokens is not None
    holding = fits and goal is not None and goal.holding
    if candidate_count == 0 and not fits:
        return Decision(tuple(keep_refusals), tuple(held), None)
    context = RefusalContext.of(
        request_turn=planning.request_turn,
        system_turns=transcript.survey.system_turns,
        paused_turns=turns_touching_call(messages, segments, paused),
        paused_check_in=paused is not None and paused.check_in,
        unanswered_turns=turns_with_unanswered_calls(transcript.survey.unanswered_calls),
        held_by_last_tool_result=pin_plan.held_by_last_tool_result(),
        held_by_ledger_fact=pin_plan.held_by_ledger_fact(),
    )
    choice = (
        choose_span(candidate_count, context, turn_starts)
        if candidate_count
        else SpanChoice((), None, None)
    )
    for refusal in choice.before:
        held[refusal.turn_index] = refusal.reason
    first, last = choice.first, choice.last
    if first is not None and last is not None:
        for index in range(last + 1, candidate_count):
            if held[index] is None:
                held[index] = "not-reached"
    if fits and first is not None and last is not None:
        assert goal is not None and tokens is not None
        cut = held_cut(planning, goal, tokens, context, choice, candidate_count, drop_span)
        if cut is not None:
            return held_decision(
                planning, held, choice, candidate_count, keep_refusals, context, *cut
            )
    if holding:
        return None
    drop = None
    if first is not None and last is not None:
        drop = strategy.drop(planning, first, last, drop_span)
    refused = None
    if drop is not None and drop.refused:
        refused, drop = drop, None
        for index in range(refused.first, refused.last + 1):
            held[index] = "replacement-not-smaller"
    elif drop is not None:
        assert last is not None
        for index in range(drop.last + 1, last + 1):
            held[index] = "within-budget"
    rows: tuple[Refusal, ...] = ()
    if refused is not None:
        rows = (Refusal("replacement-not-smaller", refused.first, turn_starts[refused.first]),)
    removal = None if drop is None else Removal.of_drop(drop)
    total = 0 if goal is None else goal.total_before
    if drop is not None:
        total += drop.notice_tokens - drop.tokens
    if not fits or goal is None or tokens is None or total <= goal.target:
        return Decision(
            (*rows, *choice.before, *keep_refusals), tuple(held), drop, refused, removal
        )
    beyond = beyond_span(planning, goal, tokens, context, choice, candidate_count, drop, held)
    left = beyond.released | beyond.keep_window_left
    refusals = (*rows, *choice.before, *beyond.refusals, *keep_refusals)
    if left:
        refusals = tuple(refusal for refusal in refusals if refusal.turn_index not in left)
    return Decision(
        refusals,
        tuple(held),
        drop,
        refused,
        beyond.removal,
        beyond.released,
        beyond.shaped,
        beyond.messages,
    )


def held_decision(
    planning: Planning,
    held: list[HeldBy | None],
    choice: SpanChoice,
    candidate_count: int,
    keep_refusals: Sequence[Refusal],
    context: RefusalContext,
    drop: Drop,
    removal: Removal,
    through: int,
) -> Decision:
    """The decision of a held cut (docs/rules.md#the-fit-strategy): what the span keeps of its
    turns, and the turns after the span that ended it up to the cut's last are evaluated as the
    first stage evaluates them, every later one `within-budget`."""
    assert choice.last is not None
    starts = planning.transcript.turn_starts
    for index in range(drop.last + 1, choice.last + 1):
        held[index] = "within-budget"
    taken = removal.turn_set()
    rows: list[Refusal] = []
    for turn in stage_one_turns(choice, candidate_count):
        if turn > through:
            held[turn] = "within-budget"
        elif turn in taken:
            held[turn] = None
        else:
            reason = reason_for(turn, context)
            if reason is not None:
                held[turn] = reason
                rows.append(Refusal(reason, turn, starts[turn]))
    return Decision((*choice.before, *rows, *keep_refusals), tuple(held), drop, None, removal)
