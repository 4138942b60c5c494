"""The audit's scripted summarizer: a stand-in for the agent's model when a plan asks for a summary
(docs/quality.md#summaries).

The audit must give the same figures to anyone on the same files, so it calls no model: it answers
a summary request with every identifier (`app.audit.evidence`) that occurs in the result texts of
the request's messages, in first-occurrence order, joined by single spaces. That is what a model
following the instruction is asked to keep ("every identifier, file path, number, URL and name"),
and it is measured by the same rule as the evidence, so a summary keeps exactly the tool-learnt
ids its span showed and nothing a model might add or lose. Only result texts count: the ids the
person, the system prompt or the model itself wrote are not evidence, and an earlier summary in
the request is the model's own words.

The agent it plays is the client sessions' default (docs/rules.md#summaries): each summary request
is answered at once, the entry kept with its `from`, `through` and `key` (the newest 16), and the
same transcript planned again once so that the window sent holds the summary; a summary request in
that second answer waits for the next step. An empty answer (no identifier) keeps nothing, and the
window keeps its notice, as the sessions do with a blank text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.audit.evidence import identifiers
from app.core.messages import is_result_message
from app.formats import Dialect

KEPT_SUMMARIES = 16  # the service reads no more entries
ENTRY_FIELDS = ("from", "through", "key")


def request_messages(dialect: Dialect, request: Mapping[str, Any]) -> list[Any]:
    """The messages of a summary request `R`, under the format's own key."""
    messages: list[Any] = request[dialect.request_keys[1]]
    return messages


def request_system(dialect: Dialect, request: Mapping[str, Any]) -> str | None:
    """The text of `R`'s top-level system prompt, None when it carries none."""
    key = dialect.request_keys[0]
    if key is None or key not in request:
        return None
    return dialect.system_prompt_text(request[key])


def scripted_summary(dialect: Dialect, request: Mapping[str, Any]) -> str:
    """The scripted summarizer's answer to the summary request `request` (`R`, in `dialect`)."""
    found: dict[str, None] = {}
    for message in dialect.read(request_messages(dialect, request)):
        if is_result_message(message) and message.content:
            found.update(dict.fromkeys(identifiers(message.content)))
    return " ".join(found)


def kept_entries(
    summaries: Sequence[Mapping[str, Any]], asked: Mapping[str, Any], text: str
) -> list[dict[str, Any]]:
    """The entries to send from now on: `summaries` with the answer to `asked` (a summary
    request) last, replacing an entry for the same messages, the newest 16."""
    entry = {name: asked[name] for name in ENTRY_FIELDS}
    kept = [dict(s) for s in summaries if {n: s.get(n) for n in ENTRY_FIELDS} != entry]
    return [*kept, {**entry, "summary": text}][-KEPT_SUMMARIES:]
