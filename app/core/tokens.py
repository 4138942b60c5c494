"""Token counting rules that need no vocabulary (tokens.md §1).

`estimate` is the count for any model without a shipped vocabulary (Claude, Gemini, Llama, …):
a quarter of the text's UTF-8 bytes, rounded up, so it is cheap, deterministic and the same in
every language the service may one day be ported to. It deliberately ignores how any real
tokenizer splits text; calibration (tokens.md §1.2) is what corrects it against a provider's count.
The exact vocabularies are loaded outside the core (`app.tokenizers`), which hands the planner a
plain counting function.
"""

from __future__ import annotations

from collections.abc import Callable

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """`ceil(utf8_bytes(text) / 4)`; `0` for `""`."""
    return -(-len(text.encode("utf-8", "surrogatepass")) // 4)
