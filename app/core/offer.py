"""The offer: which earlier tool results the model may still name, and what each id stands for.

A model that files standings must name a result by its `tool_call_id`, and it can only name what it
can still see. From the committed transcript and the ledger fold this module answers which results
were served, which the model has not judged yet, which it may still name (newest first, with the
sentence that tells it so), and the identity source a standing resolves against.

It reads standings only through `app.core.ledger` and results only through `is_result`, so a settled
message (`not_dispatched`) is never served, never offered and never quoted. It does not validate
ledger rows or check what the model later sends: the offer is advice, not a permission.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from app.core.defaults import DEFAULT_OFFER_LIMIT
from app.core.ledger import RETIRING, Standing, StandingRow
from app.core.messages import Message, is_result
from app.core.names import first_call_names, name_of

LISTED_SENTENCE = (
    "Pick the tool result to judge from the listed ids, newest first; "
    "an id that is not listed cannot be named."
)


@dataclass(frozen=True, slots=True)
class BatchEntry:
    """A result that landed this iteration, as the agent recorded it (`result` verbatim)."""

    tool_call_id: str
    tool_name: str | None
    result: str


class KnownResult(TypedDict):
    """One entry of the identity source; `tool_name` is left out when no name is known."""

    tool_call_id: str
    tool_name: NotRequired[str]
    result: str


class StandingEntry(TypedDict):
    """One fold entry as reported; `tool_name` is left out when the winning row has none."""

    tool_call_id: str
    standing: Standing
    tool_name: NotRequired[str]


@dataclass(frozen=True)
class Offer:
    """The answer of the offer, fields in response order (it is serialized field by field;
    no `__slots__`, as orjson writes a dataclass faster from its `__dict__`)."""

    offered: tuple[str, ...]
    listed: tuple[str, ...]
    omitted: int
    description: str
    served: tuple[str, ...]
    undeclared: tuple[str, ...]
    nameable: tuple[str, ...]
    standings: tuple[StandingEntry, ...]
    known_results: tuple[KnownResult, ...]


def served_ids(messages: Sequence[Message]) -> list[str]:
    """Ids of the result messages, each once, in transcript order of first appearance."""
    served: dict[str, None] = {}
    for message in messages:
        if is_result(message) and message.tool_call_id:
            served.setdefault(message.tool_call_id, None)
    return list(served)


def _each_once(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def undeclared(ids: Iterable[str], fold: Mapping[str, StandingRow]) -> list[str]:
    """The ids no standing row names (any standing removes an id), each once, in the order given."""
    return _undeclared_among(_each_once(ids), fold)


def _undeclared_among(distinct_ids: list[str], fold: Mapping[str, StandingRow]) -> list[str]:
    return [tool_call_id for tool_call_id in distinct_ids if tool_call_id not in fold]


def is_nameable(tool_call_id: str, fold: Mapping[str, StandingRow]) -> bool:
    """Undeclared, `fact` and `open` results may still be named; retired ones may not."""
    row = fold.get(tool_call_id)
    return row is None or row.standing not in RETIRING


def nameable(ids: Iterable[str], fold: Mapping[str, StandingRow]) -> list[str]:
    """The ids whose current standing is absent, `fact` or `open`, each once, in the order given."""
    return _nameable_among(_each_once(ids), fold)


def _nameable_among(distinct_ids: list[str], fold: Mapping[str, StandingRow]) -> list[str]:
    return [tool_call_id for tool_call_id in distinct_ids if is_nameable(tool_call_id, fold)]


def describe_offer(omitted: int, limit: int) -> str:
    """What the listed ids are, and how many older nameable ids are left off
    (docs/rules.md#undeclared-and-nameable-ids)."""
    if omitted == 0:
        return LISTED_SENTENCE
    if omitted == 1:
        return (
            f"{LISTED_SENTENCE} 1 older result that may still be named is left off this list, "
            f"which holds the newest {limit}."
        )
    return (
        f"{LISTED_SENTENCE} {omitted} older results that may still be named are left off this "
        f"list, which holds the newest {limit}."
    )


def standings(fold: Mapping[str, StandingRow]) -> list[StandingEntry]:
    """One entry per fold entry, in fold order; only the winning row's own name is reported."""
    entries: list[StandingEntry] = []
    for row in fold.values():
        if row.tool_name is None:
            entries.append({"tool_call_id": row.tool_call_id, "standing": row.standing})
        else:
            entries.append(
                {
                    "tool_call_id": row.tool_call_id,
                    "standing": row.standing,
                    "tool_name": row.tool_name,
                }
            )
    return entries


def _known_result(tool_call_id: str, name: str | None, text: str) -> KnownResult:
    if name:
        return {"tool_call_id": tool_call_id, "tool_name": name, "result": text}
    return {"tool_call_id": tool_call_id, "result": text}


def known_results(
    messages: Sequence[Message], previous_batch: Iterable[BatchEntry] = ()
) -> list[KnownResult]:
    """The identity source: the previous batch, then every result; the first entry per id wins.

    Names are the entry's own when non-empty, else recovered from the transcript's calls; none is
    invented. The batch goes first because it is the agent's own record of what landed this
    iteration; it normally carries the same text as the transcript.
    """
    call_names = first_call_names(messages)
    known: dict[str, KnownResult] = {}
    for entry in previous_batch:
        if entry.tool_call_id and entry.tool_call_id not in known:
            name = entry.tool_name or call_names.get(entry.tool_call_id)
            known[entry.tool_call_id] = _known_result(entry.tool_call_id, name, entry.result)
    for message in messages:
        tool_call_id = message.tool_call_id
        if is_result(message) and tool_call_id and tool_call_id not in known:
            name = name_of(message, call_names)
            known[tool_call_id] = _known_result(tool_call_id, name, message.content)
    return list(known.values())


def offer(
    messages: Sequence[Message],
    fold: Mapping[str, StandingRow],
    previous_batch: Iterable[BatchEntry] = (),
    limit: int = DEFAULT_OFFER_LIMIT,
) -> Offer:
    """The offer for a committed transcript (marks included) and the ledger fold.

    `messages` must be the committed transcript, not a collapsed view: `known_results` quotes the
    content, and a collapsed view would quote tickets.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    served = served_ids(messages)
    # `served` holds each id once already: deduplicating it again cost as much as the filter
    # itself (two passes over 56,072 ids, about 14 ms each at 100,000 messages).
    nameable_ids = _nameable_among(served, fold)
    offered = nameable_ids[::-1]
    listed = offered[:limit]
    omitted = len(offered) - len(listed)
    return Offer(
        offered=tuple(offered),
        listed=tuple(listed),
        omitted=omitted,
        description=describe_offer(omitted, limit),
        served=tuple(served),
        undeclared=tuple(_undeclared_among(served, fold)),
        nameable=tuple(nameable_ids),
        standings=tuple(standings(fold)),
        known_results=tuple(known_results(messages, previous_batch)),
    )
