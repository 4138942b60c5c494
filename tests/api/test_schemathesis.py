"""Schemathesis against the committed OpenAPI document, through the ASGI app in process.

Every operation of `openapi/openapi.json` gets a bounded number of generated requests (valid and
invalid, with a fixed seed, so a run is repeatable), and every answer is checked by schemathesis's
default checks: no 5xx, a documented status, a documented content type, a body and headers that
match the documented schema, invalid requests refused and valid ones accepted.

One check is narrowed, on the three endpoints that take a transcript. The document describes a
message in prose only: whether it is valid depends on its wire format and on its neighbours (a tool
result answers a call; `auto` decides the format from every message), which no JSON Schema states.
There a valid request by the document may be refused, but only with a 422 whose every error names
the transcript (`body.messages...`), or a `fit` target over its `max_tokens` (no JSON Schema
compares two fields), or a recall with not exactly one of `ref` and `query` (the same); a refusal
naming any other field means the document is wrong.

Since a generated transcript is rarely one the planner reads, the plan options are also generated
over one fixed Anthropic run (compaction blocks, framework frames), under the same checks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hypothesis
import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import positive_data_acceptance
from starlette.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.api.compacted_run import COMPACTED_RUN

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPT_OPERATIONS = {"/v1/window/plan", "/v1/offer", "/v1/recall"}

CONFIG = SchemathesisConfig.from_dict(
    {
        "seed": 20251130,
        "generation": {
            "mode": "all",
            "max-examples": 30,
            "deterministic": True,
            "database": "none",
        },
    }
)

schema = schemathesis.openapi.from_path(ROOT / "openapi" / "openapi.json", config=CONFIG)
schema.app = create_app(Settings())


def transcript_acceptance(ctx: Any, response: Any, case: Any) -> bool | None:
    """A valid request by the document is answered 200, or refused with a 422 whose errors all
    name the transcript: its messages, or a top-level `system` whose shape is not the one of the
    format the messages are in (the document cannot tie the two together under `auto`)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code == 200:
        return None
    assert response.status_code == 422, f"a valid request answered {response.status_code}"
    errors = response.json()["errors"]
    outside = [
        error
        for error in errors
        if error["loc"][:2] != ["body", "messages"]
        and error["loc"] != ["body", "system"]
        and not target_over_budget(case, error)
        and not summary_through_before_from(case, error)
        and not not_one_of_ref_and_query(case, error)
    ]
    assert errors and not outside, f"a valid request refused on documented fields: {outside}"
    return None


def target_over_budget(case: Any, error: dict[str, Any]) -> bool:
    strategy = case.body.get("strategy") if isinstance(case.body, dict) else None
    return (
        error["loc"] == ["body", "strategy", "target_tokens"]
        and isinstance(strategy, dict)
        and strategy.get("target_tokens", 0) > strategy.get("max_tokens", 0)
    )


def summary_through_before_from(case: Any, error: dict[str, Any]) -> bool:
    """A summary entry whose `through` is before its `from`: a rule between two fields, which
    the document states in words only."""
    loc = error["loc"]
    summaries = case.body.get("summaries") if isinstance(case.body, dict) else None
    if len(loc) != 4 or loc[:2] != ["body", "summaries"] or loc[3] != "through":
        return False
    if not isinstance(summaries, list) or not isinstance(loc[2], int) or loc[2] >= len(summaries):
        return False
    entry = summaries[loc[2]]
    numbers = (int, float)  # an integral number written with a fraction counts as an integer
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("from"), numbers)
        and isinstance(entry.get("through"), numbers)
        and entry["through"] < entry["from"]
    )


def not_one_of_ref_and_query(case: Any, error: dict[str, Any]) -> bool:
    """A recall that sends neither `ref` nor `query`, both, or an empty one: a rule between two
    fields, which the document states in words only (a `oneOf` would split the generated
    clients' request type in two)."""
    if error["loc"] != ["body", "ref"] or not isinstance(case.body, dict):
        return False
    sent = [case.body.get(key) for key in ("ref", "query") if case.body.get(key) is not None]
    return len(sent) != 1 or sent[0] == ""


@pytest.mark.slow
@schema.parametrize()
def test_every_operation_answers_as_documented(case):
    if case.operation.path in TRANSCRIPT_OPERATIONS:
        case.call_and_validate(
            excluded_checks=[positive_data_acceptance],
            additional_checks=[transcript_acceptance],
        )
    else:
        case.call_and_validate()


def test_readiness_comes_back_when_the_app_starts_again():
    """Found by this run: an app whose lifespan ran twice (as a test client opened twice runs it)
    kept answering 503 on /readyz from the first shutdown."""
    app = create_app(Settings())
    for _ in range(2):
        with TestClient(app) as client:
            assert client.get("/readyz").status_code == 200


# ---- the plan options over a real transcript -------------------------------------------------

# Generated transcripts are almost never valid (see the module docstring), so the generated plan
# options rarely reach the planner. Here every generated plan request gets this Anthropic run
# instead (tests/api/compacted_run.py): compacted mid-way (a summary `compaction` block, then a
# failed one), with framework frames after the summary, so `detect_frames`, `frame_tags` and every
# other option are exercised on a transcript the planner reads.
PLAN_OPERATION = schema["/v1/window/plan"]["POST"]


@pytest.mark.slow
@hypothesis.settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(hypothesis.HealthCheck),
)
@hypothesis.given(case=PLAN_OPERATION.as_strategy())
def test_plan_options_over_a_compacted_anthropic_run_answer_as_documented(case):
    if isinstance(case.body, dict):
        case.body = {**case.body, "messages": COMPACTED_RUN, "format": "anthropic"}
    case.call_and_validate(
        excluded_checks=[positive_data_acceptance],
        additional_checks=[transcript_acceptance],
    )
