"""`python -m app.export_openapi`: write the served OpenAPI document to `openapi/openapi.json`.

The committed file is what client generators and reviewers read; a test fails when it drifts from
what the app serves, and this command is how it is brought back in line. It first writes the real
answers of every Swagger request example (`app/api/example_answers.json`), which the document
shows as the 200 answers, under the requests' names and in their order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from fastapi.responses import Response

from app.api.answers import (
    cap_answer,
    keep_answer,
    lookup_answer,
    offer_answer,
    plan_answer,
    recall_answer,
    use_answer,
)
from app.api.examples import ANSWERS_FILE
from app.api.metrics import create_metrics
from app.main import create_app

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"
ANSWERS_PATH = Path(__file__).resolve().parent / "api" / ANSWERS_FILE
MAX_MESSAGES = 100_000
METRICS = create_metrics()
# How each operation with request examples answers a body, called as its route calls it.
ANSWERERS: dict[str, Callable[[Any], Response]] = {
    "/v1/window/plan": lambda raw: plan_answer(raw, MAX_MESSAGES, METRICS),
    "/v1/tool-results/cap": lambda raw: cap_answer(raw, METRICS),
    "/v1/offer": lambda raw: offer_answer(raw, MAX_MESSAGES),
    "/v1/recall": lambda raw: recall_answer(raw, MAX_MESSAGES, METRICS),
    "/v1/kept-answers/keep": keep_answer,
    "/v1/kept-answers/use": use_answer,
    "/v1/kept-answers/lookup": lookup_answer,
}


def render() -> bytes:
    """The document exactly as committed: indented, keys in the app's order, a final newline."""
    return orjson.dumps(create_app().openapi(), option=orjson.OPT_INDENT_2) + b"\n"


def request_examples(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every operation's JSON request examples, by path, as the document shows them."""
    found: dict[str, dict[str, Any]] = {}
    for path, operations in document["paths"].items():
        for operation in operations.values():
            media = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            if media.get("examples"):
                found[path] = media["examples"]
    return found


def example_answers() -> bytes:
    """The answer to every request example of the document, as the service gives it now."""
    answers: dict[str, dict[str, Any]] = {}
    for path, examples in request_examples(create_app().openapi()).items():
        if path not in ANSWERERS:
            raise SystemExit(f"{path} has request examples but no answerer in {__name__}")
        answers[path] = {
            name: orjson.loads(ANSWERERS[path](example["value"]).body)
            for name, example in examples.items()
        }
    return orjson.dumps(answers, option=orjson.OPT_INDENT_2) + b"\n"


def main() -> None:
    ANSWERS_PATH.write_bytes(example_answers())
    print(f"wrote {ANSWERS_PATH}")
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(render())
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
