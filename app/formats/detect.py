"""`auto`: which wire format a request speaks, from the signals only one format sends.

The rules of `docs/rules.md#auto`, first that matches: a Responses item type or content part
type means `responses`; a `parts` key or the `model` role means `gemini`; a content block with no
`type` but a Bedrock key means `bedrock`; an Anthropic block type means `anthropic`; a `function`
call, the `developer` role or list content means `openai` (the last two only when no signal of the
block formats is present: they use lists and a `developer` role too); then the top-level `system`
by its shape; otherwise `native`. The first message that carries a signal of rules 1–5 decides,
and a later message with a signal of another of those rules is a contradiction no reading can
honour, so it is refused naming that message. Malformed messages are skipped: the chosen reader
reports them.
"""

from __future__ import annotations

from typing import Any

from app.errors import FieldError, InvalidRequest
from app.formats.fields import JsonObject, is_object

# Responses item types (`docs/rules.md#wire-formats`): any item whose `type` is one of these.
RESPONSES_ITEM_TYPES = frozenset(
    {
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "web_search_call",
        "file_search_call",
        "image_generation_call",
        "code_interpreter_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "computer_call",
        "computer_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "compaction",
        "item_reference",
    }
)
RESPONSES_PART_TYPES = frozenset({"input_text", "output_text", "input_image", "input_file"})
BEDROCK_BLOCK_KEYS = (
    "text",
    "toolUse",
    "toolResult",
    "reasoningContent",
    "image",
    "document",
    "cachePoint",
)
ANTHROPIC_BLOCK_TYPES = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "compaction"}
)

# The rule each format is decided by; a weak OpenAI signal (list content, `developer`) counts only
# when no block format is signalled.
RULE_OF = {"responses": 1, "gemini": 2, "bedrock": 3, "anthropic": 4, "openai": 5}


def detect_format(raw: list[Any], system: Any = None) -> str:
    """The format `raw` (and the top-level `system`, when not None) is written in; raises
    InvalidRequest naming the first message whose signal disagrees with an earlier one."""
    decided: tuple[str, int, str] | None = None  # (format, message index, what signalled it)
    weak_openai: tuple[int, str] | None = None
    for index, message in enumerate(raw):
        if not is_object(message):
            continue
        found = strong_signal(message)
        if found is None:
            if weak_openai is None:
                weak = weak_openai_signal(message)
                if weak is not None:
                    weak_openai = (index, weak)
            continue
        format_name, reason = found
        if decided is None:
            decided = (format_name, index, reason)
        elif format_name != decided[0]:
            raise mixed_signals(index, format_name, reason, decided)
    if decided is not None:
        return decided[0]
    if weak_openai is not None:
        return "openai"
    if system is not None:
        return format_of_system(system)
    return "native"


def strong_signal(message: JsonObject) -> tuple[str, str] | None:
    """(format, reason) of the first signal of rules 1–4, or 5's `function` call, in `message`."""
    item_type = message.get("type")
    if isinstance(item_type, str) and item_type in RESPONSES_ITEM_TYPES:
        return "responses", f"a '{item_type}' item"
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            if is_object(part):
                part_type = part.get("type")
                if isinstance(part_type, str) and part_type in RESPONSES_PART_TYPES:
                    return "responses", f"an '{part_type}' content part"
    if "parts" in message:
        return "gemini", "a 'parts' key"
    if message.get("role") == "model":
        return "gemini", "the 'model' role"
    if isinstance(content, list):
        for block in content:
            if is_object(block) and "type" not in block:
                key = next((key for key in BEDROCK_BLOCK_KEYS if key in block), None)
                if key is not None:
                    return "bedrock", f"a '{key}' block without a type"
        for block in content:
            if is_object(block):
                block_type = block.get("type")
                if isinstance(block_type, str) and block_type in ANTHROPIC_BLOCK_TYPES:
                    return "anthropic", f"a '{block_type}' block"
    calls = message.get("tool_calls")
    if isinstance(calls, list) and any(is_object(call) and "function" in call for call in calls):
        return "openai", "a tool call with a 'function' key"
    return None


def weak_openai_signal(message: JsonObject) -> str | None:
    """Rule 5's signals that every block format shares: the `developer` role, list content."""
    if message.get("role") == "developer":
        return "a 'developer' role"
    if isinstance(message.get("content"), list):
        return "list content"
    return None


def format_of_system(system: Any) -> str:
    """Rule 6: the format a top-level system prompt's shape names."""
    if is_object(system) and "parts" in system:
        return "gemini"
    if (
        isinstance(system, list)
        and system
        and all(is_object(block) and "type" not in block for block in system)
    ):
        return "bedrock"
    return "anthropic"


def mixed_signals(
    index: int, format_name: str, reason: str, decided: tuple[str, int, str]
) -> InvalidRequest:
    first_format, first_index, first_reason = decided
    msg = (
        f"this message has {reason} ({format_name}) but message {first_index} has "
        f"{first_reason} ({first_format}): mixed formats; send one format or set 'format'"
    )
    return InvalidRequest([FieldError((index,), msg, "mixed_format")])
