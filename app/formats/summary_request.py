"""The wire half of summaries: the key of a run of caller messages, and the summary request written.

The key (docs/rules.md#summaries) is the SHA-256 of the compact JSON of the caller's messages
`from … through` as received, key order kept: it is what lets a stateless service tell that a
summary sent back still describes the same messages, so it is computed on the caller's own values,
never on the core messages read from them (two different wire messages can read alike).

The summary request is written as the format writes a window, by the format's own writer: the
caller messages before the span's end, with the summary that applied in its range, and then the
instruction as a user text (joined to a preceding user message where the format needs alternating
roles). Reusing the window's writer is what makes the request share the previous window's bytes,
which a provider prompt cache serves.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from app.core.messages import Message
from app.core.plan_types import IgnoredReason, SummaryRequestPlan
from app.formats.callers import CallerMessages, Callers, caller_messages
from app.formats.dialect import Dialect


def messages_key(callers: Callers, first: int, through: int) -> str:
    """`key(first, through)`: the lowercase hex SHA-256 of the compact JSON of the caller's
    messages `first … through`, both included (each as the window carries it: the same JSON)."""
    messages = caller_messages(callers).verbatim_slice(first, through + 1)
    return hashlib.sha256(orjson.dumps(messages)).hexdigest()


def key_mismatch(callers: Callers, first: int, through: int, key: str) -> IgnoredReason | None:
    """Why an entry's key does not match this request's messages (`out-of-range`, `changed`), or
    None when it does."""
    if through >= len(callers):
        return "out-of-range"
    return None if messages_key(callers, first, through) == key else "changed"


def caller_end(callers: CallerMessages, core: Sequence[Message], end: int) -> int:
    """How many caller messages the core messages `0 … end−1` reach into: the caller message of
    core message `end − 1` included (where it holds later core messages too, the writer keeps
    only the blocks read before `end`), up to the first caller message of core message `end`."""
    if end >= len(core):
        return len(callers)
    previous, following = core[end - 1], core[end]
    reached = previous.source_end
    if reached is None:
        reached = end - 1 if previous.source is None else previous.source
    starts = end if following.source is None else following.source
    return max(reached + 1, starts)


def write_summary_request(
    dialect: Dialect,
    raw: Callers,
    core: Sequence[Message],
    plan: SummaryRequestPlan,
    shaped: Mapping[int, str],
    system: Any,
) -> dict[str, Any]:
    """The summary request `R` in the caller's format: `{"messages"}`, or with the system prompt
    under the format's own key when one was sent (docs/rules.md#summaries)."""
    end = plan.end
    texts = {index: text for index, text in shaped.items() if index < end}
    callers = caller_messages(raw)
    head = callers.head(caller_end(callers, core, end))
    removed = () if plan.replaced is None else (plan.replaced,)
    messages = dialect.write_window(head, core[:end], removed, plan.summary, texts)
    messages = dialect.with_user_text(messages, plan.instructions)
    system_key, messages_key_name = dialect.request_keys
    request: dict[str, Any] = {}
    if system_key is not None and system is not None:
        request[system_key] = system
    request[messages_key_name] = messages
    return request
