"""The answers the document shows beside the Swagger examples are the service's real answers."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.api.examples import ANSWERED_PLAN_EXAMPLES, PLAN_EXAMPLES, plan_answer_examples

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("name", ANSWERED_PLAN_EXAMPLES)
async def test_each_shown_answer_is_what_the_service_answers(client: Any, name: str) -> None:
    response = await client.post("/v1/window/plan", json=PLAN_EXAMPLES[name]["value"])
    assert response.status_code == 200, response.text
    shown = plan_answer_examples()[name]["value"]
    assert orjson.loads(response.content) == shown, (
        "stale: regenerate with python -m app.export_openapi (or: make openapi)"
    )


async def test_the_document_shows_them_as_the_200_answers(client: Any) -> None:
    document = (await client.get("/openapi.json")).json()
    media = document["paths"]["/v1/window/plan"]["post"]["responses"]["200"]["content"]
    assert media["application/json"]["examples"] == plan_answer_examples()
    assert set(plan_answer_examples()) == set(ANSWERED_PLAN_EXAMPLES)
