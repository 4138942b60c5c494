"""Diagnostics: what in the transcript as sent a provider would refuse, or looks like a mistake.

The plan is computed on the transcript exactly as sent: an input that is already broken is planned
as it is and reported here, never repaired, because a repair would be a decision the agent did not
ask for and could not see. Each finding names the caller message that carries its subject, so an
agent can fix its own history. Diagnostics read the transcript only; they never change a decision
of the plan (the route computes them beside it, not inside it).

What counts as a non-text part (an image, a file, audio, a document) is the wire format's
knowledge, so `diagnose` asks the reader's predicate for the one rule that needs it; everything
else is read from the core messages, so the findings are the same in every format for the same
core transcript.

`findings` is the one pass over the messages; `diagnose` asks the predicate, orders and words what
it found. The compiled reader has its own `findings` (`app.compiled.findings`), which the
differential tests hold to this one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from app.core.messages import Message

DiagnosticCode = Literal[
    "orphan-result",
    "result-outside-its-turn",
    "duplicate-result",
    "unanswered-call",
    "duplicate-call-id",
    "empty-message",
    "more-diagnostics",
]

# The report order within one message: the order of the table in docs/rules.md#diagnostics.
CODE_ORDER: dict[DiagnosticCode, int] = {
    "orphan-result": 0,
    "result-outside-its-turn": 1,
    "duplicate-result": 2,
    "unanswered-call": 3,
    "duplicate-call-id": 4,
    "empty-message": 5,
}
LISTED_DIAGNOSTICS = 100
# How a call occurrence was answered (`findings`): by a `not_dispatched` message only, or by a
# result message.
ANSWERED = 1
BY_RESULT = 2


@dataclass(frozen=True)
class Diagnostic:
    """One finding: its code, the caller index of the message it is about, one sentence."""

    code: DiagnosticCode
    message_index: int | None
    detail: str


class Finding(NamedTuple):
    """A finding before it is worded, as the per-message pass (`findings`) records it.

    `message_index` is the caller index of the message it is about; `subject` the call id
    (the role, for `empty-message`); `name` the call's tool name (`unanswered-call`); `position`
    the core position of an `empty-message` candidate, which the format's predicate still checks.
    """

    message_index: int
    code: DiagnosticCode
    subject: str
    name: str | None = None
    position: int = -1


# `findings` itself, or an implementation of it giving the same list for every transcript (the
# compiled one, `app.compiled`).
FindingsOf = Callable[[Sequence[Message]], list[Finding]]


def never_has_parts(message: Message) -> bool:
    """The predicate of a format whose messages carry text alone (native)."""
    return False


def findings(messages: Sequence[Message]) -> list[Finding]:
    """Every finding of docs/rules.md#diagnostics in the order met, with every `user` or `system`
    message without text as an `empty-message` candidate (`diagnose` asks the format about its
    parts).

    Results are matched to calls per occurrence: a `tool` message answers the nearest call before
    it with its id. A reused id therefore cannot hide an unanswered call behind an earlier call's
    result: the later call is answered only by a result after it.
    """
    found: list[Finding] = []
    add = found.append
    nearest: dict[str, int] = {}  # call id -> its latest call so far (an occurrence number)
    turns: list[int] = []  # occurrence -> the turn of its call
    # occurrence -> ANSWERED when only a `not_dispatched` message answered it, BY_RESULT when a
    # result message did (a second one is a duplicate), 0 when nothing did (yet).
    states: list[int] = []
    orphans: set[str] = set()  # ids a result answered before any call had them
    calling: list[tuple[int, int, Message, int]] = []  # (turn, caller index, message, first occ.)
    turn = -1
    for position, message in enumerate(messages):
        role = message.role
        if role != "tool" or turn < 0:
            turn += 1
        index = position if message.source is None else message.source
        if role == "tool":
            call_id = message.tool_call_id
            if not call_id:
                continue
            occurrence = nearest.get(call_id)
            if occurrence is None:
                if message.not_dispatched:
                    continue
                add(Finding(index, "orphan-result", call_id))
                if call_id in orphans:
                    add(Finding(index, "duplicate-result", call_id))
                orphans.add(call_id)
                continue
            state = states[occurrence]
            if message.not_dispatched:
                if state == 0:
                    states[occurrence] = ANSWERED
                continue
            if turns[occurrence] != turn:
                add(Finding(index, "result-outside-its-turn", call_id))
            if state == BY_RESULT:
                add(Finding(index, "duplicate-result", call_id))
            states[occurrence] = BY_RESULT
        elif message.tool_calls:
            calling.append((turn, index, message, len(turns)))
            for call in message.tool_calls:
                if call.id in nearest:
                    source = index if call.source is None else call.source
                    add(Finding(source, "duplicate-call-id", call.id))
                nearest[call.id] = len(turns)
                turns.append(turn)
                states.append(0)
        elif (role == "user" or role == "system") and not message.content:
            add(Finding(index, "empty-message", role, None, position))
    for call_turn, index, message, first in calling:
        if call_turn == turn:  # the transcript's last turn may still be waiting for its results
            continue
        for occurrence, call in enumerate(message.tool_calls, first):
            if not states[occurrence]:
                source = index if call.source is None else call.source
                add(Finding(source, "unanswered-call", call.id, call.name))
    return found


def diagnose(
    messages: Sequence[Message],
    has_non_text_part: Callable[[Message], bool] = never_has_parts,
    findings_of: FindingsOf = findings,
) -> tuple[Diagnostic, ...]:
    """Every finding of docs/rules.md#diagnostics, ordered by message index then code, at most 101
    entries.

    `has_non_text_part(m)` tells whether a `user` or `system` message with no text still carries
    a part its format reads (so it is not empty).
    """
    found = [
        finding
        for finding in findings_of(messages)
        if finding.code != "empty-message" or not has_non_text_part(messages[finding.position])
    ]
    order = sorted(
        range(len(found)),
        key=lambda seen: (found[seen].message_index, CODE_ORDER[found[seen].code], seen),
    )
    listed = tuple(worded(found[seen]) for seen in order[:LISTED_DIAGNOSTICS])
    more = len(found) - LISTED_DIAGNOSTICS
    if more <= 0:
        return listed
    return (*listed, Diagnostic("more-diagnostics", None, f"{more} more findings not listed"))


def worded(finding: Finding) -> Diagnostic:
    """The finding as reported, with its one sentence."""
    code, subject = finding.code, finding.subject
    if code == "orphan-result":
        detail = f"the result for '{subject}' answers no earlier call"
    elif code == "result-outside-its-turn":
        detail = (
            f"the result for '{subject}' is not in the turn of its call: another message stands "
            "between the call and this result"
        )
    elif code == "duplicate-result":
        detail = f"'{subject}' was already answered by a result"
    elif code == "unanswered-call":
        detail = (
            f"the call '{subject}' ({finding.name}) is never answered, and later messages follow it"
        )
    elif code == "duplicate-call-id":
        detail = (
            f"the call id '{subject}' was already used by an earlier call: only a result after "
            "this call answers it"
        )
    else:
        detail = (
            f"the {subject} message has no text and no image, file, audio or document part: "
            "its content is absent, empty, or in a shape the format used does not read"
        )
    return Diagnostic(code, finding.message_index, detail)
