"""The OpenAI Responses API's pairing rules, written once: what it refuses in an `input` list.

The errors of the pairing rules providers enforce (`docs/rules.md#guarantees`), as the Responses API
states them for its items:
- every call output needs its call earlier in the input, of the matching kind and id ("No tool
  call found for function call output with call_id …"): `function_call_output` ↔
  `function_call`, `custom_tool_call_output` ↔ `custom_tool_call`, `computer_call_output` ↔
  `computer_call`, `local_shell_call_output` ↔ `local_shell_call`, `shell_call_output` ↔
  `shell_call`, `apply_patch_call_output` ↔ `apply_patch_call` (by `call_id`), and
  `mcp_approval_response` ↔ `mcp_approval_request` (its `approval_request_id` = the request's
  `id`);
- every call needs its output ("No tool output found for function call …"), unless the call is
  at the end of the input (an agent about to run it: nothing but the model's own items and
  outputs follow it); an output answers the nearest call before it with its kind and id, so a
  call whose id a later call reuses is answered only by an output before that later call;
- a `reasoning` item must be followed by the item it produced ("Item 'rs_…' of type 'reasoning'
  was provided without its required following item"), and, compared with the input the window
  was cut from, a call or message item carrying an `id` that the input gave a reasoning item must
  keep it ("Item 'fc_…' of type 'function_call' was provided without its required 'reasoning'
  item: 'rs_…'": the API pairs an item it stored with its reasoning item by that id; an item with
  no `id` is read as sent, docs/rules.md#images-and-thinking), while a kept reasoning item keeps
  every item that followed it;
- the conversation after the leading system/developer messages and `compaction` items opens on
  a user message when the input's did.

A result answered twice is not refused (docs/rules.md#validation accepts it). Each checker returns
the list of violations, one sentence each; [] means the API accepts it.
"""

from __future__ import annotations

import json
from typing import Any

Item = dict[str, Any]

# output type -> (call type, the output's key naming the call, the call's key it names)
OUTPUT_OF = {
    "function_call_output": ("function_call", "call_id", "call_id"),
    "custom_tool_call_output": ("custom_tool_call", "call_id", "call_id"),
    "computer_call_output": ("computer_call", "call_id", "call_id"),
    "local_shell_call_output": ("local_shell_call", "call_id", "call_id"),
    "shell_call_output": ("shell_call", "call_id", "call_id"),
    "apply_patch_call_output": ("apply_patch_call", "call_id", "call_id"),
    "mcp_approval_response": ("mcp_approval_request", "approval_request_id", "id"),
}
CALL_KEY = {call: key for call, _, key in OUTPUT_OF.values()}
SERVER_ITEMS = (
    "web_search_call",
    "file_search_call",
    "image_generation_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
)
# What one model response writes: the items of an assistant run.
RUN_ITEMS = frozenset({"reasoning", *CALL_KEY, *SERVER_ITEMS})
SYSTEM_ROLES = ("system", "developer")


def item_type(item: Item) -> str:
    """The item's type; an easy-input message has none."""
    return str(item.get("type", "message"))


def is_run_item(item: Item) -> bool:
    kind = item_type(item)
    return kind in RUN_ITEMS or (kind == "message" and item.get("role") == "assistant")


def output_key(item: Item) -> tuple[str, Any]:
    call_type, key, _ = OUTPUT_OF[item_type(item)]
    if item_type(item) == "local_shell_call_output" and key not in item:
        key = "id"  # the SDK's own shape
    return call_type, item.get(key)


def describe(item: Item) -> str:
    name = item.get("id") or item.get("call_id") or item.get("role")
    return f"{item_type(item)} {name!r}"


def responses_violations(items: list[Item], sent: list[Item] | None = None) -> list[str]:
    """Every pairing rule of the Responses API `items` breaks; with `sent` (the input the window
    was cut from), also the reasoning rules that need it and a changed opening."""
    problems: list[str] = []
    nearest: dict[tuple[str, Any], int] = {}  # (kind, id) -> its latest call (an occurrence)
    calls: list[tuple[str, Any, int]] = []  # occurrence -> (kind, id, item index)
    answered: set[int] = set()  # occurrences an output answers
    last_said = -1  # the last item that is neither a model item nor an output
    for index, item in enumerate(items):
        kind = item_type(item)
        if kind in OUTPUT_OF:
            call = output_key(item)
            if call not in nearest:
                problems.append(f"item {index}: No tool call found for {kind} {call[1]!r}")
            else:
                answered.add(nearest[call])
        elif kind in CALL_KEY:
            key = (kind, item.get(CALL_KEY[kind]))
            nearest[key] = len(calls)
            calls.append((*key, index))
        elif not is_run_item(item):
            last_said = index
        if kind == "reasoning":
            following = items[index + 1] if index + 1 < len(items) else None
            if following is None or not is_run_item(following) or item_type(following) == kind:
                problems.append(
                    f"item {index}: Item {item.get('id')!r} of type 'reasoning' was provided "
                    "without its required following item"
                )
    for occurrence, (kind, call_id, index) in enumerate(calls):
        if occurrence not in answered and index < last_said:
            problems.append(f"item {index}: No tool output found for {kind} {call_id!r}")
    if sent is not None:
        problems.extend(reasoning_violations(sent, items))
        problems.extend(opening_violations(sent, items))
    return problems


def key_of(item: Item) -> str:
    """An item's identity across the input and a window cut from it (kept items are verbatim)."""
    return json.dumps(item, sort_keys=True, separators=(",", ":"))


def reasoning_groups(items: list[Item]) -> list[tuple[int, list[int]]]:
    """Each reasoning item's position with the positions of the items of its run that follow it,
    up to the next reasoning item: what that reasoning produced."""
    groups: list[tuple[int, list[int]]] = []
    current: tuple[int, list[int]] | None = None
    for position, item in enumerate(items):
        if not is_run_item(item):
            current = None
        elif item_type(item) == "reasoning":
            current = (position, [])
            groups.append(current)
        elif current is not None:
            current[1].append(position)
    return groups


def kept_positions(sent: list[Item], window: list[Item]) -> set[int]:
    """The positions in `sent` of the items the window kept. A window keeps items verbatim and in
    order, so each is matched to the next equal item of `sent` after the one matched before it
    (two equal items of `sent`, such as two assistant messages saying the same words, are told
    apart by their places); an item of the service's own (a notice, a shaped output) matches
    none."""
    keys = [key_of(item) for item in sent]
    kept: set[int] = set()
    start = 0
    for item in window:
        key = key_of(item)
        for position in range(start, len(keys)):
            if keys[position] == key:
                kept.add(position)
                start = position + 1
                break
    return kept


def reasoning_violations(sent: list[Item], window: list[Item]) -> list[str]:
    """A reasoning item and what it produced are kept together or leave together, except that an
    item with no `id` may stay without its reasoning item."""
    kept = kept_positions(sent, window)
    problems: list[str] = []
    for reasoning, produced in reasoning_groups(sent):
        has_reasoning = reasoning in kept
        for position in produced:
            item = sent[position]
            if position in kept and not has_reasoning and "id" in item:
                problems.append(
                    f"Item {describe(item)} was provided without its required 'reasoning' item: "
                    f"{sent[reasoning].get('id')!r}"
                )
            elif has_reasoning and position not in kept:
                problems.append(
                    f"reasoning item {sent[reasoning].get('id')!r} was kept without "
                    f"{describe(item)}, which followed it"
                )
    return problems


def opening(items: list[Item]) -> str | None:
    """What the conversation opens on after the system envelope: 'user', another item kind
    ('assistant' for an assistant message item), or None when there is nothing."""
    for item in items:
        kind = item_type(item)
        if kind == "compaction":
            continue
        if kind == "message":
            role = item.get("role")
            if role in SYSTEM_ROLES:
                continue
            return str(role)
        return kind
    return None


def opening_violations(sent: list[Item], window: list[Item]) -> list[str]:
    if opening(sent) in ("user", None) and opening(window) not in ("user", None):
        return [f"the window opens on {opening(window)!r} where the input opened on a user"]
    return []
