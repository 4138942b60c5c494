"""Each provider's pairing rules, written once: what a provider refuses in a window it is sent.

These are the errors of the pairing rules providers enforce (`docs/rules.md#guarantees`), as each
provider states them for its own wire:
- OpenAI Chat Completions (and the native format, which pairs the same way): a `tool` message
  must answer a call of the assistant message right before its run of `tool` messages ("messages
  with role 'tool' must be a response to a preceding message with 'tool_calls'"), and an
  assistant message with `tool_calls` must be followed by `tool` messages answering every call
  before anything else is said ("An assistant message with 'tool_calls' must be followed by tool
  messages responding to each 'tool_call_id'").
- Anthropic Messages: every `tool_use` block of an assistant message needs a `tool_result` block
  in the user message right after it ("tool_use ids were found without tool_result blocks
  immediately after"), and every `tool_result` block must answer a `tool_use` block of the
  assistant message right before it.
- Every provider: the conversation after the leading system messages opens on a user message
  (checked against the input: only a window that opens otherwise when its input did not is
  refused).

A call left unanswered at the end of the transcript is not refused here: that is an agent about
to run it (or to send the rest of a batch whose first results it already wrote). A result
answered twice is not refused either (docs/rules.md#validation accepts it).
Each checker returns the list of violations, one sentence each; [] means the provider accepts it.
"""

from __future__ import annotations

from typing import Any

SYSTEM_ROLES = ("system", "developer")


def chat_violations(messages: list[dict[str, Any]]) -> list[str]:
    """Native and OpenAI Chat Completions: calls and their `tool` messages, pairwise."""
    problems: list[str] = []
    open_calls: list[str] = []  # calls of the last assistant message still to be answered
    answerable: set[str] = set()  # calls the current run of tool messages may answer
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in answerable:
                problems.append(f"message {index}: tool result {call_id!r} follows no call of it")
            elif call_id in open_calls:
                open_calls.remove(call_id)
            continue
        if open_calls:
            problems.append(f"message {index}: calls {open_calls} were not answered before it")
        calls = (
            [call["id"] for call in message.get("tool_calls") or ()] if role == "assistant" else []
        )
        open_calls, answerable = list(calls), set(calls)
    return problems


def anthropic_violations(messages: list[dict[str, Any]]) -> list[str]:
    """Anthropic Messages: each assistant's `tool_use` blocks answered by the next user message."""
    problems: list[str] = []
    previous_calls: list[str] = []
    for index, message in enumerate(messages):
        blocks = message.get("content")
        blocks = blocks if isinstance(blocks, list) else []
        if message.get("role") == "assistant":
            if previous_calls:
                problems.append(f"message {index}: calls {previous_calls} have no results")
            previous_calls = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            continue
        answered = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
        for call_id in answered:
            if call_id not in previous_calls:
                problems.append(f"message {index}: tool_result {call_id!r} answers no call before")
        missing = [call_id for call_id in previous_calls if call_id not in answered]
        still_running = index == len(messages) - 1 and 0 < len(answered) == len(blocks)
        if missing and not still_running:
            problems.append(f"message {index}: calls {missing} have no tool_result here")
        previous_calls = []
    return problems


def opening_role(messages: list[dict[str, Any]]) -> str | None:
    """The role of the first message after the leading system messages (None: there is none)."""
    for message in messages:
        if message.get("role") not in SYSTEM_ROLES:
            return str(message.get("role"))
    return None


def opening_violations(sent: list[dict[str, Any]], window: list[dict[str, Any]]) -> list[str]:
    """The window must open (after its system messages) on a user message if the input did."""
    if opening_role(sent) in ("user", None) and opening_role(window) not in ("user", None):
        return [f"the window opens on {opening_role(window)!r} where the input opened on a user"]
    return []


PAIRING = {
    "native": chat_violations,
    "openai": chat_violations,
    "anthropic": anthropic_violations,
}


def window_violations(
    wire: str, sent: list[dict[str, Any]], window: list[dict[str, Any]]
) -> list[str]:
    """Every pairing rule of `wire` the window breaks, and a changed opening."""
    return [*PAIRING[wire](window), *opening_violations(sent, window)]
