"""Every default has one home (`app.core.defaults`): the core values, the OpenAPI document and
`/v1/info` all show the same ones."""

from __future__ import annotations

from typing import Any

import pytest

from app.core import defaults
from app.core.frames import FrameDetection
from app.core.plan_types import PlanOptions, SlidingWindow, TokenBudget
from app.main import create_app
from app.settings import Settings

PLAN = defaults.OPTION_DEFAULTS["window_plan"]
OFFER = defaults.OPTION_DEFAULTS["offer"]


@pytest.fixture(scope="module")
def schemas() -> dict[str, Any]:
    document: dict[str, Any] = create_app(Settings()).openapi()
    return document["components"]["schemas"]


def documented(schemas: dict[str, Any], name: str) -> dict[str, Any]:
    return {
        key: spec["default"]
        for key, spec in schemas[name]["properties"].items()
        if "default" in spec and spec["default"] is not None
    }


def test_the_core_options_take_their_defaults_from_the_one_home() -> None:
    options = PlanOptions()
    assert options.keep_last_tool_results == PLAN["keep_last_tool_results"]
    assert options.keep_ledger_facts == PLAN["keep_ledger_facts"]
    assert options.iteration == PLAN["iteration"]
    assert options.strategy == SlidingWindow(PLAN["strategy"]["keep_recent_turns"])
    assert TokenBudget(1.0).keep_recent_turns == PLAN["token_budget"]["keep_recent_turns"]
    assert options.frames == FrameDetection(PLAN["detect_frames"], frozenset(PLAN["frame_tags"]))
    assert options.provider_reads_from is None


def test_the_document_shows_the_same_defaults(schemas: dict[str, Any]) -> None:
    plan = {k: v for k, v in PLAN.items() if v is not None and not isinstance(v, dict | list)}
    # `frame_tags` shows its default []; `prior_records` shows null, which means [].
    plan["frame_tags"] = PLAN["frame_tags"]
    assert documented(schemas, "PlanRequest") == plan
    offer = {k: v for k, v in OFFER.items() if not isinstance(v, list)}
    assert documented(schemas, "OfferRequest") == offer
    assert documented(schemas, "RecallRequest") == defaults.OPTION_DEFAULTS["recall"]
    keep = PLAN["strategy"]["keep_recent_turns"]
    for strategy in ("SlidingWindowStrategy", "TokenBudgetStrategy"):
        assert documented(schemas, strategy) == {"keep_recent_turns": keep}
    cap_results = schemas["CapRequest"]["properties"]["results"]
    assert cap_results["maxItems"] == defaults.OPTION_DEFAULTS["tool_results_cap"]["max_results"]


@pytest.mark.anyio
async def test_info_reports_them(client: Any) -> None:
    info = (await client.get("/v1/info")).json()
    assert info["defaults"] == defaults.OPTION_DEFAULTS
