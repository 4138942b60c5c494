"""The plan's summary fields: which entry of `summaries` it used, and the summary request it asks
the agent to send.

`app.core.summaries` judges the entries against a span; this module says which span that is (the
one removed at the front, or the one the ladder refused to remove there) and plans the request
for it (docs/rules.md#the-summary-request). The request is the window before the span, then the
summary that applied as first written, then the span up to the chosen end, then the instruction,
so it shares the previous window's bytes, which a provider prompt cache serves. Under a strategy
with a token limit (`fit`'s `max_tokens`) the request stops at the last turn that keeps it within
that limit: a request the model refuses summarizes nothing.
"""

from __future__ import annotations

from app.core.counting import messages_tokens
from app.core.plan_types import SummarizeOption, SummaryOutcome, SummaryRequestPlan
from app.core.span import judge_span
from app.core.steps import Drop, Planning
from app.core.summaries import NOT_JUDGED, Judgement, summary_message, unjudged
from app.core.tokens import ESTIMATE, calibration_scale


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
    `min_span_tokens`, an entry already covers all of it, or (under a strategy with a token
    limit: `fit`'s `max_tokens`) no end of one of its turns gives a request within it.

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
        summary = summary_message(
            entry.through - lo + 1, 0, entry.summary, planning.options.recall_tool
        )
        replaced = (drop.start, segments[judgement.covers_through_turn].end)
    candidates = range(first_turn, drop.last + 1)
    strategy = options.strategy
    limit = strategy.token_limit
    if limit is not None and tokens is not None:
        # Counted as the window is: the system prompt, the head, the summary, the span's turns up
        # to the end tried, the instruction, and the reserve.
        fixed = (
            (tokens.system or 0)
            + (tokens.span(0, drop.first - 1) if drop.first > 0 else 0)
            + (0 if summary is None else tokens.notice(summary))
            + tokens.notice(summarize.instructions)
            + strategy.reserve_tokens
        )
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
