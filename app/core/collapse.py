"""The collapsed-ticket view: results the model has set aside, sent as a short ticket.

A result whose current standing collapses under the chosen mode need not be sent in full again;
its text content is replaced by a compact JSON ticket that says the result is there and what the
model decided. Only content changes: ids, names, roles, the number and order of messages stay, so
every set of the offer is the same before and after. Settled messages (`not_dispatched`) are never
touched, and a message that already holds its ticket is left as it is: the view is idempotent.

The offer and its identity source must be computed from the committed transcript, never from this
view, which would quote tickets instead of results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import orjson

from app.core.ledger import RETIRING, Standing, StandingRow
from app.core.messages import Message, is_result_message

CollapseMode = Literal["ledger-and-facts", "ledger-only"]
COLLAPSE_MODES: tuple[CollapseMode, ...] = ("ledger-and-facts", "ledger-only")

# `open` never collapses: the model still means to come back to it. `ledger-only` trusts the ledger
# to carry what a fact established, so the fact's full text is not sent again.
COLLAPSING: dict[CollapseMode, frozenset[Standing]] = {
    "ledger-and-facts": RETIRING,
    "ledger-only": RETIRING | {"fact"},
}


def ticket_for(row: StandingRow) -> str:
    """The compact JSON ticket for the winning row of an id; `ref` only when that row has one."""
    ticket: dict[str, object] = {
        "collapsed": True,
        "standing": row.standing,
        "tool_call_id": row.tool_call_id,
    }
    if row.ref is not None:
        ticket["ref"] = row.ref
    return orjson.dumps(ticket).decode()


def is_ticket(value: object) -> bool:
    """Whether `value` is a ticket: a JSON object whose `collapsed` is the boolean true and whose
    `standing` and `tool_call_id` are strings.

    A `str` is read as the JSON text of a message's content; any other value as parsed JSON.
    """
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return False
    return (
        isinstance(value, dict)
        and value.get("collapsed") is True
        and isinstance(value.get("standing"), str)
        and isinstance(value.get("tool_call_id"), str)
    )


def collapsing_row(
    message: Message, fold: Mapping[str, StandingRow], mode: CollapseMode
) -> StandingRow | None:
    """The winning row when `message` is a result whose current standing collapses under `mode`."""
    call_id = message.tool_call_id
    if call_id is None or not is_result_message(message):
        return None
    row = fold.get(call_id)
    if row is None or row.standing not in COLLAPSING[mode]:
        return None
    return row


def collapse(
    messages: Sequence[Message],
    fold: Mapping[str, StandingRow],
    mode: CollapseMode = "ledger-and-facts",
) -> tuple[list[Message], list[int]]:
    """The collapsed view of `messages` and the indices (in `messages`) of the ones it changed."""
    if mode not in COLLAPSING:
        raise ValueError(f"unknown collapse mode: {mode!r}")
    view = list(messages)
    changed: list[int] = []
    if not fold:
        return view, changed
    tickets: dict[str, str] = {}
    for index, message in enumerate(messages):
        row = collapsing_row(message, fold, mode)
        if row is None:
            continue
        ticket = tickets.get(row.tool_call_id)
        if ticket is None:
            ticket = tickets[row.tool_call_id] = ticket_for(row)
        if message.content != ticket:
            # The ticket replaces the whole result, its images and documents too.
            view[index] = message._replace(
                content=ticket, images=(), extra_texts=(), extra_tokens=0
            )
            changed.append(index)
    return view, changed
