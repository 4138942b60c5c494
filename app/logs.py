"""Log lines: one JSON object per line by default, each carrying the request id.

A sidecar's logs are read by machines first, so the default is JSON; `CWP_LOG_FORMAT=text` gives
plain lines for a person at a terminal. The request id comes from a context variable set by the
request middleware, so every line logged while serving a request names that request.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson

from app.api.middleware import request_id_var

# uvicorn adds `color_message`, the same text with terminal colour codes: not for a log file.
_STANDARD_ATTRS = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


def stamp_request_ids() -> None:
    """Give every log record the id of the request being served when it was created."""
    current = logging.getLogRecordFactory()
    if getattr(current, "stamps_request_id", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = current(*args, **kwargs)
        record.request_id = request_id_var.get()
        return record

    factory.stamps_request_id = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(
            f"{key}={value}"
            for key, value in vars(record).items()
            if key not in _STANDARD_ATTRS and not key.startswith("_")
        )
        line = f"{record.levelname.lower()} {record.getMessage()} {extras}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line.rstrip()


def configure_logging(level: str, log_format: str) -> None:
    """Route the app's and uvicorn's loggers through one handler on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    # The access middleware logs every request with more detail than uvicorn's access log.
    logging.getLogger("uvicorn.access").disabled = True
