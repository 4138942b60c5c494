"""Token counting rules (docs/rules.md#tokens): the tokens of a message, and calibration.

A message costs its text, each call's name and arguments, and a fixed framing (`4` a message, `3`
a call) that stands for what a provider wraps around them; an image adds its own count by its
provider's rule (`app.core.images`, docs/rules.md#images); and what the provider reads that the
core model holds no text for (a shell command's output, a server-side tool's result, a document)
adds its texts, counted as the content is, and its fixed count (`Message.extra_texts`,
`Message.extra_tokens`), since a provider bills every item it reads. Thinking blocks add nothing.
These are approximations on purpose: the exact framing differs by provider and
changes over time, and calibration (docs/rules.md#calibration) scales every count to what the
provider last measured.

`estimate` is the count for any model without a shipped vocabulary (Claude, Gemini, Llama, …): a
quarter of the text's UTF-8 bytes, rounded up, so it is cheap, deterministic and the same in every
language the service may be ported to. The exact vocabularies are loaded outside the core
(`app.tokenizers`), which hands the planner a plain counting function.

Scales are exact fractions, so `ceil(raw × scale)` never gains a token from a binary rounding
error (a float 1.1 × 10 is 11.000000000000002).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import orjson

from app.core.images import image_tokens
from app.core.messages import Message

TokenCounter = Callable[[str], int]

MESSAGE_FRAMING = 4
CALL_FRAMING = 3
# A calibration never shrinks counts below a tenth: a provider report that small is a mistake.
MIN_SCALE = Fraction(1, 10)
UNSCALED = Fraction(1)


def estimate_tokens(text: str) -> int:
    """`ceil(utf8_bytes(text) / 4)`; `0` for `""`."""
    return -(-len(text.encode("utf-8", "surrogatepass")) // 4)


@dataclass(frozen=True, slots=True)
class Tokenizer:
    """A tokenizer by the name the answer reports, and its counting function."""

    name: str
    count: TokenCounter


ESTIMATE = Tokenizer("estimate", estimate_tokens)


@dataclass(frozen=True, slots=True)
class Calibration:
    """What the service counted for the window last sent (`stats.tokens_counted`), and the input
    tokens the provider measured for it."""

    counted: int
    input_tokens: int


def calibration_scale(calibration: Calibration | None, reserve_tokens: int) -> Fraction:
    """`(input − reserve_tokens) / counted`, at least a tenth; 1 without a calibration."""
    if calibration is None:
        return UNSCALED
    return max(MIN_SCALE, Fraction(calibration.input_tokens - reserve_tokens, calibration.counted))


def scaled(raw: int, scale: Fraction) -> int:
    """`ceil(raw × scale)`, in integers."""
    if scale == UNSCALED:
        return raw
    return -(-raw * scale.numerator // scale.denominator)


def arguments_text(arguments: object) -> str:
    """A call's arguments as the caller sent them when they are a string, else their compact
    JSON (docs/rules.md#compact-serialization: what orjson writes for the value it read)."""
    if type(arguments) is str:
        return arguments
    return orjson.dumps(arguments).decode()


def message_tokens(message: Message, count: TokenCounter) -> int:
    """`count(content) + Σ(count(name) + count(arguments_text) + 3) + 4`, plus each image's
    tokens, each extra text's count and the fixed extra count
    (docs/rules.md#the-tokens-of-a-message, docs/rules.md#images)."""
    tokens = count(message.content) + MESSAGE_FRAMING + message.extra_tokens
    for call in message.tool_calls:
        tokens += count(call.name) + count(arguments_text(call.arguments)) + CALL_FRAMING
    if message.images:
        tokens += sum(map(image_tokens, message.images))
    for text in message.extra_texts:
        tokens += count(text)
    return tokens


def text_message_tokens(text: str, count: TokenCounter) -> int:
    """The tokens of a message holding only `text`: a drop notice, a top-level system prompt."""
    return count(text) + MESSAGE_FRAMING
