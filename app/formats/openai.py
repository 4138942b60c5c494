"""OpenAI Chat Completions messages, read into the core model and written back verbatim.

Messages map one to one, so the window is a splice of the caller's own objects. `system` and
`developer` are both the system envelope; content is a string or an array of parts whose `text`
(and, on assistant messages, `refusal`) strings are joined, while images, audio, files and part
types this version does not know add no characters. An `image_url` part of a user or tool message
is an image counted by OpenAI's rule (`docs/rules.md#images`): a base64 `data:` URL by its header,
any other URL at the unknown size; a part whose `image_url` is malformed still counts (at the
unknown size), so an odd part costs tokens rather than a refusal. A `file` part there counts a
fixed number of tokens (`docs/rules.md#the-tokens-of-a-message`). A plan that clears images has
each written back as a text part (`clear_images`). A tool message carries no tool name on this
wire: the planner recovers it from the call with the same id. The legacy function-calling shape
(`function` role, `function_call` field) is refused rather than guessed at, so no call or result
is ever silently lost.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from app.core.images import IMAGE_REMOVED_TEXT, Image, url_image
from app.core.messages import Message, Role, ToolCall, from_fields
from app.formats.callers import CallerMessages
from app.formats.cleared import replaced_parts, with_messages_cleared
from app.formats.dialect import Signals
from app.formats.extras import DOCUMENT_TOKENS
from app.formats.fields import (
    JsonObject,
    Loc,
    Problems,
    flag,
    holds_non_text,
    is_object,
    joined_text,
    present,
    read_calls,
    required_id,
    required_name,
    role_of,
    unknown_role,
)
from app.formats.native import function_tool
from app.formats.recall_texts import (
    FILE_MARK,
    IMAGE_MARK,
    field_of,
    joined,
    recall_text_with,
    string_at,
)
from app.formats.whole import one_to_one_dialect

ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
}
TEXT_PARTS = {"text": "text"}
FILE = "file"
ASSISTANT_PARTS = {"text": "text", "refusal": "refusal"}
CALL_TYPES = ("function", "custom")
# Where each call type keeps what the model wrote for the tool (counted as its arguments).
ARGUMENTS_KEYS = {"function": "arguments", "custom": "input"}
USE_TOOL_CALLS = "use 'tool_calls' on assistant messages and 'tool' messages that answer them"


def read_plain(message: JsonObject, index: int) -> Message | None:
    """The core message of an ordinary, well-formed message, or None.

    Nearly every message of a real transcript takes this path, which reads each field once with
    exact type tests: string content, function calls, no legacy fields. Anything else returns None
    and is read again by `read_message`, which applies every check and names every violation, so
    this path only recognises what is plainly valid.
    """
    get = message.get
    role = get("role")
    content = get("content")
    injected = get("injected", False)
    if (injected is not True and injected is not False) or get("function_call") is not None:
        return None
    items = get("tool_calls")
    if role == "tool":
        call_id = get("tool_call_id")
        not_dispatched = get("not_dispatched", False)
        if (
            items is not None
            or type(content) is not str
            or type(call_id) is not str
            or not call_id
            or (not_dispatched is not True and not_dispatched is not False)
        ):
            return None
        return from_fields(
            Message,
            (
                "tool",
                content,
                (),
                call_id,
                None,
                injected,
                not_dispatched,
                index,
                (),
                None,
                (),
                (),
                0,
            ),
        )
    if role == "assistant":
        if content is None:
            content = ""
        elif type(content) is not str:
            return None
        calls: tuple[ToolCall, ...] = ()
        if items is not None:
            if type(items) is not list:
                return None
            found = []
            for item in items:
                if type(item) is not dict or item.get("type") != "function":
                    return None
                call_id = item.get("id")
                function = item.get("function")
                if type(call_id) is not str or not call_id or type(function) is not dict:
                    return None
                name = function.get("name")
                if type(name) is not str:
                    return None
                found.append(
                    from_fields(ToolCall, (call_id, name, None, function.get("arguments", "")))
                )
            calls = tuple(found)
        return from_fields(
            Message,
            ("assistant", content, calls, None, None, injected, False, index, (), None, (), (), 0),
        )
    if (role == "user" or role == "system" or role == "developer") and type(content) is str:
        if items is not None:
            return None
        core_role: Role = "user" if role == "user" else "system"
        return from_fields(
            Message,
            (core_role, content, (), None, None, injected, False, index, (), None, (), (), 0),
        )
    return None


def read_message(message: JsonObject, index: int, problems: Problems) -> Message | None:
    role = role_of(message, index, problems)
    injected = flag(message, "injected", (index, "injected"), problems)
    if present(message, "function_call"):
        problems.add(
            (index, "function_call"), f"'function_call' is not supported: {USE_TOOL_CALLS}"
        )
    if role is None:
        return None
    if role == "function":
        problems.add(
            (index, "role"),
            f"the 'function' role is not supported: {USE_TOOL_CALLS}",
            "invalid_role",
        )
        return None
    core_role = ROLES.get(role)
    if core_role is None:
        unknown_role(role, tuple(ROLES), (index, "role"), problems)
        return None
    calls = read_calls(message, role, index, problems, call_of)
    content = read_content(message, role, index, problems)
    if core_role == "assistant" or core_role == "system":  # their parts count no image, no file
        return Message(core_role, content, calls, injected=injected, source=index)
    images = content_images(message.get("content"))
    files = content_files(message.get("content"))
    if core_role == "user":
        return Message(
            "user",
            content,
            calls,
            injected=injected,
            source=index,
            images=images,
            extra_tokens=files,
        )
    return Message(
        "tool",
        content,
        tool_call_id=required_id(message, "tool_call_id", (index, "tool_call_id"), problems),
        injected=injected,
        not_dispatched=flag(message, "not_dispatched", (index, "not_dispatched"), problems),
        source=index,
        images=images,
        extra_tokens=files,
    )


def content_images(content: Any) -> tuple[Image, ...]:
    """The images of a content array's `image_url` parts, in order (none for string content).

    The fast path reads string content only, so every message with parts comes here."""
    if type(content) is not list:
        return ()
    return tuple(
        part_image(part)
        for part in content
        if type(part) is dict and part.get("type") == "image_url"
    )


def content_files(content: Any) -> int:
    """The fixed count of a content array's `file` parts (`file_data` or `file_id`: never sent
    as text)."""
    if type(content) is not list:
        return 0
    return DOCUMENT_TOKENS * sum(
        1 for part in content if type(part) is dict and part.get("type") == FILE
    )


def part_image(part: JsonObject) -> Image:
    """`{"type": "image_url", "image_url": {"url", "detail"?}}`; a bare URL string is read too."""
    spec = part.get("image_url")
    if is_object(spec):
        return url_image("openai", spec.get("url"), spec.get("detail"))
    return url_image("openai", spec)


def read_content(message: JsonObject, role: str, index: int, problems: Problems) -> str:
    """A string or an array of parts; null or absent only on an assistant message (one that
    only makes calls)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        counted = ASSISTANT_PARTS if role == "assistant" else TEXT_PARTS
        return joined_text(content, counted, (index, "content"), problems)
    if content is None and role == "assistant":
        return ""
    if "content" not in message:
        problems.add((index, "content"), f"a '{role}' message needs content", "missing")
    else:
        problems.add((index, "content"), "content must be a string or an array of content parts")
    return ""


def call_of(item: JsonObject, loc: Loc, problems: Problems) -> tuple[str, object] | None:
    """The name and the arguments (`function.arguments`, `custom.input`) inside the call's
    `function` (or `custom`) object; None when the call has none."""
    call_type = item.get("type")
    if call_type not in CALL_TYPES:
        refuse_call_type(item, loc, problems)
        return None
    spec = item.get(call_type)
    if not is_object(spec):
        kind = "missing" if call_type not in item else "dict_type"
        problems.add((*loc, call_type), f"a '{call_type}' call needs a '{call_type}' object", kind)
        return None
    name = required_name(spec, "name", (*loc, call_type, "name"), problems)
    return name, spec.get(ARGUMENTS_KEYS[call_type], "")


def refuse_call_type(item: JsonObject, loc: Loc, problems: Problems) -> None:
    if "type" not in item:
        problems.add(
            (*loc, "type"), "a tool call needs a 'type' ('function' or 'custom')", "missing"
        )
        return
    shown = f"'{item['type']}'" if isinstance(item["type"], str) else "a non-string type"
    problems.add(
        (*loc, "type"), f"tool calls of {shown} are not supported: use 'function' or 'custom'"
    )


def has_non_text_part(callers: CallerMessages, message: Message) -> bool:
    """Whether the caller message's content holds a part other than text (image, audio, file)."""
    source = message.source
    content = callers[source].get("content") if source is not None else None
    if not isinstance(content, list):
        return False
    return any(not (isinstance(part, dict) and part.get("type") == "text") for part in content)


def result_has_parts(callers: CallerMessages, message: Message) -> bool:
    """Whether a tool message's content holds a part other than text (an image, a file)."""
    source = message.source
    item = callers[source] if source is not None else None
    return is_object(item) and holds_non_text(item.get("content"), is_text_part)


def is_text_part(part: Any) -> bool:
    return is_object(part) and part.get("type") == "text"


def clear_images(
    callers: CallerMessages, core: Sequence[Message], indices: Collection[int]
) -> CallerMessages:
    """The messages with each `image_url` part of the given core messages' content replaced by
    a text part holding `IMAGE_REMOVED_TEXT` (docs/rules.md#images)."""
    return with_messages_cleared(callers, core, indices, message_without_images)


def message_without_images(message: Any) -> Any:
    content = message.get("content") if is_object(message) else None
    parts = replaced_parts(content, part_without_image)
    return message if parts is content else {**message, "content": parts}


def part_without_image(part: Any) -> Any:
    if type(part) is dict and part.get("type") == "image_url":
        return {"type": "text", "text": IMAGE_REMOVED_TEXT}
    return part


def parts_recall_text(callers: CallerMessages, message: Message) -> str:
    """A user or tool message's text with each `image_url` part as `[image]` and every other
    part that is not text (audio, a file) as `[file]`, where it stood."""
    content = field_of(callers, message, "content")
    if not isinstance(content, list):
        return message.content
    return joined(content, recall_piece)


def recall_piece(part: Any) -> str:
    part_type = part.get("type") if is_object(part) else None
    if part_type == "text":
        return string_at(part, "text")
    return IMAGE_MARK if part_type == "image_url" else FILE_MARK


DIALECT = one_to_one_dialect(
    "openai",
    read_plain,
    read_message,
    signals=Signals(call_keys=("function",), weak_roles=("developer",), weak_list_content=True),
    has_non_text_part=has_non_text_part,
    result_has_parts=result_has_parts,
    clear_images=clear_images,
    recall_text=recall_text_with(parts_recall_text),
    # Chat Completions' own shape, which the native format took.
    declare_tool=function_tool,
)
