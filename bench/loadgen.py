"""A small HTTP/1.1 load generator: keep-alive connections posting one body as fast as answered.

It runs in its own process (pinned to a core of its own when asked), so it competes as little as
possible with the server it measures.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass


@dataclass
class LoadResult:
    requests: int
    errors: int
    seconds: float
    latencies: list[float]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


async def _connection(
    host: str, port: int, request: bytes, until: float, result: LoadResult
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < until:
            started = time.perf_counter()
            writer.write(request)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            result.latencies.append(time.perf_counter() - started)
            if status == 200:
                result.requests += 1
            else:
                result.errors += 1
    finally:
        writer.close()


def run_load(
    host: str, port: int, path: str, body: bytes, seconds: float, connections: int, core: int | None
) -> LoadResult:
    if core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})
    request = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    result = LoadResult(0, 0, 0.0, [])

    async def main() -> None:
        started = time.perf_counter()
        until = started + seconds
        await asyncio.gather(
            *(_connection(host, port, request, until, result) for _ in range(connections))
        )
        result.seconds = time.perf_counter() - started

    asyncio.run(main())
    return result
