"""Where a provider starts reading (docs/rules.md#provider-compaction): with `provider_reads_from`
set, the current request and the pins are looked for only in the turns after that message's turn;
the turns before it stay ordinary candidates. Without it nothing changes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.core.current_request import current_request_index, search_start
from app.core.defaults import DEFAULT_FRAME_DETECTION
from app.core.messages import Message
from app.core.plan_types import Fit, PlanOptions, SlidingWindow, TokenBudget
from app.core.turns import survey
from app.core.window import Measured, plan_window
from tests.core.window_fixtures import AC, TASK, R, S, T, U, W, options

SUMMARY = "Summary: rack a reads 39C, rack c 38C; rack b is next."

# 0 task · 1-2 a · 3 person's follow-up · 4-5 c · 6 the artifact · 7-8 b · 9-10 d
BEFORE_ONLY = W(
    U(TASK),
    R("a", "look_a", "39C " + "a" * 200),
    U("Skip rack d."),
    R("c", "look_c", "38C " + "c" * 200),
    S(SUMMARY),
    R("b", "look_b", "41C " + "b" * 200),
    R("d", "look_d", "40C " + "d" * 200),
)
ARTIFACT = 6
# The same, and a person's message after the artifact: 11 · 12-13 e
WITH_AFTER = W(*BEFORE_ONLY, U("Also check rack e."), R("e", "look_e", "37C " + "e" * 200))


def test_search_start_is_the_turn_after_the_one_holding_the_message() -> None:
    segments = survey(BEFORE_ONLY).segments
    assert search_start(segments, None) == 0
    assert search_start(segments, ARTIFACT) == ARTIFACT + 1
    # A message inside a turn: the search starts after the whole turn.
    assert search_start(segments, 1) == 3
    assert search_start(segments, 2) == 3


def test_a_transcript_with_tool_messages_right_after_the_artifact_starts_after_them() -> None:
    # [assistant calling c1, the artifact, the result of c1]: the result joins the artifact's turn.
    messages = W(U(TASK), AC("c1:look"), S(SUMMARY), T("c1"), U("next"))
    segments = survey(messages).segments
    assert search_start(segments, 2) == 4


def test_the_request_is_looked_for_only_after_the_start() -> None:
    frames = DEFAULT_FRAME_DETECTION
    assert current_request_index(BEFORE_ONLY, None, frames=frames) == 3
    assert current_request_index(BEFORE_ONLY, None, frames=frames, start=ARTIFACT + 1) is None
    assert current_request_index(WITH_AFTER, None, frames=frames, start=ARTIFACT + 1) == 11
    # request_text too: a message before the start matching it is not the request.
    assert current_request_index(WITH_AFTER, TASK, frames=frames, start=ARTIFACT + 1) == 11
    assert current_request_index(WITH_AFTER, TASK, frames=frames) == 0


def test_without_a_start_the_person_before_the_artifact_is_the_request() -> None:
    result = plan_window(BEFORE_ONLY, options(keep=1, ltr=0))
    assert result.current_request is not None
    assert result.current_request.message_index == 3
    assert 2 not in result.evicted  # the request's turn stays


def test_before_the_artifact_nothing_is_the_request_and_everything_may_leave() -> None:
    result = plan_window(BEFORE_ONLY, replace(options(keep=1, ltr=0), provider_reads_from=ARTIFACT))
    assert result.current_request is None
    # Turns: task, a, follow-up, c, artifact, b, d; the span runs up to the artifact.
    assert result.evicted == (0, 1, 2, 3)
    assert result.turns[4]["held_by"] == "system-envelope"
    assert result.notice is not None  # the notice and the ladder as for any span


def test_request_text_naming_a_message_before_the_artifact_names_nothing() -> None:
    planned = replace(options(keep=1, ltr=0, rt=TASK), provider_reads_from=ARTIFACT)
    assert plan_window(BEFORE_ONLY, planned).current_request is None
    request = plan_window(WITH_AFTER, planned).current_request
    assert request is not None and request.message_index == 11


def test_pins_are_only_after_the_artifact() -> None:
    # No request after the artifact: without the rule nothing before message 3 is pinned, and c
    # (turn 3) would be; with it only b and d can be.
    plain = plan_window(BEFORE_ONLY, options(keep=1, ltr=4))
    assert plain.pins.last_tool_result is not None
    assert {pin.tool_name for pin in plain.pins.last_tool_result.pinned} == {
        "look_c",
        "look_b",
    }
    ruled = plan_window(BEFORE_ONLY, replace(options(keep=1, ltr=4), provider_reads_from=ARTIFACT))
    assert ruled.pins.last_tool_result is not None
    assert {pin.tool_name for pin in ruled.pins.last_tool_result.pinned} == {"look_b"}
    assert 3 in ruled.evicted


@pytest.mark.parametrize(
    "strategy",
    [
        SlidingWindow(1),
        SlidingWindow(3),
        TokenBudget(10, 1, Measured(5000, 10)),
        Fit(1, keep_recent_turns=1),
        Fit(150, keep_recent_turns=1),
        Fit(300, keep_recent_turns=1),
    ],
    ids=repr,
)
@pytest.mark.parametrize("messages", [BEFORE_ONLY, WITH_AFTER], ids=["before-only", "after"])
def test_every_strategy_keeps_the_artifact_and_anchors_after_it(
    strategy: SlidingWindow | TokenBudget | Fit, messages: list[Message]
) -> None:
    planned = PlanOptions(strategy=strategy, keep_last_tool_results=2, provider_reads_from=ARTIFACT)
    result = plan_window(messages, planned)
    artifact_turn = 4
    assert artifact_turn not in result.evicted
    if result.current_request is not None:
        assert result.current_request.turn_index > artifact_turn
    for block in (result.pins.last_tool_result, result.pins.ledger_fact):
        for pin in () if block is None else block.pinned:
            assert pin.turn_index > artifact_turn
