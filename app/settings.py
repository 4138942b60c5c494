"""Service settings, read from `CWP_`-prefixed environment variables.

Every limit the service enforces is a setting, so an operator can raise one without a rebuild, and
`GET /v1/info` reports the values in force. Defaults are the contract's (`api.md` §limits).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """What the process is configured with; one instance per app."""

    model_config = SettingsConfigDict(env_prefix="CWP_", frozen=True, extra="ignore")

    host: str = Field("127.0.0.1", description="Address to bind; loopback keeps a sidecar private.")
    port: int = Field(8080, ge=0, le=65535, description="TCP port to serve on.")
    max_body_bytes: int = Field(32 * 1024 * 1024, ge=1, description="Largest request body.")
    max_messages: int = Field(100_000, ge=1, description="Most messages in one transcript.")
    max_json_depth: int = Field(64, ge=2, description="Deepest JSON nesting accepted.")
    request_deadline_seconds: float = Field(
        10.0, gt=0, description="Longest time one request may spend being processed."
    )
    inline_body_bytes: int = Field(
        64 * 1024,
        ge=0,
        description="A body smaller than this is parsed and planned on the event loop: its work "
        "takes about a millisecond, less than handing it to a worker thread costs. Larger bodies "
        "run in a worker thread under the deadline; 0 sends every body to a worker.",
    )
    large_body_bytes: int = Field(
        1024 * 1024,
        ge=1,
        description="A body this large or larger is parsed and planned in a large-body slot.",
    )
    large_body_slots: int = Field(
        2,
        ge=1,
        description="Large bodies worked on at once, abandoned work included: parsing multiplies "
        "a body in memory, so this bounds the process's peak.",
    )
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["json", "text"] = "json"
    shutdown_drain_seconds: float = Field(
        1.0,
        ge=0,
        description="After SIGTERM, how long /readyz answers 503 while requests are still served.",
    )
    graceful_shutdown_seconds: float = Field(
        20.0, gt=0, description="How long in-flight requests may run after shutdown starts."
    )
    limit_concurrency: int = Field(
        256, ge=1, description="Connections served at once; past it uvicorn answers 503."
    )
    keep_alive_seconds: float = Field(5.0, gt=0, description="Idle keep-alive connection timeout.")
    max_header_bytes: int = Field(
        64 * 1024,
        ge=1024,
        description="Most bytes of an unfinished request head (request line and headers) held "
        "while it arrives; past it the connection gets a 400 and is closed, so a client cannot "
        "grow the server's memory by never ending its headers.",
    )
