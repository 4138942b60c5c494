"""Option defaults of every endpoint in one place: the schemas use them, `/v1/info` shows them."""

from __future__ import annotations

from typing import Any

DEFAULT_FORMAT = "auto"
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
