"""OpenAI Responses API `input` items, read into the core model and written back verbatim.

Items are finer than messages: one model response is a run of items (a `reasoning` item, an
assistant message item, `function_call` items, server-side tool items that carry their own
result). A maximal run of such consecutive items is read as ONE core assistant message spanning
them (`source` = its first item, `source_end` = its last), so a reasoning item always leaves or
stays with the calls it precedes, which the API requires. Each call remembers the item that holds
it (`ToolCall.source`), so a diagnostic names that item. Call outputs are core `tool` messages;
message items of the other roles are one core message each. The last `compaction` item (the
provider's encrypted summary of the run) is a core `system` message with no text, so it is never
removed; an earlier one is superseded and read as a reasoning item is, part of its run
(`docs/rules.md#provider-compaction`). Every item maps onto exactly one core message and the
core messages cover the items in order, so a window is a splice of the caller's own items.
`item_reference` (a stored item) cannot be planned and is refused, as is any item type this
version does not know. Images are counted by OpenAI's rule (`docs/rules.md#images`): the
`input_image` parts of user message items and of call outputs, and a `computer_call_output`'s
`computer_screenshot` (which has no `detail`); a base64 `data:` URL by its header, an http URL or a
`file_id` at the unknown size. An assistant run carries no image: its message items hold output
text, and an image part there (which the API does not accept) is not counted. What the provider
reads with no core text counts tokens too (`docs/rules.md#the-tokens-of-a-message`): a shell's or
a patch's output, each server-side tool item of a run (its compact JSON; an image generation's
result as an image of unknown size), and an `input_file` part. A plan that clears images has each
written back as an `input_text` part, never a `computer_call_output`'s screenshot, which the API
requires (`Image.required`). The top-level system prompt is the request's `instructions`, sent in
`system`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

from app.core.images import IMAGE_REMOVED_TEXT, OPENAI_UNKNOWN, Image, url_image
from app.core.messages import Message, Role, ToolCall, from_fields
from app.formats.callers import CallerMessages
from app.formats.cleared import replaced_parts, with_messages_cleared
from app.formats.dialect import Dialect, Removed, Signals
from app.formats.extras import DOCUMENT_TOKENS, IDENTIFYING_KEYS, item_text, output_text
from app.formats.fields import (
    JsonObject,
    Problems,
    flag,
    holds_non_text,
    is_object,
    joined_text,
    required_id,
    required_name,
    role_of,
    unknown_role,
)
from app.formats.reasoning import (
    ReasoningPart,
    placed_without_items,
    text_chars,
    without_items,
)
from app.formats.recall_texts import (
    FILE_MARK,
    IMAGE_MARK,
    joined,
    recall_text_with,
    string_at,
)
from app.formats.whole import notice_message, splice, with_field_texts

MESSAGE = "message"
ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}
# The parts whose strings are a message's text; every other part (input_image, input_file,
# input_audio, types this version does not know) adds nothing and is kept as sent.
TEXT_PARTS = {"input_text": "text", "output_text": "text", "refusal": "refusal"}
OUTPUT_PARTS = {"input_text": "text", "output_text": "text"}
INPUT_IMAGE = "input_image"
INPUT_FILE = "input_file"
SCREENSHOT = "computer_screenshot"
# Calls that are answered by an output item holding text, and the key naming the call.
FUNCTION_CALLS = frozenset({"function_call", "custom_tool_call"})
FUNCTION_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
# The other pairs: the call joins the run as a call named by its item type, the output answers
# it with no text. Each maps to the key that carries the pairing id.
PAIRED_CALLS = {
    "computer_call": "call_id",
    "local_shell_call": "call_id",
    "shell_call": "call_id",
    "apply_patch_call": "call_id",
    "mcp_approval_request": "id",
}
# Where each call item keeps what the model wrote for the tool (counted as its arguments).
CALL_ARGUMENTS = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "computer_call": "action",
    "local_shell_call": "action",
    "shell_call": "action",
    "apply_patch_call": "operation",
    "mcp_approval_request": "arguments",
}
PAIRED_OUTPUTS = {
    "computer_call_output": "call_id",
    "local_shell_call_output": "call_id",
    "shell_call_output": "call_id",
    "apply_patch_call_output": "call_id",
    "mcp_approval_response": "approval_request_id",
}
# The paired outputs whose `output` the provider reads as text (a command's output, a patch's
# result): counted as extra texts, since the core message of an output has no text.
READ_OUTPUTS = frozenset(
    {"local_shell_call_output", "shell_call_output", "apply_patch_call_output"}
)
# Server-side tools' items, which carry their own result: no text and no call, but the provider
# reads each one, so its compact JSON is an extra text of the run.
SERVER_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "image_generation_call",
        "code_interpreter_call",
        "mcp_call",
        "mcp_list_tools",
    }
)
IMAGE_GENERATION = "image_generation_call"
# An image generation's `result` (the image, base64) counts as an image of unknown size.
GENERATED_IMAGE_KEYS = IDENTIFYING_KEYS | {"result"}
# Run items that add no text and no call: reasoning, and the server-side tools' items.
SILENT_RUN_ITEMS = frozenset({"reasoning", *SERVER_ITEMS})
# Every item type this version knows but `message`: each one only this format sends
# (docs/rules.md#auto, rule 1), as are the content parts below.
ITEM_TYPES = frozenset(
    {*FUNCTION_CALLS, *FUNCTION_OUTPUTS, *PAIRED_CALLS, *PAIRED_OUTPUTS, *SILENT_RUN_ITEMS}
    | {"compaction", "item_reference"}
)
SIGNAL_PARTS = frozenset({"input_text", "output_text", INPUT_IMAGE, "input_file"})
STORED_ITEM = (
    "an 'item_reference' names an item stored by the provider: a stored item cannot be planned; "
    "send the item itself"
)

# What one item contributes to an assistant run: its text and the call it makes, if any.
RunPart = tuple[str, ToolCall | None]


class ServerItem(NamedTuple):
    """What a server-side tool's item contributes to its run: an extra text and a fixed count."""

    text: str
    tokens: int


Read = Message | RunPart | ServerItem | None
SILENT: RunPart = ("", None)
# What `read_item` gives for a `compaction` item: `read` places it (the artifact or a run part),
# since only the whole list says which one is the last.
COMPACTED = Message("system")


def read(raw: list[Any]) -> list[Message]:
    """The core transcript of Responses `input` items; raises InvalidRequest naming every
    violation."""
    problems = Problems()
    messages: list[Message] = []
    append = messages.append
    run_start = run_end = -1  # the items of the assistant run being read (-1: none)
    artifact = -1  # the last compaction item's index, once one is met
    pieces: list[str] = []
    calls: list[ToolCall] = []
    server: list[str] = []
    server_tokens = 0
    for index, value in enumerate(raw):
        found = read_plain(value, index) if type(value) is dict else None
        if found is None:
            found = read_item(value, index, problems)
            if found is None:
                continue
            if found is COMPACTED:
                if artifact < 0:  # looked for once, from the end back to the first compaction
                    artifact = last_compaction(raw, index)
                found = Message("system", source=index) if index == artifact else SILENT
        if not isinstance(found, Message):  # a run part
            if run_start < 0:
                run_start = index
            run_end = index
            if isinstance(found, ServerItem):
                server.append(found.text)
                server_tokens += found.tokens
                continue
            text, call = found
            if text:
                pieces.append(text)
            if call is not None:
                calls.append(call)
            continue
        if run_start >= 0:
            append(run_message(run_start, run_end, pieces, calls, server, server_tokens))
            run_start, pieces, calls, server, server_tokens = -1, [], [], [], 0
        append(found)
    if run_start >= 0:
        append(run_message(run_start, run_end, pieces, calls, server, server_tokens))
    problems.raise_if_any()
    return messages


def last_compaction(raw: list[Any], stop: int) -> int:
    """The index of the last `compaction` item at or after `stop` (`stop` holds one)."""
    for index in range(len(raw) - 1, stop, -1):
        item = raw[index]
        if is_object(item) and item.get("type") == "compaction":
            return index
    return stop


def run_message(
    start: int,
    end: int,
    pieces: list[str],
    calls: list[ToolCall],
    server: list[str],
    server_tokens: int,
) -> Message:
    """The one core assistant message of the run of items `start … end`; `server` and
    `server_tokens` are what its server-side tools' items add."""
    return from_fields(
        Message,
        (
            "assistant",
            "".join(pieces),
            tuple(calls),
            None,
            None,
            False,
            False,
            start,
            (),
            None if end == start else end,
            (),
            tuple(server),
            server_tokens,
        ),
    )


def read_plain(item: JsonObject, index: int) -> Read:
    """What an ordinary, well-formed item gives (a core message, or a run part), or None.

    Nearly every item of a real transcript takes this path, which reads each field once with exact
    type tests: message items with string content or plain text parts, reasoning, function calls
    and their string outputs. Anything else returns None and is read again by `read_item`, which
    applies every check and names every violation, so this path only recognises what is plainly
    valid.
    """
    get = item.get
    item_type = get("type", MESSAGE)
    if item_type == "function_call_output" or item_type == "custom_tool_call_output":
        call_id = get("call_id")
        output = get("output")
        not_dispatched = get("not_dispatched", False)
        if (
            type(call_id) is not str
            or not call_id
            or type(output) is not str
            or (not_dispatched is not True and not_dispatched is not False)
        ):
            return None
        return from_fields(
            Message,
            ("tool", output, (), call_id, None, False, not_dispatched, index, (), None, (), (), 0),
        )
    if item_type == "function_call" or item_type == "custom_tool_call":
        call_id = get("call_id")
        name = get("name")
        if type(call_id) is not str or not call_id or type(name) is not str:
            return None
        arguments = get(CALL_ARGUMENTS[item_type], "")
        return ("", from_fields(ToolCall, (call_id, name, index, arguments)))
    if item_type == "reasoning":
        return SILENT
    if item_type != MESSAGE:
        return None
    role = get("role")
    content = get("content")
    injected = get("injected", False)
    if injected is not True and injected is not False:
        return None
    images: tuple[Image, ...] = ()
    files = 0
    if type(content) is str:
        text = content
    elif type(content) is list:
        found: list[str] = []
        seen: list[Image] = []
        for part in content:
            if type(part) is not dict:
                return None
            part_type = part.get("type")
            if type(part_type) is not str:
                return None
            key = TEXT_PARTS.get(part_type)
            if key is not None:
                piece = part.get(key)
                if type(piece) is not str:
                    return None
                found.append(piece)
            elif part_type == INPUT_IMAGE:
                seen.append(part_image(part))
            elif part_type == INPUT_FILE:
                files += DOCUMENT_TOKENS
        text = "".join(found)
        images = tuple(seen)
    else:
        return None
    if role == "assistant":
        return (text, None)
    if role == "user":
        return from_fields(
            Message,
            ("user", text, (), None, None, injected, False, index, (), None, images, (), files),
        )
    if role == "system" or role == "developer":
        return from_fields(
            Message, ("system", text, (), None, None, injected, False, index, (), None, (), (), 0)
        )
    return None


def read_item(value: Any, index: int, problems: Problems) -> Read:
    """What item `index` gives, with every check; None when it is refused (the error recorded)."""
    if not is_object(value):
        problems.add((index,), "an input item must be an object", "dict_type")
        return None
    if "type" not in value:
        if "role" not in value:
            problems.add(
                (index, "type"),
                "an input item needs a 'type' (a message item may omit it, but then needs a "
                "'role')",
                "missing",
            )
            return None
        return read_message_item(value, index, problems)
    item_type = value["type"]
    if not isinstance(item_type, str):
        problems.add((index, "type"), "'type' must be a string", "string_type")
        return None
    if item_type == MESSAGE:
        return read_message_item(value, index, problems)
    if item_type in FUNCTION_CALLS:
        call_id = required_id(value, "call_id", (index, "call_id"), problems)
        name = required_name(value, "name", (index, "name"), problems)
        return ("", ToolCall(call_id, name, index, value.get(CALL_ARGUMENTS[item_type], "")))
    if item_type in PAIRED_CALLS:
        key = PAIRED_CALLS[item_type]
        call_id = required_id(value, key, (index, key), problems)
        arguments = value.get(CALL_ARGUMENTS[item_type], "")
        return ("", ToolCall(call_id, item_type, index, arguments))
    if item_type in SERVER_ITEMS:
        return server_item(value, item_type)
    if item_type in SILENT_RUN_ITEMS:
        return SILENT
    if item_type in FUNCTION_OUTPUTS:
        output = value.get("output")
        return Message(
            "tool",
            function_output_text(value, item_type, index, problems),
            tool_call_id=required_id(value, "call_id", (index, "call_id"), problems),
            not_dispatched=flag(value, "not_dispatched", (index, "not_dispatched"), problems),
            source=index,
            images=parts_images(output),
            extra_tokens=parts_files(output),
        )
    if item_type in PAIRED_OUTPUTS:
        key = PAIRED_OUTPUTS[item_type]
        if item_type == "local_shell_call_output" and key not in value and "id" in value:
            key = "id"  # the SDK's type names the call by `id`; the guides send `call_id`
        output = value.get("output")
        read_output = item_type in READ_OUTPUTS and output is not None
        return Message(
            "tool",
            tool_call_id=required_id(value, key, (index, key), problems),
            not_dispatched=flag(value, "not_dispatched", (index, "not_dispatched"), problems),
            source=index,
            images=screenshot(value) if item_type == "computer_call_output" else (),
            extra_texts=(output_text(output),) if read_output else (),
        )
    if item_type == "compaction":
        return COMPACTED
    if item_type == "item_reference":
        problems.add((index, "type"), STORED_ITEM, "value_error")
    else:
        problems.add(
            (index, "type"),
            f"unknown item type '{item_type}': this service plans message, reasoning, call, "
            "call-output, server-side tool and compaction items",
            "value_error",
        )
    return None


def read_message_item(item: JsonObject, index: int, problems: Problems) -> Read:
    """A message item: system/developer and user are core messages, assistant a run part."""
    role = role_of(item, index, problems)
    injected = flag(item, "injected", (index, "injected"), problems)
    if role is None:
        return None
    core_role = ROLES.get(role)
    if core_role is None:
        unknown_role(role, tuple(ROLES), (index, "role"), problems)
        return None
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = joined_text(content, TEXT_PARTS, (index, "content"), problems)
    else:
        if "content" not in item:
            problems.add((index, "content"), "a message item needs content", "missing")
        else:
            problems.add(
                (index, "content"), "content must be a string or an array of content parts"
            )
        return None
    if core_role == "assistant":
        return (text, None)
    if core_role != "user":  # a system or developer message's parts count no image, no file
        return Message(core_role, text, injected=injected, source=index)
    return Message(
        core_role,
        text,
        injected=injected,
        source=index,
        images=parts_images(content),
        extra_tokens=parts_files(content),
    )


def part_image(part: JsonObject) -> Image:
    """An `input_image` part: `image_url` (a `data:` URL or an http URL) or `file_id`."""
    return url_image("openai", part.get("image_url"), part.get("detail"))


def parts_images(parts: Any) -> tuple[Image, ...]:
    """The images of a content or output array's `input_image` parts (none for a string)."""
    if type(parts) is not list:
        return ()
    return tuple(
        part_image(part) for part in parts if type(part) is dict and part.get("type") == INPUT_IMAGE
    )


def parts_files(parts: Any) -> int:
    """The fixed count of a content or output array's `input_file` parts (a file is never sent
    as text here: `file_data`, `file_id` or `file_url`)."""
    if type(parts) is not list:
        return 0
    return DOCUMENT_TOKENS * sum(
        1 for part in parts if type(part) is dict and part.get("type") == INPUT_FILE
    )


def screenshot(item: JsonObject) -> tuple[Image, ...]:
    """A `computer_call_output`'s `computer_screenshot` output: one image, counted with no
    `detail` (the screenshot has none), which the API requires to stay a screenshot."""
    output = item.get("output")
    if not is_object(output) or output.get("type") != SCREENSHOT:
        return ()
    return (url_image("openai", output.get("image_url"))._replace(required=True),)


def server_item(item: JsonObject, item_type: str) -> ServerItem:
    """A server-side tool's item: its compact JSON without `id`, `status` and `type`; an image
    generation's `result` counted as an image of unknown size instead of as text."""
    if item_type != IMAGE_GENERATION:
        return ServerItem(item_text(item), 0)
    tokens = 0 if item.get("result") is None else OPENAI_UNKNOWN
    return ServerItem(item_text(item, GENERATED_IMAGE_KEYS), tokens)


def function_output_text(item: JsonObject, item_type: str, index: int, problems: Problems) -> str:
    """A call output's text: `output` when a string, else its text parts joined."""
    if "output" not in item:
        problems.add((index, "output"), f"a '{item_type}' item needs 'output'", "missing")
        return ""
    output = item["output"]
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return joined_text(output, OUTPUT_PARTS, (index, "output"), problems)
    problems.add((index, "output"), "'output' must be a string or an array of content parts")
    return ""


def has_non_text_part(callers: CallerMessages, message: Message) -> bool:
    """Whether the item holds something other than text: a part that is not a text part (an
    image, a file, audio), or a `compaction` item's encrypted summary."""
    source = message.source
    item = callers[source] if source is not None else None
    if not is_object(item):
        return False
    if item.get("type") == "compaction":
        return True
    content = item.get("content")
    if not isinstance(content, list):
        return False
    return any(not (is_object(part) and is_text_part(part.get("type"))) for part in content)


def is_text_part(part_type: Any) -> bool:
    return isinstance(part_type, str) and part_type in TEXT_PARTS


def caller_start(callers: CallerMessages, core: Sequence[Message], position: int) -> int:
    """The first item of core message `position` (`len(callers)` past the last one)."""
    if position >= len(core):
        return len(callers)
    source = core[position].source
    return position if source is None else source


def with_result_texts(
    callers: CallerMessages, core: Sequence[Message], texts: Mapping[int, str]
) -> CallerMessages:
    """The caller's items with each shaped result's `output` replaced by its new text (a copy of
    that item, every other key as sent)."""
    items = ((caller_start(callers, core, index), text) for index, text in texts.items())
    return with_field_texts(callers, items, "output")


def write(
    callers: CallerMessages, core: Sequence[Message], removed: Removed, notice: str | None
) -> list[Any]:
    """The caller's items with the items of the core ranges `removed` cut out and the notice in
    the first one's place (whole core messages leave, so a run leaves whole)."""
    items = tuple(
        (caller_start(callers, core, start), caller_start(callers, core, end))
        for start, end in removed
    )
    return splice(callers, items, None if notice is None else notice_message(notice))


def system_text(system: Any) -> str | None:
    """`instructions` (validated first: a string, or null = none)."""
    return None if system is None else str(system)


def system_problem(system: Any) -> str | None:
    """Why `system` is not a Responses system prompt (`instructions`, a string)."""
    if isinstance(system, str):
        return None
    return "a responses system prompt is the request's 'instructions': a string"


def result_has_parts(callers: CallerMessages, message: Message) -> bool:
    """Whether a function output's `output` holds a part other than text (an image, a file)."""
    source = message.source
    item = callers[source] if source is not None else None
    return is_object(item) and holds_non_text(
        item.get("output"), lambda part: is_object(part) and is_text_part(part.get("type"))
    )


def clear_images(
    callers: CallerMessages, core: Sequence[Message], indices: Collection[int]
) -> CallerMessages:
    """The items with each `input_image` part of the given core messages (a user message item's
    `content`, a function output's `output` array) replaced by an `input_text` part holding
    `IMAGE_REMOVED_TEXT` (docs/rules.md#images); a `computer_call_output`'s screenshot stays."""
    return with_messages_cleared(callers, core, indices, item_without_images)


def item_without_images(item: Any) -> Any:
    if not is_object(item):
        return item
    item_type = item.get("type", MESSAGE)
    if item_type == MESSAGE:
        key = "content"
    elif item_type in FUNCTION_OUTPUTS:
        key = "output"
    else:  # a computer_call_output: the API requires its screenshot
        return item
    parts = item.get(key)
    cleared = replaced_parts(parts, part_without_image)
    return item if cleared is parts else {**item, key: cleared}


def part_without_image(part: Any) -> Any:
    if type(part) is dict and part.get("type") == INPUT_IMAGE:
        return {"type": "input_text", "text": IMAGE_REMOVED_TEXT}
    return part


def reasoning(callers: CallerMessages, message: Message) -> list[ReasoningPart]:
    """The `reasoning` items of an assistant run that may leave, each with the characters of its
    visible text (its `summary` and `content` texts; encrypted content counts 0): every one but
    those whose next item in the run carries an `id` (the API pairs a stored item with its
    reasoning item by id), and none when the run holds nothing but reasoning
    (docs/rules.md#images-and-thinking)."""
    first, last = message.source, message.source_end
    if message.role != "assistant" or first is None:
        return []
    last = first if last is None else last
    items = [callers[index] for index in range(first, last + 1)]
    if all(is_reasoning(item) for item in items):
        return []
    found = []
    for offset, item in enumerate(items):
        if not is_reasoning(item):
            continue
        following = items[offset + 1] if offset + 1 < len(items) else None
        if is_object(following) and "id" in following:
            continue
        found.append(ReasoningPart(first + offset, None, reasoning_chars(item)))
    return found


def is_reasoning(item: Any) -> bool:
    return is_object(item) and item.get("type") == "reasoning"


def reasoning_chars(item: JsonObject) -> int:
    chars = 0
    for key in ("summary", "content"):
        parts = item.get(key)
        if isinstance(parts, list):
            chars += sum(text_chars(part.get("text")) for part in parts if is_object(part))
    return chars


def parts_recall_text(callers: CallerMessages, message: Message) -> str:
    """A user item's content, or a function output's `output`, as its text with each
    `input_image` as `[image]` and every other part that is not text (a file, audio) as
    `[file]`; a paired output's text as counted (its `output`), a screenshot as `[image]`."""
    item = callers[message.source] if message.source is not None else None
    if not is_object(item):
        return message.content
    item_type = item.get("type", MESSAGE)
    if item_type in PAIRED_OUTPUTS:
        return "".join(message.extra_texts) + (IMAGE_MARK if message.images else "")
    parts = item.get("content" if item_type == MESSAGE else "output")
    if not isinstance(parts, list):
        return message.content
    texts = TEXT_PARTS if item_type == MESSAGE else OUTPUT_PARTS
    return joined(parts, lambda part: recall_piece(part, texts))


def recall_piece(part: Any, texts: Mapping[str, str]) -> str:
    part_type = part.get("type") if is_object(part) else None
    key = texts.get(part_type) if isinstance(part_type, str) else None
    if key is not None:
        return string_at(part, key)
    return IMAGE_MARK if part_type == INPUT_IMAGE else FILE_MARK


def function_tool(name: str, description: str, parameters: dict[str, Any]) -> JsonObject:
    """A function tool as a Responses request declares it (`tools[]`), not in strict mode: the
    model may give any of the optional parameters, or none."""
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": parameters,
        "strict": False,
    }


DIALECT = Dialect(
    "responses",
    read,
    write,
    with_result_texts,
    notice_message,
    signals=Signals(item_types=ITEM_TYPES, part_types=SIGNAL_PARTS),
    has_non_text_part=has_non_text_part,
    result_has_parts=result_has_parts,
    system_text=system_text,
    system_problem=system_problem,
    request_keys=("instructions", "input"),
    clear_images=clear_images,
    place=placed_without_items,
    reasoning=reasoning,
    remove_reasoning=without_items,
    recall_text=recall_text_with(parts_recall_text),
    declare_tool=function_tool,
)
