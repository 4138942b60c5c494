"""Bounded 422s and list lengths (docs/rules.md#validation, docs/reliability.md).

A 422 lists at most 100 errors, in the order found, and says how many it left out in
`errors_left_out`, right after `errors`. A list over its limit is refused with one `too_long` error
naming the list, before any of its items is checked: a list of invalid items over the limit gets
that one error and no other about its items. Timings and memory are `bench/limits.py`'s.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import orjson
import pytest

from app.api.deadline import run_with_deadline
from app.api.problems import ProblemError
from app.core.stopping import Cancelled
from app.errors import MAX_ERRORS, ErrorList, FieldError, InvalidRequest
from app.service.cap import cap_request
from app.service.limits import ListLimits, message_list_errors
from app.service.plan import plan_request
from app.service.stopping import checkpoint, stopping_when
from app.settings import Settings
from tests.conftest import client_for

pytestmark = pytest.mark.anyio

PLAN = "/v1/window/plan"
MB = 1024 * 1024
ANSWER_LIMIT = 64 * 1024
PAD = "x" * 100


def native_plan(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "format": "native",
        "messages": [
            {"role": "user", "content": "Find the hottest rack."},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "m"}]},
            {"role": "tool", "tool_call_id": "c1", "tool_name": "m", "content": "41C"},
        ],
    }
    body.update(fields)
    return body


async def post(client: Any, path: str, body: Any) -> Any:
    content = body if isinstance(body, bytes) else orjson.dumps(body)
    return await client.post(path, content=content, headers={"content-type": "application/json"})


def problem_of(response: Any) -> dict[str, Any]:
    assert response.status_code == 422, response.text[:300]
    assert response.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = response.json()
    return problem


# ---- the bounded list of errors ------------------------------------------------------------------


def test_an_error_list_keeps_the_first_hundred_in_order_and_counts_the_rest() -> None:
    errors = ErrorList()
    for n in range(250):
        errors.append(FieldError(("body", n), "bad"))
    assert len(errors) == MAX_ERRORS == 100
    assert [error.loc[1] for error in errors] == list(range(100))
    assert errors.left_out == 150 and errors.total == 250
    joined = ErrorList([FieldError(("first",), "bad")])
    joined.extend(errors.under("x"))
    assert len(joined) == 100 and joined.left_out == 151
    assert joined[1].loc == ("x", "body", 0)
    assert InvalidRequest(errors).errors.left_out == 150


def one_mb_bodies() -> dict[str, bytes]:
    """A body of about 1 MB for each route, every item of a list invalid, the list within its
    limit (so every item is checked) wherever the route's lists allow it."""
    bad_messages = [{"role": 7, "pad": PAD}] * 10_000  # each: role must be a string
    items = [{"tool_name": 7, "pad": PAD}] * 10_000  # each: tool_name must be a string
    return {
        PLAN: orjson.dumps({"format": "native", "messages": bad_messages}),
        "/v1/offer": orjson.dumps({"format": "native", "messages": bad_messages}),
        "/v1/tool-results/cap": orjson.dumps({"max_chars": 10, "results": items}),
        "/v1/kept-answers/keep": orjson.dumps(
            {"turn": 0, "tool_name": "t", "answers": [{"pad": PAD}] * 10_000}
        ),
        "/v1/kept-answers/use": orjson.dumps({"turn": 0, "used": [{"pad": PAD}] * 10_000}),
        # `kept` entries are read leniently: over its limit, it is the one error.
        "/v1/kept-answers/lookup": orjson.dumps(
            {"turn": 0, "tool_name": "t", "argument": "a", "kept": [0] * 500_000}
        ),
    }


EXPECTED_TOTAL = {
    PLAN: 10_000,
    "/v1/offer": 10_000,
    "/v1/tool-results/cap": 10_000,
    "/v1/kept-answers/keep": 20_000,  # argument and value missing in each
    "/v1/kept-answers/use": 20_000,  # tool_name and argument missing in each
    "/v1/kept-answers/lookup": 1,
}


@pytest.mark.parametrize("path", list(EXPECTED_TOTAL))
async def test_a_megabyte_of_invalid_items_gets_a_small_422_stating_what_it_left_out(path):
    body = one_mb_bodies()[path]
    assert len(body) >= MB * 0.9
    async with client_for() as client:
        response = await post(client, path, body)
    problem = problem_of(response)
    assert len(response.content) <= ANSWER_LIMIT
    total = EXPECTED_TOTAL[path]
    assert len(problem["errors"]) == min(total, MAX_ERRORS)
    if total > MAX_ERRORS:
        assert problem["errors_left_out"] == total - MAX_ERRORS
        keys = list(problem)
        assert keys[keys.index("errors") + 1] == "errors_left_out"
        assert f"and {total - 1} more" in problem["detail"]
    else:
        assert "errors_left_out" not in problem


async def test_the_errors_kept_are_the_first_found_in_order():
    body = {"format": "native", "messages": [{"role": 7}] * 150}
    async with client_for() as client:
        problem = problem_of(await post(client, PLAN, body))
    assert [error["loc"] for error in problem["errors"]] == [
        ["body", "messages", n, "role"] for n in range(100)
    ]
    assert problem["errors_left_out"] == 50


async def test_a_422_with_few_errors_has_no_count_left_out():
    async with client_for() as client:
        problem = problem_of(await post(client, PLAN, native_plan(iteration=0)))
    assert len(problem["errors"]) == 1 and "errors_left_out" not in problem


# ---- list lengths --------------------------------------------------------------------------------

BAD_LEDGER_ROW = {"kind": 5}  # each would be an error if read
TOO_LONG = [
    (PLAN, native_plan(frame_tags=["bad tag"] * 257), ["body", "frame_tags"], 256),
    (PLAN, native_plan(prior_records=[5] * 1001), ["body", "prior_records"], 1000),
    (PLAN, native_plan(ledger=[BAD_LEDGER_ROW] * 100_001), ["body", "ledger"], 100_000),
    (PLAN, native_plan(summaries=[5] * 17), ["body", "summaries"], 16),
    (
        PLAN,
        native_plan(clear={"exclude_tools": [5] * 257}),
        ["body", "clear", "exclude_tools"],
        256,
    ),
    (
        PLAN,
        native_plan(cap={"max_chars": 10, "max_chars_by_tool": {f"t{n}": 0 for n in range(1025)}}),
        ["body", "cap", "max_chars_by_tool"],
        1024,
    ),
    (
        "/v1/offer",
        {**native_plan(), "previous_batch": [5] * 10_001},
        ["body", "previous_batch"],
        10_000,
    ),
    (
        "/v1/offer",
        {**native_plan(), "ledger": [BAD_LEDGER_ROW] * 100_001},
        ["body", "ledger"],
        100_000,
    ),
    (
        "/v1/tool-results/cap",
        {"max_chars": 5, "results": [5] * 10_001},
        ["body", "results"],
        10_000,
    ),
    (
        "/v1/tool-results/cap",
        {
            "max_chars": 5,
            "max_chars_by_tool": {f"t{n}": 0 for n in range(1025)},
            "results": [{"tool_name": "t"}],
        },
        ["body", "max_chars_by_tool"],
        1024,
    ),
    (
        "/v1/kept-answers/keep",
        {"turn": 0, "tool_name": "t", "answers": [5] * 10_001},
        ["body", "answers"],
        10_000,
    ),
    ("/v1/kept-answers/use", {"turn": 0, "used": [5] * 10_001}, ["body", "used"], 10_000),
    (
        "/v1/kept-answers/use",
        {"turn": 0, "used": [], "kept": [5] * 10_001},
        ["body", "kept"],
        10_000,
    ),
]


@pytest.mark.parametrize(("path", "body", "loc", "limit"), TOO_LONG, ids=lambda v: str(v)[:40])
async def test_a_list_over_its_limit_is_one_error_naming_it_and_its_items_are_not_read(
    path, body, loc, limit
):
    async with client_for() as client:
        problem = problem_of(await post(client, path, body))
    assert problem["errors"] == [
        {"loc": loc, "msg": problem["errors"][0]["msg"], "type": "too_long"}
    ], problem["errors"][:3]
    assert f"at most {limit} are accepted" in problem["errors"][0]["msg"]


async def test_a_list_at_its_limit_is_read():
    async with client_for() as client:
        response = await post(client, PLAN, native_plan(frame_tags=["note"] * 256))
    assert response.status_code == 200


async def test_other_errors_are_still_reported_beside_a_list_too_long():
    body = native_plan(frame_tags=["x"] * 300, iteration=0)
    async with client_for() as client:
        problem = problem_of(await post(client, PLAN, body))
    assert [error["loc"] for error in problem["errors"]] == [
        ["body", "frame_tags"],
        ["body", "iteration"],
    ]


async def test_five_thousand_frame_tags_are_one_422():
    async with client_for() as client:
        problem = problem_of(await post(client, PLAN, native_plan(frame_tags=["note"] * 5000)))
    assert len(problem["errors"]) == 1
    assert problem["errors"][0]["loc"] == ["body", "frame_tags"]


async def test_a_frame_tag_over_sixty_four_characters_is_refused():
    async with client_for() as client:
        problem = problem_of(await post(client, PLAN, native_plan(frame_tags=["a" * 65])))
    assert problem["errors"][0]["loc"] == ["body", "frame_tags", 0]


def calls_message(format_name: str, count: int) -> dict[str, Any]:
    """One assistant message holding `count` calls, each call invalid if it were read."""
    if format_name in ("native", "openai"):
        return {"role": "assistant", "content": "", "tool_calls": [5] * count}
    if format_name == "anthropic":
        return {"role": "assistant", "content": [{"type": "tool_use"}] * count}
    if format_name == "bedrock":
        return {"role": "assistant", "content": [{"toolUse": 5}] * count}
    return {"role": "model", "parts": [{"functionCall": 5}] * count}


CALL_FORMATS = {
    "native": "tool_calls",
    "openai": "tool_calls",
    "anthropic": "content",
    "bedrock": "content",
    "gemini": "parts",
}


@pytest.mark.parametrize("format_name", list(CALL_FORMATS))
@pytest.mark.parametrize("compiled_reader", [True, False])
async def test_a_message_with_more_calls_than_the_limit_is_one_error(format_name, compiled_reader):
    messages = (
        [{"role": "user", "content": "go"}]
        if format_name != "gemini"
        else [{"role": "user", "parts": [{"text": "go"}]}]
    )
    body = {"format": format_name, "messages": [*messages, calls_message(format_name, 1025)]}
    async with client_for(Settings(compiled_reader=compiled_reader)) as client:
        problem = problem_of(await post(client, PLAN, body))
    assert problem["errors"] == [
        {
            "loc": ["body", "messages", 1, CALL_FORMATS[format_name]],
            "msg": "too long: holds 1025 tool calls; at most 1024 are accepted",
            "type": "too_long",
        }
    ]


PART_MESSAGES = {
    "openai": {"role": "user", "content": [5] * 4097},
    "anthropic": {"role": "user", "content": [5] * 4097},
    "bedrock": {"role": "user", "content": [5] * 4097},
    "responses": {"type": "message", "role": "user", "content": [5] * 4097},
    "gemini": {"role": "user", "parts": [5] * 4097},
}


@pytest.mark.parametrize("format_name", list(PART_MESSAGES))
@pytest.mark.parametrize("compiled_reader", [True, False])
async def test_a_message_with_more_parts_than_the_limit_is_one_error(format_name, compiled_reader):
    body = {"format": format_name, "messages": [PART_MESSAGES[format_name]]}
    async with client_for(Settings(compiled_reader=compiled_reader)) as client:
        problem = problem_of(await post(client, PLAN, body))
    key = "parts" if format_name == "gemini" else "content"
    assert problem["errors"] == [
        {
            "loc": ["body", "messages", 0, key],
            "msg": "too long: holds 4097 items; at most 4096 are accepted",
            "type": "too_long",
        }
    ]


def test_the_message_check_reads_lengths_only_below_the_call_limit() -> None:
    # 1,024 blocks that are not objects: not looked at, not an error of this check.
    messages = [{"role": "user", "content": [5] * 1024}]
    assert not message_list_errors(messages, "anthropic", ListLimits())


async def test_the_limits_are_settings_and_reported_by_info():
    settings = Settings(max_list_items=3, max_frame_tags=2, max_tool_calls=1)
    async with client_for(settings) as client:
        info = (await client.get("/v1/info")).json()["limits"]
        keep = await post(
            client,
            "/v1/kept-answers/keep",
            {"turn": 0, "tool_name": "t", "answers": [{"argument": "a", "value": 1}] * 4},
        )
        tags = await post(client, PLAN, native_plan(frame_tags=["a", "b", "c"]))
        calls = await post(
            client,
            PLAN,
            {
                "format": "native",
                "messages": [
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [{"id": "a", "name": "t"}, {"id": "b", "name": "t"}],
                    }
                ],
            },
        )
    assert info["max_list_items"] == 3 and info["max_frame_tags"] == 2
    assert info["max_tool_calls"] == 1 and info["max_content_parts"] == 4096
    assert info["max_errors"] == 100 and info["max_summaries"] == 16
    assert info["max_ledger_rows"] == 100_000 and info["max_prior_records"] == 1000
    assert info["max_exclude_tools"] == 256 and info["max_chars_by_tool_keys"] == 1024
    assert info["max_frame_tag_chars"] == 64
    assert problem_of(keep)["errors"][0]["loc"] == ["body", "answers"]
    assert problem_of(tags)["errors"][0]["loc"] == ["body", "frame_tags"]
    assert problem_of(calls)["errors"][0]["loc"] == ["body", "messages", 0, "tool_calls"]


# ---- abandoned work stops ------------------------------------------------------------------------


def test_a_plan_asked_to_stop_raises_cancelled() -> None:
    with stopping_when(lambda: True), pytest.raises(Cancelled):
        plan_request(native_plan(), 100_000)
    with stopping_when(lambda: True), pytest.raises(Cancelled):
        cap_request({"max_chars": 5, "results": [{"tool_name": "t", "result": "abc"}]})


def test_a_plan_not_asked_to_stop_is_answered() -> None:
    with stopping_when(lambda: False):
        assert plan_request(native_plan(), 100_000).content["format"] == "native"


def test_exact_counting_consults_the_stop_check() -> None:
    asked = 0

    def should_stop() -> bool:
        nonlocal asked
        asked += 1
        return asked > 2  # the first checkpoint passes, then counting is stopped

    body = native_plan(tokenizer="o200k_base")
    with stopping_when(should_stop), pytest.raises(Cancelled):
        plan_request(body, 100_000)
    assert asked >= 3


async def test_work_past_the_deadline_is_answered_503_and_then_stops():
    ended = threading.Event()
    steps = 0

    def work() -> None:
        nonlocal steps
        try:
            while True:  # a loop that runs until it is asked to stop
                checkpoint()
                steps += 1
                time.sleep(0.001)
        finally:
            ended.set()

    with pytest.raises(ProblemError) as raised:
        await run_with_deadline(0.05, work)
    assert raised.value.status == 503
    assert ended.wait(10), "the abandoned work went on after its 503"
