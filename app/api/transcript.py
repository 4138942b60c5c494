"""Reading the transcript of a request: the message limit, the format, and the wire reader.

Shared by the window plan and the offer, which read and refuse `messages`, `format` and `system`
exactly alike (`offer.md` §4).
"""

from __future__ import annotations

from typing import Any

from app.core.messages import Message
from app.errors import FieldError, InvalidRequest
from app.formats import detect_format, read_messages


def read_transcript(
    body: dict[str, Any], max_messages: int, errors: list[FieldError]
) -> tuple[str, list[Message]] | None:
    """(the format used, the core messages), or None with every violation appended to `errors`.

    Call it only when `messages` is a list and `format` a known name (the schema checks both).
    """
    raw = body["messages"]
    if len(raw) > max_messages:
        errors.append(
            FieldError(
                ("body", "messages"),
                f"holds {len(raw)} messages; at most {max_messages} are accepted",
                "too_long",
            )
        )
        return None
    system = body.get("system")
    format_name = body.get("format") or "auto"
    try:
        if format_name == "auto":
            format_name = detect_format(raw, system is not None)
        already_named = any(error.loc == ("body", "system") for error in errors)
        if system is not None and format_name != "anthropic" and not already_named:
            errors.append(
                FieldError(
                    ("body", "system"),
                    "a top-level system prompt belongs to the anthropic format only",
                    "system_not_allowed",
                )
            )
        messages = read_messages(raw, format_name)
    except InvalidRequest as invalid:
        errors.extend(invalid.under("body", "messages").errors)
        return None
    return format_name, messages
