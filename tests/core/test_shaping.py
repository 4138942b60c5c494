"""Shaping (docs/rules.md#shaping) through the core: S1–S4 byte for byte, and each rule of
docs/rules.md#what-is-shaped on its own.

Every text is compared exactly: a capped result must hold the compact JSON of the cap's marker
(`docs/rules.md#the-marker`) (`app.core.cap.marker_for`, the function `POST /v1/tool-results/cap`
uses; the HTTP tests check the two agree), a collapsed one the ticket of
`docs/rules.md#collapsed-tickets` (`app.core.collapse.ticket_for`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import orjson
import pytest

from app.core.cap import marker_for
from app.core.collapse import ticket_for
from app.core.ledger import StandingRow
from app.core.messages import Message
from app.core.plan_types import CapOption, PlanOptions, WindowPlan
from app.core.window import plan_window
from tests.core.window_fixtures import (
    AC,
    TASK,
    A,
    R,
    S,
    T,
    T_not_run,
    U,
    W,
    held,
    ledger_rows,
    new_window,
    options,
    req,
    stats,
)

X = "x" * 500
P = "p" * 120
S1 = W(U(TASK), R("c1", "orders_export", X), R("c2", "look", P), R("c3", "look"))
S1_MARKER = (
    '{"truncated":true,"reason":"orders_export returned 500 chars, over the 200-char cap. '
    'Narrow the request and call again.","head":"' + "x" * 69 + '"}'
)
S1_TICKET = '{"collapsed":true,"standing":"noise","tool_call_id":"c2"}'
BOTH: dict[str, Any] = {"collapse": "ledger-and-facts", "cap": CapOption(200)}


def shaping(
    collapse: str | None = None, cap: CapOption | None = None, **kwargs: Any
) -> PlanOptions:
    """the worked examples' notation (`options`) plus the two shaping options."""
    return replace(options(**kwargs), collapse=collapse, cap=cap)


def shaped_plan(messages: Sequence[Message], **kwargs: Any) -> WindowPlan:
    return plan_window(messages, shaping(**kwargs))


def window(messages: Sequence[Message], result: WindowPlan) -> list[Message]:
    """The new core window as a writer builds it: shaped texts in place, then the span removed."""
    shaped = list(messages)
    for entry in result.shaped_results:
        shaped[entry.index] = shaped[entry.index]._replace(content=entry.content)
    return new_window(shaped, result)


def entries(result: WindowPlan) -> list[tuple[int, int | None, str, str, int, int]] | None:
    """`shaped` in the examples' notation: `{message_index, window_index, id, action, before,
    after}`."""
    if result.shaped is None:
        return None
    return [
        (e.message_index, e.window_index, e.tool_call_id, e.action, e.chars_before, e.chars_after)
        for e in result.shaped
    ]


def compact(value: Any) -> str:
    return orjson.dumps(value).decode()


def marker(text: str, tool: str, cap: int) -> str:
    return compact(marker_for(text, tool, cap))


def text_at(result: WindowPlan, messages: Sequence[Message], index: int) -> str:
    return window(messages, result)[index].content


def only_text_changed(before: Message, after: Message, text: str) -> None:
    assert after.content == text
    assert after._replace(content=before.content) == before


# ---- S1–S4 worked examples -----------------------------------------------------------------------


def test_s1_both_options_not_engaged() -> None:
    result = shaped_plan(S1, keep=6, ledger=ledger_rows(c2="noise"), **BOTH)
    assert not result.engaged
    assert entries(result) == [(2, 2, "c1", "capped", 500, 200), (4, 4, "c2", "collapsed", 120, 57)]
    assert stats(result) == "m 7→7 t 4→4 c 671→308"
    assert result.stats.chars_shaped == 308
    assert [turn["chars"] for turn in result.turns] == [49, 200, 57, 2]
    new = window(S1, result)
    assert len(new) == len(S1)
    assert new[2].content == S1_MARKER == marker(X, "orders_export", 200)
    assert len(S1_MARKER) == 200
    assert orjson.loads(S1_MARKER)["head"] == "x" * 69
    assert new[4].content == S1_TICKET == ticket_for(StandingRow("c2", "noise"))
    assert len(S1_TICKET) == 57
    only_text_changed(S1[2], new[2], S1_MARKER)
    only_text_changed(S1[4], new[4], S1_TICKET)
    for index in (0, 1, 3, 5, 6):
        assert new[index] == S1[index]
    assert [(r.index, r.tool_name, r.content) for r in result.shaped_results] == [
        (2, "orders_export", S1_MARKER),
        (4, "look", S1_TICKET),
    ]


def test_s2_removal_sees_shaped_characters() -> None:
    result = shaped_plan(S1, keep=1, ltr=0, ledger=ledger_rows(c2="noise"), **BOTH)
    assert req(result) == (0, 0)
    assert held(result) == "cr EV EV ikw"
    assert result.removed == ((1, 5),)
    assert result.notice is None  # 257 shaped characters: rich (425) and plain (287) not smaller
    assert window(S1, result) == W(U(TASK), R("c3", "look"))
    assert stats(result) == "m 7→3 t 4→2 c 671→51"
    assert result.stats.chars_shaped == 308
    assert entries(result) == [
        (2, None, "c1", "capped", 500, 200),
        (4, None, "c2", "collapsed", 120, 57),
    ]
    assert list(result.dropped_tool_names) == ["orders_export", "look"]
    assert [(d["tool_call_id"], d["standing"]) for d in result.dropped_standings or ()] == [
        ("c1", None),
        ("c2", "noise"),
    ]


def test_s2_without_shaping_the_same_span_gets_a_notice() -> None:
    """The contrast S2 draws: as sent the span is 620 characters and the rich notice (425) fits."""
    result = plan_window(S1, options(keep=1, ltr=0, ledger=ledger_rows(c2="noise")))
    assert held(result) == "cr EV EV ikw"
    assert result.notice is not None and result.notice.rung == "rich"
    assert len(result.notice.content) == 425
    assert result.shaped is None and result.stats.chars_shaped is None


def test_s3_a_shaped_window_shapes_nothing() -> None:
    first = shaped_plan(S1, keep=6, ledger=ledger_rows(c2="noise"), **BOTH)
    sent = window(S1, first)
    again = shaped_plan(sent, keep=6, ledger=ledger_rows(c2="noise"), **BOTH)
    assert entries(again) == []
    assert again.shaped_results == ()
    assert window(sent, again) == sent
    assert again.stats.chars_before == again.stats.chars_shaped == again.stats.chars_after == 308


def test_s4_a_short_judged_result_keeps_its_words() -> None:
    messages = W(U(TASK), R("c1", "look", "closed"))
    result = shaped_plan(messages, ledger=ledger_rows(c1="noise"), collapse="ledger-and-facts")
    assert entries(result) == []
    assert window(messages, result) == messages
    assert result.stats.chars_shaped == result.stats.chars_before == len(TASK) + 6
    assert len(ticket_for(StandingRow("c1", "noise"))) == 57


# ---- options off ---------------------------------------------------------------------------------


def test_both_options_off_reports_no_shaping() -> None:
    result = plan_window(S1, options(ledger=ledger_rows(c2="noise")))
    assert result.shaped is None
    assert result.shaped_results == ()
    assert result.stats.chars_shaped is None
    assert result.stats.chars_before == result.stats.chars_after == 671


@pytest.mark.parametrize(
    "kwargs",
    [{"collapse": "ledger-and-facts"}, {"collapse": "ledger-only"}, {"cap": CapOption(1000)}],
    ids=["collapse", "ledger-only", "cap"],
)
def test_one_option_on_and_nothing_to_shape_reports_empty(kwargs: dict[str, Any]) -> None:
    result = shaped_plan(S1, ledger=ledger_rows(c3="noise"), **kwargs)
    assert entries(result) == []
    assert result.stats.chars_shaped == result.stats.chars_before == 671


# ---- rule order (what is shaped) -----------------------------------------------------------------


def test_collapse_is_tried_before_the_cap() -> None:
    """Both apply to c1 (over its cap, judged noise): the ticket wins."""
    messages = W(U(TASK), R("c1", "orders_export", X))
    result = shaped_plan(messages, ledger=ledger_rows(c1="noise"), **BOTH)
    assert entries(result) == [(2, 2, "c1", "collapsed", 500, 57)]
    assert text_at(result, messages, 2) == ticket_for(StandingRow("c1", "noise"))


def test_a_ticket_not_shorter_falls_through_to_the_cap() -> None:
    """Rule 2 applies only when the ticket is shorter; then the cap is tried."""
    row = StandingRow("c1", "noise", ref="r" * 434)
    messages = W(U(TASK), R("c1", "orders_export", X))
    assert len(ticket_for(row)) == len(X)  # as long as the text: not shorter
    result = shaped_plan(messages, ledger=(row,), **BOTH)
    assert entries(result) == [(2, 2, "c1", "capped", 500, 200)]
    assert text_at(result, messages, 2) == marker(X, "orders_export", 200)


def test_a_collapsing_result_under_the_cap_is_collapsed() -> None:
    messages = W(U(TASK), R("c2", "look", P))
    result = shaped_plan(
        messages,
        ledger=ledger_rows(c2="ruled-out"),
        collapse="ledger-and-facts",
        cap=CapOption(1000),
    )
    assert entries(result) == [(2, 2, "c2", "collapsed", 120, 61)]
    assert text_at(result, messages, 2) == (
        '{"collapsed":true,"standing":"ruled-out","tool_call_id":"c2"}'
    )


# ---- rule 2: collapse ----------------------------------------------------------------------------

LONG = "l" * 100
K_LEDGER = ledger_rows(c1="fact", c2="noise", c3="open", c4="ruled-out")
K_MESSAGES = W(
    U(TASK),
    R("c1", "alpha_tool", LONG),
    R("c2", "alpha_tool", LONG),
    R("c3", "alpha_tool", LONG),
    R("c4", "alpha_tool", LONG),
    R("c5", "alpha_tool", LONG),
)


@pytest.mark.parametrize(
    ("mode", "collapsed"),
    [
        ("ledger-and-facts", {4: "noise", 8: "ruled-out"}),
        ("ledger-only", {2: "fact", 4: "noise", 8: "ruled-out"}),
    ],
)
def test_which_standings_collapse_under_each_mode(mode: str, collapsed: dict[int, str]) -> None:
    result = shaped_plan(K_MESSAGES, keep=6, ledger=K_LEDGER, collapse=mode)
    assert [(e.message_index, e.action) for e in result.shaped or ()] == [
        (index, "collapsed") for index in collapsed
    ]
    new = window(K_MESSAGES, result)
    for index, message in enumerate(K_MESSAGES):
        if index in collapsed:
            call_id = message.tool_call_id
            expected = compact(
                {"collapsed": True, "standing": collapsed[index], "tool_call_id": call_id}
            )
            only_text_changed(message, new[index], expected)
            assert new[index].tool_name == "alpha_tool"
        else:
            assert new[index] == message  # open (c3) and undeclared (c5) are sent in full


def test_a_ticket_carries_the_winning_rows_ref() -> None:
    messages = W(U(TASK), R("c5", "fetch_log", LONG))
    ledger = (
        StandingRow("c5", "fact", ref="art_old"),
        StandingRow("c5", "noise", tool_name="fetch_log", ref="art_9f3c"),
    )
    result = shaped_plan(messages, ledger=ledger, collapse="ledger-and-facts")
    expected = '{"collapsed":true,"standing":"noise","tool_call_id":"c5","ref":"art_9f3c"}'
    assert text_at(result, messages, 2) == expected == ticket_for(ledger[1])


def test_an_earlier_rows_ref_is_not_used() -> None:
    messages = W(U(TASK), R("c5", "fetch_log", LONG))
    ledger = (StandingRow("c5", "noise", ref="art_old"), StandingRow("c5", "ruled-out"))
    result = shaped_plan(messages, ledger=ledger, collapse="ledger-and-facts")
    assert text_at(result, messages, 2) == (
        '{"collapsed":true,"standing":"ruled-out","tool_call_id":"c5"}'
    )


@pytest.mark.parametrize(
    ("ledger", "collapses"),
    [
        (ledger_rows(c1="noise") + ledger_rows(c1="fact"), False),  # brought back
        (ledger_rows(c1="fact") + ledger_rows(c1="noise"), True),  # retired
        (ledger_rows(c1="open"), False),
        (ledger_rows(c9="noise"), False),  # another id
        ((), False),
    ],
)
def test_the_last_row_on_an_id_decides(ledger: tuple[StandingRow, ...], collapses: bool) -> None:
    messages = W(U(TASK), R("c1", "look", LONG))
    result = shaped_plan(messages, ledger=ledger, collapse="ledger-and-facts")
    assert entries(result) == ([(2, 2, "c1", "collapsed", 100, 57)] if collapses else [])


def test_collapse_without_a_ledger_collapses_nothing() -> None:
    messages = W(U(TASK), R("c1", "look", LONG))
    result = shaped_plan(messages, collapse="ledger-only")
    assert entries(result) == []


def test_every_message_carrying_a_collapsing_id_is_collapsed() -> None:
    messages = W(
        U(TASK), R("c1", "look", LONG), T("c1", "look", "dup " * 20), R("c2", "look", LONG)
    )
    result = shaped_plan(messages, ledger=ledger_rows(c1="ruled-out"), collapse="ledger-and-facts")
    ticket = ticket_for(StandingRow("c1", "ruled-out"))
    assert entries(result) == [
        (2, 2, "c1", "collapsed", 100, 61),
        (3, 3, "c1", "collapsed", 80, 61),
    ]
    new = window(messages, result)
    assert new[2].content == new[3].content == ticket
    assert new[5] == messages[5]


@pytest.mark.parametrize(("length", "collapses"), [(56, False), (57, False), (58, True)])
def test_a_ticket_replaces_only_a_longer_text(length: int, collapses: bool) -> None:
    messages = W(U(TASK), R("c2", "look", "t" * length))
    result = shaped_plan(messages, ledger=ledger_rows(c2="noise"), collapse="ledger-and-facts")
    assert entries(result) == ([(2, 2, "c2", "collapsed", length, 57)] if collapses else [])


# ---- rule 3: cap ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("length", "capped"), [(200, False), (201, True)])
def test_at_the_cap_passes_one_over_is_capped(length: int, capped: bool) -> None:
    text = "y" * length
    messages = W(U(TASK), R("c1", "look", text))
    result = shaped_plan(messages, cap=CapOption(200))
    assert entries(result) == ([(2, 2, "c1", "capped", length, 200)] if capped else [])
    assert text_at(result, messages, 2) == (marker(text, "look", 200) if capped else text)


def test_max_chars_by_tool_is_keyed_by_name_of_a_result_named_only_through_its_call() -> None:
    """The tool message has no `tool_name`: its name is the call's
    (`docs/rules.md#the-message-model`)."""
    messages = [U(TASK), AC("c1:orders_export"), Message("tool", X, tool_call_id="c1")]
    cap = CapOption(1000, {"orders_export": 150})
    result = shaped_plan(messages, cap=cap)
    assert entries(result) == [(2, 2, "c1", "capped", 500, 150)]
    text = text_at(result, messages, 2)
    assert text == marker(X, "orders_export", 150)
    assert orjson.loads(text)["reason"].startswith("orders_export returned 500 chars, over the 150")
    assert result.shaped_results[0].tool_name == "orders_export"


def test_a_results_own_tool_name_is_its_name_over_the_calls() -> None:
    messages = [U(TASK), AC("c1:orders_export"), T("c1", "look", X)]
    assert entries(shaped_plan(messages, cap=CapOption(1000, {"orders_export": 100}))) == []
    result = shaped_plan(messages, cap=CapOption(1000, {"look": 100}))
    assert text_at(result, messages, 2) == marker(X, "look", 100)


def test_the_first_call_with_the_id_names_the_result() -> None:
    messages = [
        U(TASK),
        AC("c1:first_tool"),
        AC("c1:second_tool"),
        Message("tool", X, tool_call_id="c1"),
    ]
    result = shaped_plan(messages, cap=CapOption(1000, {"first_tool": 50, "second_tool": 400}))
    assert text_at(result, messages, 3) == marker(X, "first_tool", 50)


def test_a_per_tool_ceiling_can_be_above_max_chars() -> None:
    messages = W(U(TASK), R("c1", "orders_export", X), R("c2", "look", X))
    result = shaped_plan(messages, cap=CapOption(200, {"orders_export": 500}))
    assert entries(result) == [(4, 4, "c2", "capped", 500, 200)]


def test_a_per_tool_ceiling_matches_the_name_exactly() -> None:
    messages = W(U(TASK), R("c1", "Orders_Export", X))
    result = shaped_plan(messages, cap=CapOption(200, {"orders_export": 1000}))
    assert text_at(result, messages, 2) == marker(X, "Orders_Export", 200)


@pytest.mark.parametrize(
    "message",
    [
        Message("tool", X, tool_call_id="x1"),
        Message("tool", X, tool_call_id="x1", tool_name=""),
    ],
    ids=["no-tool-name", "empty-tool-name"],
)
def test_a_result_with_no_name_is_capped_under_max_chars_as_the_tool(message: Message) -> None:
    messages = [U(TASK), message]
    # Not even a key spelling the words applies: a message with no name always takes max_chars.
    result = shaped_plan(messages, cap=CapOption(200, {"the tool": 1000, "": 1000}))
    assert entries(result) == [(1, 1, "x1", "capped", 500, 200)]
    text = text_at(result, messages, 1)
    assert text == marker(X, "the tool", 200)
    assert orjson.loads(text)["reason"] == (
        "the tool returned 500 chars, over the 200-char cap. Narrow the request and call again."
    )
    assert result.shaped_results[0].tool_name is None


HEADLESS_LOOK_10 = 111  # the head-less marker of `look`, a 3-digit size and a cap of 10


def test_the_headless_marker_size_used_below() -> None:
    for length in (100, 111, 112, 500):
        assert len(marker("z" * length, "look", 10)) == HEADLESS_LOOK_10


@pytest.mark.parametrize("length", [11, 60, 110, HEADLESS_LOOK_10])
def test_a_cap_smaller_than_its_marker_leaves_a_short_text_unchanged(length: int) -> None:
    text = "z" * length
    messages = W(U(TASK), R("c1", "look", text))
    result = shaped_plan(messages, cap=CapOption(10))
    assert entries(result) == []
    assert window(messages, result) == messages


def test_a_text_longer_than_the_headless_marker_takes_it() -> None:
    text = "z" * (HEADLESS_LOOK_10 + 1)
    messages = W(U(TASK), R("c1", "look", text))
    result = shaped_plan(messages, cap=CapOption(10))
    assert entries(result) == [(2, 2, "c1", "capped", 112, HEADLESS_LOOK_10)]
    written = text_at(result, messages, 2)
    assert written == marker(text, "look", 10)
    assert "head" not in orjson.loads(written)


def test_a_marker_head_is_measured_after_escaping() -> None:
    """Quotes and newlines cost two characters each in the compact JSON: the head is shorter."""
    text = 'a "quoted"\nline ' * 40
    messages = W(U(TASK), R("c1", "look", text))
    result = shaped_plan(messages, cap=CapOption(200))
    written = text_at(result, messages, 2)
    assert written == marker(text, "look", 200)
    assert len(written) <= 200
    assert text.startswith(orjson.loads(written)["head"])


def test_characters_are_code_points() -> None:
    text = "é😀" * 150  # 300 code points
    messages = W(U(TASK), R("c1", "look", text))
    assert entries(shaped_plan(messages, cap=CapOption(300))) == []
    result = shaped_plan(messages, cap=CapOption(299))
    written = text_at(result, messages, 2)
    assert written == marker(text, "look", 299)
    assert entries(result) == [(2, 2, "c1", "capped", 300, len(written))]


# ---- only result messages ------------------------------------------------------------------------


def test_settled_results_are_never_touched() -> None:
    messages = [
        U(TASK),
        AC("c1:look", "c2:look"),
        T("c1", "look", X),
        T_not_run("c2", "look", X),
        T_not_run("c1", "look", X),  # settled, sharing a collapsing id
    ]
    ledger = ledger_rows(c1="noise", c2="noise")
    result = shaped_plan(messages, ledger=ledger, collapse="ledger-only", cap=CapOption(10))
    assert entries(result) == [(2, 2, "c1", "collapsed", 500, 57)]
    new = window(messages, result)
    assert new[3] == messages[3] and new[4] == messages[4]


def test_messages_that_are_not_results_are_never_touched() -> None:
    messages = [
        S("s" * 500),
        U("u" * 500),
        A("a" * 500, "c1:look"),
        Message("tool", X, tool_call_id=""),  # no call id: not a result message
        T("c1", "look", X),
    ]
    result = shaped_plan(messages, ledger=ledger_rows(c1="noise"), cap=CapOption(10))
    assert entries(result) == [(4, 4, "c1", "capped", 500, HEADLESS_LOOK_10)]
    new = window(messages, result)
    assert new[:4] == messages[:4]


# ---- rule 1: already shaped ----------------------------------------------------------------------

SPACED_MARKER = (
    '{ "truncated" : true, "reason" : "look returned 900 chars, over the 200-char cap. '
    'Narrow the request and call again.", "head" : "' + "h" * 150 + '" }'
)
ALREADY_SHAPED = {
    "compact-marker": marker("m" * 900, "look", 200),
    "headless-marker-over-its-cap": marker("m" * 900, "look", 10),
    "spaced-marker": SPACED_MARKER,
    "marker-with-empty-reason-and-extras": compact(
        {"note": "n" * 300, "truncated": True, "reason": ""}
    ),
    "marker-in-whitespace": "\n  " + marker("m" * 900, "look", 200) + "\n",
    "ticket-of-this-id": ticket_for(StandingRow("c1", "noise")),
    "ticket-another-standing": compact(
        {"collapsed": True, "standing": "fact", "tool_call_id": "c1", "ref": "r" * 300}
    ),
    "ticket-another-id": compact(
        {"collapsed": True, "standing": "noise", "tool_call_id": "zz", "pad": "p" * 300}
    ),
    "ticket-spaced": '{"tool_call_id": "c1",  "standing": "ruled-out", "collapsed": true}',
}


@pytest.mark.parametrize("text", list(ALREADY_SHAPED.values()), ids=list(ALREADY_SHAPED))
@pytest.mark.parametrize(
    "standing", ["noise", "fact", "open"], ids=["ledger-noise", "ledger-fact", "ledger-open"]
)
def test_an_already_shaped_text_is_unchanged_whatever_the_options(text: str, standing: str) -> None:
    messages = W(U(TASK), R("c1", "look", text))
    result = shaped_plan(
        messages,
        ledger=(StandingRow("c1", standing),),  # type: ignore[arg-type]
        collapse="ledger-only",
        cap=CapOption(10),
    )
    assert entries(result) == []
    assert window(messages, result) == messages
    assert result.stats.chars_shaped == result.stats.chars_before


NOT_SHAPED = {
    "truncated-is-a-string": compact({"truncated": "true", "reason": "r", "pad": "p" * 300}),
    "marker-without-reason": compact({"truncated": True, "pad": "p" * 300}),
    "marker-reason-not-a-string": compact({"truncated": True, "reason": 5, "pad": "p" * 300}),
    "truncated-is-one": compact({"truncated": 1, "reason": "r", "pad": "p" * 300}),
    "marker-in-an-array": compact([{"truncated": True, "reason": "r", "pad": "p" * 300}]),
    "marker-as-a-json-string": compact(compact({"truncated": True, "reason": "r" * 300})),
    "ticket-collapsed-is-a-string": compact(
        {"collapsed": "true", "standing": "noise", "tool_call_id": "c1", "pad": "p" * 300}
    ),
    "ticket-without-id": compact({"collapsed": True, "standing": "noise", "pad": "p" * 300}),
    "ticket-standing-not-a-string": compact(
        {"collapsed": True, "standing": None, "tool_call_id": "c1", "pad": "p" * 300}
    ),
    "repeated-key-last-wins": '{"truncated":true,"reason":"r","truncated":false,"pad":"'
    + "p" * 300
    + '"}',
    "not-json": '{"truncated":true,"reason":"r",' + "p" * 300,
    "marker-then-more": marker("m" * 900, "look", 200) + " trailing words",
}


@pytest.mark.parametrize("text", list(NOT_SHAPED.values()), ids=list(NOT_SHAPED))
def test_a_marker_like_text_that_is_no_marker_or_ticket_is_shaped(text: str) -> None:
    messages = W(U(TASK), R("c1", "look", text))
    capped = shaped_plan(messages, cap=CapOption(200))
    written = marker(text, "look", 200)
    assert entries(capped) == [(2, 2, "c1", "capped", len(text), len(written))]
    assert text_at(capped, messages, 2) == written
    collapsed = shaped_plan(messages, ledger=ledger_rows(c1="noise"), collapse="ledger-and-facts")
    assert text_at(collapsed, messages, 2) == ticket_for(StandingRow("c1", "noise"))


def test_a_result_re_judged_fact_comes_back_only_from_the_committed_transcript() -> None:
    """Rule 1: shaping cannot undo itself; planning the committed transcript can."""
    committed = W(U(TASK), R("c1", "look", LONG))
    first = shaped_plan(committed, ledger=ledger_rows(c1="noise"), collapse="ledger-and-facts")
    collapsed_window = window(committed, first)
    rejudged = ledger_rows(c1="fact")
    from_window = shaped_plan(collapsed_window, ledger=rejudged, collapse="ledger-and-facts")
    assert window(collapsed_window, from_window)[2].content == ticket_for(
        StandingRow("c1", "noise")
    )
    from_committed = shaped_plan(committed, ledger=rejudged, collapse="ledger-and-facts")
    assert window(committed, from_committed)[2].content == LONG


# ---- planning on the shaped transcript, the report -----------------------------------------------


def test_pins_and_turns_count_shaped_characters() -> None:
    messages = W(U(TASK), R("c1", "orders_export", X), R("c2", "look", P), R("c3", "probe"))
    result = shaped_plan(messages, keep=1, ltr=2, ledger=ledger_rows(c2="noise"), **BOTH)
    assert result.pins.last_tool_result is not None
    assert [
        (p.tool_name, p.turn_index, p.message_index, p.chars)
        for p in result.pins.last_tool_result.pinned
    ] == [("look", 2, 3, 57), ("orders_export", 1, 1, 200)]
    assert [turn["chars"] for turn in result.turns] == [49, 200, 57, 2]
    plain = plan_window(messages, options(keep=1, ltr=2, ledger=ledger_rows(c2="noise")))
    assert plain.pins.last_tool_result is not None
    assert [(p.tool_name, p.chars) for p in plain.pins.last_tool_result.pinned] == [
        ("look", 120),
        ("orders_export", 500),
    ]
    assert held(result) == held(plain) == "cr ltr ltr ikw"


def test_a_shaped_result_after_a_notice_reports_its_window_position() -> None:
    """The span (turns 1–2, 1,000 characters) leaves with a notice; the capped c3 moves up."""
    messages = W(U(TASK), R("c1", "look", X), R("c2", "look", X), R("c3", "probe", X))
    result = shaped_plan(messages, keep=1, ltr=0, cap=CapOption(450, {"look": 1000}))
    assert result.removed == ((1, 5),) and result.notice is not None
    assert result.notice.window_index == 1
    assert entries(result) == [(6, 3, "c3", "capped", 500, 450)]
    new = window(messages, result)
    assert new[3].content == marker(X, "probe", 450)
    assert new[3].tool_call_id == "c3"


def test_shaped_entries_keep_transcript_order_and_caller_indices() -> None:
    """Core messages read from one caller message (`source`) report the caller's index."""
    messages = [
        Message("user", TASK, source=0),
        Message("assistant", "", (AC("c1:a", "c2:b").tool_calls), source=1),
        Message("tool", X, tool_call_id="c1", source=2, blocks=(0,)),
        Message("tool", LONG, tool_call_id="c2", source=2, blocks=(1,)),
        Message("user", "next", source=2, blocks=(2,)),
    ]
    result = shaped_plan(
        messages, ledger=ledger_rows(c2="noise"), collapse="ledger-and-facts", cap=CapOption(200)
    )
    assert entries(result) == [(2, 2, "c1", "capped", 500, 200), (2, 2, "c2", "collapsed", 100, 57)]
    assert [r.index for r in result.shaped_results] == [2, 3]
    assert result.stats.messages_before == 3


def test_an_injected_result_is_still_a_result() -> None:
    """`docs/rules.md#the-message-model`: a result message is a tool message with an id that ran;
    `injected` does not enter into it."""
    messages = [U(TASK), AC("c1:look"), Message("tool", X, tool_call_id="c1", injected=True)]
    result = shaped_plan(messages, cap=CapOption(200))
    assert entries(result) == [(2, 2, "c1", "capped", 500, 200)]
    only_text_changed(messages[2], window(messages, result)[2], marker(X, "look", 200))


def test_a_ticket_and_a_marker_escape_what_they_quote() -> None:
    """Compact JSON (`docs/rules.md#compact-serialization`): quotes, backslashes and control
    characters escaped, the rest (`/`, U+2028, `é`) written raw; the marker's size counts the
    escapes in its reason."""
    call_id = 'c"1\\\n/é\u2028'
    tool = 'tool "q"\t'
    row = StandingRow(call_id, "noise", ref="art/ü")
    messages = [U(TASK), AC(f"{call_id}:{tool}"), T(call_id, tool, X)]
    collapsed = shaped_plan(messages, ledger=(row,), collapse="ledger-and-facts")
    ticket = (
        '{"collapsed":true,"standing":"noise","tool_call_id":"c\\"1\\\\\\n/é\u2028","ref":"art/ü"}'
    )
    assert text_at(collapsed, messages, 2) == ticket == ticket_for(row)
    capped = shaped_plan(messages, cap=CapOption(200))
    written = text_at(capped, messages, 2)
    assert written == marker(X, tool, 200)
    assert len(written) == 200
    assert orjson.loads(written)["reason"].startswith('tool "q"\t returned 500 chars')
