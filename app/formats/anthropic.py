"""Anthropic Messages, read block by block into core messages and merged back on writing.

One caller message can hold several core messages: a user message answers calls with
`tool_result` blocks (each one a core `tool` message that belongs to the previous assistant's
turn) and may also say something new (one core `user` message). Every core message remembers its
caller index (`source`) and the block indices it holds (`blocks`), so a window is written by
regrouping the kept core messages: consecutive ones from the same caller message become that
message again, holding only their blocks, each block the caller's own object. Blocks that carry no
text (images, documents, thinking, server-tool blocks, types this version does not know) add no
characters and travel with their message. An `image` block, in a user message or inside a
`tool_result`'s content, is an image its core message carries, counted by Claude's rule
(`docs/rules.md#images`): a `base64` source by its header, a `url` or `file` source at the unknown
size; one in the model's own message counts nothing. What the provider reads with no core text
counts tokens too (`docs/rules.md#the-tokens-of-a-message`): a `document` block there (its text
when sent as text, else a fixed count), and a server tool's result block in an assistant message
(its compact JSON). A plan that clears images has them written back as text blocks
(`clear_images`). The top-level `system` prompt is outside `messages` and
is not read here.

The provider's own summary of the run (a `compaction` block whose `content` is a non-empty string)
is the one block that splits an assistant message: the last such block of the transcript is a
compaction artifact, a core `system` message of its own (so it is never removed), with the blocks
before it and the blocks after it each a core assistant message when there are any. Earlier
summaries, and failed compactions (`content` null or `""`), are superseded and add nothing, as a
thinking block (`docs/rules.md#provider-compaction`). The Messages API reads nothing before
that artifact, so the format names it as where its provider starts reading (`artifact_position`):
the current request and the pins are looked for only after it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from app.core.images import IMAGE_REMOVED_TEXT, Image, base64_image
from app.core.messages import Message, Role, ToolCall, from_fields
from app.formats.blocks import regrouping_writer, with_blocks_rewritten
from app.formats.callers import CallerMessages
from app.formats.cleared import replaced_parts, with_blocks_cleared
from app.formats.dialect import Dialect, Signals
from app.formats.extras import Extras, item_text
from app.formats.fields import (
    JsonObject,
    Loc,
    Problems,
    flag,
    holds_non_text,
    is_object,
    joined_text,
    part_text,
    part_type_of,
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
TEXT_BLOCKS = {"text": "text"}
BLOCKS = "content"  # where a message keeps its blocks
COMPACTION = "compaction"
IMAGE = "image"
DOCUMENT = "document"
# A server tool's result block answered inside the assistant message that called it (the API's
# `web_search_tool_result`, `web_fetch_tool_result`, `code_execution_tool_result`,
# `bash_code_execution_tool_result`, `text_editor_code_execution_tool_result`,
# `tool_search_tool_result`, `mcp_tool_result`, …): its type ends so, and a type the API adds later
# is read the same way.
SERVER_RESULT_SUFFIX = "_tool_result"
# The block types only this format sends (docs/rules.md#auto, rule 4).
SIGNAL_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", COMPACTION})


def read(raw: list[Any]) -> list[Message]:
    """The core transcript of Anthropic `messages`; raises InvalidRequest naming every
    violation."""
    artifact = LastArtifact(raw)

    def read_checked(
        message: JsonObject, index: int, problems: Problems, out: list[Message]
    ) -> None:
        read_message(message, index, problems, out, artifact)

    return read_with_blocks(raw, read_plain, read_checked)


def is_summary(block: Any) -> bool:
    """A `compaction` block holding the provider's summary (its `content` a non-empty string)."""
    if type(block) is not dict or block.get("type") != COMPACTION:
        return False
    content = block.get("content")
    return isinstance(content, str) and content != ""


class LastArtifact:
    """Where the transcript's compaction artifact is: the last summary block of an assistant
    message, as (caller index, block index), or None.

    Looked for only when a reader meets a summary, from the end of the transcript back to that
    message: a transcript without one pays nothing, and the quick path hands every message with a
    `compaction` block to `read_message`, so the first summary met is the first of the transcript.
    """

    __slots__ = ("found", "raw", "searched")

    def __init__(self, raw: Sequence[Any]) -> None:
        self.raw = raw
        self.searched = False
        self.found: tuple[int, int] | None = None

    def is_at(self, index: int, position: int) -> bool:
        if not self.searched:
            self.found = last_summary(self.raw, index)
            self.searched = True
        return self.found == (index, position)


def last_summary(raw: Sequence[Any], stop: int) -> tuple[int, int] | None:
    """(caller index, block index) of the last summary block of an assistant message at or after
    caller message `stop`, or None."""
    for index in range(len(raw) - 1, stop - 1, -1):
        message = raw[index]
        if not is_object(message) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for position in range(len(content) - 1, -1, -1):
            if is_summary(content[position]):
                return index, position
    return None


def holds_compaction(message: Any) -> bool:
    """Whether an assistant message holds a `compaction` block (read only with the whole
    transcript at hand: whether it is the artifact depends on the messages after it)."""
    if not is_object(message) or message.get("role") != "assistant":
        return False
    content = message.get("content")
    return isinstance(content, list) and any(
        is_object(block) and block.get("type") == COMPACTION for block in content
    )


# A message read alone holds no compaction block (`read_alone`), so no artifact is looked for.
NO_ARTIFACT = LastArtifact(())


def read_alone(value: Any, index: int) -> list[Message] | None:
    """The core messages of caller message `index` alone; None when it is an assistant message
    holding a `compaction` block, whose reading depends on the messages after it."""
    if holds_compaction(value):
        return None
    return read_with_blocks([value], read_plain, read_without_artifact, index)


def read_without_artifact(
    message: JsonObject, index: int, problems: Problems, out: list[Message]
) -> None:
    read_message(message, index, problems, out, NO_ARTIFACT)


def read_plain(message: JsonObject, index: int, out: list[Message]) -> bool:
    """Append the core messages of an ordinary, well-formed message to `out`; False otherwise.

    Nearly every message of a real transcript takes this path, which reads each block once with
    exact type tests. Anything unusual (a block without a string type, a tool_result whose content
    is not a string, a call without an id, a misplaced block) returns False with `out` unchanged,
    and `read_message` reads the message again with every check, naming every violation; so does
    a `compaction` block, which only `read_message` places.
    """
    get = message.get
    role = get("role")
    content = get("content")
    injected = get("injected", False)
    if injected is not True and injected is not False:
        return False
    if type(content) is str:
        if role != "user" and role != "assistant":
            return False
        out.append(
            from_fields(
                Message,
                (role, content, (), None, None, injected, False, index, (), None, (), (), 0),
            )
        )
        return True
    if type(content) is not list:
        return False
    pieces: list[str] = []
    if role == "assistant":
        calls: list[ToolCall] = []
        server: list[str] = []
        for block in content:
            if type(block) is not dict:
                return False
            block_type = block.get("type")
            if block_type == "text":
                text = block.get("text")
                if type(text) is not str:
                    return False
                pieces.append(text)
            elif block_type == "tool_use":
                call_id = block.get("id")
                name = block.get("name")
                if type(call_id) is not str or not call_id or type(name) is not str:
                    return False
                calls.append(from_fields(ToolCall, (call_id, name, None, block.get("input", ""))))
            elif (
                block_type == "tool_result"
                or block_type == COMPACTION
                or type(block_type) is not str
            ):
                return False
            elif block_type.endswith(SERVER_RESULT_SUFFIX):
                server.append(item_text(block))
        text = "".join(pieces)
        blocks = tuple(range(len(content)))
        out.append(
            from_fields(
                Message,
                (
                    "assistant",
                    text,
                    tuple(calls),
                    None,
                    None,
                    injected,
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
    if role != "user":
        return False
    results: list[Message] = []
    user_blocks: list[int] = []
    images: list[Image] = []
    extras: Extras | None = None
    for position, block in enumerate(content):
        if type(block) is not dict:
            return False
        block_type = block.get("type")
        if block_type == "tool_result":
            call_id = block.get("tool_use_id")
            body = block.get("content", "")
            not_dispatched = block.get("not_dispatched", False)
            if (
                type(call_id) is not str
                or not call_id
                or type(body) is not str
                or (not_dispatched is not True and not_dispatched is not False)
            ):
                return False
            results.append(
                from_fields(
                    Message,
                    (
                        "tool",
                        body,
                        (),
                        call_id,
                        None,
                        False,
                        not_dispatched,
                        index,
                        (position,),
                        None,
                        (),
                        (),
                        0,
                    ),
                )
            )
            continue
        if block_type == "text":
            text = block.get("text")
            if type(text) is not str:
                return False
            pieces.append(text)
        elif block_type == IMAGE:
            images.append(block_image(block))
        elif block_type == DOCUMENT:
            if extras is None:
                extras = Extras()
            extras.document(document_text(block))
        elif block_type == "tool_use" or type(block_type) is not str:
            return False
        user_blocks.append(position)
    out.extend(results)
    if user_blocks or not content:
        text = "".join(pieces)
        texts, tokens = ((), 0) if extras is None else extras.fields()
        out.append(
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
                    tuple(user_blocks),
                    None,
                    tuple(images),
                    texts,
                    tokens,
                ),
            )
        )
    return True


def read_message(
    message: JsonObject,
    index: int,
    problems: Problems,
    out: list[Message],
    artifact: LastArtifact,
) -> None:
    """Append the core messages of caller message `index` to `out`; `artifact` says where the
    transcript's compaction artifact is."""
    role = role_of(message, index, problems)
    injected = flag(message, "injected", (index, "injected"), problems)
    if role is None:
        return
    core_role = ROLES.get(role)
    if core_role is None:
        unknown_role(role, tuple(ROLES), (index, "role"), problems)
        return
    content = message.get("content")
    if isinstance(content, str):
        out.append(Message(core_role, content, injected=injected, source=index))
    elif not isinstance(content, list):
        refuse_content(message, index, problems)
    elif role == "assistant":
        out.extend(read_assistant(content, index, injected, problems, artifact))
    else:
        out.extend(read_user(content, index, injected, problems))


def refuse_content(message: JsonObject, index: int, problems: Problems) -> None:
    if "content" not in message:
        problems.add((index, "content"), "a message needs content", "missing")
    else:
        problems.add((index, "content"), "content must be a string or an array of content blocks")


def read_assistant(
    content: list[Any], index: int, injected: bool, problems: Problems, artifact: LastArtifact
) -> list[Message]:
    """Text blocks joined, `tool_use` blocks as calls, server tools' result blocks as extra texts;
    every other block adds nothing (an image in the model's own message is not counted). The
    compaction artifact is a core `system` message of its own (its summary the text), between
    the assistant message of the blocks before it and that of the blocks after it, each one
    there only when it holds a block (one assistant message when the message holds no block)."""
    out: list[Message] = []
    pieces: list[str] = []
    calls: list[ToolCall] = []
    server: list[str] = []
    held: list[int] = []
    for position, block in enumerate(content):
        loc = (index, "content", position)
        block_type = part_type_of(block, loc, problems)
        if block_type == "text":
            pieces.append(part_text(block, "text", loc, problems))
        elif block_type == "tool_use":
            call_id = required_id(block, "id", (*loc, "id"), problems)
            name = required_name(block, "name", (*loc, "name"), problems)
            calls.append(ToolCall(call_id, name, None, block.get("input", "")))
        elif block_type == "tool_result":
            problems.add(loc, "a 'tool_result' block answers a call: it belongs in a user message")
        elif block_type.endswith(SERVER_RESULT_SUFFIX):
            server.append(item_text(block))
        elif block_type == COMPACTION:
            summary = compaction_summary(block, loc, problems)
            if summary and artifact.is_at(index, position):
                if held:
                    out.append(assistant_part(pieces, calls, held, index, injected, server))
                    pieces, calls, held, server = [], [], [], []
                out.append(Message("system", summary, source=index, blocks=(position,)))
                continue
        held.append(position)
    if held or not out:
        out.append(assistant_part(pieces, calls, held, index, injected, server))
    return out


def assistant_part(
    pieces: list[str],
    calls: list[ToolCall],
    held: list[int],
    index: int,
    injected: bool,
    server: list[str],
) -> Message:
    return Message(
        "assistant",
        "".join(pieces),
        tuple(calls),
        injected=injected,
        source=index,
        blocks=tuple(held),
        extra_texts=tuple(server),
    )


def compaction_summary(block: JsonObject, loc: Loc, problems: Problems) -> str:
    """A `compaction` block's summary: its `content` string; "" for a failed compaction (null,
    absent or `""`)."""
    content = block.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    problems.add(
        (*loc, "content"),
        "a compaction block's content must be a string (the summary) or null",
        "string_type",
    )
    return ""


def read_user(content: list[Any], index: int, injected: bool, problems: Problems) -> list[Message]:
    """One core tool message per `tool_result` block, in block order, then one core user message
    holding every other block, or the empty message itself."""
    messages: list[Message] = []
    pieces: list[str] = []
    images: list[Image] = []
    extras = Extras()
    user_blocks: list[int] = []
    for position, block in enumerate(content):
        loc = (index, "content", position)
        block_type = part_type_of(block, loc, problems)
        if block_type == "tool_result":
            messages.append(read_tool_result(block, index, position, problems))
            continue
        user_blocks.append(position)
        if block_type == "text":
            pieces.append(part_text(block, "text", loc, problems))
        elif block_type == IMAGE:
            images.append(block_image(block))
        elif block_type == DOCUMENT:
            extras.document(document_text(block))
        elif block_type == "tool_use":
            problems.add(loc, "a 'tool_use' block is a call: it belongs in an assistant message")
    if user_blocks or not content:
        texts, tokens = extras.fields()
        messages.append(
            Message(
                "user",
                "".join(pieces),
                injected=injected,
                source=index,
                blocks=tuple(user_blocks),
                images=tuple(images),
                extra_texts=texts,
                extra_tokens=tokens,
            )
        )
    return messages


def read_tool_result(block: JsonObject, index: int, position: int, problems: Problems) -> Message:
    loc = (index, "content", position)
    content = block.get("content")
    texts, tokens = blocks_documents(content)
    return Message(
        "tool",
        tool_result_text(block, loc, problems),
        tool_call_id=required_id(block, "tool_use_id", (*loc, "tool_use_id"), problems),
        not_dispatched=flag(block, "not_dispatched", (*loc, "not_dispatched"), problems),
        source=index,
        blocks=(position,),
        images=blocks_images(content),
        extra_texts=texts,
        extra_tokens=tokens,
    )


def block_image(block: JsonObject) -> Image:
    """An `image` block: its `base64` source's data, else (a `url` or `file` source, or one this
    version does not know) an image of unknown size."""
    source = block.get("source")
    if is_object(source) and source.get("type") == "base64":
        return base64_image("anthropic", source.get("data"))
    return Image("anthropic")


def blocks_images(content: Any) -> tuple[Image, ...]:
    """The images of a `tool_result`'s content blocks (none for string content)."""
    if type(content) is not list:
        return ()
    return tuple(
        block_image(block)
        for block in content
        if type(block) is dict and block.get("type") == IMAGE
    )


def document_text(block: JsonObject) -> str | None:
    """A `document` block's text when it was sent as text: a `text` source's `data`, or a
    `content` source's string or its text blocks joined; None for a PDF, a URL or a file id."""
    source = block.get("source")
    if not is_object(source):
        return None
    kind = source.get("type")
    if kind == "text":
        data = source.get("data")
        return data if isinstance(data, str) else None
    if kind == "content":
        content = source.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(
                block["text"]
                for block in content
                if is_text_block(block) and isinstance(block.get("text"), str)
            )
    return None


def blocks_documents(content: Any) -> tuple[tuple[str, ...], int]:
    """The extra texts and fixed count of a `tool_result`'s `document` blocks (none for string
    content)."""
    if type(content) is not list:
        return (), 0
    extras = Extras()
    for block in content:
        if type(block) is dict and block.get("type") == DOCUMENT:
            extras.document(document_text(block))
    return extras.fields()


def tool_result_text(block: JsonObject, loc: Loc, problems: Problems) -> str:
    """Its string content, or its text blocks joined, or "" when it has no content."""
    if "content" not in block:
        return ""
    content = block["content"]
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return joined_text(content, TEXT_BLOCKS, (*loc, "content"), problems)
    problems.add(
        (*loc, "content"), "a tool_result's content must be a string or an array of blocks"
    )
    return ""


def system_text(system: Any) -> str | None:
    """The text of the top-level system prompt: the string, or its text blocks' text joined;
    None when none was sent.

    The prompt is validated before this is read (a string, text blocks, or null = none).
    """
    if system is None or isinstance(system, str):
        return system
    return "".join(block["text"] for block in system)


def has_non_text_part(callers: CallerMessages, message: Message) -> bool:
    """Whether the core message holds a block other than text (an image, a document, …)."""
    source = message.source
    content = callers[source].get("content") if source is not None else None
    if not isinstance(content, list):
        return False
    return any(
        not (isinstance(content[block], dict) and content[block].get("type") == "text")
        for block in message.blocks
    )


def notice_message(text: str) -> JsonObject:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def with_result_texts(
    callers: CallerMessages, core: Sequence[Message], texts: Mapping[int, str]
) -> CallerMessages:
    """The caller's messages with each shaped result's `tool_result` block's `content` replaced by
    its new text (copies of that block and message, every other key as sent)."""
    return with_blocks_rewritten(callers, core, texts, BLOCKS, result_with_text)


def result_with_text(block: JsonObject, text: str) -> JsonObject:
    return {**block, "content": text}


# The kept core messages regrouped into caller messages, the notice where the range was.
write = regrouping_writer(notice_message, BLOCKS)


def system_problem(system: Any) -> str | None:
    """Why `system` is not an Anthropic system prompt (a string or an array of text blocks)."""
    if isinstance(system, str):
        return None
    if isinstance(system, list) and all(
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        for block in system
    ):
        return None
    return "an anthropic system prompt is a string or an array of text blocks"


def artifact_position(core: Sequence[Message]) -> int | None:
    """The core index of the compaction artifact, where the Messages API starts reading, or None.

    The artifact is the one core `system` message this format reads (its roles are `user` and
    `assistant`), so the last `system` message is it; the search runs from the end, where an
    artifact usually is.
    """
    for position in range(len(core) - 1, -1, -1):
        if core[position].role == "system":
            return position
    return None


def result_has_parts(callers: CallerMessages, message: Message) -> bool:
    """Whether a `tool_result` block's content holds a block other than text (an image, …)."""
    source = message.source
    content = callers[source].get("content") if source is not None else None
    if not isinstance(content, list):
        return False
    return any(
        is_object(content[position])
        and content[position].get("type") == "tool_result"
        and holds_non_text(content[position].get("content"), is_text_block)
        for position in message.blocks
    )


def is_text_block(part: Any) -> bool:
    return is_object(part) and part.get("type") == "text"


def any_system(system: Any) -> bool:
    """Rule 6: a top-level system prompt of neither Gemini's nor Bedrock's shape is Anthropic's."""
    return True


def clear_images(
    callers: CallerMessages, core: Sequence[Message], indices: Collection[int]
) -> CallerMessages:
    """The messages with each `image` block of the given core messages (in the message, or in a
    `tool_result`'s content) replaced by a text block holding `IMAGE_REMOVED_TEXT`
    (docs/rules.md#images)."""
    return with_blocks_cleared(callers, core, indices, BLOCKS, block_without_images)


def block_without_images(block: Any) -> Any:
    if type(block) is not dict:
        return block
    block_type = block.get("type")
    if block_type == IMAGE:
        return {"type": "text", "text": IMAGE_REMOVED_TEXT}
    if block_type != "tool_result":
        return block
    content = block.get("content")
    cleared = replaced_parts(content, image_as_text)
    return block if cleared is content else {**block, "content": cleared}


def image_as_text(block: Any) -> Any:
    if type(block) is dict and block.get("type") == IMAGE:
        return {"type": "text", "text": IMAGE_REMOVED_TEXT}
    return block


def reasoning(callers: CallerMessages, message: Message) -> list[ReasoningPart]:
    """The `thinking` and `redacted_thinking` blocks of an assistant message (its visible
    `thinking` text counted; a redacted block 0), unless its blocks are all thinking
    (docs/rules.md#images-and-thinking)."""
    return block_parts(callers, message, BLOCKS, thinking_chars)


def thinking_chars(block: Any) -> int | None:
    if type(block) is not dict:
        return None
    block_type = block.get("type")
    if block_type == "thinking":
        return text_chars(block.get("thinking"))
    if block_type == "redacted_thinking":
        return 0
    return None


def parts_recall_text(callers: CallerMessages, message: Message) -> str:
    """A user message's blocks, or a `tool_result`'s content blocks, as their text with each
    `image` block as `[image]` and every other block (a document, …) as `[file]`."""
    content = field_of(callers, message, BLOCKS)
    if not isinstance(content, list):
        return message.content
    if message.role == "user":
        return joined((content[position] for position in message.blocks), recall_piece)
    result = content[message.blocks[0]]
    inner = result.get("content") if is_object(result) else None
    return joined(inner, recall_piece) if isinstance(inner, list) else message.content


def recall_piece(block: Any) -> str:
    block_type = block.get("type") if is_object(block) else None
    if block_type == "text":
        return string_at(block, "text")
    return IMAGE_MARK if block_type == IMAGE else FILE_MARK


def tool_param(name: str, description: str, parameters: dict[str, Any]) -> JsonObject:
    """A client tool as a Messages request declares it (`tools[]`)."""
    return {"name": name, "description": description, "input_schema": parameters}


DIALECT = Dialect(
    "anthropic",
    read,
    write,
    with_result_texts,
    notice_message,
    signals=Signals(block_types=SIGNAL_BLOCKS, system=any_system),
    read_alone=read_alone,
    has_non_text_part=has_non_text_part,
    result_has_parts=result_has_parts,
    system_text=system_text,
    system_problem=system_problem,
    reading_start=artifact_position,
    request_keys=("system", "messages"),
    blocks_key=BLOCKS,
    clear_images=clear_images,
    reasoning=reasoning,
    remove_reasoning=blocks_remover(BLOCKS),
    recall_text=recall_text_with(parts_recall_text),
    declare_tool=tool_param,
)
