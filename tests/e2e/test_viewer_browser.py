"""The plan viewer in a real headless Chromium (`tests/e2e/browser.py`) against the real server.

The page must draw the service's answer and nothing of its own: for every bundled transcript the
rows, their `data-fate` and `data-held-by`, the notice and the figures of `stats` are compared
with the answer the API gives for the same body, posted here directly. Skipped with one line when
there is no browser, unless `CWP_REQUIRE_BROWSER=1`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.browser import (
    chromium,
    open_viewer,
    require_browser,
    skip_module_without_browser,
)
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


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    opened = browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    opened.close()
    assert errors == [], errors


def read_file_shapes(text: str) -> dict[str, Any]:
    """The body fields of a transcript file: a JSON array, an object, or JSON Lines."""
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        return {"messages": [json.loads(line) for line in text.splitlines() if line.strip()]}
    if isinstance(whole, list):
        return {"messages": whole}
    return {key: whole[key] for key in ("format", "system", "messages") if key in whole}


def api_answer(server: Server, name: str) -> dict[str, Any]:
    """The API's answer for the body the page sends for `name` with its default options."""
    text = httpx.get(f"{server.url}/viewer/samples/{name}").text
    body = {"format": "auto", **read_file_shapes(text), "tokenizer": "estimate"}
    body |= {"include_turns": True, "include_window": True}
    response = httpx.post(f"{server.url}/v1/window/plan", json=body, timeout=30)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def drawn_rows(page: Any) -> list[dict[str, str]]:
    script = """rows => rows.map(row => ({
        kind: row.classList.contains('notice') ? 'notice' : 'turn',
        index: row.dataset.turnIndex ?? null, fate: row.dataset.fate ?? null,
        held_by: row.dataset.heldBy ?? null, window_index: row.dataset.windowIndex ?? null,
        labels: [...row.querySelectorAll('.badge')].map(b => b.textContent)}))"""
    rows: list[dict[str, str]] = page.eval_on_selector_all("#turns > li", script)
    return rows


def sample_names(server: Server) -> list[str]:
    names: list[str] = httpx.get(f"{server.url}/viewer/samples").json()
    return names


def test_every_bundled_transcript_is_drawn_as_the_api_answers_it(server, page):
    names = sample_names(server)
    dialects = ("native", "openai", "anthropic", "responses", "gemini", "bedrock")
    assert {f"example-{dialect}" for dialect in dialects} <= set(names)
    for name in names:
        assert open_viewer(page, f"{server.url}/viewer?sample={name}") == "done", name
        answer = api_answer(server, name)
        rows = drawn_rows(page)
        turns = [row for row in rows if row["kind"] == "turn"]
        assert [(row["index"], row["fate"], row["held_by"]) for row in turns] == [
            (str(turn["index"]), turn["fate"], turn["held_by"] or "") for turn in answer["turns"]
        ], name

        notices = [i for i, row in enumerate(rows) if row["kind"] == "notice"]
        if answer["notice"] is None:
            assert notices == [], name
        else:
            # One notice, where the span left: right after the last evicted turn.
            assert len(notices) == 1, name
            place = notices[0]
            assert rows[place]["window_index"] == str(answer["notice"]["window_index"])
            assert rows[place - 1]["index"] == str(max(answer["evicted"])), name
            text = page.inner_text("#turns > li.notice .notice-text")
            assert answer["notice"]["content"].startswith(text.rstrip("…")), name

        for figure, value in answer["stats"].items():
            shown = page.inner_text(f"#stats dd[data-figure='{figure}']")
            assert shown == str(value), (name, figure)

        pinned = {
            pin["turn_index"]
            for block in answer["pins"].values()
            if block
            for pin in block["pinned"]
        }
        marked = {int(row["index"]) for row in turns if any("pin:" in b for b in row["labels"])}
        assert marked == pinned, name
        if answer["current_request"] is not None:
            current = page.get_attribute("#turns li.turn.current", "data-turn-index")
            assert current == str(answer["current_request"]["turn_index"]), name


def test_each_example_shows_a_notice_and_a_pin(server, page):
    for name in [n for n in sample_names(server) if n.startswith("example-")]:
        open_viewer(page, f"{server.url}/viewer?sample={name}")
        assert page.locator("#turns > li.notice").count() == 1, name
        assert page.locator("#turns .badge.pin").count() >= 1, name


def test_a_refusal_shows_the_problem_title_and_its_fields(server, page):
    open_viewer(page, f"{server.url}/viewer?sample=example-native")
    page.fill("#options-json", '{"keep_last_tool_results": -1, "iteration": 0}')
    page.click("#plan")
    page.wait_for_selector("#status[data-state=error]")
    assert page.inner_text("#problem .problem-title") == "Invalid request"
    locs = page.eval_on_selector_all(
        "#problem .problem-field", "els => els.map(e => e.dataset.loc)"
    )
    assert sorted(locs) == ["body.iteration", "body.keep_last_tool_results"]
    assert page.is_hidden("#answer")


def test_an_unknown_sample_shows_not_found(server, page):
    assert open_viewer(page, f"{server.url}/viewer?sample=no-such-sample") == "error"
    assert page.inner_text("#problem .problem-title") == "Not found"


def test_keyboard_focus_on_a_turn_shows_its_text(server, page):
    open_viewer(page, f"{server.url}/viewer?sample=example-native")
    first, second = page.locator("#turns li.turn").nth(0), page.locator("#turns li.turn").nth(1)
    assert first.locator(".turn-text").is_hidden()
    # The last tab before the list, then Tab: the keyboard reaches the rows in order.
    page.focus("[role=tab][data-view=window]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.turnIndex") == "0"
    assert first.locator(".turn-text").is_visible()
    assert "release assistant" in first.locator(".turn-text").inner_text()
    page.keyboard.press("Tab")
    assert first.locator(".turn-text").is_hidden()
    assert second.locator(".turn-text").is_visible()
    assert "deploy of billing-api failed" in second.locator(".turn-text").inner_text()


def test_the_switch_shows_the_raw_answer_and_the_window(server, page):
    open_viewer(page, f"{server.url}/viewer?sample=example-openai")
    answer = api_answer(server, "example-openai")
    page.click("[role=tab][data-view=raw]")
    assert json.loads(page.inner_text("#view-raw")) == answer
    assert page.is_hidden("#view-turns")
    page.click("[role=tab][data-view=window]")
    assert json.loads(page.inner_text("#view-window")) == answer["window"]


def test_the_page_requests_nothing_from_another_host(server, browser):
    page = browser.new_page()
    hosts: set[str] = set()
    page.on("request", lambda request: hosts.add(request.url.split("/")[2]))
    open_viewer(page, f"{server.url}/viewer?sample=example-gemini")
    page.close()
    assert hosts == {server.url.split("/")[2]}
