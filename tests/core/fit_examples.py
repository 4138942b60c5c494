"""The worked examples F1–F3 of the `fit` strategy as one table, planned by the core tests and
posted in every wire format by the HTTP tests, so each expectation is written once.

Tokenizer `estimate`; `B` = `"b"×400` (100 tokens). Each `R(cN, look, B)` turn costs 113 tokens:
the call message `0 + (1 + 1 + 3) + 4 = 9` (`look` 1, `{}` 1) and the result `100 + 4 = 104`.
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
# The per-message tokens of the examples: S 1+4, U(TASK) 13+4, each call 9, each result 104.
F_MESSAGE_TOKENS = [5, 17, 9, 104, 9, 104, 9, 104, 9, 104]
F_TURN_TOKENS = [5, 17, 113, 113, 113, 113]
# The kept-request rich notice naming `look` under `fit` (docs/rules.md#notice-lengths): 399
# characters.
F_NOTICE = (
    "[dropped history — 6 earlier message(s) were removed from this window at iteration 1 by the "
    "'fit' strategy of the context planner. Your current request is kept: it is still above this "
    "line, and no strategy may remove it. Tool results are among them (look): call the tool again "
    "if you need that output; do not rebuild ids or values from memory. They were not summarized; "
    "they are simply not re-sent.]"
)
F2_NOTICE = F_NOTICE.replace("— 6 earlier", "— 2 earlier")


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


FIT_EXAMPLES = [
    FitExample(
        "F1",
        {"kind": "fit", "max_tokens": 450, "target_tokens": 350, "keep_recent_turns": 1},
        "se cr EV EV EV ikw",
        {
            "max_tokens": 450,
            "target_tokens": 350,
            "reserve_tokens": 0,
            "total_before": 474,
            "total_after": 240,
            "met": True,
        },
        [2, 3, 4, 5, 6, 7],
        F_NOTICE,
        240,
    ),
    FitExample(
        "F2",
        {"kind": "fit", "max_tokens": 470, "target_tokens": 466, "keep_recent_turns": 1},
        "se cr EV within-budget within-budget ikw",
        {
            "max_tokens": 470,
            "target_tokens": 466,
            "reserve_tokens": 0,
            "total_before": 474,
            "total_after": 466,
            "met": True,
        },
        [2, 3],
        F2_NOTICE,
        466,
    ),
    FitExample(
        "F3",
        {"kind": "fit", "max_tokens": 500, "target_tokens": 350, "keep_recent_turns": 1},
        "· · · · · ·",
        {
            "max_tokens": 500,
            "target_tokens": 350,
            "reserve_tokens": 0,
            "total_before": 474,
            "total_after": 474,
            "met": True,
        },
        [],
        None,
        474,
    ),
]
