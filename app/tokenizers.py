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
import os
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


# A text shorter than this is its own key (behind its tokenizer's tag): exact, and cheaper than
# hashing it (0034).
MEMO_DIGEST_CHARS = 32
KEYINGS = ("siphash", "blake2b")
# A memo key: a short text behind its tag, a BLAKE2b digest, or two SipHash values.
Key = str | bytes | tuple[int, int]


def hash_seed_fixed() -> bool:
    """Whether PYTHONHASHSEED fixes the interpreter's string hash key (then it is not secret)."""
    return os.environ.get("PYTHONHASHSEED", "random") != "random"


class CountMemo:
    """A bounded memo of exact token counts, keyed by a keyed 128-bit hash of the text.

    The hash's key is drawn at random once per process, so a body cannot be built to make two
    texts share a key (and so a count). The 128 bits are, by default, the interpreter's own string
    hash (SipHash-1-3 under the process's random key) of the text and of the text behind its
    tokenizer's tag. When PYTHONHASHSEED fixes that key (it is then known, not secret) they are a
    BLAKE2b digest under a key drawn here, about half as fast (0034: 1.26 µs against 0.65 µs for
    the benchmark's mean text of 1,053 characters); `keying` names which. The hash, not the text,
    is held: an entry costs about 210 bytes (130 with BLAKE2b) whatever the text's size. A text
    under `MEMO_DIGEST_CHARS` is its own key, behind its tokenizer's tag: exact, and cheaper to
    hash than a digest. The tags keep the tokenizers apart in one bound.

    Two generations bound it: entries go into the young one until it holds half the bound, then
    the young one becomes the old one and the old one is dropped; a text found in the old one moves
    back into the young one. So every text counted or found since the last turnover stays, and a
    transcript whose texts fit in half the bound is never recounted, at the cost of one dictionary
    look-up a hit (a least-recently-used order would move every text found).

    Thread safety: a look-up in the young generation takes no lock (a dictionary read is atomic,
    and a read that races a turnover reads the generation just retired, which is still whole);
    every change, and the miss count, is made under the lock; hits are counted on an
    `itertools.count`, whose step is atomic. A text is counted outside the lock, so two threads
    may count the same new text at once and store the same number.
    """

    def __init__(self, entries: int, keying: str | None = None) -> None:
        if keying is None:
            keying = "blake2b" if hash_seed_fixed() else "siphash"
        if keying not in KEYINGS:
            raise ValueError(f"unknown keying {keying!r}: expected one of {', '.join(KEYINGS)}")
        self.keying = keying
        self._lock = threading.Lock()
        self._key = secrets.token_bytes(hashlib.blake2b.MAX_KEY_SIZE)
        self._hits = itertools.count()
        self._misses = 0
        self._young: dict[Key, int] = {}
        self._old: dict[Key, int] = {}
        self._tags: dict[str, str] = {}
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
        tag = self._tags.setdefault(name, chr(len(self._tags)))
        hit = self._hits.__next__
        stored = self._stored
        if self.keying == "blake2b":
            keyed = hashlib.blake2b(key=self._key, digest_size=16, person=name.encode()).copy

            def memoised_blake2b(text: str) -> int:
                key: bytes | str
                if len(text) < MEMO_DIGEST_CHARS:
                    key = tag + text
                else:
                    digest = keyed()
                    # surrogatepass: a lone surrogate is hashed, not refused, and stays distinct.
                    digest.update(text.encode("utf-8", "surrogatepass"))
                    key = digest.digest()
                found = self._young.get(key)
                if found is not None:
                    hit()
                    return found
                return stored(key, text, count)

            return memoised_blake2b

        def memoised(text: str) -> int:
            short = len(text) < MEMO_DIGEST_CHARS
            key = tag + text if short else (hash(text), hash(tag + text))
            found = self._young.get(key)
            if found is not None:
                hit()
                return found
            return stored(key, text, count)

        return memoised

    def _stored(self, key: Key, text: str, count: Callable[[str], int]) -> int:
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

    def _keep(self, key: Key, tokens: int) -> None:
        """Store under the lock, turning the generations over when the young one is full."""
        if self.entries == 0:  # a function handed out before the memo was turned off
            return
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
