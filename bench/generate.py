"""Deterministic transcripts for the benchmark, in the native, OpenAI and Anthropic formats.

A transcript is a system prompt and a run of episodes: a person's request, then assistant turns
that call one to three tools in parallel, each answered by a result of 20 characters to 20 KB
(mostly small, some large, as real tool output is), with now and then a plain assistant reply. The
same seed always gives the same bytes.
"""

from __future__ import annotations

import random
import string
from typing import Any

import orjson

TOOLS = ("whats_here", "measure", "move", "read_file", "search_logs", "list_rows", "fetch_page")
STANDINGS = ("fact", "open", "noise", "ruled-out")


def result_size(rng: random.Random) -> int:
    """20 chars to 20 KB: mostly small results, a tail of large ones."""
    roll = rng.random()
    if roll < 0.80:
        return rng.randint(20, 500)
    if roll < 0.98:
        return rng.randint(500, 5_000)
    return rng.randint(5_000, 20_000)


def _word_pool(size: int = 1 << 20, seed: int = 3) -> str:
    rng = random.Random(seed)
    words = []
    total = 0
    while total < size + 40_000:
        word = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9)))
        words.append(word)
        total += len(word) + 1
    return " ".join(words)


_POOL = _word_pool()


def text_of(rng: random.Random, size: int) -> str:
    """`size` characters of word-like text, from a random place in a fixed pool."""
    start = rng.randrange(0, len(_POOL) - size - 1)
    return _POOL[start : start + size]


def native_transcript(messages: int, seed: int = 7) -> tuple[list[dict[str, Any]], list[Any], str]:
    """(messages, ledger, the last request's text) with at most `messages` messages (the last
    turn is cut to fit, so a body of the service's limit is accepted)."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "You operate the lab through tools. " + text_of(rng, 400)}
    ]
    ledger: list[dict[str, Any]] = []
    request = ""
    call_number = 0
    while len(out) < messages:
        request = "Request: " + text_of(rng, rng.randint(40, 300))
        out.append({"role": "user", "content": request})
        for _ in range(rng.randint(3, 12)):
            if len(out) >= messages:
                break
            if rng.random() < 0.1:
                out.append({"role": "assistant", "content": text_of(rng, rng.randint(30, 600))})
                continue
            room = messages - len(out)
            if room < 2:  # no room for a call and its result
                break
            turn, call_number = calling_turn(rng, call_number, room)
            out.extend(turn)
            for message in turn[1:]:
                if rng.random() < 0.3:
                    standing = rng.choice(STANDINGS)
                    ledger.append({"tool_call_id": message["tool_call_id"], "standing": standing})
    return out, ledger, request


def calling_turn(
    rng: random.Random, call_number: int, room: int = 4
) -> tuple[list[dict[str, Any]], int]:
    """One to three parallel calls and their results, at most `room` messages in all (at least
    2): (the turn, the last call number used)."""
    batch = []
    for _ in range(min(rng.choice((1, 1, 1, 2, 3)), room - 1)):
        call_number += 1
        batch.append((f"call_{call_number}", rng.choice(TOOLS)))
    turn: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": cid, "name": name, "arguments": {"target": f"t{call_number}"}}
                for cid, name in batch
            ],
        }
    ]
    for cid, name in batch:
        turn.append(
            {
                "role": "tool",
                "tool_call_id": cid,
                "tool_name": name,
                "content": text_of(rng, result_size(rng)),
            }
        )
    return turn, call_number


def to_openai(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "assistant" and message.get("tool_calls"):
            out.append(
                {
                    "role": "assistant",
                    "content": message["content"] or None,
                    "tool_calls": [
                        {
                            "id": call["id"],
                            "type": "function",
                            "function": {
                                "name": call["name"],
                                "arguments": orjson.dumps(call["arguments"]).decode(),
                            },
                        }
                        for call in message["tool_calls"]
                    ],
                }
            )
        elif message["role"] == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": message["tool_call_id"],
                    "content": message["content"],
                }
            )
        else:
            out.append({"role": message["role"], "content": message["content"]})
    return out


def to_anthropic(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """(the top-level system prompt, the messages): results go back in the next user message."""
    system = ""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "system":
            system = message["content"]
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if message["content"]:
                blocks.append({"type": "text", "text": message["content"]})
            for call in message.get("tool_calls", ()):
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": call["name"],
                        "input": call["arguments"],
                    }
                )
            out.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": message["tool_call_id"],
                "content": message["content"],
            }
            if out and out[-1]["role"] == "user" and out[-1].get("_results"):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block], "_results": True})
        else:
            text = {"type": "text", "text": message["content"]}
            if out and out[-1]["role"] == "user" and out[-1].get("_results"):
                out[-1]["content"].append(text)
                out[-1]["_results"] = False
            else:
                out.append({"role": "user", "content": [text]})
    for message in out:
        message.pop("_results", None)
    return system, out


# The shaping options of the shaped plan: tickets for what the ledger set aside, and a cap that
# the largest results (up to 20 KB, `result_size`) are over.
SHAPING = {"collapse": "ledger-and-facts", "cap": {"max_chars": 4_000}}


def to_responses(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """(the `instructions`, the input items): a reasoning item and one function_call item per
    call for each calling turn, a function_call_output per result."""
    system = ""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "system":
            system = message["content"]
        elif role == "assistant":
            if message.get("tool_calls"):
                reasoning = {"type": "reasoning", "id": f"rs_{message['tool_calls'][0]['id']}"}
                out.append({**reasoning, "summary": [], "encrypted_content": "gAAAAB" + "x" * 64})
            if message["content"]:
                out.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": message["content"]}],
                    }
                )
            for call in message.get("tool_calls", ()):
                out.append(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": call["name"],
                        "arguments": orjson.dumps(call["arguments"]).decode(),
                    }
                )
        elif role == "tool":
            out.append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
        else:
            out.append({"type": "message", "role": "user", "content": message["content"]})
    return system, out


def to_gemini(messages: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the `systemInstruction`, the contents): results go back in the next user content."""
    system: dict[str, Any] = {"parts": []}
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "system":
            system = {"parts": [{"text": message["content"]}]}
        elif role == "assistant":
            parts: list[dict[str, Any]] = []
            if message["content"]:
                parts.append({"text": message["content"]})
            for call in message.get("tool_calls", ()):
                parts.append(
                    {
                        "functionCall": {
                            "id": call["id"],
                            "name": call["name"],
                            "args": call["arguments"],
                        }
                    }
                )
            out.append({"role": "model", "parts": parts})
        elif role == "tool":
            part = {
                "functionResponse": {
                    "id": message["tool_call_id"],
                    "name": message["tool_name"],
                    "response": {"output": message["content"]},
                }
            }
            if out and out[-1]["role"] == "user" and out[-1].get("_results"):
                out[-1]["parts"].append(part)
            else:
                out.append({"role": "user", "parts": [part], "_results": True})
        else:
            text = {"text": message["content"]}
            if out and out[-1]["role"] == "user" and out[-1].get("_results"):
                out[-1]["parts"].append(text)
                out[-1]["_results"] = False
            else:
                out.append({"role": "user", "parts": [text]})
    for content in out:
        content.pop("_results", None)
    return system, out


def to_bedrock(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the `system` blocks, the messages): results go back in the next user message."""
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "system":
            system = [{"text": message["content"]}, {"cachePoint": {"type": "default"}}]
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if message["content"]:
                blocks.append({"text": message["content"]})
            for call in message.get("tool_calls", ()):
                use = {"toolUseId": call["id"], "name": call["name"], "input": call["arguments"]}
                blocks.append({"toolUse": use})
            if out and out[-1]["role"] == "assistant":  # Converse roles alternate
                out[-1]["content"].extend(blocks)
            else:
                out.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            result = {
                "toolResult": {
                    "toolUseId": message["tool_call_id"],
                    "content": [{"text": message["content"]}],
                }
            }
            if out and out[-1]["role"] == "user":
                out[-1]["content"].append(result)
            else:
                out.append({"role": "user", "content": [result]})
        elif out and out[-1]["role"] == "user":
            out[-1]["content"].append({"text": message["content"]})
        else:
            out.append({"role": "user", "content": [{"text": message["content"]}]})
    return system, out


def plan_body(
    messages: int,
    format_name: str,
    seed: int = 7,
    *,
    shaped: bool = False,
    tokenizer: str | None = None,
) -> bytes:
    """A `/v1/window/plan` request body with at most `messages` messages (Responses items) in
    `format_name`; with `shaped`, both shaping options on (`SHAPING`); with `tokenizer`, token
    figures counted."""
    native, ledger, request = native_transcript(messages, seed)
    if format_name == "responses":
        # A Responses run spreads an assistant message over several items, and the limits count
        # items: the transcript is drawn shorter until its items are at most `messages`.
        while (items := len(to_responses(native)[1])) > messages:
            native, ledger, request = native_transcript(len(native) * messages // items, seed)
    body: dict[str, Any] = {
        "format": format_name,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 6},
        "ledger": ledger,
        "request_text": request,
        "iteration": 3,
        **(SHAPING if shaped else {}),
        **({} if tokenizer is None else {"tokenizer": tokenizer}),
    }
    if format_name == "native":
        body["messages"] = native
    elif format_name == "openai":
        body["messages"] = to_openai(native)
    elif format_name == "anthropic":
        body["system"], body["messages"] = to_anthropic(native)
    elif format_name == "responses":
        body["system"], body["messages"] = to_responses(native)
    elif format_name == "gemini":
        body["system"], body["messages"] = to_gemini(native)
    else:
        body["system"], body["messages"] = to_bedrock(native)
    return orjson.dumps(body)


def offer_body(messages: int, format_name: str, seed: int = 7) -> bytes:
    """A `/v1/offer` request body over the same transcript."""
    plan = orjson.loads(plan_body(messages, format_name, seed))
    body = {"messages": plan["messages"], "format": format_name, "ledger": plan["ledger"]}
    if "system" in plan:
        body["system"] = plan["system"]
    return orjson.dumps(body)


def cap_body(results: int = 1_000, seed: int = 11) -> bytes:
    """A `/v1/tool-results/cap` body: `results` results of mixed sizes and types."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    for index in range(results):
        tool = rng.choice(TOOLS)
        size = result_size(rng)
        kind = rng.random()
        result: Any
        if kind < 0.7:
            result = text_of(rng, size)
        elif kind < 0.95:
            result = {"rows": [{"id": i, "name": text_of(rng, 12)} for i in range(size // 30 + 1)]}
        else:
            result = None
        item: dict[str, Any] = {"tool_name": tool, "tool_call_id": f"call_{index}"}
        if kind < 0.98:
            item["result"] = result
        items.append(item)
    return orjson.dumps(
        {"max_chars": 2_000, "max_chars_by_tool": {"read_file": 8_000}, "results": items}
    )
