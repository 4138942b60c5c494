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
    "empty-message",
    "more-diagnostics",
]

# The report order within one message: the order of the table in docs/rules.md#diagnostics.
CODE_ORDER: dict[DiagnosticCode, int] = {
    "orphan-result": 0,
    "result-outside-its-turn": 1,
    "duplicate-result": 2,
    "unanswered-call": 3,
    "empty-message": 4,
}
LISTED_DIAGNOSTICS = 100


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
    parts)."""
    found: list[Finding] = []
    add = found.append
    call_turns: dict[str, int] = {}  # call id -> the turn of its latest call so far
    answered_by_result: set[str] = set()
    answered: set[str] = set()
    calling: list[tuple[int, int, Message]] = []  # (turn, caller index, message) making calls
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
            answered.add(call_id)
            if message.not_dispatched:
                continue
            call_turn = call_turns.get(call_id)
            if call_turn is None:
                add(Finding(index, "orphan-result", call_id))
            elif call_turn != turn:
                add(Finding(index, "result-outside-its-turn", call_id))
            if call_id in answered_by_result:
                add(Finding(index, "duplicate-result", call_id))
            answered_by_result.add(call_id)
        elif message.tool_calls:
            for call in message.tool_calls:
                call_turns[call.id] = turn
            calling.append((turn, index, message))
        elif (role == "user" or role == "system") and not message.content:
            add(Finding(index, "empty-message", role, None, position))
    for call_turn, index, message in calling:
        if call_turn == turn:  # the transcript's last turn may still be waiting for its results
            continue
        for call in message.tool_calls:
            if call.id not in answered:
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
    else:
        detail = (
            f"the {subject} message has no text and no image, file, audio or document part: "
            "its content is absent, empty, or in a shape the format used does not read"
        )
    return Diagnostic(code, finding.message_index, detail)
