"""Pins: the turns a policy holds in the window, how many it may hold, and when it stands down.

Two kinds hold evidence the agent still needs. `last-tool-result` keeps each tool's latest result
(content-blind: the candidates are the tool roster, not the transcript); `ledger-fact` keeps the
turns whose results the model itself filed as facts. Both are anchored (nothing at or before the
current request is pinnable), counted per turn (a batch is one slot), and capped by a ceiling spent
newest first on the turns outside the keep window only, since a turn in the keep window stays
anyway. A pin kind that held up both previous plans stands down for one request, so a hold can
never block progress for good. This module does not decide where the span ends; the refusal engine
asks it only which turns are held.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.core.ledger import STANDING_RANK, UNDECLARED_RANK, Standing, StandingRow
from app.core.messages import Message, is_result_message
from app.core.names import name_of
from app.core.plan_types import (
    LastToolResultPin,
    LedgerFactPin,
    PinBlock,
    PinT,
    PlanOptions,
    PriorRecord,
)
from app.core.transcript import Transcript
from app.core.turns import Segment

LedgerFold = Mapping[str, StandingRow]

LAST_TOOL_RESULT_REASONS = frozenset({"last-tool-result"})
# A turn held by both kinds is reported as last-tool-result, so that reason blocks facts too.
LEDGER_FACT_REASONS = frozenset({"last-tool-result", "ledger-fact"})


def last_tool_result_candidates(transcript: Transcript, after: int) -> list[LastToolResultPin]:
    """The turn holding each tool's latest result after the request, newest first, one per turn.

    A batch turn is named after its newest result whose tool is not yet claimed, and claims every
    tool name it answers, so it costs one slot however many tools it holds. A pin reports the
    caller index of its turn's first message (`turn_starts`).
    """
    messages, segments = transcript.messages, transcript.segments
    turn_starts, call_names = transcript.turn_starts, transcript.survey.call_names
    candidates: list[LastToolResultPin] = []
    named: set[str] = set()
    for segment in reversed(segments):
        if segment.end - 1 <= after:
            break  # this turn and every older one lie at or before the request
        pinned_here = False
        for position in range(segment.end - 1, max(segment.start, after + 1) - 1, -1):
            name = name_of(messages[position], call_names)
            if name is None or name in named:
                continue
            named.add(name)
            if pinned_here:
                continue
            pinned_here = True
            candidates.append(
                LastToolResultPin(
                    name, segment.turn, turn_starts[segment.turn], segment.chars, None
                )
            )
    return candidates


def standing_of(fold: LedgerFold, call_id: str) -> Standing | None:
    """The current standing of a result id: its last standing row's; None is undeclared."""
    row = fold.get(call_id)
    return None if row is None else row.standing


def standing_rank(standing: Standing | None) -> int:
    """How much a standing is worth to the window; None is undeclared."""
    return UNDECLARED_RANK if standing is None else STANDING_RANK[standing]


def turn_standing(
    messages: Sequence[Message], segment: Segment, fold: LedgerFold
) -> Standing | None:
    """The highest-ranked standing among the turn's result messages.

    None when the best is undeclared or the turn holds no result: either way the ledger says
    nothing that holds the turn. A batch with one unjudged member is therefore never noise.
    """
    best: Standing | None = None
    best_rank = -1
    for position in range(segment.start, segment.end):
        message = messages[position]
        if not is_result_message(message):
            continue
        standing = standing_of(fold, message.tool_call_id or "")
        rank = standing_rank(standing)
        if rank > best_rank:
            best, best_rank = standing, rank
    return best


def ledger_fact_candidates(
    transcript: Transcript, fold: LedgerFold, after: int
) -> list[LedgerFactPin]:
    """Every turn whose standing is `fact`, newest first, with its result ids after the request."""
    messages, segments = transcript.messages, transcript.segments
    turn_starts, call_names = transcript.turn_starts, transcript.survey.call_names
    candidates: list[LedgerFactPin] = []
    for segment in reversed(segments):
        if segment.end - 1 <= after:
            break
        if turn_standing(messages, segment, fold) != "fact":
            continue
        ids: list[str] = []
        tool_name: str | None = None
        for position in range(max(segment.start, after + 1), segment.end):
            message = messages[position]
            if not is_result_message(message):
                continue
            ids.append(message.tool_call_id or "")
            tool_name = name_of(message, call_names) or tool_name
        if ids and tool_name is not None:
            candidates.append(
                LedgerFactPin(
                    tool_name,
                    segment.turn,
                    turn_starts[segment.turn],
                    segment.chars,
                    None,
                    tuple(ids),
                )
            )
    return candidates


def admit(candidates: Sequence[PinT], candidate_count: int, ceiling: int) -> PinBlock[PinT] | None:
    """Spend the ceiling newest first on candidates before the keep window; those in it are free."""
    contested = [candidate for candidate in candidates if candidate.turn_index < candidate_count]
    admitted = tuple(contested[:ceiling])
    if not admitted:
        return None
    return PinBlock(admitted, len(contested) - len(admitted), ceiling, stand_down=False)


def is_blocking(prior_records: Sequence[PriorRecord], reasons: frozenset[str]) -> bool:
    """Both previous plans removed nothing while a pin of these reasons held a turn."""
    if len(prior_records) < 2:
        return False
    return all(
        record.removed_message_count == 0
        and any(reason in reasons for reason in record.refusal_reasons)
        for record in prior_records[-2:]
    )


def last_tool_result_stands_down(options: PlanOptions) -> bool:
    return options.keep_last_tool_results > 0 and is_blocking(
        options.prior_records, LAST_TOOL_RESULT_REASONS
    )


def ledger_fact_stands_down(options: PlanOptions) -> bool:
    return (
        options.ledger is not None
        and options.keep_ledger_facts > 0
        and is_blocking(options.prior_records, LEDGER_FACT_REASONS)
    )


def stand_down_block(ceiling: int) -> PinBlock[PinT]:
    return PinBlock((), 0, ceiling, stand_down=True)


@dataclass(frozen=True, slots=True)
class PinPlan:
    """Both kinds' blocks as reported, and the turns each kind holds for the refusal engine."""

    last_tool_result: PinBlock[LastToolResultPin] | None
    ledger_fact: PinBlock[LedgerFactPin] | None

    def held_by_last_tool_result(self) -> frozenset[int]:
        return _held_turns(self.last_tool_result)

    def held_by_ledger_fact(self) -> frozenset[int]:
        return _held_turns(self.ledger_fact)


def _held_turns(block: PinBlock[PinT] | None) -> frozenset[int]:
    return frozenset() if block is None else frozenset(pin.turn_index for pin in block.pinned)


def plan_pins(
    transcript: Transcript,
    fold: LedgerFold | None,
    after: int,
    candidate_count: int,
    options: PlanOptions,
) -> PinPlan:
    """Each kind's block, first match: off, standing down, nothing to contest, the admission.

    `after` is the current request's core position (−1 without one): nothing at or before it is
    pinnable; `candidate_count` the turns outside the keep window, which the ceiling is spent on.
    """
    last_tool_result: PinBlock[LastToolResultPin] | None = None
    ceiling = options.keep_last_tool_results
    if ceiling > 0:
        if last_tool_result_stands_down(options):
            last_tool_result = stand_down_block(ceiling)
        elif candidate_count > 0:
            last_tool_result = admit(
                last_tool_result_candidates(transcript, after),
                candidate_count,
                ceiling,
            )
    ledger_fact: PinBlock[LedgerFactPin] | None = None
    ceiling = options.keep_ledger_facts
    if fold is not None and ceiling > 0:
        if ledger_fact_stands_down(options):
            ledger_fact = stand_down_block(ceiling)
        elif candidate_count > 0:
            ledger_fact = admit(
                ledger_fact_candidates(transcript, fold, after),
                candidate_count,
                ceiling,
            )
    return PinPlan(last_tool_result, ledger_fact)
