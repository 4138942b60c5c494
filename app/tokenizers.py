"""The tokenizers the service counts with, loaded once per process from an installed package.

`o200k_base` and `cl100k_base` are exact: OpenAI's BPE vocabularies as the `quicktok-v1` package
ships them in its wheel, so nothing is downloaded at run time (tiktoken fetches its files on first
use, which a sidecar with no internet cannot do). Special-token text is counted as ordinary text,
as tiktoken's `encode(text, disallowed_special=())` does. `estimate` needs no vocabulary
(`app.core.tokens`). A vocabulary that is not installed is a start-up failure (`check_installed`),
never a request error; each one is loaded on first use, not at start-up, because a loaded
vocabulary costs every replica resident memory whether or not it ever counts (measured: 78 MiB of
peak RSS to load `o200k_base`, 16 MiB `cl100k_base`).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from app.core.tokens import TokenCounter, estimate_tokens

EXACT_TOKENIZERS = ("o200k_base", "cl100k_base")
# The vocabulary file each exact tokenizer loads from the package's data.
VOCABULARIES = {"o200k_base": "o200k.vocab", "cl100k_base": "cl100k.vocab"}
TOKENIZERS = (*EXACT_TOKENIZERS, "estimate")


class TokenizerUnavailable(RuntimeError):
    """A shipped vocabulary could not be loaded; the message names it and why."""


@cache
def counter(name: str) -> TokenCounter:
    """The counting function of tokenizer `name` (one of `TOKENIZERS`), built once."""
    if name == "estimate":
        return estimate_tokens
    if name not in EXACT_TOKENIZERS:
        raise ValueError(f"unknown tokenizer {name!r}: expected one of {', '.join(TOKENIZERS)}")
    try:
        import quicktok

        encoding = quicktok.get_encoding(name)
    except Exception as error:  # an import or a load failure alike: the service cannot count
        raise TokenizerUnavailable(f"tokenizer {name} cannot be loaded: {error}") from error
    count: TokenCounter = encoding.count
    return count


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
