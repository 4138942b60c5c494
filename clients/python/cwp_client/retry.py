"""Retries, as an httpx transport: every endpoint of the planner is a pure function of its request
body (the service keeps no state), so resending a request can never do anything twice, and the
retry can sit below every call, the generated API functions' included.

What is retried: a `503` (the request ran past the processing deadline, or the service is
shutting down and another replica, or this one restarted, will answer) and a connection that
could not be made or broke before an answer (`ConnectError`, `ConnectTimeout`, `ReadError`,
`WriteError`, `RemoteProtocolError`). A read timeout is not retried: the service is slow, not
gone, and resending would double its load; it surfaces as a `PlannerConnectionError` at once.

The delay before retry `n` (1-based) is `initial_delay * multiplier ** (n - 1)`, capped at
`max_delay`; a `Retry-After` header in seconds (the service sends `1` with its deadline 503)
replaces it, capped the same way. `attempts` bounds the total number of tries.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import httpx

RETRIED_TRANSPORT_ERRORS: tuple[type[httpx.TransportError], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry; `RetryPolicy(attempts=1)` never retries."""

    attempts: int = 4
    initial_delay: float = 0.1
    multiplier: float = 2.0
    max_delay: float = 2.0
    statuses: frozenset[int] = field(default=frozenset({503}))
    respect_retry_after: bool = True

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("attempts must be at least 1")
        if self.initial_delay < 0 or self.max_delay < 0 or self.multiplier < 1:
            raise ValueError("delays must be >= 0 and the multiplier >= 1")

    def delay(self, retry: int, response: httpx.Response | None = None) -> float:
        """Seconds to wait before retry number `retry` (1-based) after `response` (None after a
        connection error)."""
        if self.respect_retry_after and response is not None:
            after = _retry_after_seconds(response)
            if after is not None:
                return min(after, self.max_delay)
        return min(self.initial_delay * self.multiplier ** (retry - 1), self.max_delay)

    def retries_status(self, status: int) -> bool:
        return status in self.statuses


def _retry_after_seconds(response: httpx.Response) -> float | None:
    """The `Retry-After` header as a number of seconds; None when absent or an HTTP date (which
    a planner never sends; the backoff applies then)."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


class RetryTransport(httpx.BaseTransport):
    """`inner` (a fresh `httpx.HTTPTransport` by default) with the retries of `policy`."""

    def __init__(
        self, policy: RetryPolicy | None = None, inner: httpx.BaseTransport | None = None
    ) -> None:
        self.policy = policy or RetryPolicy()
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        retry = 0
        while True:
            last_try = retry + 1 >= self.policy.attempts
            try:
                response = self.inner.handle_request(request)
            except RETRIED_TRANSPORT_ERRORS:
                if last_try:
                    raise
                retry += 1
                time.sleep(self.policy.delay(retry))
                continue
            if last_try or not self.policy.retries_status(response.status_code):
                return response
            response.close()
            retry += 1
            time.sleep(self.policy.delay(retry, response))

    def close(self) -> None:
        self.inner.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    """The asynchronous `RetryTransport`."""

    def __init__(
        self, policy: RetryPolicy | None = None, inner: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.policy = policy or RetryPolicy()
        self.inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        retry = 0
        while True:
            last_try = retry + 1 >= self.policy.attempts
            try:
                response = await self.inner.handle_async_request(request)
            except RETRIED_TRANSPORT_ERRORS:
                if last_try:
                    raise
                retry += 1
                await asyncio.sleep(self.policy.delay(retry))
                continue
            if last_try or not self.policy.retries_status(response.status_code):
                return response
            await response.aclose()
            retry += 1
            await asyncio.sleep(self.policy.delay(retry, response))

    async def aclose(self) -> None:
        await self.inner.aclose()
