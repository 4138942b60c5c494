"""The worked examples of docs/rules.md#within-the-limit as one table, planned by the core tests
and posted in every wire format by the HTTP tests, so each expectation is written once.

Tokenizer `estimate`, `keep_last_tool_results` 0. `L` = `"l" × 400`: each call to `look` with
`{}` and its result is a turn of 9 + 104 = 113 tokens.

- **Further spans**: `[sys, TASK, look + L, "next", 3 × (look + L)]`, `max_tokens` 300, target 240,
  keep 1. The span is turns 1–2 (turn 3, the request, ends it) and leaves with the rich notice
  naming `look` (78 tokens): 479 − 130 + 78 = 427 > 240. The first stage then takes turn 4
  (314) and turn 5 (201 ≤ 240).
- **Keep window**: the same with keep 3 (turns 4–6 the keep window): the first stage has nothing,
  the third takes turn 4 (314 > 300) and turn 5 (201).
- **Caps**: `[sys, TASK, look + "x" × 4000]`, `max_tokens` 300: 1,035 tokens, nothing may leave;
  a cap of 2,000 gives 535, of 1,000 gives 285 ≤ 300. With `overflow` `report` the plan stops
  before the caps: nothing changes and the budget is not met.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.core.messages import Message
from tests.core.fit_examples import budget
from tests.core.window_fixtures import TASK, R, S, U, W

L400 = "l" * 400
STAGED: list[Message] = W(
    S("sys"),
    U(TASK),
    R("c1", "look", L400),
    U("next"),
    R("c2", "look", L400),
    R("c3", "look", L400),
    R("c4", "look", L400),
)
CAPPED: list[Message] = W(S("sys"), U(TASK), R("c1", "look", "x" * 4000))
# The rich notice naming `look`, counting the first span's 3 messages: 294 characters, 296 UTF-8
# bytes, 74 + 4 = 78 tokens.
NOTICE = (
    "[dropped history — 3 earlier message(s) were removed from this window by the 'fit' strategy "
    "of the context planner. Tool results are among them (look): call the tool again if you need "
    "that output; do not rebuild ids or values from memory. They were not summarized; they are "
    "simply not re-sent.]"
)
# The marker of the 4,000-character result at a cap of 1,000: exactly 1,000 characters.
MARKER_HEAD = (
    '{"truncated":true,"reason":"look returned 4000 chars, over the 1000-char cap. Narrow the '
    'request and call again.","head":"'
)
MARKER = MARKER_HEAD + "x" * (1000 - len(MARKER_HEAD) - 2) + '"}'


@dataclass(frozen=True)
class StagedExample:
    name: str
    transcript: list[Message]
    strategy: dict[str, Any]
    held: str  # every turn's `held_by` (`EV` evicted, `·` null on a kept turn)
    refusals: list[tuple[str, int, int]]
    budget: dict[str, Any]
    evicted_messages: list[int]
    notice: str | None
    # The new window's messages as (role, content) (a call message's content is "").
    window: list[tuple[str, str]]
    # The shaped results: (message index, action, chars_before, chars_after).
    shaped: list[tuple[int, str, int, int]] | None = None
    options: dict[str, Any] = field(default_factory=lambda: {"keep_last_tool_results": 0})


STAGED_WINDOW = [("system", "sys"), ("user", NOTICE), ("user", "next"), ("assistant", "")]
STAGED_WINDOW.append(("tool", L400))

WITHIN_LIMIT_EXAMPLES = [
    StagedExample(
        "further spans",
        STAGED,
        {"kind": "fit", "max_tokens": 300, "target_tokens": 240, "keep_recent_turns": 1},
        "se EV EV cr EV EV ikw",
        [("system-envelope", 0, 0), ("current-request", 3, 4), ("inside-keep-window", 6, 9)],
        budget(300, 240, 479, 201, (1, 2, "span"), (4, 5, "further-spans"), stage="further-spans"),
        [1, 2, 3, 5, 6, 7, 8],
        NOTICE,
        STAGED_WINDOW,
    ),
    StagedExample(
        "keep window",
        STAGED,
        {"kind": "fit", "max_tokens": 300, "target_tokens": 240, "keep_recent_turns": 3},
        "se EV EV cr EV EV ikw",
        [("system-envelope", 0, 0), ("current-request", 3, 4), ("inside-keep-window", 6, 9)],
        budget(300, 240, 479, 201, (1, 2, "span"), (4, 5, "keep-window"), stage="keep-window"),
        [1, 2, 3, 5, 6, 7, 8],
        NOTICE,
        STAGED_WINDOW,
    ),
    StagedExample(
        "caps",
        CAPPED,
        {"kind": "fit", "max_tokens": 300},
        "se ikw ikw",
        [("system-envelope", 0, 0), ("inside-keep-window", 1, 1), ("inside-keep-window", 2, 2)],
        budget(300, 240, 1035, 285, stage="caps"),
        [],
        None,
        [("system", "sys"), ("user", TASK), ("assistant", ""), ("tool", MARKER)],
        [(3, "capped", 4000, 1000)],
    ),
    StagedExample(
        "caps, reported",
        CAPPED,
        {"kind": "fit", "max_tokens": 300, "overflow": "report"},
        "se ikw ikw",
        [("system-envelope", 0, 0), ("inside-keep-window", 1, 1), ("inside-keep-window", 2, 2)],
        budget(300, 240, 1035, 1035, met=False),
        [],
        None,
        [("system", "sys"), ("user", TASK), ("assistant", ""), ("tool", "x" * 4000)],
    ),
]
WITHIN_LIMIT_BY_NAME = {example.name: example for example in WITHIN_LIMIT_EXAMPLES}
