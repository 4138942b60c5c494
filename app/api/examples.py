"""Swagger examples: realistic request bodies for every endpoint, shown in `/docs`.

Each example is a request a real agent could send; the API tests post every one of them and check
the answer, so an example can never rot into one the service refuses.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib.resources import files
from typing import Any


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "name": name, "arguments": arguments}],
    }


def _result(call_id: str, name: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "tool_name": name, "content": content}


def _openai_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An assistant message that only calls. Its `content` is left out (Chat Completions allows
    that when `tool_calls` is set) rather than null, because the OpenAPI document drops null
    values and the example shown in `/docs` must be the one posted."""
    encoded = json.dumps(arguments, separators=(",", ":"))
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": encoded}}
        ],
    }


def _openai_result(call_id: str, _name: str, content: str) -> dict[str, Any]:
    """A tool message: the Chat Completions wire carries no tool name (it is recovered from the
    call with the same id)."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _anthropic_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}],
    }


def _anthropic_result(call_id: str, _name: str, content: str) -> dict[str, Any]:
    """A user message answering one call with a `tool_result` block."""
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call_id, "content": content}],
    }


RACK_TASK = "Find the hottest rack on the floor and report it."
RACK_SYSTEM = "You operate the lab floor through tools."

RACK_STEPS: list[tuple[str, str, dict[str, Any], str]] = [
    ("c1", "whats_here", {"floor": "lab"}, "IDS: lab1-rack-a, lab1-rack-b, lab2-rack-a"),
    ("c2", "measure", {"rack": "lab1-rack-a"}, "lab1-rack-a: sensor offline"),
    ("c3", "measure", {"rack": "lab1-rack-b"}, "lab1-rack-b: 41C"),
    ("c4", "move", {"to": "lab2"}, "moved to lab2"),
    ("c5", "measure", {"rack": "lab2-rack-a"}, "lab2-rack-a: 37C"),
]


def _rack_steps(
    call: Callable[[str, str, dict[str, Any]], dict[str, Any]],
    result: Callable[[str, str, str], dict[str, Any]],
) -> list[dict[str, Any]]:
    """The rack conversation's calls and results, written by one wire format's builders."""
    return [
        message
        for call_id, name, arguments, content in RACK_STEPS
        for message in (call(call_id, name, arguments), result(call_id, name, content))
    ]


NATIVE_RACK_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": RACK_SYSTEM},
    {"role": "user", "content": RACK_TASK},
    *_rack_steps(_call, _result),
]
OPENAI_RACK_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "developer", "content": RACK_SYSTEM},
    {"role": "user", "content": RACK_TASK},
    *_rack_steps(_openai_call, _openai_result),
]
ANTHROPIC_RACK_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "user", "content": RACK_TASK},
    *_rack_steps(_anthropic_call, _anthropic_result),
]


def _responses_call(call_id: str, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """A reasoning item (its content encrypted, as a stateless agent keeps it) and the call."""
    return [
        {
            "type": "reasoning",
            "id": f"rs_{call_id}",
            "summary": [],
            "encrypted_content": "gAAAAABnQ3Jm" + call_id * 8,
        },
        {
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": json.dumps(arguments, separators=(",", ":")),
        },
    ]


RESPONSES_RACK_TRANSCRIPT: list[dict[str, Any]] = [
    {"type": "message", "role": "user", "content": RACK_TASK},
    *[
        item
        for call_id, name, arguments, content in RACK_STEPS
        for item in (
            *_responses_call(call_id, name, arguments),
            {"type": "function_call_output", "call_id": call_id, "output": content},
        )
    ],
]


def _gemini_content(
    call_id: str, name: str, arguments: dict[str, Any], content: str
) -> list[dict[str, Any]]:
    """A model content calling once (with the thought signature Gemini 3 attaches) and the user
    content answering it."""
    return [
        {
            "role": "model",
            "parts": [
                {
                    "functionCall": {"id": call_id, "name": name, "args": arguments},
                    "thoughtSignature": "CiQB0e2Kb" + call_id,
                }
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": call_id, "name": name, "response": {"output": content}}}
            ],
        },
    ]


GEMINI_RACK_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "user", "parts": [{"text": RACK_TASK}]},
    *[
        content
        for call_id, name, arguments, text in RACK_STEPS
        for content in _gemini_content(call_id, name, arguments, text)
    ],
]


def _bedrock_pair(
    call_id: str, name: str, arguments: dict[str, Any], content: str
) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": call_id, "name": name, "input": arguments}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": call_id, "content": [{"text": content}]}}],
        },
    ]


BEDROCK_RACK_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "user", "content": [{"text": RACK_TASK}]},
    *[
        message
        for call_id, name, arguments, text in RACK_STEPS
        for message in _bedrock_pair(call_id, name, arguments, text)
    ],
]

RACK_LEDGER: list[dict[str, Any]] = [
    {"tool_call_id": "c2", "standing": "noise"},
    {"tool_call_id": "c3", "standing": "fact", "tool_name": "measure"},
]
RACK_OPTIONS: dict[str, Any] = {
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 2},
    "keep_last_tool_results": 0,
    "ledger": RACK_LEDGER,
    "request_text": RACK_TASK,
    "iteration": 3,
}

CODING_SYSTEM = "You are a coding agent. Use the tools; keep answers short."
CODING_TASK = "The test test_parse_dates fails on CI. Find out why and fix it."
CODING_STEPS: list[tuple[str, str, dict[str, Any], str]] = [
    ("call_1", "read_file", {"path": "src/dates.py"}, "def parse(text):\n" + "    ...\n" * 120),
    ("call_2", "run_tests", {"k": "test_parse_dates"}, "FAILED test_parse_dates\n" + "E " * 300),
    ("call_3", "read_file", {"path": "tests/test_dates.py"}, "def test_parse_dates():\n    ..."),
    ("call_4", "run_tests", {"k": "test_parse_dates"}, "1 failed"),
]
OPENAI_CODING_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": CODING_SYSTEM},
    {"role": "user", "content": CODING_TASK},
    *[
        message
        for call_id, name, arguments, content in CODING_STEPS
        for message in (
            _openai_call(call_id, name, arguments),
            _openai_result(call_id, name, content),
        )
    ],
]

SEARCH_HITS = "src/dates.py:12: def parse(text):\nsrc/legacy/dates_old.py:3: def parse_old(text):"
TEST_LOG = "FAILED tests/test_dates.py::test_parse_dates - AssertionError\n" + (
    "E   assert parse('2026-12-01T09:00:00+01:00') == datetime(2026, 12, 1, 8, 0)\n" * 40
)
DATES_SOURCE = (
    "from datetime import datetime\n\n\ndef parse(text):\n"
    "    return datetime.fromisoformat(text).replace(tzinfo=None)\n"
)
NATIVE_SHAPED_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": CODING_SYSTEM},
    {"role": "user", "content": CODING_TASK},
    _call("call_1", "search_code", {"query": "def parse"}),
    _result("call_1", "search_code", SEARCH_HITS),
    _call("call_2", "run_tests", {"k": "test_parse_dates"}),
    _result("call_2", "run_tests", TEST_LOG),
    _call("call_3", "read_file", {"path": "src/dates.py"}),
    _result("call_3", "read_file", DATES_SOURCE),
]

# A coding run of six steps, for `clear`: the older results the model has read become placeholders.
CLEARING_STEPS: list[tuple[str, str, dict[str, Any], str]] = [
    ("call_1", "read_file", {"path": "src/dates.py"}, DATES_SOURCE * 3),
    ("call_2", "run_tests", {"k": "test_parse_dates"}, TEST_LOG),
    (
        "call_3",
        "read_file",
        {"path": "src/legacy/dates_old.py"},
        "def parse_old(text):\n" + "    ...\n" * 40,
    ),
    ("call_4", "run_tests", {"k": "test_parse_dates"}, TEST_LOG),
    ("call_5", "read_file", {"path": "tests/test_dates.py"}, "def test_parse_dates():\n    ..."),
    ("call_6", "run_tests", {"k": "test_parse_dates"}, "1 failed"),
]
OPENAI_CLEARING_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": CODING_SYSTEM},
    {"role": "user", "content": CODING_TASK},
    *[
        message
        for call_id, name, arguments, content in CLEARING_STEPS
        for message in (
            _openai_call(call_id, name, arguments),
            _openai_result(call_id, name, content),
        )
    ],
]

# The same run two steps on (the tests run again, the source read again), for `recall`: what the
# plan takes out, cleared, capped or removed, names the tool that gets it back.
RECALL_STEPS: list[tuple[str, str, dict[str, Any], str]] = [
    *CLEARING_STEPS,
    ("call_7", "run_tests", {"k": "test_parse_dates"}, TEST_LOG),
    ("call_8", "read_file", {"path": "src/dates.py"}, DATES_SOURCE),
]
OPENAI_RECALL_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": CODING_SYSTEM},
    {"role": "user", "content": CODING_TASK},
    *[
        message
        for call_id, name, arguments, content in RECALL_STEPS
        for message in (
            _openai_call(call_id, name, arguments),
            _openai_result(call_id, name, content),
        )
    ],
]

# A coding run whose person spoke again in the middle of its tool loop, for `fit` within the limit:
# the span ends at that request, and the loop after it is long.
CODING_FOLLOW_UP = "Also check the legacy parser while you are at it."
OPENAI_FOLLOW_UP_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": CODING_SYSTEM},
    {"role": "user", "content": CODING_TASK},
    *OPENAI_CLEARING_TRANSCRIPT[2:4],
    {"role": "user", "content": CODING_FOLLOW_UP},
    *OPENAI_CLEARING_TRANSCRIPT[4:],
]

SCREEN_SYSTEM = "You drive the desktop through tools. Look before you click."
SCREEN_TASK = "Open the settings app and turn on dark mode."
# A 1×1 PNG stands for each screenshot: what counts is where it is, not what it shows.
SCREEN_PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
SCREEN_ACTIONS = (
    ("toolu_01", "I should see what is on the screen first.", {"action": "screenshot"}),
    (
        "toolu_02",
        "The dock shows a gear icon; that is likely settings.",
        {"action": "click", "x": 412, "y": 880},
    ),
    (
        "toolu_03",
        "Settings is open. Appearance is in the sidebar.",
        {"action": "click", "x": 96, "y": 310},
    ),
    ("toolu_04", "", {"action": "click", "x": 640, "y": 220}),
)


def _screen_turn(call_id: str, thinking: str, action: dict[str, Any]) -> list[dict[str, Any]]:
    """An assistant message (its signed thinking, if any, then a `computer` call) and the user
    message with the call's result and the screenshot taken after it."""
    blocks: list[dict[str, Any]] = []
    if thinking:
        blocks.append({"type": "thinking", "thinking": thinking, "signature": f"sig-{call_id}"})
    blocks.append({"type": "tool_use", "id": call_id, "name": "computer", "input": action})
    screenshot = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": SCREEN_PIXEL},
    }
    note = f"Performed {action['action']}. " + "The screen changed; the new layout is shown. " * 3
    return [
        {"role": "assistant", "content": blocks},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": call_id, "content": note},
                screenshot,
            ],
        },
    ]


ANTHROPIC_SCREEN_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "user", "content": SCREEN_TASK},
    *(message for step in SCREEN_ACTIONS for message in _screen_turn(*step)),
]

RACK_SUMMARY = (
    "Summary of the run so far: the task is to find the hottest rack on the floor and report it. "
    "The floor holds lab1-rack-a, lab1-rack-b and lab2-rack-a; lab1-rack-a's sensor is offline. "
    "Next: measure lab1-rack-b."
)
RACK_REMINDER = (
    "<system-reminder>\nThe todo list has one item in progress: measure every rack. Do not "
    "mention this to the user.\n</system-reminder>"
)
RACK_FOLLOW_UP = "Also tell me which lab is cooler."


def _anthropic_with_text(message: dict[str, Any], text: str) -> dict[str, Any]:
    """A user message answering a call, with a text block after the result."""
    return {**message, "content": [*message["content"], {"type": "text", "text": text}]}


# The rack conversation compacted by the provider after the second measurement: the assistant
# message that goes on holds the `compaction` block; a reminder rides beside the next result.
RACK_INVENTORY = "IDS: lab1-rack-a, lab1-rack-b, lab2-rack-a\n" + "".join(
    f"{rack}: {servers} servers, firmware 4.2.{servers}, last serviced on day {servers * 3}\n"
    for rack, servers in (("lab1-rack-a", 12), ("lab1-rack-b", 10), ("lab2-rack-a", 8))
)
RACK_SENSOR_LOG = "".join(
    f"lab1-rack-a sensor t{n}: no reading (offline since 04:1{n})\n" for n in range(8)
)
ANTHROPIC_COMPACTED_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "user", "content": RACK_TASK},
    _anthropic_call("c1", "whats_here", {"floor": "lab"}),
    _anthropic_result("c1", "whats_here", RACK_INVENTORY),
    _anthropic_call("c2", "measure", {"rack": "lab1-rack-a"}),
    _anthropic_result("c2", "measure", RACK_SENSOR_LOG),
    {
        "role": "assistant",
        "content": [
            {"type": "compaction", "content": RACK_SUMMARY},
            {"type": "text", "text": "Continuing with lab1-rack-b."},
            *_anthropic_call("c3", "measure", {"rack": "lab1-rack-b"})["content"],
        ],
    },
    _anthropic_with_text(_anthropic_result("c3", "measure", "lab1-rack-b: 41C"), RACK_REMINDER),
    _anthropic_call("c4", "move", {"to": "lab2"}),
    _anthropic_with_text(_anthropic_result("c4", "move", "moved to lab2"), RACK_FOLLOW_UP),
    _anthropic_call("c5", "measure", {"rack": "lab2-rack-a"}),
    _anthropic_result("c5", "measure", "lab2-rack-a: 37C"),
]

# Three racks measured in turn, for summaries; the first four messages after the task are the ones
# the example's summary covers (its key is theirs).
READING = "reading (celsius, last 10 minutes): "
SUMMARIES_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "user", "content": "Find the hottest rack."},
    *(
        message
        for rack, values in (
            ("a", "38.9 39.0 39.1 39.0 38.8 39.2 39.0 39.1 38.9 39.0"),
            ("b", "40.9 41.0 41.2 41.1 40.8 41.0 41.3 41.0 40.9 41.1"),
        )
        for message in (
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": f"c{ord(rack) - 96}", "name": "measure", "arguments": {"rack": rack}}
                ],
            },
            {
                "role": "tool",
                "tool_call_id": f"c{ord(rack) - 96}",
                "content": f"rack {rack} {READING}{values}",
            },
        )
    ),
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c3", "name": "measure", "arguments": {"rack": "c"}}],
    },
    {"role": "tool", "tool_call_id": "c3", "content": "rack c: 37C"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c4", "name": "measure", "arguments": {"rack": "d"}}],
    },
    {"role": "tool", "tool_call_id": "c4", "content": "rack d: 36C"},
]

PLAN_EXAMPLES: dict[str, dict[str, Any]] = {
    "native": {
        "summary": "A request, three tools, a fact in the ledger holding one pin",
        "description": (
            "The model declared c3 a fact and c2 noise. With the last two turns kept and "
            "last-tool-result pins off, the fact turn is held (`ledger-fact`) and the older "
            "turns before it leave."
        ),
        "value": {"messages": NATIVE_RACK_TRANSCRIPT, "format": "native", **RACK_OPTIONS},
    },
    "openai": {
        "summary": "The same conversation as OpenAI Chat Completions messages",
        "description": (
            "The system prompt is a `developer` message, calls are `function` tool calls with "
            "JSON-string arguments, and tool messages carry no tool name (it is recovered from "
            "the call). The decisions are the native example's, index for index; `window` is "
            "ready to send back to Chat Completions."
        ),
        "value": {"messages": OPENAI_RACK_TRANSCRIPT, "format": "openai", **RACK_OPTIONS},
    },
    "anthropic": {
        "summary": "The same conversation as Anthropic Messages",
        "description": (
            "The system prompt is the top-level `system`: outside the plan, never a turn, "
            "counted in `stats.system_chars`. Calls are `tool_use` blocks and each result a "
            "`tool_result` block of the next user message. The decisions are the native "
            "example's without its system turn (turn indices one lower, message indices in "
            "this `messages` array)."
        ),
        "value": {
            "messages": ANTHROPIC_RACK_TRANSCRIPT,
            "format": "anthropic",
            "system": RACK_SYSTEM,
            **RACK_OPTIONS,
        },
    },
    "responses": {
        "summary": "The same conversation as OpenAI Responses input items",
        "description": (
            "Each call is a `reasoning` item (encrypted, kept byte for byte) and a "
            "`function_call` item, read as one assistant turn so the reasoning always leaves "
            "or stays with its call; outputs are `function_call_output` items. The system "
            "prompt is the request's `instructions`, sent as `system`."
        ),
        "value": {
            "messages": RESPONSES_RACK_TRANSCRIPT,
            "format": "responses",
            "system": RACK_SYSTEM,
            **RACK_OPTIONS,
        },
    },
    "gemini": {
        "summary": "The same conversation as Gemini contents",
        "description": (
            "Calls are `functionCall` parts of `model` contents, carrying their thought "
            "signatures; results are `functionResponse` parts. Whole turns leave, so every kept "
            "part keeps its signature. The system prompt is `systemInstruction`, sent as "
            "`system`."
        ),
        "value": {
            "messages": GEMINI_RACK_TRANSCRIPT,
            "format": "gemini",
            "system": {"parts": [{"text": RACK_SYSTEM}]},
            **RACK_OPTIONS,
        },
    },
    "bedrock": {
        "summary": "The same conversation as Bedrock Converse messages",
        "description": (
            "Blocks are keyed by kind (`toolUse`, `toolResult`, `text`); roles alternate, and the "
            "window keeps them alternating. The system prompt is Converse's `system` blocks, a "
            "cache point included."
        ),
        "value": {
            "messages": BEDROCK_RACK_TRANSCRIPT,
            "format": "bedrock",
            "system": [{"text": RACK_SYSTEM}, {"cachePoint": {"type": "default"}}],
            **RACK_OPTIONS,
        },
    },
    "native-shaped": {
        "summary": "Shaping: a result judged noise sent as a ticket, an oversized log capped",
        "description": (
            "`collapse` sends the search the model judged `noise` as a short ticket, `cap` "
            "replaces the 3,142-character test log by the cap's marker (a reason and a verbatim "
            "head); the file the model declared a fact is sent in full. Nothing needs removing, "
            "so the plan does not engage, yet `window` carries the shaped texts and `shaped` "
            "lists them."
        ),
        "value": {
            "messages": NATIVE_SHAPED_TRANSCRIPT,
            "format": "native",
            "ledger": [
                {"tool_call_id": "call_1", "standing": "noise"},
                {"tool_call_id": "call_3", "standing": "fact"},
            ],
            "collapse": "ledger-and-facts",
            "cap": {"max_chars": 400, "max_chars_by_tool": {"read_file": 4000}},
        },
    },
    "openai-cleared": {
        "summary": "Clear: old results the model has read sent as placeholders",
        "description": (
            "`clear` with `keep_last` 1 and `step` 2: of the five results the model has read "
            "(the sixth follows the last assistant message), the boundary is the fourth; each "
            "tool's latest result at or before it stays whole, and the first file read and the "
            "first test log become a short placeholder that says how to see them again. Every "
            "call and its id stay, so each call keeps its result; nothing needs removing."
        ),
        "value": {
            "messages": OPENAI_CLEARING_TRANSCRIPT,
            "format": "openai",
            "strategy": {"kind": "sliding-window", "keep_recent_turns": 20},
            "clear": {"keep_last": 1, "step": 2},
        },
    },
    "openai-recall": {
        "summary": "Recall: what the plan takes out names the tool that gets it back",
        "description": (
            "`recall` on with its default name: the answer's `recall_tool` is the tool's "
            "declaration as a Chat Completions function tool, ready to append to the agent's "
            "tools. The drop notice says to call `context_recall` with a query, the cleared "
            "result's placeholder to call it with the result's `tool_call_id`, and the capped "
            "test log's marker carries that id as `ref` (within its 400-character cap). The "
            "agent answers the model's call from its whole history with `POST /v1/recall`."
        ),
        "value": {
            "messages": OPENAI_RECALL_TRANSCRIPT,
            "format": "openai",
            "strategy": {"kind": "sliding-window", "keep_recent_turns": 5},
            "clear": {"keep_last": 1, "step": 2},
            "cap": {"max_chars": 400},
            "recall": {},
        },
    },
    "openai-notice-after-system": {
        "summary": "OpenAI, a system prompt first: the notice follows the kept request",
        "description": (
            "The leading system message is the envelope every request re-sends, so the "
            "conversation's front is the turn after it. The two oldest tool turns (a long file "
            "and a long test log) leave; the person's request stays, and the drop notice "
            "follows it, naming the tools to call again."
        ),
        "value": {
            "messages": OPENAI_CODING_TRANSCRIPT,
            "format": "openai",
            "strategy": {"kind": "sliding-window", "keep_recent_turns": 2},
            "keep_last_tool_results": 0,
            "request_text": CODING_TASK,
            "iteration": 7,
        },
    },
    "openai-fit": {
        "summary": "Fit: remove just enough to bring the counted window under a token target",
        "description": (
            "Counted exactly with `o200k_base`, with 2,000 tokens reserved for the tool schemas "
            "and the reply: 2,679 in all, over the 2,600 budget. Removing the oldest tool turn "
            "(the long file) and adding the notice brings it to 2,505, under the 2,550 target, "
            "so the test-log turn is kept `within-budget` and the next requests re-send the same "
            "prefix. `budget` says what was counted; send `stats.tokens_counted` back as "
            "`calibration.counted` with the provider's usage to scale the counts to its own."
        ),
        "value": {
            "messages": OPENAI_CODING_TRANSCRIPT,
            "format": "openai",
            "tokenizer": "o200k_base",
            "strategy": {
                "kind": "fit",
                "max_tokens": 2600,
                "target_tokens": 2550,
                "reserve_tokens": 2000,
            },
            "keep_last_tool_results": 0,
            "request_text": CODING_TASK,
            "iteration": 7,
        },
    },
    "openai-fit-within-limit": {
        "summary": "Fit within the limit: further spans after the person's latest message",
        "description": (
            "The person spoke again in the middle of the tool loop, so the span ends at that "
            "message: the first task and the first file leave with the notice, and the window "
            "is still over the target. `fit` goes on (docs/rules.md#within-the-limit): the "
            "oldest tool turns after the request leave as a further span, with nothing in "
            "their place, until the window is under the target. `budget.stage` says how far "
            "it went and `budget.spans` which turns each stage took; with `overflow` `report` "
            "the plan would stop before capping results."
        ),
        "value": {
            "messages": OPENAI_FOLLOW_UP_TRANSCRIPT,
            "format": "openai",
            "strategy": {"kind": "fit", "max_tokens": 1000, "keep_recent_turns": 2},
            "keep_last_tool_results": 0,
        },
    },
    "anthropic-clear-images-thinking": {
        "summary": "Clear with images and thinking: old screenshots and old reasoning leave",
        "description": (
            "A screen-driving run: each action's result comes back with a screenshot beside it, "
            "and each assistant message opens with the model's thinking. With `clear`'s "
            "`images` and `thinking` (docs/rules.md#images-and-thinking), the results the model "
            "has read before the boundary become placeholders, the screenshots there become a "
            "short text in their place, and the thinking of the assistant messages there leaves "
            "(signed thinking after the boundary, and the last assistant message's, stay). "
            "Nothing is removed: `shaped` lists each change by caller message."
        ),
        "value": {
            "messages": ANTHROPIC_SCREEN_TRANSCRIPT,
            "format": "anthropic",
            "system": SCREEN_SYSTEM,
            "strategy": {"kind": "sliding-window", "keep_recent_turns": 20},
            "keep_last_tool_results": 0,
            "clear": {"keep_last": 1, "step": 2, "images": True, "thinking": True},
        },
    },
    "native-summaries": {
        "summary": "Summaries: the model's summary in the notice's place, the next one asked for",
        "description": (
            "`summaries` carries the text the agent's model answered for an earlier summary "
            "request (messages 1 to 4, with that request's key); the span grew since, so the "
            "summary takes the notice's place with the two later messages counted as removed "
            "without one, and `summary_request` asks for the summary of messages 1 to 6: the "
            "window sent before, up to the span's end, and the instruction, so a provider's "
            "prompt cache serves almost all of it."
        ),
        "value": {
            "messages": SUMMARIES_TRANSCRIPT,
            "format": "native",
            "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
            "keep_last_tool_results": 0,
            "summarize": {"min_span_tokens": 0},
            "summaries": [
                {
                    "from": 1,
                    "through": 4,
                    "key": "25bf631b492130f427e72f5bb450a0d30e6a694226574b180dc24dfa36abb7cc",
                    "summary": "Rack a reads 39.0C, rack b 41.0C: b is the hottest so far.",
                }
            ],
        },
    },
    "anthropic-compaction": {
        "summary": "Anthropic, compacted by the provider: nothing before the summary is anchored",
        "description": (
            "The `compaction` block is the provider's summary of the run: a system turn that "
            "never leaves. The Messages API reads nothing before it, so the turns before it "
            "leave as any others (the first task with them: the summary carries it), and the "
            "current request and the pins are looked for only after it: the request is the "
            "person's follow-up beside the `move` result. The reminder beside the `measure` "
            "result is a framework frame, never the request."
        ),
        "value": {
            "messages": ANTHROPIC_COMPACTED_TRANSCRIPT,
            "format": "anthropic",
            "system": RACK_SYSTEM,
            "strategy": {"kind": "sliding-window", "keep_recent_turns": 2},
        },
    },
}

# Every request example of the document is shown with its real answer, under the same name and in
# the same order, so Swagger UI's default answer is the default request's. The answers are committed
# in `example_answers.json` (operation path → example name → answer), written by
# `python -m app.export_openapi` (which runs each example through the service), and a test fails
# when one differs from what the service answers.
PLAN_PATH = "/v1/window/plan"
ANSWERS_FILE = "example_answers.json"


def committed_answers() -> dict[str, dict[str, Any]]:
    """The committed answers, by operation path and example name (empty before the first run)."""
    resource = files("app.api").joinpath(ANSWERS_FILE)
    if not resource.is_file():
        return {}
    answers: dict[str, dict[str, Any]] = json.loads(resource.read_text(encoding="utf-8"))
    return answers


def answer_examples(
    path: str, requests: dict[str, dict[str, Any]]
) -> Callable[[], dict[str, dict[str, Any]]]:
    """A loader of the 200 answers' examples of the operation at `path`: one per request example
    that has a committed answer, with its name, in the request examples' order."""

    def load() -> dict[str, dict[str, Any]]:
        answers = committed_answers().get(path, {})
        return {
            name: {"summary": f"The answer to the request example '{name}'", "value": answers[name]}
            for name in requests
            if name in answers
        }

    return load


plan_answer_examples = answer_examples(PLAN_PATH, PLAN_EXAMPLES)
