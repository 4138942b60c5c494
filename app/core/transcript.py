"""The transcript a plan works on, with what several rules read about it, computed once.

The segments, each core message's caller index, each turn's first caller message and the calls'
tool names come from one survey (`app.core.turns.survey`, or the compiled reader's equal); the pin
policies, the refusal engine and the reported figures all read this one value rather than
surveying again. It also counts caller messages, which is where formats differ: most read one core
message per caller message, while a Responses assistant run is one core message over several
items (`source`…`span_ends`), so a count of core positions is not a count of caller messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from app.core.messages import Message
from app.core.turns import Segment, Survey, caller_message_count, spanned_caller_count, survey

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
