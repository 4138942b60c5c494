"""Each provider's rules for a window, written once and independently of `app.formats`.

A window the service writes must be one its provider accepts; these checkers state, per wire
format, what the provider refuses (the pairing of calls and results, the opening, Gemini's
signatures, Responses' reasoning items), so that the tests and the audit judge a window by the
provider's rules rather than by the code that wrote it. One module per provider family:
`chat` (native, OpenAI Chat Completions, Anthropic Messages), `responses`, `gemini`, `bedrock`.
Each violation is one sentence; [] means the provider accepts the window.
"""

from __future__ import annotations

from typing import Any

from app.audit.validity import bedrock, chat, gemini, responses

__all__ = ["window_violations"]


def window_violations(format: str, sent: list[Any], window: list[Any]) -> list[str]:
    """Every rule of `format`'s provider that `window` breaks, judged against `sent`, the input
    it was planned from (the opening, and where a provider has them the signatures and reasoning
    items that must travel with what they belong to)."""
    if format in chat.PAIRING:
        return chat.window_violations(format, sent, window)
    if format == "responses":
        return responses.responses_violations(window, sent)
    if format == "gemini":
        return gemini.gemini_violations(window, sent)
    if format == "bedrock":
        return bedrock.bedrock_violations(window)
    raise ValueError(f"no checker for format {format!r}")
