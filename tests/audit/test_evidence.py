"""The evidence measure on small hand-made cases (docs/quality.md#evidence): identifiers and their
trimming, the occurrence boundaries, the action's values, where an id was first seen, the texts
the service writes (never evidence), and shaping that takes evidence out of a window."""

from __future__ import annotations

import orjson
import pytest

from app.audit.evidence import (
    action_identifiers,
    argument_values,
    evidence,
    evidence_sources,
    first_occurrence,
    identifiers,
    is_service_text,
    kept,
    occurs,
    recallable,
    shown_call_ids,
    shown_texts,
)
from app.core.cap import marker_for
from app.core.clear import placeholder_for
from app.core.collapse import ticket_for
from app.core.ledger import StandingRow
from app.core.messages import Message, ToolCall
from app.core.notice import notice_text
from app.core.plan_types import CapOption
from app.core.shaping import shape


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("open /tmp/x.py now", ["tmp/x.py"]),  # a leading `/` is trimmed
        ("id: abc_1.", ["abc_1"]),  # so is a trailing `.`; the `:` ends the run before it
        ("v1.2.3: done", ["v1.2.3"]),
        ("..a.b..", []),  # `a.b` is 3 characters once trimmed
        ("---x1--", []),  # `x1`
        ("plain words only", []),  # no digit, no mark
        ("ab#c", []),  # `#` belongs to a run but is no mark
        ("ab#1", ["ab#1"]),  # a digit
        ("_init", ["_init"]),  # `_` is no edge: it stays and is a mark
        ("foo-bar user@host 2024", ["foo-bar", "user@host", "2024"]),
        ("a-b abc", []),
        ("xx_1 xx_1 yy_2", ["xx_1", "yy_2"]),  # each once, in order
        ("naïve_1", ["ve_1"]),  # runs are ASCII: `ï` splits them, and `na` is too short
    ],
)
def test_identifiers(text: str, expected: list[str]) -> None:
    assert identifiers(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("abc_1", True),
        ("(abc_1)", True),
        ("abc_1.", True),
        ("_abc_1", True),  # `_` is no letter or digit
        ("xabc_1", False),
        ("abc_12", False),
        ("abc_1x", False),
        ("xabc_1 abc_1", True),  # a later occurrence counts
        ("ABC_1", False),
    ],
)
def test_occurrence_boundaries(text: str, expected: bool) -> None:
    assert occurs("abc_1", text) is expected


def test_argument_values_are_the_values_never_the_keys() -> None:
    sent = '{"path_1": "/a/b_1", "n": 12, "f": 1.5, "flag": true, "none": null, "k": ["x_1"]}'
    assert list(argument_values(sent)) == ["/a/b_1", "12", "1.5", "x_1"]
    assert list(argument_values({"cmd": {"argv": ["ls", 7]}})) == ["ls", "7"]
    assert list(argument_values("ls -la /srv/app_2")) == ["ls -la /srv/app_2"]  # not JSON
    assert list(argument_values("")) == []  # a call named by its item type


def call(arguments: object, call_id: str = "c1") -> Message:
    return Message("assistant", tool_calls=(ToolCall(call_id, "tool", arguments=arguments),))


def result(text: str, call_id: str = "c1") -> Message:
    return Message("tool", text, tool_call_id=call_id)


def test_evidence_is_what_a_result_showed_first() -> None:
    prefix = [
        Message("user", "fix bug_1 please"),
        call('{"path": "file_a.py"}'),
        result("found id_77, bug_1 and file_a.py"),
    ]
    action = action_identifiers([call({"ids": ["id_77", "bug_1", "file_a.py", "new_9"]}, "c2")])
    assert action == ["id_77", "bug_1", "file_a.py", "new_9"]
    # bug_1: the person's words; file_a.py: the model's own call; new_9: nowhere.
    assert evidence(action, prefix) == ["id_77"]
    assert first_occurrence("file_a.py", prefix) == 1
    # The top-level system prompt is read first.
    assert evidence(action, prefix, system="known: id_77") == []
    assert first_occurrence("id_77", prefix, system="known: id_77") == -1


def test_a_not_dispatched_result_teaches_nothing() -> None:
    prefix = [
        Message("user", "go"),
        call("{}"),
        Message("tool", "id_77", tool_call_id="c1", not_dispatched=True),
    ]
    assert evidence(["id_77"], prefix) == []


def test_texts_the_service_writes_are_no_evidence() -> None:
    notice = notice_text(
        removed_count=3, iteration=4, strategy="fit", kept_request=True, tool_list="read_file"
    )
    ticket = ticket_for(StandingRow("call_9", "noise", None))
    marker = orjson.dumps(marker_for("id_77 " * 40, "read_file", 200)).decode()
    for text in (notice, "[dropped history — whatever an older service wrote]", ticket, marker):
        assert is_service_text(text)
    assert not is_service_text('{"collapsed": false}')
    assert not is_service_text("the [dropped history of id_77")
    window = [
        Message("user", notice),
        result(marker),
        result(ticket, "call_9"),
        Message("assistant", "next: call_9"),
    ]
    assert "id_77" in marker and "call_9" in ticket
    assert kept(["id_77", "call_9"], shown_texts(window)) == ["call_9"]  # the assistant's words


def test_kept_reads_every_text_of_a_window() -> None:
    window = [
        Message("user", "see ref_1"),
        call({"p": "ref_2"}),
        result("ref_3"),
        Message("assistant", "ref_4"),
    ]
    found = kept(
        ["ref_1", "ref_2", "ref_3", "ref_4", "ref_5", "ref_6"], shown_texts(window, "ref_5")
    )
    assert found == ["ref_1", "ref_2", "ref_3", "ref_4", "ref_5"]


def test_shaping_removes_evidence() -> None:
    """A result capped to the service's marker no longer shows its ids, even in the marker's
    verbatim head: the marker is the service's text."""
    transcript = [
        Message("user", "go"),
        Message("assistant", tool_calls=(ToolCall("c1", "read_file"),)),
        result("id_77 " + "x" * 400),
    ]
    assert kept(["id_77"], shown_texts(transcript)) == ["id_77"]
    shaped, report = shape(transcript, None, None, CapOption(max_chars=200))
    assert [entry.action for entry in report] == ["capped"]
    assert "id_77" in shaped[2].content  # in the marker's head
    assert kept(["id_77"], shown_texts(shaped)) == []


def test_evidence_sources_name_the_result_it_was_first_seen_in() -> None:
    prefix = [
        Message("user", "go"),
        call("{}", "c1"),
        result("id_11 and id_22", "c1"),
        call("{}", "c2"),
        result("id_22 and id_33", "c2"),
    ]
    assert evidence_sources(["id_33", "id_22", "new_9"], prefix) == {"id_33": "c2", "id_22": "c1"}


def test_the_ids_a_window_still_names() -> None:
    """A call kept names its id, and so does a result sent as a placeholder, a marker (its `ref`,
    with recall on) or a ticket; a ticket's own `ref` is no call id."""
    marker = orjson.dumps(marker_for("x" * 400, "read", 200, ref="c3")).decode()
    ticket = ticket_for(StandingRow("c4", "noise", "r_9"))
    window = [
        Message("user", "go"),
        call("{}", "c1"),
        result(placeholder_for("c1", "read", 400, "context_recall"), "c1"),
        # A result whose message lost its id still names it in its marker's `ref`.
        Message("tool", marker),
        Message("tool", ticket),
    ]
    assert shown_call_ids(window) == {"c1", "c3", "c4"}


def test_recallable_is_the_evidence_not_kept_whose_result_is_named() -> None:
    sources: dict[str, str | None] = {"id_1": "c1", "id_2": "c2", "id_3": "c3", "id_4": None}
    # id_1 kept; id_2's result still named; id_3's gone; id_4's result carries no id.
    assert recallable(sources, ["id_1"], {"c1", "c2"}) == ["id_2"]
    assert recallable(sources, [], {"c1", "c2"}) == ["id_1", "id_2"]
