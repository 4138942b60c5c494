"""Gemini's pairing rules, written once: what the Gemini API refuses in a `contents` window.

As the API states them for its own wire:
- a model content with `functionCall` parts must be followed by a user content whose
  `functionResponse` parts answer every call ("Please ensure that the number of function response
  parts is equal to the number of function call parts of the function call turn"): a response with
  an `id` answers the call with that id; one without answers by name and count (the k-th response
  of a name answers the k-th call of that name);
- a `functionResponse` part must answer a call of the model content right before its own ("Please
  ensure that function response turn comes immediately after a function call turn");
- every `functionCall` part that carried a `thoughtSignature` when the model produced it still
  carries it, unchanged ("Function call is missing a thought_signature in functionCall parts");
- the conversation (after `systemInstruction`, which is not in `contents`) opens on a user content
  when the input did (checked against the input, as for every provider in `.chat`).

As in `.chat`, a call left unanswered at the very end is an agent about to run it (or
to send the rest of a batch whose first results it already wrote), not a refusal.
Each check returns the list of violations, one sentence each; [] means the API accepts it.
"""

from __future__ import annotations

from typing import Any

import orjson


def role_of(content: dict[str, Any]) -> str:
    return str(content.get("role") or "user")


def parts_of(content: dict[str, Any]) -> list[dict[str, Any]]:
    parts = content.get("parts")
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def calls_of(content: dict[str, Any]) -> list[dict[str, Any]]:
    if role_of(content) != "model":
        return []
    return [part["functionCall"] for part in parts_of(content) if part.get("functionCall")]


def responses_of(content: dict[str, Any]) -> list[dict[str, Any]]:
    if role_of(content) != "user":
        return []
    return [part["functionResponse"] for part in parts_of(content) if part.get("functionResponse")]


def answered_calls(
    calls: list[dict[str, Any]], responses: list[dict[str, Any]]
) -> tuple[set[int], list[dict[str, Any]]]:
    """(positions of the calls answered, the responses that answer none of them)."""
    answered: set[int] = set()
    strays: list[dict[str, Any]] = []
    seen: dict[Any, int] = {}  # by name; a response may carry none
    for response in responses:
        name = response.get("name")
        k = seen[name] = seen.get(name, 0) + 1
        if response.get("id") is not None:
            matches = [i for i, call in enumerate(calls) if call.get("id") == response["id"]]
        else:
            named = [i for i, call in enumerate(calls) if call.get("name") == name]
            matches = named[k - 1 : k]
        if matches:
            answered.update(matches)
        else:
            strays.append(response)
    return answered, strays


def pairing_violations(contents: list[dict[str, Any]]) -> list[str]:
    """Each model content's calls answered by the user content right after it, and every
    response answering a call of the model content right before it."""
    problems: list[str] = []
    previous_calls: list[dict[str, Any]] = []
    for index, content in enumerate(contents):
        responses = responses_of(content)
        answered, strays = answered_calls(previous_calls, responses)
        for response in strays:
            problems.append(
                f"content {index}: functionResponse {response.get('name')!r} "
                f"(id {response.get('id')!r}) answers no call of the content right before it"
            )
        missing = [
            call.get("id") or call.get("name")
            for position, call in enumerate(previous_calls)
            if position not in answered
        ]
        only_results = bool(responses) and len(responses) == len(parts_of(content))
        still_running = index == len(contents) - 1 and only_results
        if missing and not still_running:
            problems.append(f"content {index}: calls {missing} have no functionResponse here")
        previous_calls = calls_of(content)
    return problems


def unsigned(part: dict[str, Any]) -> bytes:
    return orjson.dumps({key: value for key, value in part.items() if key != "thoughtSignature"})


def paired_parts(
    window_parts: list[dict[str, Any]], sent_parts: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], dict[str, Any]]] | None:
    """Each window part with the sent part it is, in order, signatures set aside (the same call
    can be sent several times, signed or not); None when the window parts are not a subsequence."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    position = 0
    for part in window_parts:
        key = unsigned(part)
        while position < len(sent_parts) and unsigned(sent_parts[position]) != key:
            position += 1
        if position == len(sent_parts):
            return None
        pairs.append((part, sent_parts[position]))
        position += 1
    return pairs


def signature_violations(sent: list[dict[str, Any]], window: list[dict[str, Any]]) -> list[str]:
    """A call part that was signed in the input keeps its signature, byte for byte: each window
    content is traced, in order, to the input content it holds parts of (a content traced to
    none, the notice, holds no call of the input)."""
    problems: list[str] = []
    position = 0
    for index, content in enumerate(window):
        pairs = None
        start = position
        while start < len(sent):
            if role_of(sent[start]) == role_of(content):
                pairs = paired_parts(parts_of(content), parts_of(sent[start]))
                if pairs is not None:
                    break
            start += 1
        if pairs is None:
            continue
        position = start + 1
        for part, sent_part in pairs:
            signed = sent_part.get("functionCall") and "thoughtSignature" in sent_part
            if signed and part.get("thoughtSignature") != sent_part["thoughtSignature"]:
                name = sent_part["functionCall"].get("name")
                problems.append(
                    f"content {index}: Function call is missing a thought_signature in "
                    f"functionCall parts ({name!r})"
                )
    return problems


def opening_violations(sent: list[dict[str, Any]], window: list[dict[str, Any]]) -> list[str]:
    """The window opens on a user content when the input did (or the input was empty)."""
    sent_role = role_of(sent[0]) if sent else None
    window_role = role_of(window[0]) if window else None
    if sent_role in ("user", None) and window_role not in ("user", None):
        return [f"the window opens on a {window_role!r} content where the input opened on a user"]
    return []


def gemini_violations(
    contents: list[dict[str, Any]], sent: list[dict[str, Any]] | None = None
) -> list[str]:
    """Every Gemini rule `contents` breaks; with `sent` (the input it was planned from), also the
    rules that compare with it: the signatures and the opening."""
    problems = pairing_violations(contents)
    if sent is not None:
        problems += signature_violations(sent, contents)
        problems += opening_violations(sent, contents)
    return problems
