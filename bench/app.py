"""The app the benchmark serves: the real app plus a bare endpoint to compare throughput against.

`POST /bench/bare` reads and parses the body exactly as the real endpoints do (content type,
strict JSON, depth, the deadline-guarded worker) and answers a small constant, so the ratio of the
two throughputs is what validating, planning and serializing cost.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from app.api.body import handle_json_body
from app.api.responses import json_response
from app.main import create_app
from app.settings import Settings

app = create_app(Settings())


@app.post("/bench/bare", include_in_schema=False)
async def bare(request: Request) -> Response:
    def handle(raw: Any) -> Response:
        return json_response({"ok": True})

    return await handle_json_body(request, handle)
