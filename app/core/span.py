"""The span's removal: what leaves with it, and what takes its place.

Every strategy removes a span of whole turns, and what that removal is does not depend on which
strategy chose it: the core messages and caller messages that leave, their characters, tokens and
tool names, and, when the removal reaches the front of the window, the message that takes its
place: a summary the agent sent that the plan judged smaller than the span, else the drop notice
the ladder allows (docs/rules.md#front-or-further-in). Further in, a span leaves with nothing in
its place. Only the measure is the strategy's: a strategy that weighs tokens compares the notice
and the summaries with the span in tokens, the others in characters.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.counting import TranscriptTokens
from app.core.messages import Message
from app.core.names import name_of
from app.core.notice import LadderResult, climb_ladder
from app.core.plan_types import Notice
from app.core.steps import Drop, Planning
from app.core.summaries import NOT_JUDGED, Judgement, judge
from app.core.transcript import Transcript


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


def drop_span(planning: Planning, first: int, last: int) -> Drop:
    """Split around the span and, when the removal reaches the front, climb the notice ladder.

    The front is the turn right after the system envelope (the ordinary path), or the turn after
    the request when the request is that turn (the kept-request path). Further in, a refusing turn
    that is neither the envelope nor the request stays before the span and opens the window, so
    the span leaves with no notice. The ladder compares characters, except under a strategy that
    weighs tokens (`fit`), which compares tokens: tool-call arguments cost tokens that characters
    do not show.
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
    by_tokens = tokens is not None and options.strategy.weighs_tokens
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
            recall_tool=options.recall_tool,
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
    sizes in tokens under a strategy that weighs tokens (`fit`), else in characters, as the
    notice ladder weighs them."""
    transcript, tokens = planning.transcript, planning.tokens
    segments, callers, spans = transcript.segments, transcript.callers, transcript.survey.span_ends
    turn_ending_at: dict[int, int] = {}
    for turn in range(first, last + 1):
        end = segments[turn].end - 1
        turn_ending_at[spans.get(end, callers[end])] = turn  # the later turn when two share it
    if tokens is not None and planning.options.strategy.weighs_tokens:
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
        recall_tool=planning.options.recall_tool,
    )


def notice_tokens(tokens: TranscriptTokens | None, content: str | None) -> tuple[int, int]:
    """The notice's scaled and raw tokens; (0, 0) without a notice or a tokenizer."""
    if tokens is None or content is None:
        return 0, 0
    raw = tokens.notice_raw(content)
    return tokens.notice(content), raw


def notice_of(transcript: Transcript, drop: Drop | None) -> Notice | None:
    """The inserted notice; its `window_index` counts the caller messages before it."""
    if drop is None or drop.notice_content is None or drop.rung is None:
        return None
    window_index = transcript.caller_count(range(drop.start))
    return Notice(drop.notice_content, window_index, drop.rung)
