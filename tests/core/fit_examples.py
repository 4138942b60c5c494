"""The worked examples F1–F3 of the `fit` strategy as one table, planned by the core tests and
posted in every wire format by the HTTP tests, so each expectation is written once.

Tokenizer `estimate`; `B` = `"b"×400` (100 tokens). Each `R(cN, look, B)` turn costs 113 tokens:
the call message `0 + (1 + 1 + 3) + 4 = 9` (`look` 1, `{}` 1) and the result `100 + 4 = 104`.
The notice of every cut is the kept-request rich notice naming `look`, which under `fit` names no
iteration: 384 characters, 386 UTF-8 bytes, 97 + 4 = 101 tokens.

F2h sends F1's transcript grown by a turn, with F1's record as `prior_records`: the held cut
(docs/rules.md#the-fit-strategy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.core.messages import Message
from tests.core.window_fixtures import TASK, R, S, U, W

B = "b" * 400
F_TRANSCRIPT: list[Message] = W(
    S("sys"),
    U(TASK),
    R("c1", "look", B),
    R("c2", "look", B),
    R("c3", "look", B),
    R("c4", "look", B),
)
# F1's transcript grown by one turn, as a full-history agent sends it on its next request.
F_GROWN: list[Message] = [*F_TRANSCRIPT, *W(R("c5", "look", B))]
# The per-message tokens of the examples: S 1+4, U(TASK) 13+4, each call 9, each result 104.
F_MESSAGE_TOKENS = [5, 17, 9, 104, 9, 104, 9, 104, 9, 104]
F_TURN_TOKENS = [5, 17, 113, 113, 113, 113]
# The kept-request rich notice naming `look` under `fit` (docs/rules.md#notice-lengths): 384
# characters, with no iteration.
F_NOTICE_LENGTH = 384


def f_notice(removed: int) -> str:
    """The notice of a cut of `removed` caller messages."""
    return (
        f"[dropped history — {removed} earlier message(s) were removed from this window by the "
        "'fit' strategy of the context planner. Your current request is kept: it is still above "
        "this line, and no strategy may remove it. Tool results are among them (look): call the "
        "tool again if you need that output; do not rebuild ids or values from memory. They were "
        "not summarized; they are simply not re-sent.]"
    )


@dataclass(frozen=True)
class FitExample:
    name: str
    strategy: dict[str, Any]
    held: str
    budget: dict[str, Any]
    evicted_messages: list[int]
    notice: str | None
    tokens_after: int
    options: dict[str, Any] = field(default_factory=lambda: {"keep_last_tool_results": 0})
    transcript: list[Message] = field(default_factory=lambda: F_TRANSCRIPT)
    # The example whose record is sent back as `prior_records` (None: `[]`).
    prior: str | None = None

    @property
    def tokens_before(self) -> int:
        return sum(F_MESSAGE_TOKENS) + 113 * (len(self.transcript) - len(F_TRANSCRIPT)) // 2

    @property
    def turn_tokens(self) -> list[int]:
        return F_TURN_TOKENS + [113] * ((len(self.transcript) - len(F_TRANSCRIPT)) // 2)


F1_STRATEGY = {"kind": "fit", "max_tokens": 450, "target_tokens": 350, "keep_recent_turns": 1}


def budget(
    max_tokens: int,
    target: int,
    before: int,
    after: int,
    *spans: tuple[int, int, str],
    held: bool = False,
    met: bool = True,
    stage: str = "span",
    released_pins: int = 0,
) -> dict[str, Any]:
    """The answer's `budget`, its `spans` given as `(from_turn, through_turn, stage)`."""
    return {
        "max_tokens": max_tokens,
        "target_tokens": target,
        "reserve_tokens": 0,
        "total_before": before,
        "total_after": after,
        "met": met,
        "held": held,
        "stage": stage,
        "released_pins": released_pins,
        "spans": [
            {"from_turn": first, "through_turn": last, "stage": taken}
            for first, last, taken in spans
        ],
    }


FIT_EXAMPLES = [
    # k = 2: 474 − 113 + 101 = 462 > 350; k = 3: 474 − 226 + 101 = 349 ≤ 350.
    FitExample(
        "F1",
        F1_STRATEGY,
        "se cr EV EV within-budget ikw",
        budget(450, 350, 474, 349, (2, 3, "span")),
        [2, 3, 4, 5],
        f_notice(4),
        349,
    ),
    # k = 2: 462 ≤ 466.
    FitExample(
        "F2",
        {"kind": "fit", "max_tokens": 470, "target_tokens": 466, "keep_recent_turns": 1},
        "se cr EV within-budget within-budget ikw",
        budget(470, 466, 474, 462, (2, 2, "span")),
        [2, 3],
        f_notice(2),
        462,
    ),
    # F1's cut (4 messages: turns 2–3) would total 587 − 226 + 101 = 462 > 450: not held; cut
    # afresh, k = 4 gives 587 − 339 + 101 = 349 ≤ 350.
    FitExample(
        "F2h",
        F1_STRATEGY,
        "se cr EV EV EV within-budget ikw",
        budget(450, 350, 587, 349, (2, 4, "span")),
        [2, 3, 4, 5, 6, 7],
        f_notice(6),
        349,
        transcript=F_GROWN,
        prior="F1",
    ),
    # With max_tokens 470, F1's cut totals 462 ≤ 470: held, met against max_tokens.
    FitExample(
        "F2h (max 470)",
        {**F1_STRATEGY, "max_tokens": 470},
        "se cr EV EV within-budget within-budget ikw",
        budget(470, 350, 587, 462, (2, 3, "span"), held=True),
        [2, 3, 4, 5],
        f_notice(4),
        462,
        transcript=F_GROWN,
        prior="F1",
    ),
    FitExample(
        "F3",
        {"kind": "fit", "max_tokens": 500, "target_tokens": 350, "keep_recent_turns": 1},
        "· · · · · ·",
        budget(500, 350, 474, 474),
        [],
        None,
        474,
    ),
]
EXAMPLES_BY_NAME = {example.name: example for example in FIT_EXAMPLES}
