"""`python -m app.export_openapi`: write the served OpenAPI document to `openapi/openapi.json`.

The committed file is what client generators and reviewers read; a test fails when it drifts from
what the app serves, and this command is how it is brought back in line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from app.main import create_app

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def render() -> bytes:
    """The document exactly as committed: indented, keys in the app's order, a final newline."""
    return orjson.dumps(create_app().openapi(), option=orjson.OPT_INDENT_2) + b"\n"


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(render())
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
