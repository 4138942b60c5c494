"""The scenario every example runs: an agent asked about weather stations, with a tool that reads
one, arriving with a long history of earlier readings. A window of two turns (`KEEP_TWO`) makes
the planner engage on the first model call, so each test sees a window that differs from the
framework's history."""

from __future__ import annotations

import argparse
import os
from typing import Any

KEEP_TWO = {"kind": "sliding-window", "keep_recent_turns": 2}
INSTRUCTIONS = "You read weather stations with the read_station tool and report briefly."
QUESTION = "Read stations 1 to 4, then station 5, and tell me which is the warmest."
EARLIER_STATIONS = (1, 2, 3, 4)
NEW_STATION = 5
FINAL_ANSWER = "Station 5 is the warmest at 24 °C."
# Plan options that shape results: station 3's reading judged noise goes as a ticket, and every
# other reading, longer than the cap, as the cap's marker.
SHAPING = {
    "ledger": [{"tool_call_id": "call_3", "standing": "noise"}],
    "collapse": "ledger-and-facts",
    "cap": {"max_chars": 200},
}

# What SHAPING does to the first plan's window: (tool call id, action) of each shaped result in it.
SHAPED_IN_FIRST_WINDOW = [("call_3", "collapsed"), ("call_4", "capped")]


# Plan options that clear results: every result the model has read goes as the placeholder (no
# result kept whole, the boundary moving with every result), so station 3's reading, the one read
# result the first window keeps, reaches the model as the placeholder.
CLEARING = {"clear": {"keep_last": 0, "step": 1}, "keep_last_tool_results": 0}
CLEARED_IN_FIRST_WINDOW = [("call_3", "cleared")]


# Session settings for summaries written by the agent's own model: every removed span gets a
# summary request. The first model call removes stations 1 and 2 (messages 1 to 4), the second
# station 3 too (1 to 6): each is summarized by the scripted model before the call it is for, so
# the model is asked for a summary, then for the step, twice.
SUMMARIES = {"min_span_tokens": 0}
SUMMARY_TEXTS = (
    "Stations 1 and 2 read 19 and 20 °C.",
    "Stations 1 to 3 read 19, 20 and 21 °C.",
)
SUMMARY_HEADS = (
    "[compacted history — 4 earlier message(s) summarized by the model]\n\n",
    "[compacted history — 6 earlier message(s) summarized by the model]\n\n",
)
# The same heads when the agent has the recall tool (the LangChain and Pydantic AI hooks add it).
RECALL_SUMMARY_HEADS = (
    "[compacted history — 4 earlier message(s) summarized by the model; call context_recall with"
    " a query for their full text]\n\n",
    "[compacted history — 6 earlier message(s) summarized by the model; call context_recall with"
    " a query for their full text]\n\n",
)


def cleared_in_window(shaped: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plan's `shaped` entries of results that are in its window, checked against CLEARING."""
    in_window = [item for item in shaped if item["window_index"] is not None]
    assert [(item["tool_call_id"], item["action"]) for item in in_window] == CLEARED_IN_FIRST_WINDOW
    return in_window


def shaped_in_window(shaped: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plan's `shaped` entries of results that are in its window, checked against SHAPING."""
    in_window = [item for item in shaped if item["window_index"] is not None]
    assert [(item["tool_call_id"], item["action"]) for item in in_window] == SHAPED_IN_FIRST_WINDOW
    return in_window


def reading(station: int) -> str:
    """What the tool returns for `station`: long enough that dropping old readings pays."""
    return f"station {station}: {18 + station} °C, wind 3 m/s; " + "raw sample; " * 40


def planner_url_from_args(description: str) -> str:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--planner",
        default=os.environ.get("CWP_URL", "http://127.0.0.1:8080"),
        help="the planner's base URL (default: $CWP_URL or http://127.0.0.1:8080)",
    )
    return str(parser.parse_args().planner)
