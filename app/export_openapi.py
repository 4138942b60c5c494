"""`python -m app.export_openapi`: write the served OpenAPI document to `openapi/openapi.json`.

The committed file is what client generators and reviewers read; a test fails when it drifts from
what the app serves, and this command is how it is brought back in line. It first writes the real
answers of the answered Swagger examples (`app/api/example_answers.json`), which the document
shows beside their requests.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from app.api.examples import ANSWERED_PLAN_EXAMPLES, ANSWERS_FILE, PLAN_EXAMPLES
from app.api.metrics import create_metrics
from app.api.routes.window import plan_answer
from app.main import create_app

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"
ANSWERS_PATH = Path(__file__).resolve().parent / "api" / ANSWERS_FILE
MAX_MESSAGES = 100_000
METRICS = create_metrics()


def render() -> bytes:
    """The document exactly as committed: indented, keys in the app's order, a final newline."""
    return orjson.dumps(create_app().openapi(), option=orjson.OPT_INDENT_2) + b"\n"


def example_answers() -> bytes:
    """The answers of `ANSWERED_PLAN_EXAMPLES`, as the planner gives them now."""
    answers = {
        name: orjson.loads(plan_answer(PLAN_EXAMPLES[name]["value"], MAX_MESSAGES, METRICS).body)
        for name in ANSWERED_PLAN_EXAMPLES
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
