"""The window plan: whether the strategy acts, which span leaves, and what the plan reports.

`plan_window` is the single entry point. It segments the transcript, finds the current request,
asks the strategy whether to act and, when it does, admits pins, chooses the span, climbs the
notice ladder and reports every turn's fate with the reason that kept it. It removes at most one
contiguous run of whole turns per request even when a budget is still exceeded: the next request
continues, and a plan that removed nothing says why. It neither writes the new window (the caller's
format is not known here; `WindowPlan.removed` says what leaves) nor estimates tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from app.core.current_request import current_request_index
from app.core.ledger import fold_ledger
from app.core.messages import Message
from app.core.names import name_of
from app.core.notice import climb_ladder
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
from app.core.turns import (
    Segment,
    Survey,
    caller_message_count,
    spanned_caller_count,
    survey,
    turn_index_of,
)

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


def strategy_engages(strategy: Strategy, turn_count: int) -> bool:
    """Whether the strategy acts on this request.

    A token budget acts only on a measurement above its threshold: with nothing measured (or a
    report of 0/0, which the HTTP layer refuses) there is nothing to judge.
    """
    if isinstance(strategy, SlidingWindow):
        return turn_count > strategy.keep_recent_turns
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


# `survey` itself, or an implementation of it that gives an equal `Survey` for every transcript
# (the compiled one, `app.compiled`).
SurveyOf = Callable[[Sequence[Message]], Survey]
# The default of `Transcript.of`, named apart from the dataclass's own `survey` field.
PYTHON_SURVEY: SurveyOf = survey


@dataclass(frozen=True, slots=True)
class Transcript:
    """The request's core transcript with what several rules read about it, computed once."""

    messages: Sequence[Message]
    segments: tuple[Segment, ...]
    callers: list[int]
    turn_starts: list[int]
    chars: int
    # Every core message comes from a caller message of its own (native, OpenAI): then the caller
    # messages of any run of core messages are simply as many as the core messages.
    distinct_callers: bool

    survey: Survey

    @classmethod
    def of(cls, messages: Sequence[Message], survey_of: SurveyOf = PYTHON_SURVEY) -> Transcript:
        facts = survey_of(messages)
        segments, callers = facts.segments, facts.callers
        turn_starts = [callers[segment.start] for segment in segments]
        distinct = not facts.span_ends and len(set(callers)) == len(callers)
        chars = sum(segment.chars for segment in segments)
        return cls(messages, segments, callers, turn_starts, chars, distinct, facts)

    def caller_count(self, positions: range) -> int:
        """Caller messages the core messages at `positions` come from."""
        if self.distinct_callers:
            return len(positions)
        return self.window_count(positions)

    def window_count(self, positions: Iterable[int | None]) -> int:
        """Caller messages of a run of core positions in window order (None: the notice)."""
        spans = self.survey.span_ends
        if spans:
            return spanned_caller_count(self.callers, spans, positions)
        callers = self.callers
        return caller_message_count(
            None if position is None else callers[position] for position in positions
        )

    def caller_messages(self, start: int, end: int) -> tuple[int, ...]:
        """The distinct caller messages core messages `start … end−1` come from, ascending."""
        if self.distinct_callers:  # one caller message per core message, in order
            return tuple(self.callers[start:end])
        spans, callers = self.survey.span_ends, self.callers
        found: set[int] = set()
        for position in range(start, end):
            first = callers[position]
            found.update(range(first, spans.get(position, first) + 1))
        return tuple(sorted(found))


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


def drop_span(
    transcript: Transcript,
    first: int,
    last: int,
    request_turn: int | None,
    call_names: dict[str, str],
    options: PlanOptions,
) -> Drop:
    """Split around the span and, when the removal reaches the front, climb the notice ladder.

    The front is the turn right after the system envelope (the ordinary path), or the turn after
    the request when the request is that turn (the kept-request path). Further in, a refusing turn
    that is neither the envelope nor the request stays before the span and opens the window, so
    the span leaves with no notice.
    """
    segments, messages = transcript.segments, transcript.messages
    start, end = segments[first].start, segments[last].end
    caller_messages = transcript.caller_messages(start, end)
    chars = sum(segments[index].chars for index in range(first, last + 1))
    tool_names = dropped_tool_names(messages, start, end, call_names)
    front = system_envelope_length(transcript)
    ordinary = first == front
    kept_request = first == front + 1 and request_turn == front
    if not ordinary and not kept_request:
        return Drop(first, last, start, end, caller_messages, chars, tool_names, None, None, False)
    ladder = climb_ladder(
        span_chars=chars,
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
    )


def reported_turns(
    transcript: Transcript, held: Sequence[HeldBy | None], evicted: range
) -> tuple[Turn, ...]:
    starts = transcript.turn_starts
    distinct = transcript.distinct_callers
    turns: list[Turn] = []
    for segment in transcript.segments:
        index = segment.turn
        turns.append(
            {
                "index": index,
                "start": starts[index],
                "length": segment.end - segment.start
                if distinct
                else transcript.caller_count(range(segment.start, segment.end)),
                "chars": segment.chars,
                "fate": "evicted" if index in evicted else "kept",
                "held_by": held[index],
            }
        )
    return tuple(turns)


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


def decide(
    transcript: Transcript,
    candidate_count: int,
    request_turn: int | None,
    pin_plan: PinPlan,
    call_names: dict[str, str],
    options: PlanOptions,
) -> Decision:
    """Run the refusal engine over the candidates and drop the span it chooses, if it may leave."""
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
        request_turn=request_turn,
        system_turns=transcript.survey.system_turns,
        paused_turns=turns_touching_call(messages, segments, options.paused),
        paused_check_in=options.paused is not None and options.paused.check_in,
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
    drop = drop_span(transcript, choice.first, choice.last, request_turn, call_names, options)
    if not drop.refused:
        return Decision(refusals, tuple(held), drop)
    for index in range(drop.first, drop.last + 1):
        held[index] = "replacement-not-smaller"
    refused = Refusal("replacement-not-smaller", drop.first, turn_starts[drop.first])
    return Decision((refused, *refusals), tuple(held), None)


def notice_of(transcript: Transcript, drop: Drop | None) -> Notice | None:
    """The inserted notice; its `window_index` counts the caller messages before it."""
    if drop is None or drop.notice_content is None or drop.rung is None:
        return None
    window_index = transcript.caller_count(range(drop.start))
    return Notice(drop.notice_content, window_index, drop.rung)


def stats_of(
    transcript: Transcript,
    drop: Drop | None,
    notice: Notice | None,
    options: PlanOptions,
    chars_sent: int | None,
) -> Stats:
    """Counts before and after; the notice is one message and one turn, and its chars count.

    `transcript` is what was planned: the shaped transcript when shaping is on, whose characters
    are then `chars_shaped`, while `chars_before` stays the transcript as sent (`chars_sent`). A
    system prompt outside the transcript is counted apart (`system_chars`), never in the chars.
    """
    callers, turns = transcript.callers, len(transcript.segments)
    messages_before = transcript.caller_count(range(len(callers)))
    chars_before = transcript.chars if chars_sent is None else chars_sent
    chars_shaped = None if chars_sent is None else transcript.chars
    if drop is None:
        return Stats(
            messages_before,
            messages_before,
            turns,
            turns,
            chars_before,
            chars_shaped,
            transcript.chars,
            0,
            options.system_chars,
        )
    inserted: list[int | None] = [] if notice is None else [None]
    messages_after = (
        messages_before - (drop.end - drop.start) + len(inserted)
        if transcript.distinct_callers
        else transcript.window_count(
            chain(range(drop.start), inserted, range(drop.end, len(callers)))
        )
    )
    return Stats(
        messages_before,
        messages_after,
        turns,
        turns - (drop.last - drop.first + 1) + len(inserted),
        chars_before,
        chars_shaped,
        transcript.chars - drop.chars + (0 if notice is None else len(notice.content)),
        len(drop.caller_messages),
        options.system_chars,
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


def plan_window(
    messages: Sequence[Message],
    options: PlanOptions | None = None,
    survey_of: SurveyOf = survey,
) -> WindowPlan:
    """Plan the window for one request (see the module docstring).

    With `collapse` or `cap` on, the transcript is shaped first (`app.core.shaping`) and planned
    as shaped: every character figure counts what the wire will carry. `survey_of` surveys the
    transcript planned (`app.core.turns.survey` unless a faster equal one is given).
    """
    options = PlanOptions() if options is None else options
    fold = None if options.ledger is None else fold_ledger(options.ledger)
    if options.collapse is None and options.cap is None:
        return plan_transcript(messages, options, fold, None, None, survey_of)
    shaped_messages, shaped = shape(messages, fold, options.collapse, options.cap)
    chars_sent = sum(len(message.content) for message in messages)
    return plan_transcript(shaped_messages, options, fold, chars_sent, shaped, survey_of)


def plan_transcript(
    messages: Sequence[Message],
    options: PlanOptions,
    fold: LedgerFold | None,
    chars_sent: int | None,
    shaped: tuple[ShapedResult, ...] | None,
    survey_of: SurveyOf = survey,
) -> WindowPlan:
    """The plan of a transcript as it will be sent (shaped, when `shaped` is not None)."""
    strategy = options.strategy
    transcript = Transcript.of(messages, survey_of)
    turn_count = len(transcript.segments)
    request = current_request_index(messages, options.request_text)
    current_request, request_turn = current_request_of(transcript, request)

    if not strategy_engages(strategy, turn_count):
        return WindowPlan(
            engaged=False,
            current_request=current_request,
            turns=reported_turns(transcript, [None] * turn_count, range(0)),
            kept=tuple(range(turn_count)),
            evicted=(),
            evicted_messages=(),
            pins=NO_PINS,
            refusals=(),
            notice=None,
            stats=stats_of(transcript, None, None, options, chars_sent),
            dropped_tool_names=(),
            dropped_standings=None if options.ledger is None else (),
            shaped=None if shaped is None else shaped_entries(transcript, shaped, None, False),
            record=None,
            strategy=strategy.kind,
            removed=None,
            shaped_results=() if shaped is None else shaped,
        )

    candidate_count = max(0, turn_count - strategy.keep_recent_turns)
    call_names = transcript.survey.call_names
    after = -1 if request is None else request
    pin_plan = plan_pins(
        messages,
        transcript.segments,
        transcript.turn_starts,
        call_names,
        fold,
        after,
        candidate_count,
        options,
    )
    pins = Pins(pin_plan.last_tool_result, pin_plan.ledger_fact)
    decision = decide(transcript, candidate_count, request_turn, pin_plan, call_names, options)
    drop = decision.drop
    evicted = range(0) if drop is None else range(drop.first, drop.last + 1)
    notice = notice_of(transcript, drop)
    stats = stats_of(transcript, drop, notice, options, chars_sent)
    standings: tuple[DroppedStanding, ...] | None = None
    if fold is not None:
        standings = () if drop is None else dropped_standings(messages, drop.start, drop.end, fold)
    return WindowPlan(
        engaged=True,
        current_request=current_request,
        turns=reported_turns(transcript, decision.held, evicted),
        kept=tuple(index for index in range(turn_count) if index not in evicted),
        evicted=tuple(evicted),
        evicted_messages=() if drop is None else drop.caller_messages,
        pins=pins,
        refusals=decision.refusals,
        notice=notice,
        stats=stats,
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
    )
