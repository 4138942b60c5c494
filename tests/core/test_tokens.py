"""The tokens of a message (docs/rules.md#the-tokens-of-a-message) and calibration
(docs/rules.md#calibration), on the core's values."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.core.messages import Message, ToolCall
from app.core.tokens import (
    Calibration,
    arguments_text,
    calibration_scale,
    estimate_tokens,
    message_tokens,
    scaled,
    text_message_tokens,
)
from tests.core.fit_examples import F_MESSAGE_TOKENS, F_TRANSCRIPT, f_notice


def test_every_message_of_the_worked_examples_counts_by_the_rule() -> None:
    assert [message_tokens(m, estimate_tokens) for m in F_TRANSCRIPT] == F_MESSAGE_TOKENS


def test_the_fit_notice_of_f1_is_101_tokens() -> None:
    # Under `fit` the notice names no iteration (docs/rules.md#notice-text).
    notice = f_notice(4)
    assert len(notice) == 384 and len(notice.encode()) == 386
    assert text_message_tokens(notice, estimate_tokens) == 101


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("é", 1), ("😀😀", 2), ("—" * 4, 3)],
)
def test_estimate_is_a_quarter_of_the_utf8_bytes_rounded_up(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_a_message_counts_its_text_each_call_and_its_framing() -> None:
    calls = (
        ToolCall("c1", "read_file", None, '{"path": "a.txt"}'),  # as sent: 17 bytes → 5
        ToolCall("c2", "grep", None, {"pattern": "x", "n": 2}),  # {"pattern":"x","n":2} → 6
        ToolCall("c3", "noop"),  # no arguments → 0
    )
    message = Message("assistant", "Checking.", calls)  # 9 bytes → 3
    expected = 3 + (3 + 5 + 3) + (1 + 6 + 3) + (1 + 0 + 3) + 4
    assert message_tokens(message, estimate_tokens) == expected


def test_extra_texts_count_as_texts_and_extra_tokens_as_they_are() -> None:
    """What the provider reads with no core text (a shell's output, a server tool's result, a
    document) adds tokens, never characters (docs/rules.md#the-tokens-of-a-message)."""
    plain = Message("tool", "ok", tool_call_id="c1")  # 1 + 4
    extra = plain._replace(extra_texts=("a.txt\nb.txt", '{"x":1}'), extra_tokens=1_600)
    assert message_tokens(plain, estimate_tokens) == 5
    assert message_tokens(extra, estimate_tokens) == 5 + 3 + 2 + 1_600
    assert len(extra.content) == len(plain.content)


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        ('{"a": 1}', '{"a": 1}'),  # a string is counted as sent, spaces and all
        ({"a": [1, 2], "é": "😀"}, '{"a":[1,2],"é":"😀"}'),
        ([], "[]"),
        (None, "null"),
        (1.5, "1.5"),
        ("", ""),
    ],
)
def test_arguments_are_the_string_as_sent_else_compact_json(arguments: object, text: str) -> None:
    assert arguments_text(arguments) == text


def test_calibration_scales_by_the_measured_input_over_the_count() -> None:
    scale = calibration_scale(Calibration(counted=1000, input_tokens=1100), 0)
    assert scale == Fraction(11, 10)
    # Exact: 10 × 1.1 is 11, where floating point would give 11.000000000000002 and round up.
    assert [scaled(raw, scale) for raw in (0, 1, 10, 11, 105)] == [0, 2, 11, 13, 116]


def test_calibration_takes_the_reserve_off_the_measured_input() -> None:
    scale = calibration_scale(Calibration(counted=400, input_tokens=1000), 200)
    assert scale == 2
    assert scaled(113, scale) == 226


def test_a_scale_is_at_least_a_tenth() -> None:
    assert calibration_scale(Calibration(counted=1000, input_tokens=50), 0) == Fraction(1, 10)
    assert calibration_scale(Calibration(counted=10, input_tokens=5), 100) == Fraction(1, 10)
    assert scaled(105, Fraction(1, 10)) == 11


def test_no_calibration_is_scale_one() -> None:
    assert calibration_scale(None, 500) == 1
    assert scaled(7, calibration_scale(None, 0)) == 7
