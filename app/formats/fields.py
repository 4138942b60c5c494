"""Field checks the three readers share, so each rule of `docs/rules.md#validation` is written once.

A reader walks the caller's messages once and records every violation in a `Problems` collector
instead of stopping at the first, so one 422 can name them all. Each check returns the value it
read (or a harmless stand-in when the field is bad) so the reader can go on building messages;
when anything was recorded the reader raises and the stand-ins are never used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

from app.core.messages import Message, ToolCall
from app.errors import MAX_ERRORS, ErrorList, FieldError, InvalidRequest

Loc = tuple[str | int, ...]
JsonObject = dict[str, Any]


class Problems:
    """The violations found while reading one `messages` array: the first `MAX_ERRORS` kept,
    the rest only counted (`app.errors.ErrorList`), so a transcript of invalid items costs no
    more memory than a valid one."""

    __slots__ = ("errors",)

    def __init__(self) -> None:
        self.errors = ErrorList()

    def add(self, loc: Loc, msg: str, error_type: str = "value_error") -> None:
        errors = self.errors
        if len(errors) < MAX_ERRORS:
            errors.append(FieldError(loc, msg, error_type))
        else:
            errors.left_out += 1

    def raise_if_any(self) -> None:
        if self.errors:
            raise InvalidRequest(self.errors)


def is_object(value: Any) -> TypeGuard[JsonObject]:
    return isinstance(value, dict)


def message_object(value: Any, index: int, problems: Problems) -> JsonObject | None:
    """The message itself, or None (and an error) when it is not a JSON object."""
    if is_object(value):
        return value
    problems.add((index,), "a message must be an object", "dict_type")
    return None


def read_one_to_one(
    raw: list[Any],
    read_plain: Callable[[JsonObject, int], Message | None],
    read_message: Callable[[JsonObject, int, Problems], Message | None],
    first: int = 0,
) -> list[Message]:
    """The core messages of a format whose messages map one to one (native, OpenAI), the first
    of `raw` being caller message `first` (a message read alone is read at its own index).

    Each message is tried on the format's fast path first; one it does not recognise is read with
    every check. Raises InvalidRequest naming every violation found.
    """
    problems = Problems()
    messages: list[Message] = []
    for index, value in enumerate(raw, first):
        core = read_plain(value, index) if type(value) is dict else None
        if core is None:
            message = message_object(value, index, problems)
            core = None if message is None else read_message(message, index, problems)
        if core is not None:
            messages.append(core)
    problems.raise_if_any()
    return messages


def role_of(message: Mapping[str, Any], index: int, problems: Problems) -> str | None:
    """The `role` string, or None (and an error) when it is missing or not a string."""
    role = message.get("role")
    if "role" not in message:
        problems.add((index, "role"), "a message needs a role", "missing")
        return None
    if not isinstance(role, str):
        problems.add((index, "role"), "role must be a string", "invalid_role")
        return None
    return role


def unknown_role(role: str, allowed: tuple[str, ...], loc: Loc, problems: Problems) -> None:
    listed = ", ".join(f"'{name}'" for name in allowed)
    hint = ""
    if role == "function":
        # Under `auto` a legacy OpenAI transcript reads as native; say what to send instead.
        hint = " (the legacy OpenAI 'function' role is not supported: use 'tool_calls' and 'tool')"
    problems.add(loc, f"unknown role '{role}': expected one of {listed}{hint}", "invalid_role")


def required_id(obj: Mapping[str, Any], key: str, loc: Loc, problems: Problems) -> str:
    """A non-empty string id: a call without one could never be answered, and a result without
    one answers no call, so either is refused rather than planned."""
    if key not in obj:
        problems.add(loc, f"'{key}' is required", "missing")
        return ""
    value = obj[key]
    if not isinstance(value, str):
        problems.add(loc, f"'{key}' must be a string", "string_type")
        return ""
    if not value:
        problems.add(loc, f"'{key}' must not be empty", "string_too_short")
    return value


def required_name(obj: Mapping[str, Any], key: str, loc: Loc, problems: Problems) -> str:
    """A call's tool name: a string, possibly empty (an empty name names nothing)."""
    if key not in obj:
        problems.add(loc, f"'{key}' is required", "missing")
        return ""
    value = obj[key]
    if not isinstance(value, str):
        problems.add(loc, f"'{key}' must be a string", "string_type")
        return ""
    return value


def optional_name(obj: Mapping[str, Any], key: str, loc: Loc, problems: Problems) -> str | None:
    """A string or null; null and absent both mean no name."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    problems.add(loc, f"'{key}' must be a string or null", "string_type")
    return None


def flag(obj: Mapping[str, Any], key: str, loc: Loc, problems: Problems) -> bool:
    """An extension flag: absent means false; anything but a JSON boolean is refused."""
    if key not in obj:
        return False
    value = obj[key]
    if isinstance(value, bool):
        return value
    problems.add(loc, f"'{key}' must be a boolean", "bool_type")
    return False


def present(obj: Mapping[str, Any], key: str) -> bool:
    """Whether a field is set: a null value counts as absent."""
    return obj.get(key) is not None


def joined_text(parts: list[Any], counted: Mapping[str, str], loc: Loc, problems: Problems) -> str:
    """Join the text of the counted part types, in order, with no separator.

    `counted` maps a part type to the key holding its text (`{"text": "text"}`, plus
    `{"refusal": "refusal"}` on OpenAI assistant messages). Every part must be an object with a
    string `type`; parts of other types (images, audio, files, documents, and types this version
    does not know) add no characters and are kept as sent.
    """
    pieces: list[str] = []
    for position, part in enumerate(parts):
        part_loc = (*loc, position)
        key = counted.get(part_type_of(part, part_loc, problems))
        if key is not None:
            pieces.append(part_text(part, key, part_loc, problems))
    return "".join(pieces)


def part_text(part: JsonObject, key: str, loc: Loc, problems: Problems) -> str:
    """The string under `key` of a text-bearing part (`text`, `refusal`)."""
    text = part.get(key)
    if isinstance(text, str):
        return text
    if key not in part:
        problems.add((*loc, key), f"a '{part.get('type')}' part needs '{key}'", "missing")
    else:
        problems.add((*loc, key), f"'{key}' must be a string", "string_type")
    return ""


def part_type_of(part: Any, loc: Loc, problems: Problems) -> str:
    """The `type` of a content part or block, or "" (and an error) when it has none; "" is no
    type any reader counts, so a bad part is never read further."""
    if not is_object(part):
        problems.add(loc, "a content part must be an object", "dict_type")
        return ""
    part_type = part.get("type")
    if isinstance(part_type, str):
        return part_type
    if "type" not in part:
        problems.add((*loc, "type"), "a content part needs a 'type'", "missing")
    else:
        problems.add((*loc, "type"), "'type' must be a string", "string_type")
    return ""


def call_items(message: Mapping[str, Any], role: str, index: int, problems: Problems) -> list[Any]:
    """The `tool_calls` items to read as calls (native and OpenAI).

    Null counts as absent and an empty list is harmless anywhere; a non-empty list on a message
    that is not an assistant's is refused, because a call there could never be answered in turn.
    """
    items = message.get("tool_calls")
    if items is None:
        return []
    if not isinstance(items, list):
        problems.add((index, "tool_calls"), "'tool_calls' must be an array or null", "list_type")
        return []
    if items and role != "assistant":
        problems.add(
            (index, "tool_calls"),
            f"only assistant messages make tool calls, not a '{role}' message",
            "value_error",
        )
        return []
    return items


def read_calls(
    message: Mapping[str, Any],
    role: str,
    index: int,
    problems: Problems,
    call_of: Callable[[JsonObject, Loc, Problems], tuple[str, object] | None],
) -> tuple[ToolCall, ...]:
    """The calls of a `tool_calls` array (native and OpenAI): each an object with a required
    `id`; `call_of` reads the tool's name and arguments where the format keeps them, or None
    (with an error)."""
    calls: list[ToolCall] = []
    for position, item in enumerate(call_items(message, role, index, problems)):
        loc = (index, "tool_calls", position)
        if not is_object(item):
            problems.add(loc, "a tool call must be an object", "dict_type")
            continue
        call_id = required_id(item, "id", (*loc, "id"), problems)
        call = call_of(item, loc, problems)
        if call is not None:
            calls.append(ToolCall(call_id, call[0], None, call[1]))
    return tuple(calls)


def read_with_blocks(
    raw: list[Any],
    read_plain: Callable[[JsonObject, int, list[Message]], bool],
    read_message: Callable[[JsonObject, int, Problems, list[Message]], None],
    first: int = 0,
) -> list[Message]:
    """The core messages of a format whose caller messages hold several core messages (Anthropic,
    Bedrock), the first of `raw` being caller message `first`: each message on the format's fast
    path first, one it does not recognise read with every check. Raises InvalidRequest naming
    every violation found."""
    problems = Problems()
    messages: list[Message] = []
    for index, value in enumerate(raw, first):
        if type(value) is dict and read_plain(value, index, messages):
            continue
        message = message_object(value, index, problems)
        if message is not None:
            read_message(message, index, problems, messages)
    problems.raise_if_any()
    return messages


def holds_non_text(parts: Any, is_text: Callable[[Any], bool]) -> bool:
    """Whether `parts`, a result's content, is a list holding a part `is_text` does not accept."""
    return isinstance(parts, list) and not all(is_text(part) for part in parts)
