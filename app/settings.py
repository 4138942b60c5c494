"""Service settings, read from `CWP_`-prefixed environment variables.

Every limit the service enforces is a setting, so an operator can raise one without a rebuild, and
`GET /v1/info` reports the values in force. Limits and their statuses: `docs/rules.md#validation`.

`load_settings` reads them and, when a variable holds a value the service cannot use, raises
`SettingsError` naming the variable, its value and what is expected, in one line (`python -m app`
prints it and exits with status 2), rather than pydantic's report in field names.
"""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

from pydantic import Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core.defaults import MAX_FRAME_TAG_CHARS, MAX_SUMMARIES
from app.errors import MAX_ERRORS
from app.service.limits import ListLimits

# About 20 MiB at about 210 bytes an entry (docs/decisions/0034). Half the bound survives between
# requests: the texts of a 50,000-message transcript (about one distinct text a message in the
# benchmark's), or of several agents' transcripts of a few thousand messages.
DEFAULT_TOKEN_MEMO_ENTRIES = 100_000


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
    body_budget_bytes: int = Field(
        256 * 1024 * 1024,
        ge=1,
        description="Most body bytes all requests together may hold at once, taken from a body's "
        "Content-Length before it is read (a chunked body's as it arrives); a body that would "
        "pass it waits for room, then is answered 503 problem+json with Retry-After. A body that "
        "finds nothing else in flight is always let in. Large-body work is within it.",
    )
    body_budget_wait_seconds: float = Field(
        2.0,
        ge=0,
        description="How long a body that would pass the bodies-in-flight budget waits for room "
        "before its 503; 0 refuses it at once.",
    )
    compiled_reader: bool = Field(
        True,
        description="Read plan requests with the compiled reader when it is installed (the same "
        "answers, faster); false reads every request in Python. /v1/info says which is in use.",
    )
    token_memo_entries: int = Field(
        DEFAULT_TOKEN_MEMO_ENTRIES,
        ge=0,
        description="Most exact token counts the process remembers (about 210 bytes each), so a "
        "text sent again is not counted again; 0 counts every text on every request.",
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
    read_timeout_seconds: float = Field(
        10.0,
        gt=0,
        description="Longest time a request's head and body may take to arrive, from its first "
        "byte; past it the request is answered 408 (or, when its head never ended, the connection "
        "is closed after a 408). At the default, a body at the 32 MiB limit must come at 3.2 MiB/s "
        "or faster: raise it for large bodies on slow links.",
    )
    limit_concurrency: int = Field(
        256,
        ge=1,
        description="Connections served at once (requests in progress count too); past it a "
        "request is answered 503 problem+json with Retry-After, except /healthz, /readyz and "
        "/metrics.",
    )
    keep_alive_seconds: float = Field(5.0, gt=0, description="Idle keep-alive connection timeout.")
    max_header_bytes: int = Field(
        64 * 1024,
        ge=1024,
        description="Most bytes of an unfinished request head (request line and headers) held "
        "while it arrives; past it the connection gets a 431 problem+json and is closed, so a "
        "client cannot grow the server's memory by never ending its headers.",
    )
    # List lengths (docs/rules.md#validation): past one, the request gets one 422 naming
    # the list ("too long") before any of its items is read.
    max_tool_calls: int = Field(
        1024,
        ge=1,
        description="Most tool calls in one message (`tool_calls`, or a format's calls).",
    )
    max_content_parts: int = Field(
        4096, ge=1, description="Most content blocks or parts in one message's own list."
    )
    max_frame_tags: int = Field(256, ge=0, description="Most names in a plan's `frame_tags`.")
    max_exclude_tools: int = Field(
        256, ge=0, description="Most names in a plan's `clear.exclude_tools`."
    )
    max_chars_by_tool_keys: int = Field(
        1024, ge=0, description="Most tools in a `max_chars_by_tool` object (cap and plan)."
    )
    max_prior_records: int = Field(1000, ge=0, description="Most records in `prior_records`.")
    max_ledger_rows: int = Field(100_000, ge=0, description="Most rows in a `ledger`.")
    max_list_items: int = Field(
        10_000,
        ge=1,
        description="Most items in `results`, `answers`, `used`, `previous_batch` and `kept`.",
    )

    def list_limits(self) -> ListLimits:
        """The list lengths in force, as the use cases take them."""
        return ListLimits(
            tool_calls=self.max_tool_calls,
            content_parts=self.max_content_parts,
            frame_tags=self.max_frame_tags,
            exclude_tools=self.max_exclude_tools,
            chars_by_tool_keys=self.max_chars_by_tool_keys,
            prior_records=self.max_prior_records,
            ledger_rows=self.max_ledger_rows,
            list_items=self.max_list_items,
        )

    def reported_limits(self) -> dict[str, int | float]:
        """The limits in force as `/v1/info` reports them, the fixed ones included."""
        return {
            "max_body_bytes": self.max_body_bytes,
            "max_messages": self.max_messages,
            "max_json_depth": self.max_json_depth,
            "request_deadline_seconds": self.request_deadline_seconds,
            "max_header_bytes": self.max_header_bytes,
            "read_timeout_seconds": self.read_timeout_seconds,
            "limit_concurrency": self.limit_concurrency,
            "inline_body_bytes": self.inline_body_bytes,
            "large_body_bytes": self.large_body_bytes,
            "large_body_slots": self.large_body_slots,
            "body_budget_bytes": self.body_budget_bytes,
            "body_budget_wait_seconds": self.body_budget_wait_seconds,
            "max_errors": MAX_ERRORS,
            "max_tool_calls": self.max_tool_calls,
            "max_content_parts": self.max_content_parts,
            "max_frame_tags": self.max_frame_tags,
            "max_frame_tag_chars": MAX_FRAME_TAG_CHARS,
            "max_exclude_tools": self.max_exclude_tools,
            "max_chars_by_tool_keys": self.max_chars_by_tool_keys,
            "max_summaries": MAX_SUMMARIES,
            "max_prior_records": self.max_prior_records,
            "max_ledger_rows": self.max_ledger_rows,
            "max_list_items": self.max_list_items,
        }


class SettingsError(ValueError):
    """A `CWP_` variable holds a value the service cannot use; the message is one line."""


def load_settings() -> Settings:
    """The settings from the environment, or `SettingsError` naming every bad variable."""
    try:
        return Settings()
    except ValidationError as error:
        raise SettingsError(describe_settings_error(error)) from None


def describe_settings_error(error: ValidationError) -> str:
    """One line: each bad variable with the value it holds and what it should hold."""
    prefix = Settings.model_config.get("env_prefix", "")
    problems: dict[str, str] = {}
    for item in error.errors(include_url=False):
        name = str(item["loc"][0]) if item["loc"] else ""
        field = Settings.model_fields.get(name)
        variable = f"{prefix}{name}".upper()
        if variable in problems:
            continue
        expected = expected_value(field) if field is not None else item["msg"]
        problems[variable] = f"{variable}={item.get('input')!r}: expected {expected}"
    noun = "setting" if len(problems) == 1 else "settings"
    return f"invalid {noun}: " + "; ".join(problems.values())


# Looked up by a field's annotation, which may be any type form (or None).
_KINDS: dict[object, str] = {
    int: "an integer",
    float: "a number",
    str: "text",
    bool: "true or false",
}


def expected_value(field: FieldInfo) -> str:
    """What a field accepts, in words: `an integer from 0 to 65535`, `one of json, text`."""
    if get_origin(field.annotation) is Literal:
        return "one of " + ", ".join(str(choice) for choice in get_args(field.annotation))
    kind = _KINDS.get(field.annotation, "a valid value")
    bounds: dict[str, Any] = {}
    for constraint in field.metadata:
        for bound in ("ge", "gt", "le", "lt"):
            if getattr(constraint, bound, None) is not None:
                bounds[bound] = getattr(constraint, bound)
    if "ge" in bounds and "le" in bounds:
        return f"{kind} from {bounds['ge']} to {bounds['le']}"
    words = {"ge": "of at least", "gt": "greater than", "le": "of at most", "lt": "less than"}
    described = [f"{words[bound]} {value}" for bound, value in bounds.items()]
    return " ".join([kind, " and ".join(described)]) if described else kind


def check_shutdown_budget(settings: Settings) -> None:
    """`SettingsError` when the graceful-shutdown time cannot cover a request that has just begun.

    A request accepted just before shutdown may take up to `CWP_READ_TIMEOUT_SECONDS` to arrive
    and `CWP_REQUEST_DEADLINE_SECONDS` to be processed; a shorter grace period would cut such a
    request off (it is answered 503 then, `app.api.middleware`), so the server refuses to start
    with it rather than fail requests on every rollout.
    """
    needed = settings.read_timeout_seconds + settings.request_deadline_seconds
    if settings.graceful_shutdown_seconds < needed:
        raise SettingsError(
            f"CWP_GRACEFUL_SHUTDOWN_SECONDS={settings.graceful_shutdown_seconds:g}: expected at "
            f"least CWP_READ_TIMEOUT_SECONDS + CWP_REQUEST_DEADLINE_SECONDS = "
            f"{settings.read_timeout_seconds:g} + {settings.request_deadline_seconds:g} = "
            f"{needed:g}, so a request begun before shutdown can finish"
        )


def describe_settings() -> str:
    """Every `CWP_` variable with its default and meaning, for `python -m app --help`."""
    prefix = str(Settings.model_config.get("env_prefix", ""))
    lines = []
    for name, field in Settings.model_fields.items():
        default = field.default
        shown = str(default).lower() if isinstance(default, bool) else str(default)
        meaning = f"{field.description or ''} Accepts {expected_value(field)}.".strip()
        lines.append(f"  {prefix}{name.upper()} (default: {shown})")
        lines.append(f"      {meaning}")
    return "\n".join(lines)
