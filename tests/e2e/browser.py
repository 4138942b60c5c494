"""A real headless Chromium for the viewer's tests, driven by Playwright's Python package.

The browser is the system's (`/usr/bin/chromium`, or `CWP_CHROMIUM`), never one Playwright
downloads: Playwright only drives it. Each launch gets a fresh profile directory and the flags that
keep Chromium from reaching any other host, so a test sees only what the service serves.

Without a browser the tests are skipped with one line saying why, unless `CWP_REQUIRE_BROWSER=1`
(as in CI), which makes a missing browser a failure.

`python -m tests.e2e.browser [OUT.png]` writes the screenshot of the README (docs/viewer.png).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CWP_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1200, "height": 900}


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


def required() -> bool:
    return os.environ.get("CWP_REQUIRE_BROWSER") == "1"


def skip_module_without_browser() -> None:
    """At a test module's import: skip the whole module in one line when there is no browser,
    unless one is required (then `require_browser` fails each test that runs)."""
    why = missing_browser()
    if why is not None and not required():
        pytest.skip(f"browser tests skipped: {why}", allow_module_level=True)


def require_browser() -> None:
    """In a fixture, so a run that deselects the tests (`make test-fast`) never fails on it."""
    why = missing_browser()
    if why is not None:
        raise RuntimeError(f"a browser is required here (CWP_REQUIRE_BROWSER=1) but {why}")


@contextmanager
def chromium() -> Iterator[Any]:
    """A browser context on a fresh profile: pages from `.new_page()`."""
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="cwp-chromium-")
    try:
        with sync_playwright() as driver:
            context = driver.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                headless=True,
                args=ARGS,
                viewport=VIEWPORT,
            )
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def open_viewer(page: Any, url: str) -> str:
    """Load the viewer at `url` and wait until it has drawn an answer or a problem; the state."""
    page.goto(url)
    status = page.wait_for_selector("#status[data-state=done], #status[data-state=error]")
    return str(status.get_attribute("data-state"))


def screenshot(out: Path, sample: str = "example-openai", focus_turn: int = 10) -> None:
    """The viewer on `sample`, one turn focused (its text shown), written to `out`."""
    from tests.e2e.serving import Server

    server = Server()
    try:
        with chromium() as context:
            page = context.new_page()
            open_viewer(page, f"{server.url}/viewer?sample={sample}")
            page.focus(f"#turns li.turn[data-turn-index='{focus_turn}']")
            page.screenshot(path=str(out), full_page=True)
    finally:
        server.stop()


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/viewer.png")
    screenshot(target)
    print(f"wrote {target}")
