"""The evidence measure: which ids the model acted on that it had learnt from a tool, and whether a
window still shows them (docs/quality.md#evidence).

The question the audit asks of a window is the one behind the service's rules: when the model
acted, did it still see what a tool had told it? The measure is deliberately mechanical, so that
anyone gets the same figure from the same files, and deliberately narrow:
- an *identifier* is a run of the characters `A–Z a–z 0–9 _ . / : @ # -` that, once leading and
  trailing `. : / -` are removed, is at least 4 characters long and still holds a digit or one of
  `_ . / : @ -` (paths, ids, versions, hashes, addresses; not plain words, which a model can
  rebuild without seeing them);
- it *occurs* in a text when it appears there with no ASCII letter or digit right before or after;
- the *action* of a step is the argument values of its calls (strings, and numbers as JSON writes
  them, recursively; never the keys; a JSON string is decoded first, and a string that is not
  JSON is one value);
- its *evidence* is the identifiers of the action first seen, in the transcript before the step,
  in the text of a result message: learnt from a tool, not from the person, the system prompt or
  the model's own words;
- a window *keeps* the part of it that occurs in the window's texts, except the texts the service
  writes itself (the drop notice and any earlier one, collapse tickets, cap markers, clear
  placeholders), whose ids and figures are not the evidence. Each of those is recognised by the
  module that writes it;
- with recall on, the part not kept is *recallable* when the result it was first seen in is one
  the window still names by its `tool_call_id` (its call kept, or its placeholder, marker or
  ticket sent): the model can ask for that result back by the id it sees. The audit does not play
  the recall call itself, so this is what the model could get back, not what it would.

Everything here is pure: texts and core messages in, sets and counts out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache

import orjson

from app.core.cap import is_truncated
from app.core.messages import Message, is_result_message
from app.core.notice import notice_text
from app.core.shaping import is_shaped

IDENTIFIER_RUN = re.compile(r"[A-Za-z0-9_./:@#\-]+")
EDGE = ".:/-"  # removed from both ends of a run before it is judged
MIN_LENGTH = 4
MARKS = frozenset("_./:@-")  # an identifier holds a digit or one of these

# The words every drop notice opens with, taken from the notice the service writes (its text up to
# the first figure), so an earlier notice is recognised whatever its count, strategy and rung.
_SAMPLE_NOTICE = notice_text(
    removed_count=0, iteration=0, strategy="fit", kept_request=False, tool_list=None
)
NOTICE_OPENING = _SAMPLE_NOTICE[: _SAMPLE_NOTICE.index("0")].split(" —")[0]


def identifiers(text: str) -> list[str]:
    """The identifiers of `text`, in order of appearance, each once."""
    found: dict[str, None] = {}
    for run in IDENTIFIER_RUN.findall(text):
        candidate = run.strip(EDGE)
        if len(candidate) >= MIN_LENGTH and (
            any(char.isdigit() for char in candidate) or not MARKS.isdisjoint(candidate)
        ):
            found[candidate] = None
    return list(found)


@cache
def _occurrence(identifier: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(identifier)}(?![A-Za-z0-9])")


def occurs(identifier: str, text: str) -> bool:
    """Whether `identifier` appears in `text` with no ASCII letter or digit right beside it."""
    return identifier in text and _occurrence(identifier).search(text) is not None


def argument_values(arguments: object) -> Iterator[str]:
    """The values of a call's arguments as texts: a JSON string decoded first (a string that is
    not JSON is one value), then every string and number, recursively; keys and other scalars
    (booleans, null) are no values."""
    if isinstance(arguments, str):
        if arguments == "":  # no arguments at all (a call named by its item type)
            return
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            yield arguments
            return
        yield from _values(decoded)
        return
    yield from _values(arguments)


def _values(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        yield orjson.dumps(value).decode()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _values(item)


def message_texts(message: Message) -> list[str]:
    """What a message shows the model, as texts: its content, then its calls' argument values."""
    texts = [message.content] if message.content else []
    for call in message.tool_calls:
        texts.extend(argument_values(call.arguments))
    return texts


def action_identifiers(turn: Sequence[Message]) -> list[str]:
    """The identifiers of the argument values of every call of an assistant turn."""
    found: dict[str, None] = {}
    for message in turn:
        for call in message.tool_calls:
            for value in argument_values(call.arguments):
                found.update(dict.fromkeys(identifiers(value)))
    return list(found)


def first_occurrence(
    identifier: str, prefix: Sequence[Message], system: str | None = None
) -> int | None:
    """The index in `prefix` of the first message whose texts show `identifier`; -1 when the
    top-level system prompt (read first) shows it; None when nothing does."""
    if system is not None and occurs(identifier, system):
        return -1
    for index, message in enumerate(prefix):
        if any(occurs(identifier, text) for text in message_texts(message)):
            return index
    return None


def evidence(
    action: Iterable[str], prefix: Sequence[Message], system: str | None = None
) -> list[str]:
    """The identifiers of `action` whose first occurrence in the prefix is in a result's text."""
    return list(evidence_sources(action, prefix, system))


def evidence_sources(
    action: Iterable[str], prefix: Sequence[Message], system: str | None = None
) -> dict[str, str | None]:
    """The evidence of `action` (as `evidence`), each with the `tool_call_id` of the result it
    was first seen in (None for a result that carries none)."""
    found: dict[str, str | None] = {}
    for identifier in action:
        index = first_occurrence(identifier, prefix, system)
        if index is not None and index >= 0 and is_result_message(prefix[index]):
            found[identifier] = prefix[index].tool_call_id
    return found


def shown_call_ids(window: Sequence[Message]) -> set[str]:
    """The `tool_call_id`s a window names: its calls' ids, its results' ids (a result sent whole,
    or as a placeholder, marker or ticket, which the service writes on the result it stands for),
    and any id a placeholder, marker or ticket names in its own keys."""
    ids: set[str] = set()
    for message in window:
        ids.update(call.id for call in message.tool_calls if call.id)
        if message.tool_call_id:
            ids.add(message.tool_call_id)
        if message.content and is_shaped(message.content):
            named = _named_id(orjson.loads(message.content))
            if named:
                ids.add(named)
    return ids


def _named_id(value: object) -> str | None:
    """The `tool_call_id` a ticket, marker or placeholder names: a marker's `ref` (written with
    recall on), a ticket's or placeholder's `tool_call_id` (a ticket's `ref` is another id)."""
    key = "ref" if is_truncated(value) else "tool_call_id"
    named = value.get(key) if isinstance(value, dict) else None
    return named if isinstance(named, str) else None


def recallable(
    sources: dict[str, str | None], kept_ids: Iterable[str], shown_ids: set[str]
) -> list[str]:
    """The evidence not kept whose first result the window still names by its id: what a recall
    call by that ref gets back."""
    held = set(kept_ids)
    return [
        identifier
        for identifier, call_id in sources.items()
        if identifier not in held and call_id is not None and call_id in shown_ids
    ]


def is_service_text(text: str) -> bool:
    """Whether the service wrote `text` itself: a drop notice (this plan's or an earlier one), a
    collapse ticket, a cap marker or a clear placeholder."""
    return text.lstrip().startswith(NOTICE_OPENING) or is_shaped(text)


def shown_texts(window: Sequence[Message], system: str | None = None) -> list[str]:
    """The texts a window shows the model that count for evidence: every message's texts and the
    top-level system prompt, less the texts the service wrote."""
    texts = [] if system is None else [system]
    for message in window:
        texts.extend(message_texts(message))
    return [text for text in texts if not is_service_text(text)]


def kept(evidence_ids: Iterable[str], texts: Sequence[str]) -> list[str]:
    """The part of `evidence_ids` that occurs in `texts`."""
    # Texts joined by a newline: no identifier spans it, and it is no letter or digit, so each
    # occurrence keeps its boundaries.
    joined = "\n".join(texts)
    return [identifier for identifier in evidence_ids if occurs(identifier, joined)]
