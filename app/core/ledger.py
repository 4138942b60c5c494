"""The findings ledger fold: each result id's current standing.

The model files standing rows about tool results; the last row naming an id is its current verdict,
kept at the position where the id was first named. Both the window plan (ledger-fact pins, dropped
standings) and the offer read standings through this one fold, so the two can never disagree.
Rows of other kinds are not part of the fold; the request reader leaves them out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple

Standing = Literal["fact", "open", "ruled-out", "noise"]
STANDINGS: tuple[Standing, ...] = ("fact", "open", "ruled-out", "noise")

# Undeclared (no row) sits between open and ruled-out: an unjudged result is worth more than one the
# model set aside, and a batch with one unjudged member is never treated as noise.
UNDECLARED_RANK = 2
STANDING_RANK: dict[Standing, int] = {"fact": 4, "open": 3, "ruled-out": 1, "noise": 0}
RETIRING: frozenset[Standing] = frozenset({"noise", "ruled-out"})


class StandingRow(NamedTuple):
    """A standing row of the ledger: the model's verdict on one tool result.

    A named tuple, like the core messages, rather than a frozen dataclass: a ledger holds one row
    per verdict, thousands in a long run, and a tuple is several times cheaper to build.
    """

    tool_call_id: str
    standing: Standing
    tool_name: str | None = None
    ref: str | None = None


def fold_ledger(rows: Iterable[StandingRow]) -> dict[str, StandingRow]:
    """The last row per id wins, at the position where the id was first named."""
    fold: dict[str, StandingRow] = {}
    for row in rows:
        fold[row.tool_call_id] = row
    return fold
