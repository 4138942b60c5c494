"""Answering a recall: text the planner took out of a window, found again in the caller's history.

The service keeps nothing, so what a model asks back (`docs/rules.md#answering-a-recall`) is
found in the whole transcript the agent sends with the question: by `ref`, every result that
answers that call, whole; by `query`, the earlier messages that contain the most of the query's
terms, newest first among equals, each shown as a header line and a snippet around its first
match. The answer comes in pages of `max_chars` characters, so a model can read a long result in
steps without the agent cutting it anywhere else.

Each message is searched in its *recall text* (the dialect writes it: text, `[image]`/`[file]`
marks, an assistant's call lines), so what the model reads back is what it once read, in the words
it could ask for. The terms are identifier-shaped runs (`A–Z a–z 0–9 _ . / : @ # -`, edges of
`. : / -` trimmed): what a model remembers of a cleared result is a path, an id, a number.

What it deliberately gets wrong: matching is plain substring containment with no stemming, no
word boundaries and no ranking by how often or how rarely a term occurs, so `parse` also finds
`parser`, and a message that names a common term once scores as high as one that names a rare
one often. That keeps the answer a pure function of the request that a person can check by hand;
the snippet shows the model enough around the match to judge. Lowercasing is per character, and a
character whose lower case is longer (`İ`) is left as it is, so positions in the lowered text are
positions in the text; a term holding such a character's lower case is not found through it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.core.defaults import DEFAULT_RECALL_MAX_CHARS, DEFAULT_RECALL_PAGE

RecallRole = Literal["user", "assistant", "tool"]

MIN_MAX_CHARS = 256
MAX_MAX_CHARS = 100_000
MAX_WRITTEN_HITS = 20
SNIPPET_CHARS = 600
SNIPPET_LEAD = 300
ELLIPSIS = "…"
TERM_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@#-")
TRIMMED = ".:/-"
DIGITS = frozenset("0123456789")


@dataclass(frozen=True, slots=True)
class Recallable:
    """A core message as recall reads it: its caller index, role, recall text, and for a `tool`
    message the call it answers and the tool's name (None when the transcript names none)."""

    index: int
    role: RecallRole
    text: str
    tool_call_id: str | None = None
    tool_name: str | None = None


@dataclass(frozen=True, slots=True)
class Recalled:
    """The answer: `text` is page `page` of `pages`; `hits` the number of matching messages
    (None for a `ref`)."""

    found: bool
    text: str
    page: int
    pages: int
    hits: int | None


def not_found_text(ref: str) -> str:
    return f"No result with id {ref} in this conversation."


NO_TERM_TEXT = "No searchable words in the query."


def no_hit_text(terms: Sequence[str]) -> str:
    return f"Nothing earlier in this conversation matches: {', '.join(terms)}."


def query_terms(query: str) -> list[str]:
    """The query's terms: maximal runs of the term characters, `. : / -` trimmed from both ends,
    lowercased; a run of 3 or more characters, or 2 holding a digit; each once, first first."""
    terms: list[str] = []
    run: list[str] = []
    for char in (*query, " "):
        if char in TERM_CHARS:
            run.append(char)
            continue
        if run:
            term = "".join(run).strip(TRIMMED).lower()
            run = []
            if (len(term) >= 3 or (len(term) == 2 and not DIGITS.isdisjoint(term))) and (
                term not in terms
            ):
                terms.append(term)
    return terms


def lowered(text: str) -> str:
    """`text` lowercased character by character, a character whose lower case is not one
    character left as it is, so every position is the same in both."""
    if text.isascii():
        return text.lower()
    # Per character, not `text.lower()`: a whole-string lower case is context-sensitive (a final
    # sigma) and can be longer than the text.
    return "".join(low if len(low := char.lower()) == 1 else char for char in text)


def header(entry: Recallable) -> str:
    if entry.role != "tool":
        return f"[message {entry.index} · {entry.role}]"
    of = f" of {entry.tool_name}" if entry.tool_name else ""
    return f"[message {entry.index} · result{of} · ref {entry.tool_call_id}]"


def snippet(text: str, position: int) -> str:
    """The whole text when it is at most 600 characters, else the 600 from
    `max(0, min(position − 300, len − 600))`, marked with `…` where it was cut."""
    if len(text) <= SNIPPET_CHARS:
        return text
    start = max(0, min(position - SNIPPET_LEAD, len(text) - SNIPPET_CHARS))
    end = start + SNIPPET_CHARS
    before = ELLIPSIS if start > 0 else ""
    after = ELLIPSIS if end < len(text) else ""
    return f"{before}{text[start:end]}{after}"


def by_ref(entries: Sequence[Recallable], ref: str) -> tuple[bool, str]:
    """(found, the recall texts of every `tool` message answering `ref`, joined by a newline)."""
    texts = [entry.text for entry in entries if entry.role == "tool" and entry.tool_call_id == ref]
    if not texts:
        return False, not_found_text(ref)
    return True, "\n".join(texts)


def by_query(entries: Sequence[Recallable], query: str) -> tuple[bool, str, int]:
    """(found, the written hits, how many messages matched)."""
    terms = query_terms(query)
    if not terms:
        return False, NO_TERM_TEXT, 0
    scored: list[tuple[int, int, int]] = []  # (score, position in `entries`, first match)
    for number, entry in enumerate(entries):
        text = lowered(entry.text)
        score = 0
        first = len(text)
        for term in terms:
            found = text.find(term)
            if found >= 0:
                score += 1
                first = min(first, found)
        if score:
            scored.append((score, number, first))
    if not scored:
        return False, no_hit_text(terms), 0
    scored.sort(key=lambda hit: (-hit[0], -hit[1]))
    written = [
        f"{header(entries[number])}\n{snippet(entries[number].text, first)}"
        for _, number, first in scored[:MAX_WRITTEN_HITS]
    ]
    return True, "\n\n".join(written), len(scored)


def paged(found: bool, text: str, hits: int | None, page: int, max_chars: int) -> Recalled:
    """Page `page` of `text` cut in pages of `max_chars` characters ("" past the last)."""
    pages = max(1, math.ceil(len(text) / max_chars))
    start = (page - 1) * max_chars
    return Recalled(found, text[start : start + max_chars], page, pages, hits)


def recall(
    entries: Sequence[Recallable],
    ref: str | None,
    query: str | None,
    page: int = DEFAULT_RECALL_PAGE,
    max_chars: int = DEFAULT_RECALL_MAX_CHARS,
) -> Recalled:
    """The answer to a recall of `ref` or `query` (exactly one given, non-empty) over `entries`,
    the transcript's core messages but `system` ones, in order."""
    if ref is not None:
        found, text = by_ref(entries, ref)
        return paged(found, text, None, page, max_chars)
    assert query is not None
    found, text, hits = by_query(entries, query)
    return paged(found, text, hits, page, max_chars)
