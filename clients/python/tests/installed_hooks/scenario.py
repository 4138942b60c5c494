"""What every installed-hook script shares (it runs beside them, on no package of the repository):
a question and three tool rounds, and plan options that keep two rounds, send the second round's
result (judged noise) as a ticket and cap the third's."""

from __future__ import annotations

import sys

QUESTION = "Read stations 1 to 3 and tell me which is the warmest."
STATIONS = (1, 2, 3)
ANSWER = "Station 3 is the warmest."
OPTIONS = {
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 2},
    "ledger": [{"tool_call_id": "call_2", "standing": "noise"}],
    "collapse": "ledger-and-facts",
    "cap": {"max_chars": 200},
}


def reading(station: int) -> str:
    return f"station {station}: {18 + station} °C; " + "raw sample; " * 40


def planner_url() -> str:
    return sys.argv[1]


def check_shaped(texts: dict[str, str]) -> None:
    """The texts the model got for each call id: station 1 left, 2 collapsed, 3 capped."""
    assert "call_1" not in texts, texts
    assert '"collapsed"' in texts["call_2"] and len(texts["call_2"]) < len(reading(2)), texts
    assert '"truncated"' in texts["call_3"] and len(texts["call_3"]) <= 200, texts


def report(framework: str) -> None:
    import cwp_client

    print(f"ok {framework} {cwp_client.__file__}")
