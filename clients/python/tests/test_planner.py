"""`Planner` against the real service: every endpoint, typed answers, options passed through,
typed errors with the service's problem."""

from __future__ import annotations

import httpx
import pytest
from client_support import STRICT_MAX_BODY_BYTES
from tests.e2e.serving import Server

from cwp_client import (
    PayloadTooLargeError,
    Plan,
    Planner,
    PlannerError,
    RequestValidationError,
    RetryPolicy,
    RetryTransport,
)
from cwp_client.generated import Client
from cwp_client.generated.api.window import plan_route_v1_window_plan_post
from cwp_client.generated.models import (
    CapResponse,
    Info,
    OfferResponse,
    PlanRequest,
    PlanResponse,
    SlidingWindowStrategy,
)
from cwp_client.generated.types import Unset

KEEP_TWO = {"kind": "sliding-window", "keep_recent_turns": 2}


@pytest.fixture
def planner(server: Server):
    with Planner(server.url) as client:
        yield client


def test_plan_returns_the_typed_answer_and_the_window_as_sent(planner, long_transcript):
    plan = planner.plan(long_transcript, format="openai", strategy=KEEP_TWO)
    assert isinstance(plan, Plan) and isinstance(plan.response, PlanResponse)
    assert plan.engaged and plan.response.format_ == "openai"
    assert plan.evicted_messages == [1, 2, 3, 4]
    assert plan.stats.messages_before == 9
    assert plan.notice is not None and plan.notice.window_index == 1
    # The window is the service's JSON, untouched: the kept messages are the caller's own objects.
    assert plan.window == plan.raw["window"]
    assert plan.window[0] == long_transcript[0]
    assert plan.window[1] == {"role": "user", "content": plan.notice.content}
    assert plan.window[2:] == long_transcript[5:]
    assert plan.record is not None and plan.record["iteration"] == 1


def test_plan_that_does_not_engage_has_no_record(planner, long_transcript):
    plan = planner.plan(long_transcript)
    assert not plan.engaged
    assert plan.record is None
    assert plan.window == long_transcript


def test_generated_models_are_accepted_as_options(planner, long_transcript):
    strategy = SlidingWindowStrategy(kind="sliding-window", keep_recent_turns=2)
    plan = planner.plan(long_transcript, strategy=strategy)
    assert plan.response.strategy == "sliding-window" and plan.evicted_messages == [1, 2, 3, 4]


def test_unknown_options_are_sent_and_refused_by_the_service(planner, long_transcript):
    with pytest.raises(RequestValidationError) as raised:
        planner.plan(long_transcript, keep_recnt_turns=2)
    error = raised.value
    assert isinstance(error, PlannerError)
    assert error.status == 422
    assert error.title and error.detail
    assert error.problem is not None and error.problem.status == 422
    assert [problem.loc for problem in error.errors] == [("body", "keep_recnt_turns")]


def test_a_field_error_names_the_message(planner):
    with pytest.raises(RequestValidationError) as raised:
        planner.plan([{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}])
    assert ("body", "messages", 1, "tool_call_id") in [p.loc for p in raised.value.errors]


def test_without_the_window_the_plan_says_so(planner, long_transcript):
    plan = planner.plan(long_transcript, include_window=False, include_turns=False)
    assert "window" not in plan.raw and "turns" not in plan.raw
    assert isinstance(plan.response.window, Unset) and isinstance(plan.response.turns, Unset)
    with pytest.raises(KeyError, match="include_window"):
        _ = plan.window


def test_cap(planner):
    answer = planner.cap(
        [
            {"tool_name": "read", "tool_call_id": "c1", "result": "y" * 500},
            {"tool_name": "read", "tool_call_id": "c2", "result": "short"},
        ],
        max_chars=200,
    )
    assert isinstance(answer, CapResponse)
    assert answer.truncated_count == 1
    assert [r.truncated for r in answer.results] == [True, False]
    assert answer.results[0].chars == 500 and answer.results[0].max_chars == 200


def test_offer(planner, long_transcript):
    answer = planner.offer(long_transcript, limit=2)
    assert isinstance(answer, OfferResponse)
    assert answer.served == ["call_1", "call_2", "call_3", "call_4"]
    assert answer.listed == ["call_4", "call_3"] and answer.omitted == 2


def test_kept_answers_keep_lookup_use(planner):
    kept = planner.kept_answers.keep(
        turn=1, tool_name="ask_person", answers=[{"argument": "region", "value": "EU"}]
    ).kept
    assert [(k.tool_name, k.argument, k.value) for k in kept] == [("ask_person", "region", "EU")]
    found = planner.kept_answers.lookup(
        kept=kept, turn=1, tool_name="ask_person", argument="region"
    )
    assert found.answer is not None and found.answer.value == "EU"
    left = planner.kept_answers.use(
        kept=kept, turn=1, used=[{"tool_name": "ask_person", "argument": "region"}]
    )
    assert left.kept is None


def test_info(planner):
    info = planner.info()
    assert isinstance(info, Info)
    assert info.name and info.version


def test_payload_too_large(strict_server):
    with Planner(strict_server.url) as planner, pytest.raises(PayloadTooLargeError) as raised:
        planner.plan([{"role": "user", "content": "x" * STRICT_MAX_BODY_BYTES}])
    assert raised.value.status == 413 and raised.value.problem is not None


def test_the_generated_api_functions_run_over_the_retrying_transport(server, long_transcript):
    http = httpx.Client(base_url=server.url, transport=RetryTransport(RetryPolicy(attempts=2)))
    client = Client(base_url=server.url).set_httpx_client(http)
    body = PlanRequest.from_dict({"messages": long_transcript, "strategy": KEEP_TWO})
    with client:
        answer = plan_route_v1_window_plan_post.sync(client=client, body=body)
    assert isinstance(answer, PlanResponse)
    assert answer.evicted_messages == [1, 2, 3, 4]


def test_a_fit_plan_parses_its_token_figures_and_budget(planner, long_transcript):
    strategy = {"kind": "fit", "max_tokens": 50, "keep_recent_turns": 1}
    plan = planner.plan(long_transcript, format="openai", tokenizer="o200k_base", strategy=strategy)
    budget = plan.response.budget
    assert plan.engaged and budget is not None and not isinstance(budget, Unset)
    assert budget.max_tokens == 50 and budget.target_tokens == 40
    assert plan.stats.tokenizer == "o200k_base"
    assert plan.stats.tokens_after == plan.raw["stats"]["tokens_after"] < plan.stats.tokens_before
    assert all(turn.tokens > 0 for turn in plan.response.turns)
