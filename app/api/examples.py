"""Swagger examples: realistic request bodies for every endpoint, shown in `/docs`.

Each example is a request a real agent could send; the API tests post every one of them and check
the answer, so an example can never rot into one the service refuses.
"""

from __future__ import annotations

from typing import Any


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "name": name, "arguments": arguments}],
    }


def _result(call_id: str, name: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "tool_name": name, "content": content}


RACK_TASK = "Find the hottest rack on the floor and report it."

NATIVE_RACK_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": "You operate the lab floor through tools."},
    {"role": "user", "content": RACK_TASK},
    _call("c1", "whats_here", {"floor": "lab"}),
    _result("c1", "whats_here", "IDS: lab1-rack-a, lab1-rack-b, lab2-rack-a"),
    _call("c2", "measure", {"rack": "lab1-rack-a"}),
    _result("c2", "measure", "lab1-rack-a: sensor offline"),
    _call("c3", "measure", {"rack": "lab1-rack-b"}),
    _result("c3", "measure", "lab1-rack-b: 41C"),
    _call("c4", "move", {"to": "lab2"}),
    _result("c4", "move", "moved to lab2"),
    _call("c5", "measure", {"rack": "lab2-rack-a"}),
    _result("c5", "measure", "lab2-rack-a: 37C"),
]

PLAN_EXAMPLES: dict[str, dict[str, Any]] = {
    "native": {
        "summary": "A request, three tools, a fact in the ledger holding one pin",
        "description": (
            "The model declared c3 a fact and c2 noise. With the last two turns kept and "
            "last-tool-result pins off, the fact turn is held (`ledger-fact`) and the older "
            "turns before it leave."
        ),
        "value": {
            "messages": NATIVE_RACK_TRANSCRIPT,
            "format": "native",
            "strategy": {"kind": "sliding-window", "keep_recent_turns": 2},
            "keep_last_tool_results": 0,
            "ledger": [
                {"tool_call_id": "c2", "standing": "noise"},
                {"tool_call_id": "c3", "standing": "fact", "tool_name": "measure"},
            ],
            "request_text": RACK_TASK,
            "iteration": 3,
        },
    },
}
