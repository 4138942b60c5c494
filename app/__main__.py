"""`python -m app`: serve the app with uvicorn, configured from the `CWP_` settings."""

from __future__ import annotations

import uvicorn

from app.logs import configure_logging
from app.settings import Settings


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    print(
        f"Context Window Planner on http://{settings.host}:{settings.port} "
        f"— Swagger UI: http://{settings.host}:{settings.port}/docs",
        flush=True,
    )
    uvicorn.run(
        "app.main:app",
        host=settings.host,
        port=settings.port,
        workers=1,
        log_config=None,
        access_log=False,
        limit_concurrency=settings.limit_concurrency,
        timeout_keep_alive=settings.keep_alive_seconds,
        timeout_graceful_shutdown=settings.graceful_shutdown_seconds,
    )


if __name__ == "__main__":
    main()
