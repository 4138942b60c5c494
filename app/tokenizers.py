"""The tokenizers the service counts with, loaded once per process from an installed package.

`o200k_base` and `cl100k_base` are exact: OpenAI's BPE vocabularies as the `quicktok-v1` package
ships them in its wheel, so nothing is downloaded at run time (tiktoken fetches its files on first
use, which a sidecar with no internet cannot do). Special-token text is counted as ordinary text,
as tiktoken's `encode(text, disallowed_special=())` does. `estimate` needs no vocabulary
(`app.core.tokens`). A vocabulary that is not installed is a start-up failure (`check_installed`),
never a request error; each one is loaded on first use, not at start-up, because a loaded
vocabulary costs every replica resident memory whether or not it ever counts (measured: 78 MiB of
peak RSS to load `o200k_base`, 16 MiB `cl100k_base`).

An exact count is memoised (`CountMemo`, `MEMO`): an agent sends its whole transcript on every
step, so nearly every text a plan counts was counted on the previous request, and counting is the
plan's largest cost (a 1,000-message `fit` plan took 62 ms with `o200k_base` against 2 ms
without counting). The memo is process-wide and outside the core, which only ever sees a counting
function; it never changes a count, only where the count comes from (docs/decisions/0034).
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
import threading
from collections.abc import Callable
from functools import cache
from importlib.resources import files

from app.core.tokens import TokenCounter, estimate_tokens
from app.settings import DEFAULT_TOKEN_MEMO_ENTRIES

EXACT_TOKENIZERS = ("o200k_base", "cl100k_base")
# The vocabulary file each exact tokenizer loads from the package's data.
VOCABULARIES = {"o200k_base": "o200k.vocab", "cl100k_base": "cl100k.vocab"}
TOKENIZERS = (*EXACT_TOKENIZERS, "estimate")


class TokenizerUnavailable(RuntimeError):
    """A shipped vocabulary could not be loaded; the message names it and why."""


# A text shorter than this is counted, not looked up: hashing it and looking it up costs more than
# counting it (0034: about 0.9 µs a look-up against 0.2 to 0.3 µs to count 10 to 60 characters).
MEMO_MIN_CHARS = 32


class CountMemo:
    """A bounded memo of exact token counts, keyed by a keyed 128-bit BLAKE2b digest of the text.

    The digest's key is drawn once per process, so a body cannot be built to make two texts share
    a key (and so a count); its personalisation is the tokenizer's name, so the tokenizers share
    one bound without sharing keys. The digest, not the text, is held: an entry costs about 130
    bytes whatever the text's size.

    Two generations bound it: entries go into the young one until it holds half the bound, then
    the young one becomes the old one and the old one is dropped; a text found in the old one moves
    back into the young one. So every text counted or found since the last turnover stays, and a
    transcript whose long texts fit in half the bound is never recounted, at the cost of one
    dictionary look-up a hit (a least-recently-used order would move every text found).

    Thread safety: a look-up in the young generation takes no lock (a dictionary read is atomic,
    and a read that races a turnover reads the generation just retired, which is still whole);
    every change, and the miss count, is made under the lock; hits are counted on an
    `itertools.count`, whose step is atomic. A text is counted outside the lock, so two threads
    may count the same new text at once and store the same number.
    """

    def __init__(self, entries: int) -> None:
        self._lock = threading.Lock()
        self._key = secrets.token_bytes(hashlib.blake2b.MAX_KEY_SIZE)
        self._hits = itertools.count()
        self._misses = 0
        self._young: dict[bytes, int] = {}
        self._old: dict[bytes, int] = {}
        self._wrapped: dict[str, TokenCounter] = {}
        self.entries = -1
        self.resize(entries)

    def resize(self, entries: int) -> None:
        """Bound the memo to `entries` (0: off); a new bound starts it empty."""
        if entries < 0:
            raise ValueError(f"a memo holds 0 or more entries, not {entries}")
        with self._lock:
            if entries == self.entries:
                return
            self.entries = entries
            # With a bound of 1 there is no room for an old generation.
            self._generation = max(1, entries // 2)
            self._keeps_old = entries >= 2
            self._young, self._old = {}, {}
            self._wrapped = {}

    @property
    def hits(self) -> int:
        """Counts found in the memo since the process started."""
        # `itertools.count` shows its next value only in its repr; reading it must not step it.
        return int(repr(self._hits)[len("count(") : -1])

    @property
    def misses(self) -> int:
        """Texts counted and stored since the process started."""
        return self._misses

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    def counting(self, name: str, count: TokenCounter) -> TokenCounter:
        """`count` (tokenizer `name`'s function) answered from the memo; `count` itself when
        the memo is off."""
        wrapped = self._wrapped.get(name)
        if wrapped is None:
            wrapped = count if self.entries == 0 else self._wrap(name, count)
            self._wrapped[name] = wrapped
        return wrapped

    def _wrap(self, name: str, count: TokenCounter) -> TokenCounter:
        keyed = hashlib.blake2b(key=self._key, digest_size=16, person=name.encode()).copy
        hit = self._hits.__next__
        stored = self._stored

        def memoised(text: str) -> int:
            if len(text) < MEMO_MIN_CHARS:
                return count(text)
            digest = keyed()
            # surrogatepass: a lone surrogate is hashed, not refused, and stays distinct.
            digest.update(text.encode("utf-8", "surrogatepass"))
            key = digest.digest()
            found = self._young.get(key)
            if found is not None:
                hit()
                return found
            return stored(key, text, count)

        return memoised

    def _stored(self, key: bytes, text: str, count: Callable[[str], int]) -> int:
        """The count of a text not in the young generation: moved from the old one, or counted."""
        with self._lock:
            found = self._old.pop(key, None)
            if found is not None:
                self._keep(key, found)
        if found is not None:
            next(self._hits)
            return found
        tokens = count(text)
        with self._lock:
            self._misses += 1
            self._keep(key, tokens)
        return tokens

    def _keep(self, key: bytes, tokens: int) -> None:
        """Store under the lock, turning the generations over when the young one is full."""
        if len(self._young) >= self._generation:
            self._old = self._young if self._keeps_old else {}
            self._young = {}
        self._young[key] = tokens


MEMO = CountMemo(DEFAULT_TOKEN_MEMO_ENTRIES)


@cache
def exact_counter(name: str) -> TokenCounter:
    """Exact tokenizer `name`'s own counting function, loaded once."""
    try:
        import quicktok

        encoding = quicktok.get_encoding(name)
    except Exception as error:  # an import or a load failure alike: the service cannot count
        raise TokenizerUnavailable(f"tokenizer {name} cannot be loaded: {error}") from error
    count: TokenCounter = encoding.count
    return count


def counter(name: str) -> TokenCounter:
    """The counting function of tokenizer `name` (one of `TOKENIZERS`); an exact one answers
    from `MEMO`. `estimate` is not memoised: it costs less than a look-up (0034)."""
    if name == "estimate":
        return estimate_tokens
    if name not in EXACT_TOKENIZERS:
        raise ValueError(f"unknown tokenizer {name!r}: expected one of {', '.join(TOKENIZERS)}")
    return MEMO.counting(name, exact_counter(name))


def check_installed() -> tuple[str, ...]:
    """Every tokenizer's package and vocabulary file are installed (checked at start-up, so a
    broken install fails before anything is served); raises TokenizerUnavailable naming the first
    that is not."""
    for name, vocabulary in VOCABULARIES.items():
        try:
            present = files("quicktok").joinpath("data", vocabulary).is_file()
        except ModuleNotFoundError as error:
            raise TokenizerUnavailable(f"tokenizer {name} cannot be loaded: {error}") from error
        if not present:
            raise TokenizerUnavailable(
                f"tokenizer {name} cannot be loaded: its vocabulary {vocabulary} is not installed"
            )
    return TOKENIZERS
