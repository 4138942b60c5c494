"""The cap use case: the ceilings and results read, each result capped, the entries answered.

It decides nothing about measuring or markers: `app.core.cap` does. It reads the request (every
violation in one 422), picks each item's ceiling with `cap_for`, hands the item to `cap_result`,
and writes the entries in the key order of `docs/rules.md#cap-response`. A result that passes is
the value orjson read from the request, written back by orjson, so it comes back as the same JSON
value (key order and number spelling of `docs/rules.md#compact-serialization`). The tools measured
and truncated are counted beside the content, for the HTTP layer's metrics.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from app.core.cap import ABSENT, CapOutcome, cap_for, cap_result
from app.errors import ErrorList
from app.schemas.cap import CapItem, CapRequest, with_cap_rule
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits
from app.service.reading import raise_if_any, require_object, validate_model
from app.service.stopping import checkpoint

# Results capped between two looks at the stop check: a result is measured in one pass over its
# value, and 256 of them in a 32 MiB body take well under a second.
CHECK_EVERY = 256


@dataclass(frozen=True, slots=True)
class CappedResults:
    """The answer's content, and how many results of each tool were measured and truncated."""

    content: dict[str, Any]
    measured: Counter[str]
    truncated: Counter[str]


def cap_request(raw: Any, limits: ListLimits = DEFAULT_LIST_LIMITS) -> CappedResults:
    """The capped results of a parsed request body."""
    body = read_cap_request(raw, limits)
    by_tool = body.max_chars_by_tool or {}
    entries: list[dict[str, Any]] = []
    measured: Counter[str] = Counter()
    truncated: Counter[str] = Counter()
    for position, item in enumerate(body.results):
        if position % CHECK_EVERY == 0:
            checkpoint()
        cap = cap_for(item.tool_name, body.max_chars, by_tool)
        outcome = cap_result(item.tool_name, item.result if item.has_result else ABSENT, cap)
        entries.append(result_entry(item, cap, outcome))
        measured[item.tool_name] += 1
        if outcome.truncated:
            truncated[item.tool_name] += 1
    content = {"results": entries, "truncated_count": truncated.total()}
    return CappedResults(content, measured, truncated)


def read_cap_request(raw: Any, limits: ListLimits = DEFAULT_LIST_LIMITS) -> CapRequest:
    """The validated request, or one 422 naming the violations (a list over its limit as one
    error, its items unread)."""
    raw = require_object(raw)
    errors = ErrorList()
    body = validate_model(CapRequest, raw, errors, limits.cap_lists())
    raise_if_any(with_cap_rule(errors))
    assert body is not None
    return body


def result_entry(item: CapItem, cap: int, outcome: CapOutcome) -> dict[str, Any]:
    """One entry of the answer, keys in the order of `docs/rules.md#cap-response`."""
    entry: dict[str, Any] = {}
    if item.tool_call_id is not None:
        entry["tool_call_id"] = item.tool_call_id
    entry["tool_name"] = item.tool_name
    entry["truncated"] = outcome.truncated
    entry["chars"] = outcome.chars
    entry["max_chars"] = cap
    if outcome.result is not ABSENT:
        entry["result"] = outcome.result
    return entry
