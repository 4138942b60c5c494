"""Builders mirroring the notation of the worked examples, and readers of a plan in that
notation."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.core.ledger import Standing, StandingRow
from app.core.messages import Message, ToolCall
from app.core.window import (
    LastToolResultPin,
    LedgerFactPin,
    Measured,
    Paused,
    PinBlock,
    PlanOptions,
    PriorRecord,
    Record,
    SlidingWindow,
    TokenBudget,
    WindowPlan,
    plan_window,
)

TASK = "Find the hottest rack on the floor and report it."
HOLDS = "IDS: lab1-rack-a, lab1-rack-b, lab2-rack-a"
REQ = "Audit every deployment from last week and tell me which one touched the payment path."
OPEN = "o" * 449

Item = Message | Sequence[Message]


def U(content: str) -> Message:
    return Message("user", content)


def U_star(content: str) -> Message:
    """`U*(s)`: a user message the framework injected."""
    return Message("user", content, injected=True)


def S(content: str) -> Message:
    return Message("system", content)


def A(content: str = "", *calls: str) -> Message:
    """`A(s)`, or `A[c1:look, c2:move]` written `A("", "c1:look", "c2:move")`; each call's
    arguments are `{}`, as the notation says."""
    parsed = tuple(ToolCall(*call.split(":", 1), None, {}) for call in calls)
    return Message("assistant", content, tool_calls=parsed)


def AC(*calls: str) -> Message:
    """`A[c1:look, …]`: an assistant message with calls and no text."""
    return A("", *calls)


def T(call_id: str, tool: str = "look", content: str = "ok") -> Message:
    return Message("tool", content, tool_call_id=call_id, tool_name=tool)


def T_not_run(call_id: str, tool: str = "look", content: str = "ok") -> Message:
    """`T~(…)`: a tool message for a call that never ran."""
    return Message("tool", content, tool_call_id=call_id, tool_name=tool, not_dispatched=True)


def R(call_id: str, tool: str = "look", content: str = "ok") -> list[Message]:
    """`R(c1,look,s)` = `A[c1:look], T(c1,look,s)`, one turn."""
    return [AC(f"{call_id}:{tool}"), T(call_id, tool, content)]


def W(*items: Item) -> list[Message]:
    """A transcript from messages and `R(…)` pairs, flattened in order."""
    flat: list[Message] = []
    for item in items:
        if isinstance(item, Message):
            flat.append(item)
        else:
            flat.extend(item)
    return flat


def ledger_rows(**standings: Standing) -> tuple[StandingRow, ...]:
    """`ledger{a:fact, …}`: one standing row per id."""
    return tuple(StandingRow(call_id, standing) for call_id, standing in standings.items())


def tb(threshold: float, input_tokens: int, output_tokens: int, keep: int = 6) -> TokenBudget:
    """`tb(threshold, input/output)`."""
    return TokenBudget(threshold, keep, Measured(input_tokens, output_tokens))


def options(
    *,
    keep: int = 6,
    strategy: SlidingWindow | TokenBudget | None = None,
    ltr: int = 2,
    lf: int = 4,
    ledger: tuple[StandingRow, ...] | None = None,
    rt: str | None = None,
    paused: str | None = None,
    check_in: bool = False,
    it: int = 1,
    prior: Iterable[Record] = (),
) -> PlanOptions:
    return PlanOptions(
        strategy=SlidingWindow(keep) if strategy is None else strategy,
        keep_last_tool_results=ltr,
        ledger=ledger,
        keep_ledger_facts=lf,
        request_text=rt,
        paused=None if paused is None else Paused(paused, check_in),
        iteration=it,
        prior_records=tuple(prior_record(record) for record in prior),
    )


def prior_record(record: Record) -> PriorRecord:
    """What a caller sends back of a record, as the stand-down and the held cut read it."""
    return PriorRecord(
        record.removed_message_count,
        tuple(refusal.reason for refusal in record.refusals),
        record.strategy,
    )


def plan(messages: Sequence[Message], **kwargs: Any) -> WindowPlan:
    return plan_window(messages, options(**kwargs))


ABBREVIATION = {
    "current-request": "cr",
    "system-envelope": "se",
    "paused-tool": "pt",
    "pending-check-in": "pci",
    "unresolved-tool-call": "utc",
    "last-tool-result": "ltr",
    "ledger-fact": "lf",
    "inside-keep-window": "ikw",
    "replacement-not-smaller": "rns",
    "not-reached": "nr",
    "within-budget": "within-budget",
}


def held_words(turns: Iterable[Mapping[str, Any]]) -> str:
    """`held`: one word per turn record (the core's or the JSON answer's), `EV` evicted, `·` not
    held."""
    words = []
    for turn in turns:
        if turn["fate"] == "evicted":
            assert turn["held_by"] is None
            words.append("EV")
        elif turn["held_by"] is None:
            words.append("·")
        else:
            words.append(ABBREVIATION[turn["held_by"]])
    return " ".join(words)


def held(result: WindowPlan) -> str:
    return held_words(result.turns)


def ref(result: WindowPlan) -> list[tuple[str, int, int]]:
    """`ref`: the refusals as `(reason, turn_index, message_index)`."""
    return [
        (ABBREVIATION[refusal.reason], refusal.turn_index, refusal.message_index)
        for refusal in result.refusals
    ]


def stats(result: WindowPlan) -> str:
    """`m a→b t a→b c a→b`, or `m a t b c d` when nothing changed."""
    s = result.stats
    pairs = [
        (s.messages_before, s.messages_after),
        (s.turns_before, s.turns_after),
        (s.chars_before, s.chars_after),
    ]
    if all(before == after for before, after in pairs):
        return "m {} t {} c {}".format(*(before for before, _ in pairs))
    return "m {}→{} t {}→{} c {}→{}".format(*(value for pair in pairs for value in pair))


def pin_word(pin: LastToolResultPin | LedgerFactPin) -> str:
    word = f"{pin.tool_name}@{pin.turn_index}/{pin.message_index}:{pin.chars}"
    if isinstance(pin, LedgerFactPin):
        word += "{" + ",".join(pin.tool_call_ids) + "}"
    return word


def block(pins: PinBlock[LastToolResultPin] | PinBlock[LedgerFactPin] | None) -> str | None:
    """`[pins] y<yielded> L<limit>`, `SD L<limit>`, or None for a null block."""
    if pins is None:
        return None
    if pins.stand_down:
        assert pins.pinned == () and pins.yielded == 0
        return f"SD L{pins.limit}"
    return f"[{', '.join(pin_word(pin) for pin in pins.pinned)}] y{pins.yielded} L{pins.limit}"


def ltr(result: WindowPlan) -> str | None:
    return block(result.pins.last_tool_result)


def lf(result: WindowPlan) -> str | None:
    return block(result.pins.ledger_fact)


def dst(result: WindowPlan) -> list[tuple[str, str | None]] | None:
    if result.dropped_standings is None:
        return None
    return [(entry["tool_call_id"], entry["standing"]) for entry in result.dropped_standings]


def req(result: WindowPlan) -> tuple[int, int] | None:
    current = result.current_request
    return None if current is None else (current.message_index, current.turn_index)


def new_window(messages: Sequence[Message], result: WindowPlan) -> list[Message]:
    """The new core window: every removed range left out, the first replaced by the notice, if
    any; the transcript when nothing was removed."""
    window: list[Message] = []
    position = 0
    for number, (start, end) in enumerate(result.removed):
        window += messages[position:start]
        if number == 0 and result.notice is not None:
            window.append(Message("user", result.notice.content))
        position = end
    return [*window, *messages[position:]]


def run_requests(messages: Sequence[Message], count: int, **kwargs: Any) -> list[WindowPlan]:
    """`count` identical requests, each sending back every record returned so far."""
    records: list[Record] = []
    results: list[WindowPlan] = []
    for _ in range(count):
        result = plan(messages, prior=tuple(records), **kwargs)
        if result.record is not None:
            records.append(result.record)
        results.append(result)
    return results
