"""The texts a window writes with recall on (docs/rules.md#the-recall-option), exactly, and the size
rules that weigh them as written: the clear placeholder's hint, the cap marker's `ref` (inside its
cap), the notice's recall sentence (on both rungs), the summary message's first line; and a result
of the recall tool is never capped, by `cap` or by `fit`'s caps."""

from __future__ import annotations

import orjson
import pytest

from app.core.cap import is_truncated, marker_for, marker_size
from app.core.clear import is_placeholder, placeholder_for
from app.core.messages import Message
from app.core.notice import climb_ladder, notice_text
from app.core.plan_types import (
    CapOption,
    ClearOption,
    Fit,
    PlanOptions,
    RecallOption,
    SlidingWindow,
    SummaryEntry,
)
from app.core.recall_tool import DESCRIPTION, is_tool_name, parameters
from app.core.shaping import shape
from app.core.summaries import judge, summary_message
from app.core.window import plan_window
from tests.api.test_recall_plan_http import S as RECALL_SCHEMA
from tests.core.window_fixtures import AC, TASK, A, R, S, T, U, W

RECALL = "context_recall"
RECALL_SENTENCE = (
    "You can get any of them back: call context_recall with a query (words or identifiers they "
    "contained). "
)


# ---- the tool ------------------------------------------------------------------------------------


def test_the_description_and_schema_are_the_contracts() -> None:
    assert DESCRIPTION == (
        "Get back text that was taken out of your context window to save space: a tool result "
        "shown as cleared or truncated, or earlier messages that were dropped or summarized. Give "
        "ref (the tool_call_id shown in a cleared or truncated result) to get that result whole, "
        "or query (words or identifiers it contained: a path, an id, a number) to search "
        "everything earlier in this conversation. Long answers come in pages: ask again with page "
        "2, 3, and so on."
    )
    assert "\n" not in DESCRIPTION
    assert parameters() == RECALL_SCHEMA  # as the contract writes it
    assert parameters() is not parameters()  # a fresh value: an answer may be changed


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("context_recall", True),
        ("_", True),
        ("a-b_9", True),
        ("x" * 64, True),
        ("x" * 65, False),
        ("", False),
        ("9lives", False),
        ("-x", False),
        ("has space", False),
        ("a.b", False),
        ("recall\n", False),
        ("é", False),
    ],
)
def test_tool_names(name: str, valid: bool) -> None:
    assert is_tool_name(name) is valid


# ---- the placeholder -----------------------------------------------------------------------------


def test_the_placeholder_hint_names_the_tool() -> None:
    written = placeholder_for("c1", "read", 300, RECALL)
    assert written == (
        '{"cleared":true,"tool_call_id":"c1","tool_name":"read","chars":300,'
        '"hint":"call context_recall with this tool_call_id to see it"}'
    )
    assert is_placeholder(orjson.loads(written))
    assert placeholder_for("c1", "read", 300) == (
        '{"cleared":true,"tool_call_id":"c1","tool_name":"read","chars":300,'
        '"hint":"call the tool again to see it"}'
    )


def cleared_of(text: str, recall: RecallOption | None) -> list[str]:
    """The actions shaping took on `R(c1, read, text)`, read and at the boundary."""
    transcript = W(U(TASK), R("c1", "read", text), A("done"))
    options = PlanOptions(
        keep_last_tool_results=0, clear=ClearOption(keep_last=0, step=1), recall=recall
    )
    return [result.action for result in plan_window(transcript, options).shaped_results]


def test_clear_weighs_the_placeholder_with_its_hint() -> None:
    # 120 characters: the plain placeholder (106) is shorter, the recall one (129) is not.
    assert len(placeholder_for("c1", "read", 120)) == 106
    assert len(placeholder_for("c1", "read", 120, RECALL)) == 129
    assert cleared_of("r" * 120, None) == ["cleared"]
    assert cleared_of("r" * 120, RecallOption()) == []
    assert cleared_of("r" * 130, RecallOption()) == ["cleared"]


# ---- the marker ----------------------------------------------------------------------------------

HEAD_OPEN = (
    '{"truncated":true,"reason":"look returned 4000 chars, over the 1000-char cap. Narrow the '
    'request and call again.","head":"'
)


def test_the_marker_ends_with_its_ref_and_stays_within_its_cap() -> None:
    marker = marker_for("x" * 4000, "look", 1000, ref="c1")
    written = orjson.dumps(marker).decode()
    assert list(marker) == ["truncated", "reason", "head", "ref"]
    tail = '","ref":"c1"}'
    assert written == HEAD_OPEN + "x" * (1000 - len(HEAD_OPEN) - len(tail)) + tail
    assert len(written) == 1000 == marker_size(marker)
    assert is_truncated(marker)
    # Without a ref the marker is the cap's own, a head 11 characters longer.
    plain = marker_for("x" * 4000, "look", 1000)
    assert list(plain) == ["truncated", "reason", "head"]
    assert len(plain["head"]) == len(marker["head"]) + len(',"ref":"c1"')


def test_the_envelope_counts_the_escaped_ref() -> None:
    ref = 'id"\\\n1é'
    marker = marker_for("x" * 4000, "look", 500, ref=ref)
    written = orjson.dumps(marker).decode()
    assert len(written) == 500 == marker_size(marker)
    assert marker["ref"] == ref


def test_a_headless_marker_carries_its_ref_after_the_reason() -> None:
    marker = marker_for("x" * 120, "look", 10, ref="c1")
    assert orjson.dumps(marker).decode() == (
        '{"truncated":true,"reason":"look returned 120 chars, over the 10-char cap. Narrow the '
        'request and call again.","ref":"c1"}'
    )
    assert marker_size(marker) == 122


def capped_of(text: str, recall_tool: str | None, tool: str = "look") -> list[str]:
    transcript = W(U(TASK), R("c1", tool, text))
    _, report = shape(transcript, None, None, CapOption(10), recall_tool=recall_tool)
    return [result.content for result in report]


def test_cap_weighs_the_marker_with_its_ref() -> None:
    # 120 characters: the marker without a ref (111) is shorter, with `"ref":"c1"` (122) not.
    assert len(capped_of("x" * 120, None)[0]) == 111
    assert capped_of("x" * 120, RECALL) == []
    assert capped_of("x" * 130, RECALL) == [
        '{"truncated":true,"reason":"look returned 130 chars, over the 10-char cap. Narrow the '
        'request and call again.","ref":"c1"}'
    ]


def test_cap_never_caps_a_result_of_the_recall_tool() -> None:
    assert capped_of("y" * 500, RECALL, tool=RECALL) == []
    # Without recall it is a result like any other; a tool of another name is capped either way.
    assert len(capped_of("y" * 500, None, tool=RECALL)) == 1
    assert len(capped_of("y" * 500, "other_recall", tool=RECALL)) == 1
    transcript = W(U(TASK), R("c1", RECALL, "y" * 500))
    by_tool = CapOption(100, {RECALL: 20})
    _, report = shape(transcript, None, None, by_tool, recall_tool=RECALL)
    assert report == ()


def test_fit_caps_never_cap_a_recall_result_nor_count_it_in_m() -> None:
    # One turn (it never leaves): the recall result's 6,000 characters are not `M`, the look
    # result's 4,000 are: caps 2,000, 1,000, 500, none within 300 tokens, so 500.
    transcript: list[Message] = [
        S("sys"),
        U(TASK),
        AC(f"r1:{RECALL}", "c1:look"),
        T("r1", RECALL, "y" * 6000),
        T("c1", "look", "x" * 4000),
    ]
    strategy = Fit(300, None, 0, 2, "cap")
    result = plan_window(
        transcript,
        PlanOptions(strategy=strategy, keep_last_tool_results=0, recall=RecallOption()),
    )
    assert [(s.index, s.action) for s in result.shaped_results] == [(4, "capped")]
    marker = orjson.loads(result.shaped_results[0].content)
    assert marker["reason"] == (
        "look returned 4000 chars, over the 500-char cap. Narrow the request and call again."
    )
    assert list(marker)[-1] == "ref" and marker["ref"] == "c1"
    assert len(result.shaped_results[0].content) <= 500
    # Without recall both are results like any other: `M` is 6,000, the last cap 375.
    off = plan_window(transcript, PlanOptions(strategy=strategy, keep_last_tool_results=0))
    assert [(s.index, s.action) for s in off.shaped_results] == [(3, "capped"), (4, "capped")]
    assert "over the 375-char cap" in off.shaped_results[0].content
    assert '"ref"' not in off.shaped_results[1].content


# ---- the notice ----------------------------------------------------------------------------------


def test_the_notice_says_how_to_get_the_messages_back() -> None:
    text = notice_text(
        removed_count=3,
        iteration=4,
        strategy="sliding-window",
        kept_request=True,
        tool_list="look",
        recall_tool=RECALL,
    )
    assert text == (
        "[dropped history — 3 earlier message(s) were removed from this window at iteration 4 by "
        "the 'sliding-window' strategy of the context planner. Your current request is kept: it "
        "is still above this line, and no strategy may remove it. You can get any of them back: "
        "call context_recall with a query (words or identifiers they contained). Tool results "
        "are among them (look): call the tool again if you need that output; do not rebuild ids "
        "or values from memory. They were not summarized; they are simply not re-sent.]"
    )
    assert len(RECALL_SENTENCE) == 88 + len(RECALL)


# docs/rules.md#notice-lengths: (strategy, kept request, rung's list) → the length without recall.
LENGTHS = [
    ("sliding-window", False, None, 197),
    ("token-budget", False, None, 195),
    ("fit", False, None, 171),
    ("sliding-window", False, "look", 320),
    ("fit", False, "look", 294),
    ("sliding-window", True, None, 287),
    ("fit", True, None, 261),
    ("sliding-window", True, "look", 410),
    ("fit", True, "look", 384),
]


@pytest.mark.parametrize(("strategy", "kept", "listed", "length"), LENGTHS)
@pytest.mark.parametrize("tool", ["context_recall", "r", "x" * 64])
def test_notice_lengths_add_88_and_the_name(
    strategy: str, kept: bool, listed: str | None, length: int, tool: str
) -> None:
    def text(recall_tool: str | None) -> str:
        return notice_text(
            removed_count=1,
            iteration=1,
            strategy=strategy,  # type: ignore[arg-type]
            kept_request=kept,
            tool_list=listed,
            recall_tool=recall_tool,
        )

    assert len(text(None)) == length
    assert len(text(tool)) == length + 88 + len(tool)
    sentence = RECALL_SENTENCE.replace(RECALL, tool)
    kept_sentence = "no strategy may remove it. " if kept else "context planner. "
    assert kept_sentence + sentence in text(tool)
    assert text(tool).replace(sentence, "") == text(None)


def test_both_rungs_carry_the_sentence() -> None:
    def ladder(span: int) -> tuple[str | None, str | None]:
        result = climb_ladder(
            span_size=span,
            removed_count=1,
            iteration=1,
            strategy="sliding-window",
            kept_request=False,
            dropped_names=["look"],
            non_user_would_open=False,
            recall_tool=RECALL,
        )
        return result.rung, result.content

    rich, plain = 320 + 102, 197 + 102
    assert ladder(rich + 1)[0] == "rich" and RECALL_SENTENCE in (ladder(rich + 1)[1] or "")
    assert ladder(rich)[0] == "plain" and RECALL_SENTENCE in (ladder(rich)[1] or "")
    assert len(ladder(rich)[1] or "") == plain
    assert ladder(plain) == (None, None)


def test_the_ladder_weighs_the_notice_with_the_sentence() -> None:
    """X2 of docs/rules.md: the 300-character span takes the plain notice (197); with recall on
    and a 19-character name the notice is 304 characters and the span leaves silently."""
    transcript = W(T("x1", "look", "p" * 300), U(TASK), R("c1"), R("c2"))
    options = PlanOptions(strategy=SlidingWindow(1), iteration=3)
    off = plan_window(transcript, options)
    assert off.notice is not None and off.notice.rung == "plain"
    assert len(off.notice.content) == 197
    name = "context_recall_tool"
    assert len(name) == 19
    on = plan_window(
        transcript,
        PlanOptions(strategy=SlidingWindow(1), iteration=3, recall=RecallOption(name)),
    )
    assert on.notice is None
    assert on.evicted_messages == off.evicted_messages == (0,)
    assert on.stats.chars_after == off.stats.chars_after - 197
    shorter = plan_window(
        transcript, PlanOptions(strategy=SlidingWindow(1), iteration=3, recall=RecallOption("r"))
    )
    assert shorter.notice is not None and len(shorter.notice.content) == 197 + 89
    assert "call r with a query" in shorter.notice.content


# ---- the summary message -------------------------------------------------------------------------


def test_the_summary_line_names_the_tool() -> None:
    assert summary_message(4, 0, "S", RECALL) == (
        "[compacted history — 4 earlier message(s) summarized by the model; call context_recall "
        "with a query for their full text]\n\nS"
    )
    assert summary_message(4, 2, "S", RECALL) == (
        "[compacted history — 4 earlier message(s) summarized by the model and 2 more removed "
        "without a summary; call context_recall with a query for their full text]\n\nS"
    )
    assert summary_message(4, 0, "S") == (
        "[compacted history — 4 earlier message(s) summarized by the model]\n\nS"
    )


def test_a_summary_is_weighed_with_its_recall_words() -> None:
    entry = SummaryEntry(1, 2, "S")
    plain = len(summary_message(2, 0, "S"))
    with_recall = len(summary_message(2, 0, "S", RECALL))
    assert with_recall == plain + len("; call context_recall with a query for their full text")

    def judged(recall_tool: str | None) -> tuple[int | None, str | None]:
        judgement = judge(
            [entry],
            at_front=True,
            lo=1,
            hi=2,
            turn_ending_at={2: 1},
            smaller=lambda turn, content: len(content) < plain + 1,
            recall_tool=recall_tool,
        )
        reasons = dict(judgement.ignored)
        return judgement.applied, reasons.get(0)

    assert judged(None) == (0, None)
    assert judged(RECALL) == (None, "not-smaller")
