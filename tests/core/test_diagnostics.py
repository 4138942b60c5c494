"""docs/rules.md#diagnostics through the core: each code from a minimal transcript, the order, the
limit."""

from __future__ import annotations

from app.core.diagnostics import Diagnostic, diagnose
from app.core.messages import Message
from tests.core.window_fixtures import AC, A, R, S, T, T_not_run, U, W


def codes(messages: list[Message], **kwargs: object) -> list[tuple[str, int | None]]:
    return [(d.code, d.message_index) for d in diagnose(messages, **kwargs)]  # type: ignore[arg-type]


def test_a_well_formed_transcript_has_no_finding() -> None:
    assert diagnose(W(S("Be brief."), U("go"), R("c1"), R("c2"), AC("c3:look"))) == ()


def test_orphan_result() -> None:
    found = diagnose(W(U("go"), T("x1"), R("c1")))
    assert [(d.code, d.message_index) for d in found] == [("orphan-result", 1)]
    assert "'x1'" in found[0].detail


def test_a_result_before_its_call_is_an_orphan() -> None:
    assert codes(W(U("go"), T("c1"), AC("c1:look"))) == [("orphan-result", 1)]


def test_result_outside_its_turn() -> None:
    # Seen in real logs: the person speaks between the call and its result.
    messages = W(U("go"), AC("c1:look"), U("still there?"), T("c1"))
    found = diagnose(messages)
    assert [(d.code, d.message_index) for d in found] == [("result-outside-its-turn", 3)]
    assert "'c1'" in found[0].detail


def test_duplicate_result() -> None:
    messages = W(U("go"), AC("c1:look"), T("c1"), T("c1"))
    found = diagnose(messages)
    assert [(d.code, d.message_index) for d in found] == [("duplicate-result", 3)]
    assert "'c1'" in found[0].detail


def test_a_result_after_a_call_that_never_ran_is_no_duplicate() -> None:
    assert diagnose(W(U("go"), AC("c1:look"), T_not_run("c1"), T("c1"))) == ()


def test_unanswered_call_in_the_middle_but_not_at_the_end() -> None:
    messages = W(U("go"), AC("c1:look", "c2:move"), T("c1"), U("and?"), AC("c3:look"))
    found = diagnose(messages)
    assert [(d.code, d.message_index) for d in found] == [("unanswered-call", 1)]
    assert "'c2'" in found[0].detail and "move" in found[0].detail


def test_a_call_that_never_ran_is_answered() -> None:
    assert diagnose(W(U("go"), AC("c1:look"), T_not_run("c1"), U("next"))) == ()


def test_one_entry_per_unanswered_call() -> None:
    assert codes(W(U("go"), AC("c1:look", "c2:move"), U("next"))) == [
        ("unanswered-call", 1),
        ("unanswered-call", 1),
    ]


def test_empty_user_and_system_messages() -> None:
    messages = W(S(""), U(""), Message("assistant", ""), U("go"))
    assert codes(messages) == [("empty-message", 0), ("empty-message", 1)]


def test_a_message_with_a_non_text_part_is_not_empty() -> None:
    messages = W(U(""), U("go"))
    sourced = [message._replace(source=position) for position, message in enumerate(messages)]
    assert codes(sourced, has_non_text_part=lambda message: message.source == 0) == []
    assert codes(sourced, has_non_text_part=lambda message: False) == [("empty-message", 0)]


def test_findings_are_ordered_by_message_then_by_code() -> None:
    # Message 3 carries both an outside-its-turn and a duplicate finding; the table orders them.
    messages = W(U("go"), AC("c1:look"), T("c1"), U(""), T("c1"), T("x9"))
    assert codes(messages) == [
        ("empty-message", 3),
        ("result-outside-its-turn", 4),
        ("duplicate-result", 4),
        ("orphan-result", 5),
    ]


def test_indices_are_the_callers() -> None:
    # Two core messages from caller message 2 (an Anthropic user message with a result and text).
    messages = [
        U("go")._replace(source=0),
        AC("c1:look")._replace(source=1),
        T("c1")._replace(source=2),
        U("")._replace(source=2),
        T("x1")._replace(source=3),
    ]
    assert codes(messages) == [("empty-message", 2), ("orphan-result", 3)]


def test_more_than_a_hundred_findings_end_with_a_count() -> None:
    messages = [U("go"), *(T(f"x{n}") for n in range(130))]
    found = diagnose(messages)
    assert len(found) == 101
    assert [d.message_index for d in found[:100]] == list(range(1, 101))
    assert found[100] == Diagnostic("more-diagnostics", None, "30 more findings not listed")


def test_exactly_a_hundred_findings_need_no_count() -> None:
    found = diagnose([U("go"), *(T(f"x{n}") for n in range(100))])
    assert len(found) == 100 and found[-1].code == "orphan-result"


# ---- a reused call id (docs/rules.md#diagnostics: results are matched to calls per occurrence) --


def test_a_reused_id_hides_no_unanswered_call() -> None:
    # The later call's id was answered once already, by the earlier call's result: that result
    # answers the earlier call only, so the later call is unanswered.
    messages = W(U("go"), R("c1"), AC("c1:probe"), U("and?"), A("done"))
    found = diagnose(messages)
    assert [(d.code, d.message_index) for d in found] == [
        ("unanswered-call", 3),
        ("duplicate-call-id", 3),
    ]
    assert "'c1'" in found[0].detail and "probe" in found[0].detail
    assert "'c1'" in found[1].detail


def test_a_reused_id_answered_after_each_call_is_reported_once() -> None:
    messages = W(U("go"), R("c1"), U("again"), R("c1"), U("next"))
    found = diagnose(messages)
    assert [(d.code, d.message_index) for d in found] == [("duplicate-call-id", 4)]
    assert found[0].detail == (
        "the call id 'c1' was already used by an earlier call: only a result after this call "
        "answers it"
    )


def test_a_result_answers_the_nearest_call_before_it() -> None:
    # The earlier call has no result before the later one: the result after the later call is
    # the later call's, so the earlier one is unanswered.
    messages = W(U("go"), AC("c1:look"), U("still there?"), AC("c1:look"), T("c1"), U("next"))
    assert codes(messages) == [("unanswered-call", 1), ("duplicate-call-id", 3)]


def test_a_reused_id_in_the_last_turn_may_wait_for_its_result() -> None:
    assert codes(W(U("go"), R("c1"), U("again"), AC("c1:look"))) == [("duplicate-call-id", 4)]


def test_an_id_twice_in_one_message_is_answered_by_one_result_once() -> None:
    # Both results answer the nearer call, the second of the message: the first stays unanswered.
    messages = W(U("go"), AC("c1:look", "c1:move"), T("c1"), T("c1"), U("next"))
    assert codes(messages) == [
        ("unanswered-call", 1),
        ("duplicate-call-id", 1),
        ("duplicate-result", 3),
    ]


def test_results_of_two_calls_sharing_an_id_are_no_duplicates() -> None:
    assert codes(W(U("go"), R("c1"), R("c1"))) == [("duplicate-call-id", 3)]


def test_a_not_dispatched_message_answers_the_nearest_call() -> None:
    messages = W(U("go"), R("c1"), AC("c1:look"), T_not_run("c1"), U("next"))
    assert codes(messages) == [("duplicate-call-id", 3)]


def test_a_reused_id_is_found_on_the_call_s_own_caller_item() -> None:
    # A Responses function_call item is its own caller item: the finding names it.
    later = AC("c1:look")
    later = later._replace(
        source=4, tool_calls=tuple(call._replace(source=5) for call in later.tool_calls)
    )
    messages = [
        U("go")._replace(source=0),
        AC("c1:look")._replace(source=1),
        T("c1")._replace(source=2),
        U("again")._replace(source=3),
        later,
        T("c1")._replace(source=6),
    ]
    assert codes(messages) == [("duplicate-call-id", 5)]


def test_duplicate_call_id_is_ordered_after_unanswered_call_and_before_empty_message() -> None:
    calls = AC("c1:look")
    messages = W(U("go"), R("c1"), calls, U("x"))
    same = [m._replace(source=3) if position >= 3 else m for position, m in enumerate(messages)]
    same[4] = U("")._replace(source=3)
    assert codes(same) == [
        ("unanswered-call", 3),
        ("duplicate-call-id", 3),
        ("empty-message", 3),
    ]
