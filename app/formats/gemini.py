"""Gemini `contents`, read part by part into core messages and merged back on writing.

The caller's `messages` is the `contents` list of a `generateContent` request: `{"role": "user" |
"model" (absent = user), "parts": [...]}`. A `model` content is one core assistant message (the
text of its non-thought `text` parts, its `functionCall` parts as calls); a `user` content is one
core tool message per `functionResponse` part, then one core user message holding every other
part. Every core message remembers its content index (`source`) and part indices (`blocks`), so a
window is written as Anthropic's is: kept core messages regrouped into their contents, each kept
part the caller's own object, so thought parts and every `thoughtSignature` stay where the API put
them. The system prompt (`systemInstruction`) is outside `contents`, sent in the request's `system`.

An `inlineData` or `fileData` part with an `image/*` MIME type (in a user content, or in a
`functionResponse`'s own `parts`) is an image counted by Gemini's rule (`docs/rules.md#images`):
by the part's `mediaResolution.level`, whatever its size, so no header is read. Any other such part
there (a document, audio, video) counts a fixed number of tokens, as a file the provider reads
(`docs/rules.md#the-tokens-of-a-message`); in a `model` content neither counts. A plan that clears
images has each written back as a `{"text": …}` part, except inside a `functionResponse`'s `parts`,
which hold only media: there it is taken out (`clear_images`).

Gemini calls often carry no id. The service then names a call `<name>#<k>:<h>` (`k` its position
among the calls of that name in its content, `h` the first 12 hex digits of SHA-256 of that
content's compact JSON), and a `functionResponse` without an id answers the k-th call of its name
of the model content right before its own (the k-th response of that name). A response that
answers no call is named the same way from its own user content, so it is an orphan result the
diagnostics report rather than a refused request. These names are never written back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import orjson

from app.core.images import IMAGE_REMOVED_TEXT, Image
from app.core.messages import Message, ToolCall, from_fields
from app.formats.blocks import regrouping_writer, with_blocks_rewritten
from app.formats.callers import CallerMessages
from app.formats.cleared import with_blocks_cleared
from app.formats.dialect import Dialect, Signals
from app.formats.extras import DOCUMENT_TOKENS
from app.formats.fields import (
    JsonObject,
    Loc,
    Problems,
    flag,
    is_object,
    message_object,
    required_name,
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

ROLES = ("user", "model")
# Snake-case spellings the REST API also parses: read silently as unknown parts, they would hide
# a call or a result from the pairing, so they are refused with the camelCase name to send.
SNAKE_CASE = {"function_call": "functionCall", "function_response": "functionResponse"}
NO_CALLS: tuple[ToolCall, ...] = ()
BLOCKS = "parts"  # where a content keeps its parts


def part_image(part: JsonObject) -> Image | None:
    """The image an `inlineData` or `fileData` part with an `image/*` MIME type holds, at its
    `mediaResolution.level`; None for any other part (audio, video, a document, text)."""
    media = part.get("inlineData")
    if not is_object(media):
        media = part.get("fileData")
        if not is_object(media):
            return None
    mime = media.get("mimeType")
    if not isinstance(mime, str) or not mime.startswith("image/"):
        return None
    resolution = part.get("mediaResolution")
    level = resolution.get("level") if is_object(resolution) else None
    return Image("gemini", level if isinstance(level, str) else None)


def is_media(part: JsonObject) -> bool:
    """An `inlineData` or `fileData` part: an image, or a file (a document, audio, video)."""
    return "inlineData" in part or "fileData" in part


def parts_media(parts: Any) -> tuple[tuple[Image, ...], int]:
    """The images of a list of parts (a `functionResponse`'s `parts`; none when not a list), and
    the fixed count of its other media parts (documents, audio, video: sent as bytes or a URI,
    never as text)."""
    if type(parts) is not list:
        return (), 0
    found = []
    files = 0
    for part in parts:
        if type(part) is dict and is_media(part):
            image = part_image(part)
            if image is not None:
                found.append(image)
            else:
                files += DOCUMENT_TOKENS
    return tuple(found), files


def content_hash(content: Any) -> str:
    """The first 12 hex digits of SHA-256 of the content's compact JSON
    (`docs/rules.md#compact-serialization`)."""
    return hashlib.sha256(orjson.dumps(content)).hexdigest()[:12]


def generated_id(name: str, k: int, digest: str) -> str:
    return f"{name}#{k}:{digest}"


def response_text(response: JsonObject | None) -> str:
    """A result's text: `response.output` when it is the one key and a string, else the compact
    JSON of `response`; "" when the response is absent."""
    if response is None:
        return ""
    if len(response) == 1:
        output = response.get("output")
        if type(output) is str:
            return output
    return orjson.dumps(response).decode()


class Answers:
    """Which call an id-less `functionResponse` of one user content answers (see the module
    docstring): the calls of the model content right before it, by name and order."""

    __slots__ = ("by_name", "calls", "content", "digest", "seen")

    def __init__(self, calls: tuple[ToolCall, ...], content: Any) -> None:
        self.calls = calls
        self.content = content  # the user content, hashed only for a response answering no call
        self.by_name: dict[str, list[str]] | None = None
        self.seen: dict[str, int] = {}
        self.digest: str | None = None

    def position(self, name: str) -> int:
        """The 1-based position of the next response of `name` among this content's."""
        k = self.seen.get(name, 0) + 1
        self.seen[name] = k
        return k

    def answer(self, name: str, k: int) -> str:
        """The id of the k-th call of `name`, or a name no call of the model content carries."""
        by_name = self.by_name
        if by_name is None:
            by_name = self.by_name = {}
            for call in self.calls:
                by_name.setdefault(call.name, []).append(call.id)
        ids = by_name.get(name)
        if ids is not None and k <= len(ids):
            return ids[k - 1]
        if self.digest is None:
            self.digest = content_hash(self.content)
        return generated_id(name, k, self.digest)


def read(raw: list[Any]) -> list[Message]:
    """The core transcript of Gemini `contents`; raises InvalidRequest naming every violation."""
    problems = Problems()
    messages: list[Message] = []
    previous = NO_CALLS  # the calls of the content right before, when it is a model content
    for index, value in enumerate(raw):
        calls = read_plain(value, index, previous, messages) if type(value) is dict else None
        if calls is None:
            content = message_object(value, index, problems)
            calls = NO_CALLS
            if content is not None:
                calls = read_content(content, index, previous, problems, messages)
        previous = calls
    problems.raise_if_any()
    return messages


def read_plain(
    content: JsonObject, index: int, previous: tuple[ToolCall, ...], out: list[Message]
) -> tuple[ToolCall, ...] | None:
    """Append the core messages of an ordinary, well-formed content to `out` and return its calls
    (none for a user content); None, with `out` unchanged, for anything unusual.

    Nearly every content of a real transcript takes this path, which reads each part once with
    exact type tests. Anything else (a part that is not an object, a non-string text or name, a
    call in a user content, a response that is not an object, a snake_case key) returns None, and
    `read_content` reads the content again with every check, naming every violation.
    """
    get = content.get
    role = get("role", "user")
    parts = get("parts")
    injected = get("injected", False)
    if type(parts) is not list or (injected is not True and injected is not False):
        return None
    pieces: list[str] = []
    if role == "model":
        named: list[tuple[str | None, str, Any]] = []
        for part in parts:
            if type(part) is not dict:
                return None
            text = part.get("text")
            call = part.get("functionCall")
            if text is not None:
                if type(text) is not str:
                    return None
                thought = part.get("thought")
                if thought is None or thought is False:
                    pieces.append(text)
                elif thought is not True:
                    return None
            if call is not None:
                if type(call) is not dict:
                    return None
                call_id = call.get("id")
                name = call.get("name")
                if type(name) is not str or (
                    call_id is not None and (type(call_id) is not str or not call_id)
                ):
                    return None
                named.append((call_id, name, call.get("args", "")))
            if (
                part.get("functionResponse") is not None
                or "function_call" in part
                or "function_response" in part
            ):
                return None
        calls = tuple(model_calls(named, content)) if named else NO_CALLS
        out.append(
            from_fields(
                Message,
                (
                    "assistant",
                    "".join(pieces),
                    calls,
                    None,
                    None,
                    injected,
                    False,
                    index,
                    tuple(range(len(parts))),
                    None,
                    (),
                    (),
                    0,
                ),
            )
        )
        return calls
    if role != "user":
        return None
    results: list[Message] = []
    user_parts: list[int] = []
    images: list[Image] = []
    files = 0
    answers: Answers | None = None
    for position, part in enumerate(parts):
        if type(part) is not dict:
            return None
        if (
            part.get("functionCall") is not None
            or "function_call" in part
            or "function_response" in part
        ):
            return None
        response_part = part.get("functionResponse")
        text = part.get("text")
        if response_part is not None:
            if type(response_part) is not dict or text is not None:
                return None
            get_field = response_part.get
            name = get_field("name")
            call_id = get_field("id")
            response = get_field("response")
            not_dispatched = get_field("not_dispatched", False)
            if (
                type(name) is not str
                or (call_id is not None and (type(call_id) is not str or not call_id))
                or (response is not None and type(response) is not dict)
                or (not_dispatched is not True and not_dispatched is not False)
            ):
                return None
            if answers is None:
                answers = Answers(previous, content)
            k = answers.position(name)
            if call_id is None:
                call_id = answers.answer(name, k)
            held, held_files = parts_media(get_field("parts"))
            results.append(
                from_fields(
                    Message,
                    (
                        "tool",
                        response_text(response),
                        (),
                        call_id,
                        name,
                        False,
                        not_dispatched,
                        index,
                        (position,),
                        None,
                        held,
                        (),
                        held_files,
                    ),
                )
            )
            continue
        if text is not None:
            if type(text) is not str:
                return None
            pieces.append(text)
        if is_media(part):
            image = part_image(part)
            if image is not None:
                images.append(image)
            else:
                files += DOCUMENT_TOKENS
        user_parts.append(position)
    out.extend(results)
    if user_parts or not parts:
        out.append(
            from_fields(
                Message,
                (
                    "user",
                    "".join(pieces),
                    (),
                    None,
                    None,
                    injected,
                    False,
                    index,
                    tuple(user_parts),
                    None,
                    tuple(images),
                    (),
                    files,
                ),
            )
        )
    return NO_CALLS


def model_calls(named: list[tuple[str | None, str, Any]], content: Any) -> list[ToolCall]:
    """The calls of a model content, each `(id or None, name, args)` in part order: its own id,
    or the generated one (`<name>#<k>:<h>`)."""
    seen: dict[str, int] = {}
    digest: str | None = None
    calls: list[ToolCall] = []
    for call_id, name, args in named:
        k = seen[name] = seen.get(name, 0) + 1
        if call_id is None:
            if digest is None:
                digest = content_hash(content)
            call_id = generated_id(name, k, digest)
        calls.append(from_fields(ToolCall, (call_id, name, None, args)))
    return calls


# ---- the checking path ---------------------------------------------------------------------------


def read_content(
    content: JsonObject,
    index: int,
    previous: tuple[ToolCall, ...],
    problems: Problems,
    out: list[Message],
) -> tuple[ToolCall, ...]:
    """Append the core messages of content `index` to `out`, recording every violation; its calls
    (none for a user content or a refused one)."""
    role = content.get("role")
    if role is None:
        role = "user"
    injected = flag(content, "injected", (index, "injected"), problems)
    parts = content.get("parts")
    if not isinstance(role, str):
        problems.add((index, "role"), "role must be a string", "invalid_role")
        role = None
    elif role not in ROLES:
        unknown_role(role, ROLES, (index, "role"), problems)
        role = None
    if not isinstance(parts, list):
        if "parts" not in content:
            problems.add((index, "parts"), "a content needs parts", "missing")
        else:
            problems.add((index, "parts"), "parts must be an array of parts", "list_type")
        return NO_CALLS
    if role is None:
        return NO_CALLS
    if role == "model":
        message = read_model(content, parts, index, injected, problems)
        out.append(message)
        return message.tool_calls
    out.extend(read_user(content, parts, index, previous, injected, problems))
    return NO_CALLS


def part_object(part: Any, loc: Loc, problems: Problems) -> JsonObject | None:
    """The part itself, or None (and an error) when it is not an object or uses a snake_case key
    this reader would not see."""
    if not is_object(part):
        problems.add(loc, "a part must be an object", "dict_type")
        return None
    for snake, camel in SNAKE_CASE.items():
        if snake in part:
            problems.add(
                (*loc, snake),
                f"send parts in the API's JSON form: '{camel}', not '{snake}' (the Python SDK "
                "writes it with model_dump(mode='json', by_alias=True))",
            )
    return part


def text_of(part: JsonObject, loc: Loc, problems: Problems) -> str | None:
    """A part's `text` (null = absent), or None when it has none."""
    text = part.get("text")
    if text is None or isinstance(text, str):
        return text
    problems.add((*loc, "text"), "'text' must be a string", "string_type")
    return ""


def optional_id(obj: JsonObject, loc: Loc, problems: Problems) -> str | None:
    """An `id` (null = absent): a non-empty string when present."""
    value = obj.get("id")
    if value is None:
        return None
    if not isinstance(value, str):
        problems.add(loc, "'id' must be a string", "string_type")
        return None
    if not value:
        problems.add(loc, "'id' must not be empty (leave it out when there is none)")
        return None
    return value


def data_object(part: JsonObject, key: str, loc: Loc, problems: Problems) -> JsonObject | None:
    """The object under `key` (`functionCall`, `functionResponse`), None when absent or null."""
    value = part.get(key)
    if value is None or is_object(value):
        return value
    problems.add((*loc, key), f"'{key}' must be an object", "dict_type")
    return None


def read_model(
    content: JsonObject, parts: list[Any], index: int, injected: bool, problems: Problems
) -> Message:
    """Non-thought text parts joined, `functionCall` parts as calls; every other part adds
    nothing (an image or a file in the model's own content is not counted)."""
    pieces: list[str] = []
    named: list[tuple[str | None, str, Any]] = []
    for position, value in enumerate(parts):
        loc = (index, "parts", position)
        part = part_object(value, loc, problems)
        if part is None:
            continue
        text = text_of(part, loc, problems)
        if text is not None:
            thought = part.get("thought")
            if thought is None or thought is False:
                pieces.append(text)
            elif thought is not True:
                problems.add((*loc, "thought"), "'thought' must be a boolean", "bool_type")
        call = data_object(part, "functionCall", loc, problems)
        if call is not None:
            call_loc = (*loc, "functionCall")
            call_id = optional_id(call, (*call_loc, "id"), problems)
            name = required_name(call, "name", (*call_loc, "name"), problems)
            named.append((call_id, name, call.get("args", "")))
        if part.get("functionResponse") is not None:
            problems.add(
                (*loc, "functionResponse"),
                "a 'functionResponse' part answers a call: it belongs in a user content",
            )
    return Message(
        "assistant",
        "".join(pieces),
        tuple(model_calls(named, content)),
        injected=injected,
        source=index,
        blocks=tuple(range(len(parts))),
    )


def read_user(
    content: JsonObject,
    parts: list[Any],
    index: int,
    previous: tuple[ToolCall, ...],
    injected: bool,
    problems: Problems,
) -> list[Message]:
    """One core tool message per `functionResponse` part, in part order, then one core user
    message holding every other part, or the empty content itself."""
    messages: list[Message] = []
    pieces: list[str] = []
    images: list[Image] = []
    files = 0
    user_parts: list[int] = []
    answers = Answers(previous, content)
    for position, value in enumerate(parts):
        loc = (index, "parts", position)
        part = part_object(value, loc, problems)
        if part is None:
            continue
        text = text_of(part, loc, problems)
        response_part = data_object(part, "functionResponse", loc, problems)
        if response_part is not None:
            if text is not None or part.get("functionCall") is not None:
                problems.add(loc, "a 'functionResponse' part holds nothing else (no text, no call)")
            messages.append(read_response(response_part, index, position, answers, problems))
            continue
        if part.get("functionCall") is not None:
            problems.add(
                (*loc, "functionCall"),
                "a 'functionCall' part is a call: it belongs in a model content",
            )
        if text is not None:
            pieces.append(text)
        image = part_image(part)
        if image is not None:
            images.append(image)
        elif is_media(part):
            files += DOCUMENT_TOKENS
        user_parts.append(position)
    if user_parts or not parts:
        messages.append(
            Message(
                "user",
                "".join(pieces),
                injected=injected,
                source=index,
                blocks=tuple(user_parts),
                images=tuple(images),
                extra_tokens=files,
            )
        )
    return messages


def read_response(
    part: JsonObject, index: int, position: int, answers: Answers, problems: Problems
) -> Message:
    """The core tool message of one `functionResponse` object."""
    loc = (index, "parts", position, "functionResponse")
    name = required_name(part, "name", (*loc, "name"), problems)
    call_id = optional_id(part, (*loc, "id"), problems)
    not_dispatched = flag(part, "not_dispatched", (*loc, "not_dispatched"), problems)
    response = part.get("response")
    if response is not None and not is_object(response):
        problems.add((*loc, "response"), "'response' must be an object", "dict_type")
        response = None
    k = answers.position(name)
    images, files = parts_media(part.get("parts"))
    return Message(
        "tool",
        response_text(response),
        tool_call_id=answers.answer(name, k) if call_id is None else call_id,
        tool_name=name,
        not_dispatched=not_dispatched,
        source=index,
        blocks=(position,),
        images=images,
        extra_tokens=files,
    )


# ---- writing -------------------------------------------------------------------------------------


def notice_message(text: str) -> JsonObject:
    return {"role": "user", "parts": [{"text": text}]}


# The kept core messages regrouped into contents, the notice where the range was (as Anthropic's
# writer: one content per run of kept core messages from one content).
write = regrouping_writer(notice_message, BLOCKS)


def with_result_texts(
    callers: CallerMessages, core: Sequence[Message], texts: Mapping[int, str]
) -> CallerMessages:
    """The caller's contents with each shaped result's `functionResponse` written as
    `"response": {"output": <text>}` (copies of that part and content; `name`, `id` and every
    other key as sent, but the response's own `parts`: its images and files are part of the result
    the text replaces, as an image inside an Anthropic `tool_result` is)."""
    return with_blocks_rewritten(callers, core, texts, BLOCKS, response_with_text)


def response_with_text(part: JsonObject, text: str) -> JsonObject:
    response = {k: v for k, v in part["functionResponse"].items() if k != "parts"}
    return {**part, "functionResponse": {**response, "response": {"output": text}}}


def has_non_text_part(callers: CallerMessages, message: Message) -> bool:
    """Whether the core message holds a part that is not text (`inlineData`, `fileData`, …)."""
    source = message.source
    parts = callers[source].get("parts") if source is not None else None
    if not isinstance(parts, list):
        return False
    return any(
        not (isinstance(parts[position], dict) and isinstance(parts[position].get("text"), str))
        for position in message.blocks
    )


def clear_images(
    callers: CallerMessages, core: Sequence[Message], indices: Collection[int]
) -> CallerMessages:
    """The contents with each image part of the given core messages replaced by a
    `{"text": IMAGE_REMOVED_TEXT}` part (docs/rules.md#images). An image in a `functionResponse`'s
    own `parts` is taken out of them instead (the key itself when none is left): the API reads
    only media there, so a text part would make the request refused."""
    return with_blocks_cleared(callers, core, indices, BLOCKS, part_without_images)


def part_without_images(part: Any) -> Any:
    if type(part) is not dict:
        return part
    if is_image(part):
        return {"text": IMAGE_REMOVED_TEXT}
    response = part.get("functionResponse")
    if type(response) is not dict:
        return part
    held = response.get("parts")
    if type(held) is not list:
        return part
    kept = [item for item in held if not is_image(item)]
    if len(kept) == len(held):
        return part
    if kept:
        return {**part, "functionResponse": {**response, "parts": kept}}
    return {**part, "functionResponse": {k: v for k, v in response.items() if k != "parts"}}


def is_image(part: Any) -> bool:
    return type(part) is dict and is_media(part) and part_image(part) is not None


# ---- the system prompt (`systemInstruction`) -----------------------------------------------------

SYSTEM_KEYS = ("parts", "role")


def system_problem(system: Any) -> str | None:
    """Why `system` is not a Gemini `systemInstruction`: `{"parts": [{"text": ...}, ...]}`, a
    `role` key allowed."""
    if (
        is_object(system)
        and isinstance(system.get("parts"), list)
        and all(key in SYSTEM_KEYS for key in system)
        and isinstance(system.get("role", ""), str)
        and all(is_object(part) and isinstance(part.get("text"), str) for part in system["parts"])
    ):
        return None
    return (
        'a gemini system prompt is a systemInstruction content: {"parts": [{"text": ...}, ...]} '
        "(a 'role' key allowed)"
    )


def system_text(system: Any) -> str | None:
    """The `systemInstruction`'s text parts joined (validated before; null = none)."""
    if system is None:
        return None
    return "".join(part["text"] for part in system["parts"])


def result_has_parts(callers: CallerMessages, message: Message) -> bool:
    """Whether a `functionResponse` carries parts of its own (inline data, files) besides its
    `response` object."""
    source = message.source
    parts = callers[source].get("parts") if source is not None else None
    if not isinstance(parts, list):
        return False
    for position in message.blocks:
        response = parts[position].get("functionResponse") if is_object(parts[position]) else None
        if is_object(response):
            return bool(response.get("parts"))
    return False


def reasoning(callers: CallerMessages, message: Message) -> list[ReasoningPart]:
    """The thought parts (`"thought": true`) of a model content, their text counted, unless its
    parts are all thoughts (docs/rules.md#images-and-thinking); a `thoughtSignature` on a
    `functionCall` part stays with its part."""
    return block_parts(callers, message, BLOCKS, thought_chars)


def thought_chars(part: Any) -> int | None:
    if type(part) is not dict or part.get("thought") is not True:
        return None
    return text_chars(part.get("text"))


def system_signal(system: Any) -> bool:
    """Rule 6: a top-level system prompt with `parts` is a `systemInstruction`."""
    return is_object(system) and "parts" in system


def parts_recall_text(callers: CallerMessages, message: Message) -> str:
    """A user content's parts as their text with each image (`inlineData`/`fileData` of an
    `image/*` type) as `[image]` and every other media part as `[file]`; a result's text with
    the media parts its `functionResponse` carries after it."""
    parts = field_of(callers, message, BLOCKS)
    if not isinstance(parts, list):
        return message.content
    if message.role == "user":
        return joined((parts[position] for position in message.blocks), recall_piece)
    part = parts[message.blocks[0]]
    response = part.get("functionResponse") if is_object(part) else None
    media = response.get("parts") if is_object(response) else None
    if not isinstance(media, list):
        return message.content
    return message.content + joined(media, recall_piece)


def recall_piece(part: Any) -> str:
    if not is_object(part):
        return ""
    if is_media(part):
        return FILE_MARK if part_image(part) is None else IMAGE_MARK
    return string_at(part, "text")


def gemini_schema(schema: Any) -> Any:
    """A JSON Schema value with Gemini's schema type names (`OBJECT`, `STRING`, `INTEGER`, …):
    every `type` of a schema object upper-cased, property names left as they are."""
    if not isinstance(schema, dict):
        return schema
    written: JsonObject = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            written[key] = value.upper()
        elif key == "properties" and isinstance(value, dict):
            written[key] = {name: gemini_schema(item) for name, item in value.items()}
        elif key == "items":
            written[key] = gemini_schema(value)
        else:
            written[key] = value
    return written


def function_declaration(name: str, description: str, parameters: dict[str, Any]) -> JsonObject:
    """A function as a Gemini request declares it: an entry of a tool's
    `functionDeclarations`."""
    return {"name": name, "description": description, "parameters": gemini_schema(parameters)}


DIALECT = Dialect(
    "gemini",
    read,
    write,
    with_result_texts,
    notice_message,
    signals=Signals(keys=("parts",), roles=("model",), system=system_signal),
    has_non_text_part=has_non_text_part,
    result_has_parts=result_has_parts,
    system_text=system_text,
    system_problem=system_problem,
    request_keys=("systemInstruction", "contents"),
    blocks_key=BLOCKS,
    clear_images=clear_images,
    reasoning=reasoning,
    remove_reasoning=blocks_remover(BLOCKS),
    recall_text=recall_text_with(parts_recall_text),
    declare_tool=function_declaration,
)
