"""`python -m app`: serve the app with uvicorn, configured from the `CWP_` settings.

The HTTP parser is h11, chosen for its bound on a request's head (`CWP_MAX_HEADER_BYTES`): the
httptools parser keeps appending an unfinished request line or header block without limit (and
re-copies the whole line on every packet), so one client could grow the process's memory and stall
the event loop. What uvicorn cannot set is a read timeout, and its concurrency limit answers in
plain text: the protocol is uvicorn's h11 one extended (`app.api.connections`) with a read deadline
(`CWP_READ_TIMEOUT_SECONDS`), so a client that trickles its head or its body holds its connection
no longer than that, and with the connection ceiling (`CWP_LIMIT_CONCURRENCY`) answered as a
problem; uvicorn's own limit is left off, or it would answer first
(`docs/decisions/0032-slow-clients.md`).

The event loop is asyncio's own, and uvicorn is installed without its `standard` extra: the server
uses none of what that extra brings (httptools, websockets, file watching for reloads), and uvloop
made no measurable difference to planning (a 50-message plan at 673 against 668 requests a second,
medians of ten alternating rounds; the mixed load test served as many requests a second either
way) while costing 2.2 MiB of resident memory in every replica
(`docs/decisions/0008-server-asyncio-h11.md`, `docs/reliability.md`).

`python -m app --help` lists every `CWP_` setting with its default and meaning, and exits without
serving. The start is refused (exit status 2) when `CWP_GRACEFUL_SHUTDOWN_SECONDS` is shorter than
`CWP_READ_TIMEOUT_SECONDS` plus `CWP_REQUEST_DEADLINE_SECONDS`: a request accepted just before
shutdown could otherwise be cut off (`docs/reliability.md#shutdown`).

The app is served through a factory (`app.main:serve_app`), so nothing is built when a module is
imported, and this start-up is what applies the garbage collector's process-wide policy
(`app.api.collector`): the thresholds before uvicorn builds the app, the freeze in the served
app's lifespan.
"""

from __future__ import annotations

import argparse
import sys

import uvicorn

from app.api.collector import apply_server_gc_policy
from app.api.connections import deadline_protocol
from app.logs import configure_logging
from app.settings import SettingsError, check_shutdown_budget, describe_settings, load_settings
from app.tokenizers import TokenizerUnavailable, check_installed

# The exit status of a start refused for a bad setting (a usage error, as for a bad option).
BAD_SETTING_STATUS = 2


# A factory, not an app object: the app is built in the server, after its collector policy.
SERVED_APP = "app.main:serve_app"


def main(app_path: str = SERVED_APP, *, factory: bool = True) -> None:
    """Serve the ASGI app that `app_path` names (the benchmark serves its own app this same way).

    With `factory` (the default) `app_path` names a callable taking no arguments that returns the
    app; without it, the app itself.

    A bad `CWP_` variable ends the process before anything is served, with one line on stderr
    naming the variable, its value and what it should hold, and exit status 2; so does a
    tokenizer whose vocabulary is not installed (`app.tokenizers.check_installed`).
    """
    try:
        settings = load_settings()
        check_shutdown_budget(settings)
        check_installed()
    except (SettingsError, TokenizerUnavailable) as error:
        print(f"Context Window Planner: {error}", file=sys.stderr, flush=True)
        raise SystemExit(BAD_SETTING_STATUS) from None
    configure_logging(settings.log_level, settings.log_format)
    print(
        f"Context Window Planner on http://{settings.host}:{settings.port} "
        f"— Swagger UI: http://{settings.host}:{settings.port}/docs",
        flush=True,
    )
    apply_server_gc_policy()
    uvicorn.run(
        app_path,
        factory=factory,
        host=settings.host,
        port=settings.port,
        workers=1,
        log_config=None,
        access_log=False,
        http=deadline_protocol(settings.read_timeout_seconds, settings.limit_concurrency),
        loop="asyncio",
        ws="none",  # no WebSocket routes: the websockets library is not even imported
        h11_max_incomplete_event_size=settings.max_header_bytes,
        limit_concurrency=None,  # the protocol's ceiling answers instead, in problem+json
        # uvicorn annotates both as int but uses them as seconds for `loop.call_later` and
        # `asyncio.wait_for`, which take fractions too; the settings accept `0.5`.
        timeout_keep_alive=settings.keep_alive_seconds,  # type: ignore[arg-type]
        timeout_graceful_shutdown=settings.graceful_shutdown_seconds,  # type: ignore[arg-type]
    )


def parse_arguments(argv: list[str]) -> None:
    """`--help` prints the settings and exits 0; the server takes no other argument."""
    parser = argparse.ArgumentParser(
        prog="python -m app",
        description="Serve the Context Window Planner. It is configured by environment "
        "variables only; each is listed below with its default.",
        epilog="settings:\n" + describe_settings(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.parse_args(argv)


if __name__ == "__main__":
    parse_arguments(sys.argv[1:])
    main()
