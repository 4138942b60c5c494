"""JSON answers serialized once, by orjson, in the key order docs/rules.md fixes."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import Response


def json_response(content: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(content), media_type="application/json", headers=headers)
