"""The answers the document shows beside the Swagger examples are the service's real answers, one
per request example, under the same name and in the same order (so the answer Swagger UI shows
first is the answer to the request it shows first)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.api.examples import committed_answers
from app.export_openapi import request_examples
from app.main import create_app

pytestmark = pytest.mark.anyio

STALE = "stale: regenerate with python -m app.export_openapi (or: make openapi)"
DOCUMENT = create_app().openapi()
EXAMPLES = [
    (path, name, example["value"])
    for path, examples in request_examples(DOCUMENT).items()
    for name, example in examples.items()
]


def answer_examples_of(document: dict[str, Any], path: str) -> dict[str, Any]:
    media = document["paths"][path]["post"]["responses"]["200"]["content"]["application/json"]
    examples: dict[str, Any] = media.get("examples", {})
    return examples


def test_every_operation_with_examples_has_them() -> None:
    assert {path for path, _, _ in EXAMPLES} >= {
        "/v1/window/plan",
        "/v1/tool-results/cap",
        "/v1/offer",
        "/v1/kept-answers/keep",
        "/v1/kept-answers/use",
        "/v1/kept-answers/lookup",
    }


@pytest.mark.parametrize("path", sorted(request_examples(DOCUMENT)))
def test_answer_examples_pair_the_request_examples_in_order(path: str) -> None:
    requests = list(request_examples(DOCUMENT)[path])
    answers = list(answer_examples_of(DOCUMENT, path))
    assert answers == requests, STALE


@pytest.mark.parametrize(("path", "name", "body"), EXAMPLES, ids=lambda v: str(v)[:40])
async def test_each_shown_answer_is_what_the_service_answers(
    client: Any, path: str, name: str, body: Any
) -> None:
    response = await client.post(path, json=body)
    assert response.status_code == 200, response.text
    assert orjson.loads(response.content) == committed_answers()[path][name], STALE
    assert answer_examples_of(DOCUMENT, path)[name]["value"] == committed_answers()[path][name]


async def test_the_served_document_shows_them_as_the_200_answers(client: Any) -> None:
    served = (await client.get("/openapi.json")).json()
    for path in request_examples(DOCUMENT):
        assert answer_examples_of(served, path) == answer_examples_of(DOCUMENT, path)
