"""The peer baselines: what strategies other projects ship keep of the same transcript and budget.

A figure means little alone; the audit puts the service's configurations beside two windows an
agent could have had without it (docs/quality.md#the-peers):
- `trim`: LangChain's `trim_messages`, the real function from `langchain-core` (an optional
  dependency, the `audit` extra): `strategy="last"`, `max_tokens` the budget, `start_on="human"`,
  `include_system=True`, `allow_partial=False`, on the transcript's OpenAI Chat form converted by
  `convert_to_messages`, counted with the audit's own token count of that form;
- `sliding`: the newest whole turns whose tokens fit the budget, with the system messages.
Both run on the core messages written as OpenAI Chat messages (call arguments as the JSON text
sent), the form every dialect is read into; a transcript that form cannot hold (a result with no
call id) makes the peer `PeerSkipped`, reported as skipped rather than as zero. So does a missing
`langchain-core`, since the package installs without its extras (`make run`): the reason then
carries the exact command that installs it into the interpreter running the audit, so the reader
can act on it rather than wonder why the row is empty.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from app.core.messages import Message
from app.core.tokens import TokenCounter, arguments_text, message_tokens, text_message_tokens
from app.core.turns import segment_turns

PEERS = ("trim", "sliding")
DISTRIBUTION = "context-window-planner"
EXTRA = "audit"


def install_command(project: str) -> str:
    """The command that installs `project` into the running interpreter, at the version the
    package's `audit` extra asks for (read from the installed metadata, so it never drifts from
    pyproject.toml; the bare name when that cannot be read)."""
    requirement = project
    try:
        required = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        required = []
    for line in required:
        spec, _, marker = line.partition(";")
        name = re.match(r"[A-Za-z0-9._-]*", spec.strip())
        if name and name[0].lower() == project.lower() and f'extra == "{EXTRA}"' in marker:
            requirement = spec.replace(" ", "")
            break
    return f"{sys.executable} -m pip install '{requirement}'"


class PeerSkipped(Exception):
    """The peer cannot read this transcript; the message says why."""


@dataclass(frozen=True, slots=True)
class OpenAIForm:
    """A transcript as OpenAI Chat messages: `wire[i]` is written from `core[i]` (None for the
    top-level system prompt, written first), and `tokens[i]` is its count."""

    wire: list[dict[str, Any]]
    core: list[Message | None]
    tokens: list[int]


def openai_form(messages: Sequence[Message], system: str | None, count: TokenCounter) -> OpenAIForm:
    """The core messages (and a top-level system prompt) as OpenAI Chat messages."""
    wire: list[dict[str, Any]] = []
    core: list[Message | None] = []
    tokens: list[int] = []
    if system is not None:
        wire.append({"role": "system", "content": system})
        core.append(None)
        tokens.append(text_message_tokens(system, count))
    for message in messages:
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.role == "tool":
            if not message.tool_call_id:
                raise PeerSkipped("a result names no call id, which OpenAI Chat messages need")
            item["tool_call_id"] = message.tool_call_id
        if message.tool_calls:
            item["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments_text(call.arguments)},
                }
                for call in message.tool_calls
            ]
        wire.append(item)
        core.append(message)
        tokens.append(message_tokens(message, count))
    return OpenAIForm(wire, core, tokens)


def sliding(form: OpenAIForm, budget: int) -> list[int]:
    """The indices of `form` a plain sliding window keeps: every system message, and the newest
    whole turns (a message and the results after it) whose tokens fit what the system left."""
    system = [
        i for i, message in enumerate(form.core) if message is None or message.role == "system"
    ]
    room = budget - sum(form.tokens[i] for i in system)
    offset = 1 if form.core and form.core[0] is None else 0
    messages = [message for message in form.core if message is not None]
    kept: list[int] = []
    for segment in reversed(segment_turns(messages)):
        members = [
            offset + i for i in range(segment.start, segment.end) if messages[i].role != "system"
        ]
        cost = sum(form.tokens[i] for i in members)
        if cost > room:
            break
        room -= cost
        kept[:0] = members
    return sorted({*system, *kept})


def trim(form: OpenAIForm, budget: int) -> list[int]:
    """The indices of `form` LangChain's `trim_messages` keeps (PeerSkipped without
    `langchain-core`, or when it cannot convert the form)."""
    try:
        from langchain_core.messages import BaseMessage, convert_to_messages, trim_messages
    except ImportError as error:
        raise PeerSkipped(
            "langchain-core is not installed; install it with: "
            f"{install_command('langchain-core')} (the `{EXTRA}` extra)"
        ) from error
    try:
        converted = convert_to_messages(form.wire)
    except Exception as error:  # whatever LangChain refuses, the peer cannot read it
        raise PeerSkipped(f"convert_to_messages refused the transcript: {error}") from error
    position = {id(message): index for index, message in enumerate(converted)}

    def counter(messages: Sequence[BaseMessage]) -> int:
        return sum(form.tokens[position[id(message)]] for message in messages)

    kept = trim_messages(
        converted,
        max_tokens=budget,
        token_counter=counter,
        strategy="last",
        start_on="human",
        include_system=True,
        allow_partial=False,
    )
    return [position[id(message)] for message in kept]


PEER_FUNCTIONS: dict[str, Callable[[OpenAIForm, int], list[int]]] = {
    "trim": trim,
    "sliding": sliding,
}
