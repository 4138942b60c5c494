"""Summaries in the core (docs/rules.md#summaries): S-1 to S-4 planned directly (the key is the
format layer's, so a changed entry arrives marked `changed`), the summary message's text, and the
properties: an entry that applies appears once, where the notice would be, only when smaller than
what it stands for; nothing outside the span moves; under `fit` the budget counts the window with
the summary and a summary request is never over `max_tokens`. The guarantees of
docs/rules.md#guarantees with summaries are in `test_window_properties.py`, whose cases send them.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import assume, given
from hypothesis import strategies as st

from app.core.defaults import DEFAULT_SUMMARY_INSTRUCTIONS
from app.core.messages import Message
from app.core.plan_types import (
    Fit,
    PlanOptions,
    SlidingWindow,
    SummarizeOption,
    SummaryEntry,
    SummaryRequestPlan,
    WindowPlan,
)
from app.core.summaries import summary_message
from app.core.tokens import estimate_tokens, message_tokens, text_message_tokens
from app.core.window import plan_window
from tests.core.test_window_properties import cases
from tests.core.window_fixtures import TASK, R, U, W, new_window

X = "x" * 500
S1 = W(U(TASK), R("c1", "look", X), R("c2", "look", X), R("c3", "look", X))
S3 = [*S1, *R("c4", "look", X)]
OPTIONS = PlanOptions(
    strategy=SlidingWindow(1),
    keep_last_tool_results=0,
    summarize=SummarizeOption(min_span_tokens=0),
)
S2_ENTRY = SummaryEntry(1, 4, "S")


def test_the_summary_message_text() -> None:
    assert summary_message(4, 0, "S") == (
        "[compacted history — 4 earlier message(s) summarized by the model]\n\nS"
    )
    assert summary_message(4, 2, "S") == (
        "[compacted history — 4 earlier message(s) summarized by the model and 2 more removed "
        "without a summary]\n\nS"
    )


def test_s1_the_request() -> None:
    result = plan_window(S1, OPTIONS)
    assert result.removed == ((1, 5),) and result.notice is not None
    assert result.notice.window_index == 1
    assert result.summaries is not None
    assert result.summaries.request == SummaryRequestPlan(
        1, 4, 5, None, None, DEFAULT_SUMMARY_INSTRUCTIONS
    )
    assert result.summaries.used is None and result.summaries.ignored == ()


def test_s2_the_summary_in_place() -> None:
    result = plan_window(S1, replace(OPTIONS, summaries=(S2_ENTRY,)))
    text = summary_message(4, 0, "S")
    assert result.notice is not None
    assert (result.notice.content, result.notice.window_index, result.notice.rung) == (
        text,
        1,
        "summary",
    )
    assert new_window(S1, result) == [U(TASK), U(text), *S1[5:]]
    assert result.summaries is not None
    assert result.summaries.used == (1, 4)
    assert result.summaries.request is None and result.summaries.ignored == ()


def test_s3_the_span_grew() -> None:
    result = plan_window(S3, replace(OPTIONS, summaries=(S2_ENTRY,)))
    assert result.removed == ((1, 7),)
    assert result.notice is not None
    assert result.notice.content == summary_message(4, 2, "S")
    assert result.summaries is not None and result.summaries.used == (1, 4)
    assert result.summaries.request == SummaryRequestPlan(
        1, 6, 7, (1, 5), summary_message(4, 0, "S"), DEFAULT_SUMMARY_INSTRUCTIONS
    )


def test_s4_changed_history() -> None:
    changed = replace(S2_ENTRY, mismatch="changed")
    result = plan_window(S1, replace(OPTIONS, summaries=(changed,)))
    plain = plan_window(S1, OPTIONS)
    assert result.summaries is not None
    assert result.summaries.ignored == ((0, "changed"),)
    assert result.summaries.used is None
    assert result.notice == plain.notice and result.removed == plain.removed
    assert result.summaries.request == SummaryRequestPlan(
        1, 4, 5, None, None, DEFAULT_SUMMARY_INSTRUCTIONS
    )


def test_off_the_plan_carries_no_summary_fields() -> None:
    assert plan_window(S1, replace(OPTIONS, summarize=None)).summaries is None


# ---- properties ----------------------------------------------------------------------------------


def turn_ends(result: WindowPlan) -> list[int]:
    """The last caller message of each evicted turn (the core cases have one message each)."""
    return [
        turn["start"] + turn["length"] - 1 for turn in result.turns if turn["fate"] == "evicted"
    ]


def tokens(messages: list[Message]) -> int:
    return sum(message_tokens(message, estimate_tokens) for message in messages)


@given(cases(), st.data())
def test_an_entry_that_applies_appears_once_where_the_notice_would_be(
    case: object, data: st.DataObject
) -> None:
    messages, options = case.messages, case.options  # type: ignore[attr-defined]
    # Without clear, so that the window is counted from the messages as sent.
    options = replace(options, summaries=(), summarize=None, clear=None)
    plain = plan_window(messages, options)
    assume(plain.notice is not None and plain.removed != ())
    ends = turn_ends(plain)
    lo = plain.evicted_messages[0]
    through = data.draw(st.sampled_from(ends), label="through")
    summary = data.draw(st.sampled_from(["S", "s" * 300]), label="summary")
    entry = SummaryEntry(lo, through, summary)
    result = plan_window(messages, replace(options, summaries=(entry,)))
    assert result.summaries is not None
    if result.summaries.used is None:
        assert result.notice is None or result.notice.rung != "summary"
        return
    assert result.notice is not None and result.removed != ()
    assert result.notice.rung == "summary"
    window = new_window(messages, result)
    (start, end), *further = result.removed
    # Exactly one summary message, where the notice goes: nothing else moved (under `fit`, the
    # further spans of docs/rules.md#within-the-limit leave with nothing in their place).
    rest: list[Message] = []
    position = end
    for later_start, later_end in further:
        rest += messages[position:later_start]
        position = later_end
    rest += messages[position:]
    assert window == [*messages[:start], Message("user", result.notice.content), *rest]
    assert sum(message.content == result.notice.content for message in window) == 1
    covered = messages[lo : through + 1]
    if isinstance(options.strategy, Fit):
        assert text_message_tokens(result.notice.content, estimate_tokens) < tokens(covered)
        assert result.budget is not None
        assert result.budget.total_after == tokens(window) + options.strategy.reserve_tokens
    else:
        assert len(result.notice.content) < sum(len(message.content) for message in covered)
    if isinstance(options.strategy, SlidingWindow):
        # Outside fit the span does not depend on what takes its place.
        assert result.removed == plain.removed


@given(cases())
def test_under_fit_a_summary_request_is_never_over_max_tokens(case: object) -> None:
    messages, options = case.messages, case.options  # type: ignore[attr-defined]
    assume(isinstance(options.strategy, Fit))
    assert isinstance(options.strategy, Fit)
    options = replace(options, summarize=SummarizeOption(min_span_tokens=0), clear=None)
    result = plan_window(messages, options)
    assert result.summaries is not None
    wanted = result.summaries.request
    if wanted is None:
        return
    carried = list(messages[: wanted.end])
    if wanted.replaced is not None and wanted.summary is not None:
        start, end = wanted.replaced
        carried[start:end] = [Message("user", wanted.summary)]
    request = [*carried, Message("user", wanted.instructions)]
    assert tokens(request) + options.strategy.reserve_tokens <= options.strategy.max_tokens
