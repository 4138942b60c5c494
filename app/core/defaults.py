"""The default of every option, in one place.

The core's option values (`PlanOptions`, the strategies, the offer) take their defaults from here,
the HTTP schemas read the same names (so the OpenAPI document shows them), and `/v1/info` reports
`OPTION_DEFAULTS`, built from them. A default changed here changes everywhere at once; a test
checks the document and `/v1/info` against these values.
"""

from __future__ import annotations

from typing import Any, Final

DEFAULT_FORMAT: Final = "auto"
DEFAULT_KEEP_RECENT_TURNS = 6
DEFAULT_KEEP_LAST_TOOL_RESULTS = 2
DEFAULT_KEEP_LEDGER_FACTS = 4
DEFAULT_ITERATION = 1
DEFAULT_INCLUDE_WINDOW = True
DEFAULT_INCLUDE_TURNS = True
DEFAULT_OFFER_LIMIT = 32
MAX_CAP_RESULTS = 10_000

OPTION_DEFAULTS: dict[str, Any] = {
    "window_plan": {
        "format": DEFAULT_FORMAT,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": DEFAULT_KEEP_RECENT_TURNS},
        "token_budget": {"keep_recent_turns": DEFAULT_KEEP_RECENT_TURNS, "measured": None},
        "keep_last_tool_results": DEFAULT_KEEP_LAST_TOOL_RESULTS,
        "ledger": None,
        "keep_ledger_facts": DEFAULT_KEEP_LEDGER_FACTS,
        "request_text": None,
        "paused": None,
        "iteration": DEFAULT_ITERATION,
        "prior_records": [],
        "include_window": DEFAULT_INCLUDE_WINDOW,
        "include_turns": DEFAULT_INCLUDE_TURNS,
    },
    "tool_results_cap": {"max_chars_by_tool": {}, "max_results": MAX_CAP_RESULTS},
    "offer": {
        "format": DEFAULT_FORMAT,
        "ledger": [],
        "previous_batch": [],
        "limit": DEFAULT_OFFER_LIMIT,
    },
    "kept_answers": {"kept": None},
}
