"""The kept-answer use cases (keep, use, lookup): the request read, `app.core.kept` called.

They decide nothing about kept answers: each checks the request's own fields (every violation in
one 422), hands the caller's `kept` list as received to the core, which reads it leniently, and
returns the content in the key order of `docs/rules.md#kept-answers`. Entries that come back are
the values orjson read from the request, written back by orjson, so a stored `2.0` stays `2.0`.
"""

from __future__ import annotations

from typing import Any

from app.core.kept import Answer, UsedPair, answer_for, keep, this_turn, use
from app.schemas.kept import KeepRequest, LookupRequest, UseRequest
from app.service.limits import DEFAULT_LIST_LIMITS, ListLimits
from app.service.reading import read_request


def keep_request(raw: Any, limits: ListLimits = DEFAULT_LIST_LIMITS) -> dict[str, Any]:
    body = read_request(KeepRequest, raw, limits.kept_lists("answers"))
    answers = [Answer(answer.argument, answer.value) for answer in body.answers]
    return {"kept": keep(body.kept, body.turn, body.tool_name, answers)}


def use_request(raw: Any, limits: ListLimits = DEFAULT_LIST_LIMITS) -> dict[str, Any]:
    body = read_request(UseRequest, raw, limits.kept_lists("used"))
    used = [UsedPair(pair.tool_name, pair.argument) for pair in body.used]
    return {"kept": use(body.kept, body.turn, used)}


def lookup_request(raw: Any, limits: ListLimits = DEFAULT_LIST_LIMITS) -> dict[str, Any]:
    body = read_request(LookupRequest, raw, limits.kept_lists())
    entries = this_turn(body.kept, body.turn)
    answer = answer_for(entries, body.tool_name, body.argument)
    return {"answer": answer, "this_turn": entries}
