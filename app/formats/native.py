"""The native format: one JSON object per core message, read field by field.

Each caller message becomes exactly one core message at the same index, so writing a window back
is a splice of the caller's own objects: every extra field travels with its message untouched.
`tool_call_id`, `tool_name` and `not_dispatched` are read on `tool` messages only; elsewhere they
are extra fields like any other and are returned as sent.
"""

from __future__ import annotations

from typing import Any

from app.core.messages import Message, Role, ToolCall, from_fields
from app.formats.fields import (
    JsonObject,
    Loc,
    Problems,
    flag,
    optional_name,
    read_calls,
    required_id,
    required_name,
    role_of,
    unknown_role,
)
from app.formats.whole import one_to_one_dialect

ROLES: dict[str, Role] = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
}


def read_plain(message: JsonObject, index: int) -> Message | None:
    """The core message of an ordinary, well-formed native message, or None.

    Nearly every message of a real transcript takes this path, which reads each field once with
    exact type tests. Anything unusual (a missing or odd field, a wrong type) returns None and is
    read again by `read_message`, which applies every check and names every violation, so this
    path never decides what is valid: it only recognises what is plainly so.
    """
    get = message.get
    role = get("role")
    content = get("content")
    if content is None:
        content = ""
    elif type(content) is not str:
        return None
    injected = get("injected", False)
    if injected is not True and injected is not False:
        return None
    items = get("tool_calls")
    if role == "tool":
        call_id = get("tool_call_id")
        name = get("tool_name")
        not_dispatched = get("not_dispatched", False)
        if (
            items
            or type(call_id) is not str
            or not call_id
            or (name is not None and type(name) is not str)
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
                name,
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
    if items is not None and type(items) is not list:
        return None
    if role == "assistant":
        calls: tuple[ToolCall, ...] = ()
        if items:
            found = []
            for item in items:
                if type(item) is not dict:
                    return None
                call_id = item.get("id")
                name = item.get("name")
                if type(call_id) is not str or not call_id or type(name) is not str:
                    return None
                found.append(
                    from_fields(ToolCall, (call_id, name, None, item.get("arguments", "")))
                )
            calls = tuple(found)
        return from_fields(
            Message,
            ("assistant", content, calls, None, None, injected, False, index, (), None, (), (), 0),
        )
    if (role == "user" or role == "system") and not items:
        return from_fields(
            Message, (role, content, (), None, None, injected, False, index, (), None, (), (), 0)
        )
    return None


def read_message(message: JsonObject, index: int, problems: Problems) -> Message | None:
    role = role_of(message, index, problems)
    injected = flag(message, "injected", (index, "injected"), problems)
    if role is None:
        return None
    core_role = ROLES.get(role)
    if core_role is None:
        unknown_role(role, tuple(ROLES), (index, "role"), problems)
        return None
    calls = read_calls(message, role, index, problems, call_of)
    content = read_content(message, index, problems)
    if role != "tool":
        return Message(core_role, content, calls, injected=injected, source=index)
    return Message(
        "tool",
        content,
        tool_call_id=required_id(message, "tool_call_id", (index, "tool_call_id"), problems),
        tool_name=optional_name(message, "tool_name", (index, "tool_name"), problems),
        injected=injected,
        not_dispatched=flag(message, "not_dispatched", (index, "not_dispatched"), problems),
        source=index,
    )


def read_content(message: JsonObject, index: int, problems: Problems) -> str:
    """A string; null or absent is the empty text."""
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    problems.add((index, "content"), "content must be a string or null", "string_type")
    return ""


def call_of(item: JsonObject, loc: Loc, problems: Problems) -> tuple[str, object]:
    """The call's name and its arguments as sent (any JSON; "" when absent)."""
    return required_name(item, "name", (*loc, "name"), problems), item.get("arguments", "")


def function_tool(name: str, description: str, parameters: dict[str, Any]) -> JsonObject:
    """A function tool as Chat Completions declares it, which the native format shares."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


DIALECT = one_to_one_dialect("native", read_plain, read_message, declare_tool=function_tool)
