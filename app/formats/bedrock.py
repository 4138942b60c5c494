"""Amazon Bedrock Converse `messages`, read block by block and written back with alternating roles.

Blocks carry no `type`: each is keyed by its kind (`text`, `toolUse`, `toolResult`, `image`, …).
An assistant message is one core message (its text blocks joined, its `toolUse` blocks the calls);
a tool the provider ran itself (a `toolUse` of type `server_tool_use`, and the `toolResult` it put
in the same assistant message) is no call and no result, and travels with its message. A user
message is first one core `tool` message per `toolResult` block, then one core `user` message per
`text` block, so a notice or a reminder that shares a message with the person's words stays a core
message of its own. Every other block travels with one of those (`docs/rules.md#bedrock`): a
cache point with the result or text it follows (the first one when it comes first), since it
marks the end of what it caches and must leave with it; an image, a document, a guard block or a
kind this version does not know with the person's words (the text before it, else the text after
it, else the result before it, else the result after it). Only a user message with neither
results nor text is one core user message with no text. Every core message remembers its caller
index and the block indices it holds, and the window is written by regrouping the kept core
messages, each block the caller's own object.

An `image` block is an image counted by Claude's rule (`docs/rules.md#images`: Bedrock's Claude
models) in the core message that holds the block (the person's words it travels with, or the
`toolResult` whose content holds it): `source.bytes` (base64 in Converse's JSON) by its header,
an `s3Location` at the unknown size; one in an assistant message counts nothing. A `document`
block counts its text when sent as text, else a fixed count, and a server-side tool's `toolResult`
in an assistant message its compact JSON (`docs/rules.md#the-tokens-of-a-message`): the provider
reads them, though they add no characters. A plan that clears images has each written back as a
`{"text": …}` block (`clear_images`).

Converse requires the roles to alternate, so the window is then laid out at the seam the removal
left: the notice's text block joins a user message beside it (the kept request before it, else
the user message after it) and stands alone only when neither neighbour is a user message, and
two messages of one role left side by side are written as one, at every seam a removal leaves
(`fit` may remove several runs). `place` reports the window figures (`messages_after`, the
notice's and the shaped results' `window_index`) of that layout; both read `layout`, so they
cannot disagree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from app.core.images import IMAGE_REMOVED_TEXT, Image, base64_image
from app.core.messages import Message, Role, ToolCall, from_fields
from app.core.plan_types import ShapedEntry, ShapedResult, WindowPlan
from app.formats.blocks import Run, with_blocks_rewritten
from app.formats.callers import CallerMessages
from app.formats.cleared import replaced_parts, with_blocks_cleared
from app.formats.dialect import Dialect, Removed, Signals
from app.formats.extras import Extras, item_text
from app.formats.fields import (
    JsonObject,
    Loc,
    Problems,
    flag,
    holds_non_text,
    is_object,
    part_text,
    read_with_blocks,
    required_id,
    required_name,
    role_of,
    unknown_role,
)
from app.formats.reasoning import ReasoningPart, block_parts, blocks_remover, text_chars
from app.formats.recall_texts import (
    FILE_MARK,
    IMAGE_MARK,
    field_of,
    joined,
    recall_text_with,
    string_at,
)

ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant"}
# The block kinds this reader reads; any other kind adds nothing and travels with its message.
READ_KINDS = ("text", "toolUse", "toolResult")
EXTENSIONS = ("injected", "not_dispatched")
# Blocks that are a part of their own for `diagnostics` (`empty-message`).
MEDIA_KINDS = ("image", "document", "video", "audio")
SYSTEM_KINDS = ("text", "cachePoint", "guardContent")
CACHE_POINT = "cachePoint"
# A `toolUse` block's `type` when the provider runs the tool itself (its result is in the same
# assistant message): no call for the planner.
SERVER_TOOL_USE = "server_tool_use"
IMAGE = "image"
DOCUMENT = "document"
BLOCKS = "content"  # where a message keeps its blocks

# The items of the window at a removal's seam (see `seam_groups`).
PREV, NOTICE, NEXT = 0, 1, 2

# The keys naming a block's kind that only this format sends, on blocks with no `type`
# (docs/rules.md#auto, rule 3), in the order a signal names them.
SIGNAL_KEYS = ("text", "toolUse", "toolResult", "reasoningContent", IMAGE, "document", CACHE_POINT)


# ---- reading ------------------------------------------------------------------------------------


def read(raw: list[Any]) -> list[Message]:
    """The core transcript of Converse `messages`; raises InvalidRequest naming every violation."""
    return read_with_blocks(raw, read_plain, read_message)


def read_plain(message: JsonObject, index: int, out: list[Message]) -> bool:
    """Append the core messages of an ordinary, well-formed message to `out`; False otherwise.

    Nearly every message of a real transcript takes this path, which reads each block once with
    exact type tests. Anything unusual (a block holding two kinds, a call without an id, a
    misplaced block, a flag that is not a boolean, a message-level `injected`) returns False with
    `out` unchanged, and `read_message` reads the message again with every check.
    """
    role = message.get("role")
    content = message.get("content")
    if "injected" in message:
        return False
    if type(content) is str:
        if role != "user" and role != "assistant":
            return False
        out.append(
            from_fields(
                Message, (role, content, (), None, None, False, False, index, (), None, (), (), 0)
            )
        )
        return True
    if type(content) is not list:
        return False
    if role == "assistant":
        return read_plain_assistant(content, index, out)
    if role != "user":
        return False
    results: list[Message] = []
    users: list[Message] = []
    kinds: list[str] | None = None  # per block, when some block is neither a result nor a text
    for position, block in enumerate(content):
        if type(block) is not dict:
            return False
        if "text" in block:
            text = block["text"]
            if type(text) is not str:
                return False
            injected = False
            if len(block) != 1:
                injected = block.get("injected", False)
                if (
                    (injected is not True and injected is not False)
                    or "toolResult" in block
                    or "toolUse" in block
                ):
                    return False
            users.append(
                from_fields(
                    Message,
                    (
                        "user",
                        text,
                        (),
                        None,
                        None,
                        injected,
                        False,
                        index,
                        (position,),
                        None,
                        (),
                        (),
                        0,
                    ),
                )
            )
            kind = "text"
        elif "toolResult" in block:
            result = block["toolResult"]
            if type(result) is not dict or "toolUse" in block:
                return False
            call_id = result.get("toolUseId")
            body = result.get("content", ())
            not_dispatched = result.get("not_dispatched", False)
            if (
                type(call_id) is not str
                or not call_id
                or (type(body) is not list and type(body) is not tuple)
                or (not_dispatched is not True and not_dispatched is not False)
            ):
                return False
            pieces: list[str] = []
            images: list[Image] = []
            extras: Extras | None = None
            for item in body:
                if type(item) is not dict:
                    return False
                if "text" in item:
                    piece = item["text"]
                    if type(piece) is not str or "json" in item:
                        return False
                    pieces.append(piece)
                elif "json" in item:
                    pieces.append(orjson.dumps(item["json"]).decode())
                elif IMAGE in item:
                    images.append(block_image(item))
                elif DOCUMENT in item:
                    if extras is None:
                        extras = Extras()
                    extras.document(document_text(item))
            texts, tokens = ((), 0) if extras is None else extras.fields()
            results.append(
                from_fields(
                    Message,
                    (
                        "tool",
                        pieces[0] if len(pieces) == 1 else "".join(pieces),
                        (),
                        call_id,
                        None,
                        False,
                        not_dispatched,
                        index,
                        (position,),
                        None,
                        tuple(images),
                        texts,
                        tokens,
                    ),
                )
            )
            kind = "toolResult"
        elif "toolUse" in block or kindless(block):
            return False
        else:
            kind = CACHE_POINT if CACHE_POINT in block else ""
            if kinds is None:
                kinds = [
                    "text" if "text" in earlier else "toolResult" for earlier in content[:position]
                ]
        if kinds is not None:
            kinds.append(kind)
    out.extend(gathered(index, results, users, kinds, content))
    return True


def read_plain_assistant(content: list[Any], index: int, out: list[Message]) -> bool:
    pieces: list[str] = []
    calls: list[ToolCall] = []
    server: list[str] = []
    for block in content:
        if type(block) is not dict:
            return False
        if "text" in block:
            text = block["text"]
            if type(text) is not str:
                return False
            if len(block) != 1:
                injected = block.get("injected", False)
                if (
                    (injected is not True and injected is not False)
                    or "toolUse" in block
                    or "toolResult" in block
                ):
                    return False
            pieces.append(text)
        elif "toolUse" in block:
            use = block["toolUse"]
            if type(use) is not dict or "toolResult" in block:
                return False
            if use.get("type") == SERVER_TOOL_USE:
                continue
            call_id = use.get("toolUseId")
            name = use.get("name")
            if type(call_id) is not str or not call_id or type(name) is not str:
                return False
            calls.append(from_fields(ToolCall, (call_id, name, None, use.get("input", ""))))
        elif "toolResult" in block:
            result = block["toolResult"]
            if type(result) is not dict:
                return False
            server.append(item_text(result))
        elif kindless(block):
            return False
    blocks = tuple(range(len(content)))
    out.append(
        from_fields(
            Message,
            (
                "assistant",
                "".join(pieces),
                tuple(calls),
                None,
                None,
                False,
                False,
                index,
                blocks,
                None,
                (),
                tuple(server),
                0,
            ),
        )
    )
    return True


def read_message(message: JsonObject, index: int, problems: Problems, out: list[Message]) -> None:
    """Append the core messages of caller message `index` to `out`, naming every violation."""
    role = role_of(message, index, problems)
    if "injected" in message:
        problems.add(
            (index, "injected"),
            "in bedrock, 'injected' marks a text block ({'text': ..., 'injected': true}), not a "
            "message: a message's fields do not survive the merge of two neighbours",
            "extra_forbidden",
        )
    if role is None:
        return
    core_role = ROLES.get(role)
    if core_role is None:
        unknown_role(role, tuple(ROLES), (index, "role"), problems)
        return
    content = message.get("content")
    if isinstance(content, str):  # not Converse's shape, but a plain transcript reads alike
        out.append(Message(core_role, content, source=index))
        return
    if not isinstance(content, list):
        if "content" not in message:
            problems.add((index, "content"), "a message needs content", "missing")
        else:
            problems.add(
                (index, "content"),
                "content must be an array of content blocks (or a string)",
                "list_type",
            )
        return
    if core_role == "assistant":
        out.append(read_assistant(content, index, problems))
    else:
        out.extend(read_user(content, index, problems))


def block_kind(block: Any, loc: Loc, problems: Problems) -> str | None:
    """The kind of a content block this reader reads (`text`, `toolUse`, `toolResult`), "" for
    any other kind, or None (and an error) when the block is not one."""
    if not is_object(block):
        problems.add(loc, "a content block must be an object", "dict_type")
        return None
    kinds = [kind for kind in READ_KINDS if kind in block]
    if len(kinds) > 1:
        problems.add(loc, f"a content block holds one kind, not {' and '.join(kinds)}")
        return None
    if kinds:
        return kinds[0]
    if kindless(block):
        problems.add(
            loc, "a content block needs a key naming its kind (text, image, toolResult, …)"
        )
        return None
    return ""


def kindless(block: JsonObject) -> bool:
    """A block with no key naming a kind (empty, or only extension fields)."""
    return all(key in EXTENSIONS for key in block)


def read_assistant(content: list[Any], index: int, problems: Problems) -> Message:
    """Text blocks joined, `toolUse` blocks as calls; a server-side tool's `toolUse` adds nothing
    and its `toolResult` is an extra text (its compact JSON); every other block adds nothing (an
    image in the model's own message is not counted)."""
    pieces: list[str] = []
    calls: list[ToolCall] = []
    server: list[str] = []
    for position, block in enumerate(content):
        loc = (index, "content", position)
        kind = block_kind(block, loc, problems)
        if kind == "toolResult" and is_object(block["toolResult"]):
            server.append(item_text(block["toolResult"]))
        if kind == "text":
            pieces.append(part_text(block, "text", loc, problems))
            flag(block, "injected", (*loc, "injected"), problems)
        elif kind == "toolUse":
            use = block["toolUse"]
            use_loc = (*loc, "toolUse")
            if not is_object(use):
                problems.add(use_loc, "a toolUse block holds an object", "dict_type")
                continue
            if use.get("type") == SERVER_TOOL_USE:
                continue  # the provider ran it and put its result in this message
            call_id = required_id(use, "toolUseId", (*use_loc, "toolUseId"), problems)
            name = required_name(use, "name", (*use_loc, "name"), problems)
            calls.append(ToolCall(call_id, name, None, use.get("input", "")))
    return Message(
        "assistant",
        "".join(pieces),
        tuple(calls),
        source=index,
        blocks=tuple(range(len(content))),
        extra_texts=tuple(server),
    )


def read_user(content: list[Any], index: int, problems: Problems) -> list[Message]:
    """One core tool message per `toolResult` block, then one core user message per `text` block,
    every other block with one of those (`gathered`)."""
    results: list[Message] = []
    users: list[Message] = []
    kinds: list[str] = []
    for position, block in enumerate(content):
        loc = (index, "content", position)
        kind = block_kind(block, loc, problems)
        if kind == "toolResult":
            results.append(read_tool_result(block, index, position, problems))
        elif kind == "text":
            text = part_text(block, "text", loc, problems)
            injected = flag(block, "injected", (*loc, "injected"), problems)
            users.append(Message("user", text, injected=injected, source=index, blocks=(position,)))
        elif kind == "toolUse":
            problems.add(loc, "a toolUse block is a call: it belongs in an assistant message")
        elif kind == "" and CACHE_POINT in block:
            kind = CACHE_POINT
        kinds.append(kind or "")
    return gathered(index, results, users, kinds, content)


def gathered(
    index: int,
    results: list[Message],
    users: list[Message],
    kinds: list[str] | None,
    content: list[Any],
) -> list[Message]:
    """The core messages of a user message: its results, then its texts, each holding the other
    blocks `owners` gives it (and the images and documents among them); one user message with no
    text holding every block when it has neither. `kinds` is the kind of each block (None: every
    block is a result or a text)."""
    if not results and not users:
        blocks = tuple(range(len(kinds or ())))
        texts, tokens = blocks_documents(content, blocks)
        return [
            Message(
                "user",
                source=index,
                blocks=blocks,
                images=blocks_images(content, blocks),
                extra_texts=texts,
                extra_tokens=tokens,
            )
        ]
    if kinds is None:
        return [*results, *users]
    held: dict[int, list[int]] = {}
    for position, owner in enumerate(owners(kinds)):
        if owner != position:
            held.setdefault(owner, []).append(position)
    messages = [*results, *users]
    for number, message in enumerate(messages):
        extra = held.get(message.blocks[0])
        if extra is not None:
            texts, tokens = blocks_documents(content, extra)
            beside = blocks_images(content, extra)
            if message.role == "tool":
                # Outside the `toolResult`: a placeholder written for the result leaves it there.
                beside = tuple(image._replace(beside=True) for image in beside)
            messages[number] = message._replace(
                blocks=tuple(sorted((*message.blocks, *extra))),
                images=message.images + beside,
                extra_texts=message.extra_texts + texts,
                extra_tokens=message.extra_tokens + tokens,
            )
    return messages


def block_image(block: JsonObject) -> Image:
    """An `image` block's image: `source.bytes` by its header, any other source (`s3Location`)
    or a malformed block at the unknown size."""
    image = block.get(IMAGE)
    source = image.get("source") if is_object(image) else None
    if is_object(source) and "bytes" in source:
        return base64_image("anthropic", source["bytes"])
    return Image("anthropic")


def blocks_images(content: Sequence[Any], positions: Sequence[int]) -> tuple[Image, ...]:
    """The images of the `image` blocks at `positions` of a content array."""
    found = []
    for position in positions:
        block = content[position]
        if type(block) is dict and IMAGE in block:
            found.append(block_image(block))
    return tuple(found)


def owners(kinds: Sequence[str]) -> list[int]:
    """Per block of a user message, the position of the `toolResult` or `text` block whose core
    message holds it (its own for those two; -1 when the message has neither).

    A cache point marks the end of the prefix it caches: it stays with the result or text it
    follows, or the first one after it when it comes first. Media, guard blocks and kinds this
    version does not know are the person's: the nearest text before, else the first text after,
    else the nearest result before, else the first result after.
    """
    anchors = nearest(kinds, ("toolResult", "text"))
    texts = nearest(kinds, ("text",))
    results = nearest(kinds, ("toolResult",))
    found: list[int] = []
    for position, kind in enumerate(kinds):
        if kind == "toolResult" or kind == "text":
            found.append(position)
        elif kind == CACHE_POINT:
            found.append(first_of(anchors, position))
        else:
            owner = first_of(texts, position)
            found.append(owner if owner >= 0 else first_of(results, position))
    return found


Nearest = tuple[list[int], list[int]]


def nearest(kinds: Sequence[str], wanted: tuple[str, ...]) -> Nearest:
    """Per position, the nearest block of a `wanted` kind before it and the first one after it
    (-1: none)."""
    before: list[int] = []
    last = -1
    for position, kind in enumerate(kinds):
        before.append(last)
        if kind in wanted:
            last = position
    after = [-1] * len(kinds)
    last = -1
    for position in range(len(kinds) - 1, -1, -1):
        after[position] = last
        if kinds[position] in wanted:
            last = position
    return before, after


def first_of(found: Nearest, position: int) -> int:
    """The nearest one before `position`, else the first one after it (-1: none)."""
    before, after = found
    return before[position] if before[position] >= 0 else after[position]


def read_tool_result(block: JsonObject, index: int, position: int, problems: Problems) -> Message:
    loc = (index, "content", position, "toolResult")
    result = block["toolResult"]
    if not is_object(result):
        problems.add(loc, "a toolResult block holds an object", "dict_type")
        return Message("tool", tool_call_id="", source=index, blocks=(position,))
    content = result.get("content")
    texts, tokens = result_documents(content)
    return Message(
        "tool",
        tool_result_text(result, loc, problems),
        tool_call_id=required_id(result, "toolUseId", (*loc, "toolUseId"), problems),
        not_dispatched=flag(result, "not_dispatched", (*loc, "not_dispatched"), problems),
        source=index,
        blocks=(position,),
        images=result_images(content),
        extra_texts=texts,
        extra_tokens=tokens,
    )


def result_images(content: Any) -> tuple[Image, ...]:
    """The images of a `toolResult`'s content blocks (none when it is not an array)."""
    if type(content) is not list:
        return ()
    return tuple(block_image(item) for item in content if type(item) is dict and IMAGE in item)


def document_text(block: JsonObject) -> str | None:
    """A `document` block's text when it was sent as text: its source's `text`, or the `text`
    blocks of its source's `content` joined; None for bytes or an S3 location."""
    document = block.get(DOCUMENT)
    source = document.get("source") if is_object(document) else None
    if not is_object(source):
        return None
    text = source.get("text")
    if isinstance(text, str):
        return text
    content = source.get("content")
    if isinstance(content, list):
        return "".join(
            item["text"]
            for item in content
            if is_object(item) and isinstance(item.get("text"), str)
        )
    return None


def blocks_documents(
    content: Sequence[Any], positions: Sequence[int]
) -> tuple[tuple[str, ...], int]:
    """The extra texts and fixed count of the `document` blocks at `positions` of a content
    array."""
    extras = Extras()
    for position in positions:
        block = content[position]
        if type(block) is dict and DOCUMENT in block:
            extras.document(document_text(block))
    return extras.fields()


def result_documents(content: Any) -> tuple[tuple[str, ...], int]:
    """The extra texts and fixed count of a `toolResult`'s `document` blocks (none when its
    content is not an array)."""
    if type(content) is not list:
        return (), 0
    return blocks_documents(content, range(len(content)))


def tool_result_text(result: JsonObject, loc: Loc, problems: Problems) -> str:
    """Its `text` blocks and the compact JSON of its `json` blocks, joined in order; "" when it
    has no content. Other blocks (images, documents) add no text; images count tokens."""
    content = result.get("content", [])
    content_loc = (*loc, "content")
    if not isinstance(content, list):
        problems.add(content_loc, "a toolResult's content must be an array of blocks", "list_type")
        return ""
    pieces: list[str] = []
    for position, item in enumerate(content):
        item_loc = (*content_loc, position)
        if not is_object(item):
            problems.add(item_loc, "a toolResult content block must be an object", "dict_type")
        elif "text" in item and "json" in item:
            problems.add(item_loc, "a content block holds one kind, not text and json")
        elif "text" in item:
            pieces.append(part_text(item, "text", item_loc, problems))
        elif "json" in item:
            pieces.append(orjson.dumps(item["json"]).decode())
    return "".join(pieces)


# ---- what the other modules ask ----------------------------------------------------------------


def has_non_text_part(callers: CallerMessages, message: Message) -> bool:
    """Whether the core message holds an image, document, video or audio block."""
    source = message.source
    content = callers[source].get("content") if source is not None else None
    if not isinstance(content, list):
        return False
    return any(
        is_object(content[block]) and any(kind in content[block] for kind in MEDIA_KINDS)
        for block in message.blocks
    )


def system_text(system: Any) -> str | None:
    """The top-level `system` blocks' text joined (validated before; null = none)."""
    if not isinstance(system, list):
        return None
    return "".join(block["text"] for block in system if "text" in block)


def system_problem(system: Any) -> str | None:
    """Why `system` is not a Converse system prompt (an array of `text`, `cachePoint` and
    `guardContent` blocks), or None."""
    if isinstance(system, list) and all(
        is_object(block)
        and sum(kind in block for kind in SYSTEM_KINDS) == 1
        and "type" not in block
        and isinstance(block.get("text", ""), str)
        for block in system
    ):
        return None
    return (
        "a bedrock system prompt is an array of blocks, each one 'text' (a string), "
        "'cachePoint' or 'guardContent'"
    )


def with_result_texts(
    callers: CallerMessages, core: Sequence[Message], texts: Mapping[int, str]
) -> CallerMessages:
    """The caller's messages with each shaped result's `toolResult` content replaced by
    `[{"text": <text>}]` (copies of that block and message, every other key as sent)."""
    return with_blocks_rewritten(callers, core, texts, BLOCKS, result_with_text)


def result_with_text(block: JsonObject, text: str) -> JsonObject:
    """The `toolResult` block holding `text`; a block the result's core message also holds (its
    cache point, an attachment) as sent."""
    if "toolResult" not in block:
        return block
    return {**block, "toolResult": {**block["toolResult"], "content": [{"text": text}]}}


# ---- writing ------------------------------------------------------------------------------------


def caller_role(message: Message) -> str:
    """The role of the caller message a core message comes from (a result is in a user message)."""
    return "assistant" if message.role == "assistant" else "user"


@dataclass(slots=True)
class Placed:
    """One message of a written window: its role and what it holds, in order (a run of one
    caller message's kept blocks, with the core positions it was read from, or None: the
    notice)."""

    role: str
    runs: list[Run | None]
    positions: list[list[int]]


def seam_groups(prev_role: str | None, notice: bool, next_role: str | None) -> list[list[int]]:
    """The window messages at a removal's seam, each the items it holds, in order.

    The items are the message before the removed range (PREV, with `prev_role`; None when there
    is none), the notice, and the first caller message after it (NEXT). The notice joins PREV
    when it is a user message (the kept request), else NEXT when that is one (the ordinary path),
    and stands alone otherwise; then PREV and NEXT, when they now stand side by side with one
    role, are one message (also when they are one caller message split by the removal).
    """
    groups: list[tuple[str, list[int]]] = []
    if prev_role is not None:
        groups.append((prev_role, [PREV]))
    notice_first = False
    if notice:
        if prev_role == "user":
            groups[-1][1].append(NOTICE)
        elif next_role == "user":
            notice_first = True
        else:
            groups.append(("user", [NOTICE]))
    if next_role is not None:
        items = [NOTICE, NEXT] if notice_first else [NEXT]
        if groups and groups[-1][0] == next_role:
            groups[-1][1].extend(items)
        else:
            groups.append((next_role, items))
    return [items for _, items in groups]


def layout(core: Sequence[Message], removed: Removed, notice: bool) -> list[Placed]:
    """The window's messages: the kept core messages regrouped into caller messages, and at each
    seam a removal leaves the notice (at the first, when there is one) beside or inside a user
    message and no two neighbours of one role side by side.

    Each seam is laid out by `seam_groups`, the message before it being the window's last so
    far (a message two seams share is laid out once). `write` and `place` read this one layout,
    so the figures the answer reports are those of the window written.
    """
    placed: list[Placed] = []
    position = 0
    pieces = [range(position, removed[0][0])]
    pieces += [range(removed[i][1], removed[i + 1][0]) for i in range(len(removed) - 1)]
    pieces.append(range(removed[-1][1], len(core)))
    for index, piece in enumerate(pieces):
        runs = positioned_runs(core, piece)
        if index > 0:
            previous = placed[-1] if placed else None
            following = runs.pop(0) if runs else None
            next_role = None if following is None else caller_role(core[following[1][0]])
            groups = seam_groups(
                None if previous is None else previous.role, notice and index == 1, next_role
            )
            for items in groups:
                if items[0] == PREV:
                    assert previous is not None
                    target, items = previous, items[1:]
                else:
                    role = next_role if NEXT in items and next_role is not None else "user"
                    target = Placed(role, [], [])
                    placed.append(target)
                for item in items:
                    if item == NOTICE:
                        target.runs.append(None)
                        target.positions.append([])
                    elif following is not None:
                        target.runs.append(following[0])
                        target.positions.append(following[1])
        placed.extend(Placed(caller_role(core[where[0]]), [run], [where]) for run, where in runs)
    return placed


def positioned_runs(core: Sequence[Message], positions: range) -> list[tuple[Run, list[int]]]:
    """The runs of a stretch of kept core positions (`kept_runs`), each with its positions."""
    runs: list[tuple[Run, list[int]]] = []
    for position in positions:
        message = core[position]
        source = position if message.source is None else message.source
        if runs and runs[-1][0][0] == source:
            runs[-1][0][1].extend(message.blocks)
            runs[-1][1].append(position)
        else:
            runs.append(((source, list(message.blocks)), [position]))
    return runs


def notice_block(text: str) -> JsonObject:
    return {"text": text}


def notice_message(text: str) -> JsonObject:
    return {"role": "user", "content": [notice_block(text)]}


def write(
    callers: CallerMessages, core: Sequence[Message], removed: Removed, notice: str | None
) -> list[Any]:
    """The kept core messages regrouped into caller messages as `layout` lays them out: the
    notice beside (or inside) a user message, no two neighbours of one role that a removal put
    side by side."""
    if not removed:
        return callers.verbatim_slice(0, len(callers))
    return [
        written(callers, message.runs, notice or "")
        for message in layout(core, removed, notice is not None)
    ]


def written(callers: CallerMessages, runs: list[Run | None], notice: str) -> Any:
    """One window message from the runs it holds (None: the notice), in order: the first caller
    message's fields, every run's kept blocks and the notice's text block, in order."""
    kept = [run for run in runs if run is not None]
    if not kept:
        return notice_message(notice)
    sources = {source for source, _ in kept}
    if len(kept) == len(runs) and len(sources) == 1:  # one caller message, no notice
        held = [block for _, blocks in kept for block in blocks]
        return callers.with_blocks(kept[0][0], held, BLOCKS)
    content: list[Any] = []
    for run in runs:
        if run is None:
            content.append(notice_block(notice))
        else:
            blocks = callers[run[0]][BLOCKS]
            if isinstance(blocks, str):  # a plain string is one text block once it has company
                content.append({"text": blocks})
            else:
                content.extend(blocks[block] for block in sorted(run[1]))
    return {**callers[kept[0][0]], BLOCKS: content}


def user_text_after(window: list[Any], text: str) -> list[Any]:
    """`window` with a text of the service's own after it: the last block of a user message that
    ends it, else a user message of its own (Converse requires alternating roles)."""
    last = window[-1] if window else None
    content = last.get("content") if isinstance(last, dict) else None
    if isinstance(last, dict) and last.get("role") == "user" and isinstance(content, list):
        return [*window[:-1], {**last, "content": [*content, notice_block(text)]}]
    return [*window, notice_message(text)]


def place(callers: CallerMessages, core: Sequence[Message], plan: WindowPlan) -> WindowPlan:
    """The plan with `messages_after`, the notice's and each shaped result's `window_index` as
    `write` lays the window out (the core counts the notice as a message of its own and merges
    nothing)."""
    if not plan.removed:
        return plan
    placed = layout(core, plan.removed, plan.notice is not None)
    at: dict[int, int] = {}
    notice_at = None
    for number, message in enumerate(placed):
        for run, positions in zip(message.runs, message.positions, strict=True):
            if run is None:
                notice_at = number
            for position in positions:
                at[position] = number
    stats = dataclasses.replace(plan.stats, messages_after=len(placed))
    notice = plan.notice
    if notice is not None and notice_at is not None:
        notice = dataclasses.replace(notice, window_index=notice_at)
    shaped = plan.shaped
    if shaped is not None:
        shaped = placed_entries(shaped, plan.shaped_results, core, at)
    return dataclasses.replace(plan, stats=stats, notice=notice, shaped=shaped)


def placed_entries(
    shaped: tuple[ShapedEntry, ...],
    results: Sequence[ShapedResult],
    core: Sequence[Message],
    at: Mapping[int, int],
) -> tuple[ShapedEntry, ...]:
    """Each shaped entry with the window index of the message holding its result (None: it
    left); an image replacement's entry, one per caller message (the results of one caller
    message come together, its image replacements after them), by its first core message."""
    firsts: list[int] = []
    merged: int | None = None  # the caller message whose image entry is the last one
    for result in results:
        source = core[result.index].source
        caller = result.index if source is None else source
        if result.action == "image-cleared":
            if merged == caller:
                continue
            merged = caller
        else:
            merged = None
        firsts.append(result.index)
    return tuple(
        dataclasses.replace(entry, window_index=at.get(first))
        for entry, first in zip(shaped, firsts, strict=True)
    )


def result_has_parts(callers: CallerMessages, message: Message) -> bool:
    """Whether a `toolResult`'s content holds an image, document, video or audio block."""
    source = message.source
    content = callers[source].get("content") if source is not None else None
    if not isinstance(content, list):
        return False
    for position in message.blocks:  # the `toolResult`, and blocks that ride with it
        result = content[position].get("toolResult") if is_object(content[position]) else None
        if is_object(result):
            return holds_non_text(
                result.get("content"),
                lambda part: not (is_object(part) and any(kind in part for kind in MEDIA_KINDS)),
            )
    return False


def clear_images(
    callers: CallerMessages, core: Sequence[Message], indices: Collection[int]
) -> CallerMessages:
    """The messages with each `image` block of the given core messages (one riding with a text or
    a result, or in a `toolResult`'s content) replaced by a `{"text": IMAGE_REMOVED_TEXT}` block
    (docs/rules.md#images). The text is a core message of its own when the window is read again,
    one the service wrote, so it is never taken for a person's request."""
    return with_blocks_cleared(callers, core, indices, BLOCKS, block_without_images)


def block_without_images(block: Any) -> Any:
    if type(block) is not dict:
        return block
    if IMAGE in block:
        return {"text": IMAGE_REMOVED_TEXT}
    result = block.get("toolResult")
    if type(result) is not dict:
        return block
    content = result.get("content")
    cleared = replaced_parts(content, image_as_text)
    return block if cleared is content else {**block, "toolResult": {**result, "content": cleared}}


def image_as_text(item: Any) -> Any:
    if type(item) is dict and IMAGE in item:
        return {"text": IMAGE_REMOVED_TEXT}
    return item


def system_signal(system: Any) -> bool:
    """Rule 6: a top-level system prompt that is a non-empty array of blocks with no `type`."""
    return (
        isinstance(system, list)
        and bool(system)
        and all(is_object(block) and "type" not in block for block in system)
    )


def reasoning(callers: CallerMessages, message: Message) -> list[ReasoningPart]:
    """The `reasoningContent` blocks of an assistant message (the characters of a
    `reasoningText`'s `text`; `redactedContent` 0), unless its blocks are all reasoning
    (docs/rules.md#images-and-thinking)."""
    return block_parts(callers, message, BLOCKS, reasoning_chars)


def reasoning_chars(block: Any) -> int | None:
    if type(block) is not dict or "reasoningContent" not in block:
        return None
    content = block["reasoningContent"]
    text = content.get("reasoningText") if type(content) is dict else None
    return text_chars(text.get("text")) if type(text) is dict else 0


def read_alone(value: Any, index: int) -> list[Message]:
    """The core messages of caller message `index`, read alone (every message is)."""
    return read_with_blocks([value], read_plain, read_message, index)


def parts_recall_text(callers: CallerMessages, message: Message) -> str:
    """The blocks a user or tool message holds as their text (a `toolResult`'s own `text` and
    compact `json` blocks), each `image` as `[image]`, each document, video or audio as `[file]`;
    `cachePoint` and `guardContent` write nothing."""
    content = field_of(callers, message, BLOCKS)
    if not isinstance(content, list):
        return message.content
    return joined((content[position] for position in message.blocks), recall_piece)


def recall_piece(block: Any) -> str:
    if not is_object(block):
        return ""
    if "text" in block:
        return string_at(block, "text")
    if "json" in block:
        return orjson.dumps(block["json"]).decode()
    result = block.get("toolResult")
    if is_object(result):
        inner = result.get("content")
        return joined(inner, recall_piece) if isinstance(inner, list) else ""
    if IMAGE in block:
        return IMAGE_MARK
    return FILE_MARK if any(kind in block for kind in MEDIA_KINDS) else ""


def tool_spec(name: str, description: str, parameters: dict[str, Any]) -> JsonObject:
    """A tool as a Converse request declares it: an entry of `toolConfig.tools`."""
    return {
        "toolSpec": {"name": name, "description": description, "inputSchema": {"json": parameters}}
    }


DIALECT = Dialect(
    "bedrock",
    read,
    write,
    with_result_texts,
    notice_message,
    signals=Signals(typeless_block_keys=SIGNAL_KEYS, system=system_signal),
    read_alone=read_alone,
    has_non_text_part=has_non_text_part,
    result_has_parts=result_has_parts,
    system_text=system_text,
    system_problem=system_problem,
    place=place,
    user_text_after=user_text_after,
    request_keys=("system", "messages"),
    blocks_key=BLOCKS,
    clear_images=clear_images,
    reasoning=reasoning,
    remove_reasoning=blocks_remover(BLOCKS),
    recall_text=recall_text_with(parts_recall_text),
    declare_tool=tool_spec,
)
