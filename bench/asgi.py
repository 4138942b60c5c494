"""One HTTP request straight into an ASGI app, with no server or client library in between.

The benchmark, the fuzz harness and the tests that need the app without httpx all call the app
this way, so what "one request" means (the scope, a body in one message, a disconnect only after
the answer) is written once.
"""

from __future__ import annotations

import asyncio
from typing import Any


def http_scope(
    method: str, path: str, headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    """The scope of an HTTP/1.1 request from a loopback client."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers if headers is not None else [(b"host", b"planner")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }


async def call_asgi(
    app: Any, method: str, path: str, body: bytes = b""
) -> tuple[int, dict[bytes, bytes], bytes]:
    """(status, headers with lower-case names, body) of one JSON request through `app`."""
    headers = [
        (b"host", b"planner"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    delivered = False
    done = asyncio.Event()
    status = 0
    answer_headers: dict[bytes, bytes] = {}
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            answer_headers.update((name.lower(), value) for name, value in message["headers"])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                done.set()

    await app(http_scope(method, path, headers), receive, send)
    return status, answer_headers, b"".join(chunks)
