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
It does not write the new window (the caller's format is not known here; `WindowPlan.removed`
says what leaves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import chain

from app.core.clear import cleared_results
from app.core.counting import TranscriptTokens
from app.core.current_request import current_request_index, search_start
from app.core.ledger import fold_ledger
from app.core.messages import Message
from app.core.names import first_call_names, name_of
from app.core.notice import LadderResult, climb_ladder
from app.core.pins import LedgerFold, PinPlan, plan_pins
from app.core.plan_types import (
    NO_PINS,
    Budget,
    CurrentRequest,
    DroppedStanding,
    Fate,
    Fit,
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
    Rung,
    ShapedEntry,
    ShapedResult,
    SlidingWindow,
    Stats,
    Strategy,
    SummarizeOption,
    SummaryOutcome,
    SummaryRequestPlan,
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
from app.core.shaping import shape
from app.core.summaries import NOT_JUDGED, Judgement, judge, summary_message, unjudged
from app.core.tokens import (
    ESTIMATE,
    Tokenizer,
    calibration_scale,
    message_tokens,
    scaled,
    text_message_tokens,
)
from app.core.transcript import SurveyOf, Transcript
from app.core.turns import survey, turn_index_of

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


def dropped_tool_names(
    messages: Sequence[Message], start: int, end: int, call_names: dict[str, str]
) -> tuple[str, ...]:
    """`name_of` of every message in `start … end−1`, first appearance order, each once."""
    names: dict[str, None] = {}
    for message in messages[start:end]:
        if message.role == "tool":  # name_of names tool messages only
            name = name_of(message, call_names)
            if name is not None:
                names[name] = None
    return tuple(names)


def dropped_standings(
    messages: Sequence[Message], start: int, end: int, fold: LedgerFold
) -> tuple[DroppedStanding, ...]:
    """One entry per removed result message, in order; standing None is undeclared."""
    standings: list[DroppedStanding] = []
    find = fold.get
    for message in messages[start:end]:
        # A result message (`is_result_message`), tested inline: a span can hold nearly the
        # whole transcript, and a call per message would cost more than the test.
        call_id = message.tool_call_id
        if message.role == "tool" and not message.not_dispatched and call_id:
            row = find(call_id)
            standing = None if row is None else row.standing
            standings.append({"tool_call_id": call_id, "standing": standing})
    return tuple(standings)


@dataclass(frozen=True, slots=True)
class FitGoal:
    """What `fit` aims at: its target, its limit, the total (system prompt, transcript and
    reserve) before any removal, and the caller messages the previous `fit` cut removed (0: no
    cut to hold)."""

    target: int
    max_tokens: int
    total_before: int
    held_count: int = 0
    # With `clear` applied: the total of the transcript shaped as if `clear` were off, which is
    # what engages `fit` and what `budget.total_before` reports (docs/rules.md#clear);
    # `total_before` is then the cleared transcript's, which removal shortens from.
    unmasked_total: int | None = None

    @property
    def reported_before(self) -> int:
        return self.total_before if self.unmasked_total is None else self.unmasked_total

    @property
    def engaged(self) -> bool:
        """Over `max_tokens` before clearing, and over the target after it: clearing comes
        first, and removal only takes what clearing could not free."""
        return self.reported_before > self.max_tokens and self.total_before > self.target


@dataclass(frozen=True, slots=True)
class Planning:
    """What the steps of one plan read besides their own arguments: the transcript planned, the
    options, the turn holding the current request (None: none found), and with token counting
    the transcript's tokens and, under `fit`, its goal. Built once per plan."""

    transcript: Transcript
    options: PlanOptions
    request_turn: int | None
    tokens: TranscriptTokens | None
    goal: FitGoal | None


@dataclass(frozen=True, slots=True)
class Shaping:
    """The transcript as the caller sent it, and the results shaping replaced in it: the plan is
    of the shaped transcript, while `chars_before` and `tokens_before` count this one."""

    sent: Sequence[Message]
    results: tuple[ShapedResult, ...]
    # With `clear` applied: the total before clearing (`FitGoal.unmasked_total`).
    unmasked_total: int | None = None


@dataclass(frozen=True, slots=True)
class SentFigures:
    """The characters and (with token counting) tokens of the transcript as sent, when shaping
    changed it."""

    chars: int
    tokens: int | None


def sent_figures(shaping: Shaping, tokens: TranscriptTokens | None) -> SentFigures:
    """The figures of the transcript as sent. Its tokens are the shaped transcript's with each
    replaced result counted as sent, so only the replaced messages are counted again."""
    sent = shaping.sent
    chars = sum(len(message.content) for message in sent)
    if tokens is None:
        return SentFigures(chars, None)
    replaced = [sent[result.index] for result in shaping.results]
    now = sum(tokens.scaled[result.index] for result in shaping.results)
    return SentFigures(chars, tokens.total - now + tokens.messages_scaled(replaced))


@dataclass(frozen=True, slots=True)
class Drop:
    """What happens to the chosen span `first … last` (core messages `start … end−1`)."""

    first: int
    last: int
    start: int
    end: int
    caller_messages: tuple[int, ...]
    chars: int
    tool_names: tuple[str, ...]
    notice_content: str | None
    rung: Rung | None
    refused: bool
    # With token counting: the span's scaled tokens, and the notice's scaled and raw tokens (0
    # without a notice).
    tokens: int = 0
    notice_tokens: int = 0
    notice_raw_tokens: int = 0
    # Under `fit`: the previous cut, held (docs/rules.md#the-fit-strategy).
    held: bool = False
    # Whether the removal reaches the front (where a notice or a summary may go), and the entry of
    # `summaries` whose summary message takes the notice's place (docs/rules.md#summaries).
    front: bool = False
    summary_entry: int | None = None


def system_envelope_length(transcript: Transcript) -> int:
    """`L`: the leading turns whose first message is a system message.

    Every request re-sends them unchanged ahead of the conversation, so the conversation's front,
    where the notice goes, is the turn right after them.
    """
    messages, length = transcript.messages, 0
    for segment in transcript.segments:
        if messages[segment.start].role != "system":
            break
        length += 1
    return length


def drop_span(planning: Planning, first: int, last: int) -> Drop:
    """Split around the span and, when the removal reaches the front, climb the notice ladder.

    The front is the turn right after the system envelope (the ordinary path), or the turn after
    the request when the request is that turn (the kept-request path). Further in, a refusing turn
    that is neither the envelope nor the request stays before the span and opens the window, so
    the span leaves with no notice. The ladder compares characters, except under `fit`, which
    compares tokens: tool-call arguments cost tokens that characters do not show.
    """
    transcript, options, tokens = planning.transcript, planning.options, planning.tokens
    segments, messages = transcript.segments, transcript.messages
    start, end = segments[first].start, segments[last].end
    caller_messages = transcript.caller_messages(start, end)
    chars = sum(segments[index].chars for index in range(first, last + 1))
    span_tokens = 0 if tokens is None else tokens.span(first, last)
    tool_names = dropped_tool_names(messages, start, end, transcript.survey.call_names)
    front = system_envelope_length(transcript)
    ordinary = first == front
    kept_request = first == front + 1 and planning.request_turn == front
    by_tokens = tokens is not None and isinstance(options.strategy, Fit)
    ladder = LadderResult()  # further in: the span leaves with no notice
    judgement = NOT_JUDGED
    if (ordinary or kept_request) and options.summaries:
        judgement = judge_span(planning, first, last, caller_messages)
    if judgement.content is not None:
        # The summary was found smaller than what it stands for: the ladder is not consulted.
        ladder = LadderResult(judgement.content, "summary")
    elif ordinary or kept_request:
        ladder = climb_ladder(
            span_size=span_tokens if by_tokens else chars,
            size=tokens.notice if by_tokens and tokens is not None else len,
            removed_count=len(caller_messages),
            iteration=options.iteration,
            strategy=options.strategy.kind,
            kept_request=kept_request,
            dropped_names=tool_names,
            non_user_would_open=ordinary and end < len(messages) and messages[end].role != "user",
        )
    return Drop(
        first,
        last,
        start,
        end,
        caller_messages,
        chars,
        tool_names,
        ladder.content,
        ladder.rung,
        ladder.refused,
        span_tokens,
        *notice_tokens(tokens, ladder.content),
        front=ordinary or kept_request,
        summary_entry=judgement.applied,
    )


def judge_span(
    planning: Planning, first: int, last: int, caller_messages: Sequence[int]
) -> Judgement:
    """The request's `summaries` judged against the span `first … last` removed at the front:
    sizes in tokens under `fit`, else in characters, as the notice ladder weighs them."""
    transcript, tokens = planning.transcript, planning.tokens
    segments, callers, spans = transcript.segments, transcript.callers, transcript.survey.span_ends
    turn_ending_at: dict[int, int] = {}
    for turn in range(first, last + 1):
        end = segments[turn].end - 1
        turn_ending_at[spans.get(end, callers[end])] = turn  # the later turn when two share it
    if tokens is not None and isinstance(planning.options.strategy, Fit):
        counted = tokens

        def smaller(turn: int, content: str) -> bool:
            return counted.notice(content) < counted.span(first, turn)
    else:

        def smaller(turn: int, content: str) -> bool:
            return len(content) < sum(segments[index].chars for index in range(first, turn + 1))

    return judge(
        planning.options.summaries,
        at_front=True,
        lo=caller_messages[0],
        hi=caller_messages[-1],
        turn_ending_at=turn_ending_at,
        smaller=smaller,
    )


def notice_tokens(tokens: TranscriptTokens | None, content: str | None) -> tuple[int, int]:
    """The notice's scaled and raw tokens; (0, 0) without a notice or a tokenizer."""
    if tokens is None or content is None:
        return 0, 0
    raw = tokens.notice_raw(content)
    return tokens.notice(content), raw


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


def reported_turns(
    transcript: Transcript,
    held: Sequence[HeldBy | None],
    evicted: range,
    tokens: TranscriptTokens | None,
) -> tuple[Turn, ...]:
    starts = transcript.turn_starts
    distinct = transcript.distinct_callers
    turns: list[Turn] = []
    for segment in transcript.segments:
        index = segment.turn
        length = (
            segment.end - segment.start
            if distinct
            else transcript.caller_count(range(segment.start, segment.end))
        )
        fate: Fate = "evicted" if index in evicted else "kept"
        if tokens is None:
            turn: Turn = {
                "index": index,
                "start": starts[index],
                "length": length,
                "chars": segment.chars,
                "fate": fate,
                "held_by": held[index],
            }
        else:
            turn = {
                "index": index,
                "start": starts[index],
                "length": length,
                "chars": segment.chars,
                "tokens": tokens.turns[index],
                "fate": fate,
                "held_by": held[index],
            }
        turns.append(turn)
    return tuple(turns)


def with_pin_tokens(pins: Pins, tokens: TranscriptTokens | None) -> Pins:
    """Each pin with its turn's tokens, when a tokenizer is in use."""
    if tokens is None:
        return pins
    turn_tokens = tokens.turns

    def counted(block: PinBlock[PinT] | None) -> PinBlock[PinT] | None:
        if block is None or not block.pinned:
            return block
        pinned = tuple(replace(pin, tokens=turn_tokens[pin.turn_index]) for pin in block.pinned)
        return replace(block, pinned=pinned)

    return Pins(counted(pins.last_tool_result), counted(pins.ledger_fact))


def current_request_of(
    transcript: Transcript, request: int | None
) -> tuple[CurrentRequest | None, int | None]:
    """The reported current request and the turn holding it."""
    if request is None:
        return None, None
    turn = turn_index_of(transcript.segments, request)
    return CurrentRequest(transcript.callers[request], turn), turn


@dataclass(frozen=True, slots=True)
class Decision:
    """The refusals in report order, every turn's `held_by`, and the drop (None: nothing leaves)."""

    refusals: tuple[Refusal, ...]
    held: tuple[HeldBy | None, ...]
    drop: Drop | None
    # The drop the notice ladder refused (nothing leaves): summaries are judged against it, and
    # it still gets a summary request (docs/rules.md#summaries).
    refused: Drop | None = None


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


def notice_of(transcript: Transcript, drop: Drop | None) -> Notice | None:
    """The inserted notice; its `window_index` counts the caller messages before it."""
    if drop is None or drop.notice_content is None or drop.rung is None:
        return None
    window_index = transcript.caller_count(range(drop.start))
    return Notice(drop.notice_content, window_index, drop.rung)


def stats_of(
    planning: Planning, drop: Drop | None, notice: Notice | None, sent: SentFigures | None
) -> Stats:
    """Counts before and after; the notice is one message and one turn, and its size counts.

    `transcript` is what was planned: the shaped transcript when shaping is on, whose characters
    are then `chars_shaped`, while `chars_before` stays the transcript as sent (`sent`); tokens
    likewise. A system prompt outside the transcript is counted apart
    (`system_chars`, `system_tokens`), never in the transcript's figures.
    """
    transcript, tokens = planning.transcript, planning.tokens
    chars_sent = None if sent is None else sent.chars
    tokens_sent = None if sent is None else sent.tokens
    callers, turns = transcript.callers, len(transcript.segments)
    messages_before = transcript.caller_count(range(len(callers)))
    chars_before = transcript.chars if chars_sent is None else chars_sent
    chars_shaped = None if chars_sent is None else transcript.chars
    if drop is None:
        messages_after, turns_after, chars_after = messages_before, turns, transcript.chars
        removed = 0
    else:
        inserted: list[int | None] = [] if notice is None else [None]
        messages_after = (
            messages_before - (drop.end - drop.start) + len(inserted)
            if transcript.distinct_callers
            else transcript.window_count(
                chain(range(drop.start), inserted, range(drop.end, len(callers)))
            )
        )
        turns_after = turns - (drop.last - drop.first + 1) + len(inserted)
        chars_after = transcript.chars - drop.chars + (0 if notice is None else len(notice.content))
        removed = len(drop.caller_messages)
    stats = Stats(
        messages_before,
        messages_after,
        turns,
        turns_after,
        chars_before,
        chars_shaped,
        chars_after,
        removed,
        planning.options.system_chars,
    )
    if tokens is None:
        return stats
    after, counted = tokens.total, tokens.raw_total
    if drop is not None:
        after += drop.notice_tokens - drop.tokens
        counted += drop.notice_raw_tokens - tokens.raw_messages(drop.start, drop.end)
    return replace(
        stats,
        tokenizer=tokens.tokenizer.name,
        tokens_before=tokens.total if tokens_sent is None else tokens_sent,
        tokens_shaped=None if tokens_sent is None else tokens.total,
        tokens_after=after,
        tokens_counted=tokens.system_raw + counted,
        system_tokens=tokens.system,
    )


def shaped_entries(
    transcript: Transcript, shaped: Sequence[ShapedResult], drop: Drop | None, notice: bool
) -> tuple[ShapedEntry, ...]:
    """Each shaped result with its caller index and its position in the new window (None when
    it left with the span)."""
    callers, spans = transcript.callers, transcript.survey.span_ends
    start, end = (len(callers), len(callers)) if drop is None else (drop.start, drop.end)
    places: dict[int, int] = {}
    wanted = {result.index for result in shaped}
    position, previous = -1, None
    inserted: list[int | None] = [None] if notice else []
    for index in chain(range(start), inserted, range(end, len(callers))):
        if index is None:  # the notice: a caller message of its own
            position, previous = position + 1, None
            continue
        first = callers[index]
        if first != previous:  # a new caller message of the window
            position += 1
        if index in wanted:
            places[index] = position
        last = spans.get(index, first)
        position += last - first
        previous = last
    return tuple(
        ShapedEntry(
            callers[result.index],
            places.get(result.index),
            result.tool_call_id,
            result.action,
            result.chars_before,
            result.chars_after,
        )
        for result in shaped
    )


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


def messages_tokens(messages: Sequence[Message], tokenizer: Tokenizer, scale: Fraction) -> int:
    """The scaled tokens of `messages`, counted outside the plan's own `TranscriptTokens` (a
    total before clearing, a span when the plan counts no tokens)."""
    count = tokenizer.count
    return sum(scaled(message_tokens(message, count), scale) for message in messages)


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


def summary_outcome(
    planning: Planning, drop: Drop | None, refused: Drop | None
) -> SummaryOutcome | None:
    """The answer's summary fields (docs/rules.md#summaries), None when `summarize` is off and
    no summary was sent. The entries are judged against the span removed at the front, or the
    one the notice ladder refused to remove there; any other plan removes nothing at the front."""
    options = planning.options
    if options.summarize is None and not options.summaries:
        return None
    judged = drop if drop is not None else refused
    if judged is None or not judged.front:
        return SummaryOutcome(None, None, unjudged(options.summaries))
    judgement = NOT_JUDGED
    if options.summaries:
        judgement = judge_span(planning, judged.first, judged.last, judged.caller_messages)
    used = None
    if drop is not None and judgement.applied is not None:
        entry = options.summaries[judgement.applied]
        used = (entry.first, entry.through)
    request = None
    if options.summarize is not None:
        request = summary_request_plan(planning, judged, judgement, options.summarize)
    return SummaryOutcome(request, used, judgement.ignored)


def summary_request_plan(
    planning: Planning, drop: Drop, judgement: Judgement, summarize: SummarizeOption
) -> SummaryRequestPlan | None:
    """What the summary request for `drop` holds, or None when none is due: the span is under
    `min_span_tokens`, an entry already covers all of it, or (under `fit`) no end of one of its
    turns gives a request within `max_tokens`.

    The request is the window before the span (the head), then the summary that applied as first
    written, then the span up to the chosen end, then the instruction: so it shares the previous
    window's bytes, which a provider prompt cache serves.
    """
    transcript, options, tokens = planning.transcript, planning.options, planning.tokens
    segments, callers, spans = transcript.segments, transcript.callers, transcript.survey.span_ends
    lo, hi = drop.caller_messages[0], drop.caller_messages[-1]
    entry = None if judgement.applied is None else options.summaries[judgement.applied]
    if entry is not None and entry.through == hi:
        return None
    if span_tokens(planning, drop) < summarize.min_span_tokens:
        return None
    replaced, summary, first_turn = None, None, drop.first
    if entry is not None and judgement.covers_through_turn is not None:
        first_turn = judgement.covers_through_turn + 1
        summary = summary_message(entry.through - lo + 1, 0, entry.summary)
        replaced = (drop.start, segments[judgement.covers_through_turn].end)
    candidates = range(first_turn, drop.last + 1)
    strategy = options.strategy
    if isinstance(strategy, Fit) and tokens is not None:
        # Counted as the window is: the system prompt, the head, the summary, the span's turns up
        # to the end tried, the instruction, and the reserve.
        fixed = (
            (tokens.system or 0)
            + (tokens.span(0, drop.first - 1) if drop.first > 0 else 0)
            + (0 if summary is None else tokens.notice(summary))
            + tokens.notice(summarize.instructions)
            + strategy.reserve_tokens
        )
        limit = strategy.max_tokens
        within = [t for t in candidates if fixed + tokens.span(first_turn, t) <= limit]
        candidates = range(first_turn, within[-1] + 1) if within else range(0)
    if not candidates:
        return None
    last = candidates[-1]
    end = segments[last].end
    return SummaryRequestPlan(
        lo, spans.get(end - 1, callers[end - 1]), end, replaced, summary, summarize.instructions
    )


def span_tokens(planning: Planning, drop: Drop) -> int:
    """The span's tokens with the request's tokenizer (`estimate` when none) and calibration."""
    if planning.tokens is not None:
        return drop.tokens
    scale = calibration_scale(planning.options.calibration, 0)
    return messages_tokens(planning.transcript.messages[drop.start : drop.end], ESTIMATE, scale)
