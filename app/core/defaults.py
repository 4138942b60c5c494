"""The default of every option, in one place.

The core's option values (`PlanOptions`, the strategies, the offer) take their defaults from here,
the HTTP schemas read the same names (so the OpenAPI document shows them), and `/v1/info` reports
`OPTION_DEFAULTS`, built from them. A default changed here changes everywhere at once; a test
checks the document and `/v1/info` against these values.
"""

from __future__ import annotations

from typing import Any, Final

from app.core.frames import FrameDetection

DEFAULT_FORMAT: Final = "auto"
DEFAULT_KEEP_RECENT_TURNS = 6
DEFAULT_KEEP_LAST_TOOL_RESULTS = 2
DEFAULT_KEEP_LEDGER_FACTS = 4
DEFAULT_ITERATION = 1
DEFAULT_INCLUDE_WINDOW = True
DEFAULT_INCLUDE_TURNS = True
DEFAULT_OFFER_LIMIT = 32
# A recall's answer (docs/rules.md#answering-a-recall): page 1, in pages of 8,000 characters.
DEFAULT_RECALL_PAGE = 1
DEFAULT_RECALL_MAX_CHARS = 8000
MAX_CAP_RESULTS = 10_000
DEFAULT_TOKENIZER = None  # no token figures unless asked for, or the strategy is `fit`
FIT_TOKENIZER = "estimate"  # what `fit` counts with when no tokenizer is named
DEFAULT_FIT_KEEP_RECENT_TURNS = 2
DEFAULT_FIT_RESERVE_TOKENS = 0
# What `fit` does when the span leaves the window over its target (docs/rules.md#within-the-limit):
# every stage, the caps included.
DEFAULT_FIT_OVERFLOW: Final = "cap"
# Framework frames (docs/rules.md#framework-frames): detected unless a request turns detection
# off, with no names besides the built-in list unless a request adds some.
DEFAULT_DETECT_FRAMES = True
DEFAULT_FRAME_TAGS: tuple[str, ...] = ()
DEFAULT_FRAME_DETECTION: Final = FrameDetection(
    enabled=DEFAULT_DETECT_FRAMES, extra_tags=frozenset(DEFAULT_FRAME_TAGS)
)
# `clear` (docs/rules.md#clear): the newest read results kept whole, and how many read results the
# boundary moves by at once (a provider prompt cache is missed once per step, not per result).
DEFAULT_CLEAR_KEEP_LAST = 3
DEFAULT_CLEAR_STEP = 8
DEFAULT_CLEAR_EXCLUDE_TOOLS: tuple[str, ...] = ()
DEFAULT_CLEAR_TRIGGER_TOKENS = None  # under `fit`: when over `max_tokens`; otherwise: always
# Images and the model's reasoning at or before the boundary stay unless asked for
# (docs/rules.md#images-and-thinking).
DEFAULT_CLEAR_IMAGES = False
DEFAULT_CLEAR_THINKING = False
# Summaries (docs/rules.md#summaries): a span under this many tokens is not worth a model call; an
# agent carries at most this many summaries; and the instruction a summary request ends with.
DEFAULT_SUMMARY_MIN_SPAN_TOKENS = 1_000
MAX_SUMMARIES = 16
# Recall (docs/rules.md#the-recall-option): off unless asked for; the name `{}` gives the tool.
DEFAULT_RECALL_TOOL_NAME = "context_recall"
# The longest name in `frame_tags` (docs/rules.md#validation).
MAX_FRAME_TAG_CHARS = 64
DEFAULT_SUMMARY_INSTRUCTIONS = (
    "Summarize the conversation above for your own later use: this summary will replace those "
    "messages in your context window. Keep verbatim every identifier, file path, number, URL and "
    "name a later step may need; the decisions taken and why; what was tried and failed; what is "
    "still open. Plain text, no preamble, at most 400 words."
)
# `fit` aims a fifth under its trigger: the window then grows for several requests before the
# next cut, re-sending the same prefix each time, which provider prompt caches reward.
FIT_TARGET_SHARE = (4, 5)


def default_target_tokens(max_tokens: int) -> int:
    """`max(1, floor(0.8 × max_tokens))`, in integers."""
    numerator, denominator = FIT_TARGET_SHARE
    return max(1, max_tokens * numerator // denominator)


OPTION_DEFAULTS: dict[str, Any] = {
    "window_plan": {
        "format": DEFAULT_FORMAT,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": DEFAULT_KEEP_RECENT_TURNS},
        "token_budget": {"keep_recent_turns": DEFAULT_KEEP_RECENT_TURNS, "measured": None},
        "fit": {
            "target_tokens": "max(1, floor(0.8 × max_tokens))",
            "reserve_tokens": DEFAULT_FIT_RESERVE_TOKENS,
            "keep_recent_turns": DEFAULT_FIT_KEEP_RECENT_TURNS,
            "overflow": DEFAULT_FIT_OVERFLOW,
        },
        "tokenizer": DEFAULT_TOKENIZER,
        "calibration": None,
        "keep_last_tool_results": DEFAULT_KEEP_LAST_TOOL_RESULTS,
        "ledger": None,
        "keep_ledger_facts": DEFAULT_KEEP_LEDGER_FACTS,
        "request_text": None,
        "detect_frames": DEFAULT_DETECT_FRAMES,
        "frame_tags": list(DEFAULT_FRAME_TAGS),
        "paused": None,
        "iteration": DEFAULT_ITERATION,
        "prior_records": [],
        "include_window": DEFAULT_INCLUDE_WINDOW,
        "include_turns": DEFAULT_INCLUDE_TURNS,
        "clear": {
            "keep_last": DEFAULT_CLEAR_KEEP_LAST,
            "step": DEFAULT_CLEAR_STEP,
            "exclude_tools": list(DEFAULT_CLEAR_EXCLUDE_TOOLS),
            "trigger_tokens": DEFAULT_CLEAR_TRIGGER_TOKENS,
            "images": DEFAULT_CLEAR_IMAGES,
            "thinking": DEFAULT_CLEAR_THINKING,
        },
        # Off; `summarize_defaults` is what `{}` turns on.
        "summarize": None,
        "summarize_defaults": {
            "instructions": DEFAULT_SUMMARY_INSTRUCTIONS,
            "min_span_tokens": DEFAULT_SUMMARY_MIN_SPAN_TOKENS,
            "max_summaries": MAX_SUMMARIES,
        },
        "summaries": [],
        # Off; `recall_defaults` is what `{}` turns on.
        "recall": None,
        "recall_defaults": {"tool_name": DEFAULT_RECALL_TOOL_NAME},
    },
    "tool_results_cap": {"max_chars_by_tool": {}, "max_results": MAX_CAP_RESULTS},
    "offer": {
        "format": DEFAULT_FORMAT,
        "ledger": [],
        "previous_batch": [],
        "limit": DEFAULT_OFFER_LIMIT,
    },
    "recall": {
        "format": DEFAULT_FORMAT,
        "page": DEFAULT_RECALL_PAGE,
        "max_chars": DEFAULT_RECALL_MAX_CHARS,
    },
    "kept_answers": {"kept": None},
}
