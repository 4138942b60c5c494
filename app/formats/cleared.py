"""Images replaced by a text in the caller's messages (docs/rules.md#images): the window writer's
half of clearing an image, shared by the dialects.

A screenshot costs a model more than most texts, so a plan that must make room can replace the
images of chosen core messages by a short text (`app.core.images.IMAGE_REMOVED_TEXT`), each in its
place, written as the format writes a text part: a window the provider reads as it read the
original, minus the pixels. Only the images a core message counts are replaced (those of user
content and of results, `Message.images`), never one the provider requires to stay an image
(`Image.required`: a Responses `computer_call_output`'s screenshot). A caller message is copied
once, however many of its images go, and everything else of it stays as sent; the copies replace
the originals through `Reshaped`, so the format's one window writer writes from them as from the
caller's own messages, on both read paths.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from app.core.messages import Message
from app.formats.callers import CallerMessages, Reshaped
from app.formats.fields import JsonObject

# A caller message (or block) with its images replaced, or the same object when it holds none.
Clear = Callable[[Any], Any]


def has_clearable_image(message: Message) -> bool:
    """Whether the core message counts an image that may be replaced."""
    return any(not image.required for image in message.images)


def replaced_parts(parts: Any, replace: Clear) -> Any:
    """`parts` with each part `replace`d, a new list only when one changed (else `parts`)."""
    if type(parts) is not list:
        return parts
    found: list[Any] | None = None
    for position, part in enumerate(parts):
        new = replace(part)
        if new is not part:
            if found is None:
                found = list(parts)
            found[position] = new
    return parts if found is None else found


def with_messages_cleared(
    callers: CallerMessages,
    core: Sequence[Message],
    indices: Collection[int],
    clear: Clear,
) -> CallerMessages:
    """`callers` with the caller message of each core message at `indices` that counts an image
    `clear`ed (formats whose core message is one caller message: OpenAI, Responses)."""
    replaced: dict[int, JsonObject] = {}
    for index in indices:
        message = core[index]
        if not has_clearable_image(message):
            continue
        source = index if message.source is None else message.source
        original = callers[source]
        new = clear(original)
        if new is not original:
            replaced[source] = new
    return Reshaped(callers, replaced) if replaced else callers


def with_blocks_cleared(
    callers: CallerMessages,
    core: Sequence[Message],
    indices: Collection[int],
    key: str,
    clear: Clear,
) -> CallerMessages:
    """`callers` with each block (under `key`) held by a core message at `indices` that counts an
    image `clear`ed (Anthropic, Bedrock, Gemini): a caller message is copied once, however many of
    its core messages lose images."""
    replaced: dict[int, JsonObject] = {}
    for index in indices:
        message = core[index]
        if not has_clearable_image(message):
            continue
        source = index if message.source is None else message.source
        caller = replaced.get(source)
        blocks = (callers[source] if caller is None else caller).get(key)
        if type(blocks) is not list:
            continue
        for position in message.blocks:
            block = blocks[position]
            new = clear(block)
            if new is block:
                continue
            if caller is None:
                original = callers[source]
                caller = replaced[source] = {**original, key: list(blocks)}
                blocks = caller[key]
            blocks[position] = new
    return Reshaped(callers, replaced) if replaced else callers
