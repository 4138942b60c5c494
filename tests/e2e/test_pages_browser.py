"""The viewer and Swagger UI under their Content-Security-Policy, in a real headless Chromium: both
still work (the viewer draws a plan, Swagger UI lists the operations from `/openapi.json`) and the
browser reports no policy violation, so the policy allows everything the pages use and nothing
from another host.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser import chromium, open_viewer, require_browser, skip_module_without_browser
from tests.e2e.serving import Server

skip_module_without_browser()


@pytest.fixture(scope="module", autouse=True)
def browser_present() -> None:
    require_browser()


@pytest.fixture(scope="module")
def server(browser_present: None) -> Iterator[Server]:
    running = Server(CWP_SHUTDOWN_DRAIN_SECONDS="0")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser(browser_present: None) -> Iterator[Any]:
    with chromium() as context:
        yield context


def watched(browser: Any) -> tuple[Any, list[str]]:
    """A new page and the policy violations and script errors it reports."""
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "console",
        lambda message: (
            problems.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return page, problems


def test_the_viewer_works_under_its_policy(server, browser):
    page, problems = watched(browser)
    answer = page.goto(f"{server.url}/viewer?sample=example-openai")
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert open_viewer(page, f"{server.url}/viewer?sample=example-openai") == "done"
    page.close()
    assert problems == []


def test_swagger_ui_works_under_its_policy(server, browser):
    page, problems = watched(browser)
    answer = page.goto(f"{server.url}/docs")
    assert answer.headers["x-content-type-options"] == "nosniff"
    page.wait_for_selector(".opblock-summary-path", timeout=30_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/v1/window/plan" in path for path in paths)
    page.close()
    assert problems == []
