"""The tokens of one transcript, counted once: per message, per turn, and for any span.

A plan that counts tokens reads them many times (every turn's figure, every pin, the total before
and after, and under `fit` the total of each shortened span it tries), so each message is counted
once and each turn's figure summed once; prefix sums answer a span in constant time. Counts are
kept both raw and scaled by the calibration (docs/rules.md#calibration): every figure the plan
reports or compares is scaled, per message before summing, except `tokens_counted`, which is raw so
that the next calibration never feeds on its own output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate

from app.core.messages import Message
from app.core.tokens import Tokenizer, message_tokens, scaled, text_message_tokens
from app.core.turns import Segment


@dataclass(frozen=True, slots=True)
class TranscriptTokens:
    """Token figures of a transcript under one tokenizer and scale.

    `system` is the scaled tokens of a top-level system prompt outside the transcript (`0` when
    none was sent), None for a format that keeps its system prompt in the transcript.
    """

    tokenizer: Tokenizer
    scale: Fraction
    raw: list[int]
    scaled: list[int]
    turns: list[int]
    turn_prefix: list[int]
    raw_prefix: list[int]
    system_raw: int
    system: int | None

    @classmethod
    def of(
        cls,
        messages: Sequence[Message],
        segments: Sequence[Segment],
        tokenizer: Tokenizer,
        scale: Fraction,
        system_text: str | None,
        has_system: bool,
    ) -> TranscriptTokens:
        count = tokenizer.count
        raw = [message_tokens(message, count) for message in messages]
        scaled_counts = raw if scale == 1 else [scaled(tokens, scale) for tokens in raw]
        turns = [sum(scaled_counts[segment.start : segment.end]) for segment in segments]
        system_raw = 0 if system_text is None else text_message_tokens(system_text, count)
        return cls(
            tokenizer,
            scale,
            raw,
            scaled_counts,
            turns,
            [0, *accumulate(turns)],
            [0, *accumulate(raw)],
            system_raw,
            scaled(system_raw, scale) if has_system else None,
        )

    @property
    def total(self) -> int:
        """The scaled tokens of the whole transcript (no system prompt outside it)."""
        return self.turn_prefix[-1]

    @property
    def raw_total(self) -> int:
        return self.raw_prefix[-1]

    def span(self, first: int, last: int) -> int:
        """The scaled tokens of turns `first … last`."""
        return self.turn_prefix[last + 1] - self.turn_prefix[first]

    def raw_messages(self, start: int, end: int) -> int:
        """The raw tokens of core messages `start … end−1`."""
        return self.raw_prefix[end] - self.raw_prefix[start]

    def notice_raw(self, content: str) -> int:
        return text_message_tokens(content, self.tokenizer.count)

    def notice(self, content: str) -> int:
        """The scaled tokens of a notice holding `content`: what the `fit` ladder compares."""
        return scaled(self.notice_raw(content), self.scale)

    def messages_scaled(self, messages: Sequence[Message]) -> int:
        """The scaled tokens of other messages under the same tokenizer and scale."""
        count, scale = self.tokenizer.count, self.scale
        return sum(scaled(message_tokens(message, count), scale) for message in messages)


def messages_tokens(messages: Sequence[Message], tokenizer: Tokenizer, scale: Fraction) -> int:
    """The scaled tokens of `messages`, counted outside the plan's own `TranscriptTokens` (a
    total before clearing, a span when the plan counts no tokens)."""
    count = tokenizer.count
    return sum(scaled(message_tokens(message, count), scale) for message in messages)
