"""The plan viewer in a real headless Chromium (`tests/e2e/browser.py`) against the real server.

The page must draw the service's answer and nothing of its own: for every bundled transcript the
rows, their `data-fate`, `data-held-by` and `data-taken-by`, the notice and the figures of `stats`
are compared with the answer the API gives for the same body, posted here directly. Answers of the
`fit` strategy's later stages (further spans, released pins, the keep window, caps) are handed to
the page by intercepting its request, so their drawing is tested whatever plan the service makes
of a transcript. Skipped with one line when there is no browser, unless `CWP_REQUIRE_BROWSER=1`.
"""

from __future__ import annotations

import base64
import copy
import json
import struct
import zlib
from collections.abc import Iterator
from typing import Any, get_args

import httpx
import pytest

from app.core.plan_types import HeldBy
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
        held_by: row.dataset.heldBy ?? null, taken_by: row.dataset.takenBy ?? null,
        window_index: row.dataset.windowIndex ?? null,
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

        # One span, so every evicted turn is the span's.
        assert [row["taken_by"] for row in turns] == [
            "span" if turn["fate"] == "evicted" else "" for turn in answer["turns"]
        ], name
        assert all(
            ("taken by the span" in row["labels"]) == (row["fate"] == "evicted") for row in turns
        ), name
        assert page.is_hidden("[data-budget-warning]"), name

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
    # The last stop before the list (the legend's summary), then Tab: the keyboard reaches the
    # rows in order.
    page.focus("#view-turns .legend-words > summary")
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


# ---- summaries: the summary request shown, summaries pasted, the summary drawn ----


def summary_transcript() -> list[dict[str, Any]]:
    """The task, then three calls to `look` with 500-character results (the first example of
    docs/rules.md#summaries): a sliding window of one turn removes turns 1–2."""

    def call(name: str) -> dict[str, Any]:
        return {"role": "assistant", "content": "", "tool_calls": [{"id": name, "name": "look",
                                                                    "arguments": {}}]}  # fmt: skip

    def result(name: str) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": name, "tool_name": "look", "content": "x" * 500}

    messages: list[dict[str, Any]] = [{"role": "user", "content": "Find the hot rack."}]
    for name in ("c1", "c2", "c3"):
        messages += [call(name), result(name)]
    return messages


def summary_body(summaries: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The body the page sends for the form `fill_summary_form` fills."""
    body: dict[str, Any] = {
        "format": "native",
        "messages": summary_transcript(),
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
        "keep_last_tool_results": 0,
        "tokenizer": "estimate",
        "summarize": {"min_span_tokens": 0},
        "include_turns": True,
        "include_window": True,
    }
    if summaries is not None:
        body["summaries"] = summaries
    return body


def posted(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(f"{server.url}/v1/window/plan", json=body, timeout=30)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def fill_summary_form(page: Any, server: Server, summaries: str = "") -> str:
    """The summary transcript and options in the form, planned; the status reached."""
    page.goto(f"{server.url}/viewer")
    page.wait_for_selector("#status[data-state=ready]", state="attached")
    page.fill("#transcript", json.dumps(summary_transcript()))
    page.select_option("#format", "native")
    page.select_option("#strategy", "sliding-window")
    page.fill("#keep-recent", "1")
    page.fill("#keep-results", "0")
    page.check("#summarize")
    page.fill("#min-span", "0")
    page.fill("#summaries", summaries)
    page.click("#plan")
    page.wait_for_selector("#status[data-state=done], #status[data-state=error]", state="attached")
    state: str = page.get_attribute("#status", "data-state")
    return state


def test_the_summary_request_is_shown_and_a_pasted_summary_takes_the_notices_place(server, page):
    assert fill_summary_form(page, server) == "done"
    answer = posted(server, summary_body())
    asked = answer["summary_request"]
    box = page.locator("#summary-request")
    assert box.is_visible()
    assert box.get_attribute("data-from") == str(asked["from"]) == "1"
    assert box.get_attribute("data-through") == str(asked["through"]) == "4"
    assert box.get_attribute("data-key") == asked["key"]
    assert json.loads(page.text_content("#summary-request-json") or "") == asked["request"]
    assert json.loads(page.text_content("#view-raw") or "") == answer
    # Without a summary the notice stands where the span left.
    assert page.get_attribute("#turns > li.notice", "data-rung") == answer["notice"]["rung"]
    assert page.locator("#turns > li.summary-message").count() == 0
    page.click("#copy-request")
    page.wait_for_function("() => document.querySelector('#copy-status').textContent !== ''")

    entry = {"from": asked["from"], "through": asked["through"], "key": asked["key"]}
    entry["summary"] = "rack-7 runs hot"
    assert fill_summary_form(page, server, json.dumps([entry])) == "done"
    answer = posted(server, summary_body([entry]))
    notice = answer["notice"]
    assert notice["rung"] == "summary" and answer["summary_request"] is None
    row = page.locator("#turns > li.notice")
    assert row.count() == 1
    assert row.get_attribute("data-rung") == "summary"
    assert row.get_attribute("data-window-index") == str(notice["window_index"])
    assert "summary-message" in (row.get_attribute("class") or "")
    assert notice["content"].startswith(row.locator(".notice-text").inner_text().rstrip("…"))
    rows = drawn_rows(page)
    place = next(i for i, r in enumerate(rows) if r["kind"] == "notice")
    assert rows[place - 1]["index"] == str(max(answer["evicted"]))
    turns = [(r["index"], r["fate"]) for r in rows if r["kind"] == "turn"]
    assert turns == [(str(t["index"]), t["fate"]) for t in answer["turns"]]
    used = page.locator("#summary-used")
    assert (used.get_attribute("data-from"), used.get_attribute("data-through")) == ("1", "4")
    assert page.is_hidden("#summary-request")
    assert page.locator("#summaries-ignored li").count() == len(answer["summaries_ignored"]) == 0


def test_an_ignored_summary_is_listed_with_its_reason(server, page):
    entry = {"from": 2, "through": 4, "key": "0" * 64, "summary": "S"}
    assert fill_summary_form(page, server, json.dumps([entry])) == "done"
    answer = posted(server, summary_body([entry]))
    ignored = page.eval_on_selector_all(
        "#summaries-ignored li", "els => els.map(e => [Number(e.dataset.index), e.dataset.reason])"
    )
    assert ignored == [[i["index"], i["reason"]] for i in answer["summaries_ignored"]]
    assert ignored == [[0, "changed"]]
    assert page.get_attribute("#summary-used", "data-from") == ""


def test_a_refused_summary_shows_the_problem_naming_its_field(server, page):
    entry = {"from": 1, "through": 4, "key": "not-a-key", "summary": "S"}
    assert fill_summary_form(page, server, json.dumps([entry])) == "error"
    assert page.inner_text("#problem .problem-title") == "Invalid request"
    locs = page.eval_on_selector_all(
        "#problem .problem-field", "els => els.map(e => e.dataset.loc)"
    )
    assert locs == ["body.summaries.0.key"]
    assert page.is_hidden("#answer")
    # Summaries that are not JSON are the page's own problem, before anything is sent.
    assert fill_summary_form(page, server, "[{") == "error"
    assert page.inner_text("#problem .problem-title") == "The page could not read the input"


# ---- fit: the budget warning, the legend, which span or stage took each turn ----


def fit_transcript(request_chars: int = 4) -> list[dict[str, Any]]:
    """A run whose first span ends early (docs/rules.md#the-fit-strategy): the task, a call to
    `look` with a 400-character result, the person's next message (the current request,
    `request_chars` long), then three more such calls. Turns: 0 system, 1 task, 2 (2–3), 3 the
    request, 4 (5–6), 5 (7–8), 6 (9–10)."""

    def pair(name: str) -> list[dict[str, Any]]:
        call = {"id": name, "name": "look", "arguments": {}}
        return [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": name, "tool_name": "look", "content": "x" * 400},
        ]

    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Find the rack that runs hot and say why, in one line."},
    ]
    messages += [*pair("c1"), {"role": "user", "content": "n" * request_chars}]
    return messages + pair("c2") + pair("c3") + pair("c4")


FIT_OPTIONS: dict[str, Any] = {
    "strategy": {"kind": "fit", "max_tokens": 300, "target_tokens": 240, "keep_recent_turns": 1},
    "keep_last_tool_results": 0,
}


def fit_body(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The body the page sends for `plan_fit_in_form`."""
    body: dict[str, Any] = {**FIT_OPTIONS, "format": "native", "messages": messages}
    return body | {"tokenizer": "estimate", "include_turns": True, "include_window": True}


def plan_fit_in_form(page: Any, server: Server, messages: list[dict[str, Any]]) -> None:
    page.goto(f"{server.url}/viewer")
    page.wait_for_selector("#status[data-state=ready]", state="attached")
    page.fill("#transcript", json.dumps(messages))
    page.select_option("#format", "native")
    page.fill("#options-json", json.dumps(FIT_OPTIONS))
    page.click("#plan")
    page.wait_for_selector("#status[data-state=done]", state="attached")


def answer_instead(page: Any, answer: dict[str, Any]) -> None:
    """The page's next plans get `answer`, whatever they send."""
    page.route("**/v1/window/plan", lambda route: route.fulfill(json=answer))


def taken_by(answer: dict[str, Any]) -> dict[int, str]:
    """The stage that took each evicted turn: `budget.spans`, else the one span."""
    spans = (answer.get("budget") or {}).get("spans")
    if spans is None:
        return {index: "span" for index in answer["evicted"]}
    return {
        turn: span["stage"]
        for span in spans
        for turn in range(span["from_turn"], span["through_turn"] + 1)
    }


def with_stages(
    answer: dict[str, Any],
    spans: list[tuple[int, int, str]],
    **budget: Any,
) -> dict[str, Any]:
    """`answer` as the fit strategy's later stages would give it: the turns of `spans` evicted,
    and `budget` with its stage, released pins and spans."""
    staged = copy.deepcopy(answer)
    gone = {turn for first, last, _ in spans for turn in range(first, last + 1)}
    for turn in staged["turns"]:
        if turn["index"] in gone:
            turn["fate"], turn["held_by"] = "evicted", None
    staged["evicted"] = sorted(gone)
    staged["budget"] |= {
        "stage": spans[-1][2] if spans else "span",
        "released_pins": 0,
        "spans": [{"from_turn": f, "through_turn": t, "stage": s} for f, t, s in spans],
    } | budget
    return staged


def warning(page: Any) -> dict[str, Any]:
    script = """el => ({visible: !el.hidden && el.offsetParent !== null, text: el.innerText,
        kind: el.dataset.budgetWarning, role: el.getAttribute('role'),
        total_after: el.dataset.totalAfter, max_tokens: el.dataset.maxTokens,
        stage: el.dataset.stage ?? null,
        first: el === document.querySelector('#answer > :not([hidden])')})"""
    found: dict[str, Any] = page.eval_on_selector("[data-budget-warning]", script)
    return found


def test_a_fit_plan_over_its_budget_warns_at_the_top(server, page):
    # The request itself is over the limit, so no stage can bring the window under it.
    messages = fit_transcript(request_chars=2000)
    plan_fit_in_form(page, server, messages)
    answer = posted(server, fit_body(messages))
    budget = answer["budget"]
    assert budget["met"] is False and budget["total_after"] > budget["max_tokens"] == 300
    shown = warning(page)
    assert shown["visible"] and shown["first"] and shown["role"] == "alert"
    assert shown["kind"] == "over-limit"
    assert (shown["total_after"], shown["max_tokens"]) == (
        str(budget["total_after"]),
        str(budget["max_tokens"]),
    )
    headline = f"Over budget: {budget['total_after']:,} tokens against a limit of 300"
    assert shown["text"].startswith(headline), shown["text"]
    assert shown["stage"] == budget.get("stage")
    rows = [row for row in drawn_rows(page) if row["kind"] == "turn"]
    taken = taken_by(answer)
    assert [row["taken_by"] for row in rows] == [taken.get(int(row["index"]), "") for row in rows]


def test_a_met_budget_shows_no_warning(server, page):
    messages = fit_transcript()
    answer = with_stages(
        posted(server, fit_body(messages)),
        [(1, 2, "span"), (4, 5, "further-spans")],
        total_after=201,
        met=True,
    )
    answer_instead(page, answer)
    plan_fit_in_form(page, server, messages)
    assert page.is_hidden("[data-budget-warning]")
    assert page.locator("#budget dd[data-figure='stage']").inner_text() == "further-spans"
    assert page.locator("#budget dd[data-figure='spans']").inner_text() == (
        "1–2 span, 4–5 further-spans"
    )
    rows = {row["index"]: row for row in drawn_rows(page) if row["kind"] == "turn"}
    assert {i: row["taken_by"] for i, row in rows.items() if row["taken_by"]} == {
        "1": "span",
        "2": "span",
        "4": "further-spans",
        "5": "further-spans",
    }
    assert "taken by the first span" in rows["1"]["labels"]
    assert "taken by a further span" in rows["4"]["labels"]
    assert rows["3"]["held_by"] == "current-request" and rows["3"]["taken_by"] == ""
    # The notice stays where the first span left.
    place = [row["kind"] for row in drawn_rows(page)].index("notice")
    assert drawn_rows(page)[place - 1]["index"] == "2"


@pytest.mark.parametrize(
    ("budget", "kind", "text"),
    [
        (
            {"max_tokens": 781, "total_after": 7509, "stage": "caps"},
            "over-limit",
            "Over budget: 7,509 tokens against a limit of 781 (stage reached: caps)",
        ),
        (
            {"total_after": 260, "stage": "further-spans"},
            "over-target",
            "Budget not met: 260 tokens, within the limit of 300 but over the target of 240 "
            "(stage reached: further-spans)",
        ),
    ],
    ids=["over-the-limit", "over-the-target"],
)
def test_an_unmet_budget_names_its_total_limit_and_stage(server, page, budget, kind, text):
    messages = fit_transcript()
    answer = with_stages(
        posted(server, fit_body(messages)),
        [(1, 2, "span"), (4, 4, "pins"), (5, 5, "keep-window")],
        released_pins=1,
        met=False,
        **budget,
    )
    answer["shaped"] = [
        {"message_index": 10, "window_index": 4, "tool_call_id": "c4", "action": "capped",
         "chars_before": 400, "chars_after": 256},
        {"message_index": 10, "window_index": 4, "tool_call_id": "c4", "action": "image-cleared",
         "chars_before": 256, "chars_after": 256, "images": 2},
    ]  # fmt: skip
    answer_instead(page, answer)
    plan_fit_in_form(page, server, messages)
    shown = warning(page)
    assert shown["visible"] and shown["first"]
    assert (shown["kind"], shown["stage"]) == (kind, budget["stage"])
    assert shown["text"].splitlines()[0] == text
    rows = {row["index"]: row for row in drawn_rows(page) if row["kind"] == "turn"}
    assert {i: row["taken_by"] for i, row in rows.items() if row["taken_by"]} == {
        "1": "span",
        "2": "span",
        "4": "pins",
        "5": "keep-window",
    }
    assert "taken by a released pin" in rows["4"]["labels"]
    assert "taken by the keep window" in rows["5"]["labels"]
    shaped = page.eval_on_selector_all(
        "#turns li.turn[data-turn-index='6'] .badge.shaped",
        "els => els.map(e => [e.dataset.shaped, e.textContent])",
    )
    assert shaped == [["capped", "capped"], ["image-cleared", "image-cleared (2 images)"]]


def test_a_budget_without_stages_is_read_as_one_span(server, page):
    # An answer from before the later stages: no stage, no spans; every evicted turn is the span's.
    messages = fit_transcript()
    answer = posted(server, fit_body(messages))
    for key in ("stage", "released_pins", "spans"):
        answer["budget"].pop(key, None)
    answer["budget"] |= {"total_after": 427, "met": False}
    answer_instead(page, answer)
    plan_fit_in_form(page, server, messages)
    shown = warning(page)
    assert shown["visible"] and shown["stage"] is None
    assert shown["text"].splitlines()[0] == "Over budget: 427 tokens against a limit of 300"
    rows = [row for row in drawn_rows(page) if row["kind"] == "turn"]
    assert {row["index"]: row["taken_by"] for row in rows if row["fate"] == "evicted"} == {
        str(index): "span" for index in answer["evicted"]
    }


def held_by_words() -> set[str]:
    words: set[str] = set()
    for literal in get_args(HeldBy):
        words |= set(get_args(literal)) if get_args(literal) else {literal}
    return words


def test_the_legend_says_what_each_held_by_word_means(server, page):
    open_viewer(page, f"{server.url}/viewer?sample=example-native")
    lines = page.eval_on_selector_all(
        "#legend-held-by > li",
        "els => els.map(e => [e.dataset.word, e.querySelector('.meaning').textContent])",
    )
    assert len(lines) == len(held_by_words())
    assert {word for word, _ in lines} == held_by_words()
    assert all(meaning.strip() for _, meaning in lines)
    meanings = dict(lines)
    # A row's held_by label says the same when hovered.
    for badge in page.locator("#turns .badge.held").all():
        assert badge.get_attribute("title") == meanings[badge.inner_text()]
    stages = page.eval_on_selector_all(
        "#legend-taken-by > li", "els => els.map(e => e.dataset.stage)"
    )
    assert stages == ["span", "further-spans", "pins", "keep-window"]
    assert page.locator("#legend-held-by").is_visible()


def tiny_png() -> str:
    """A 1×1 PNG, base64: an image part the service reads the header of."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        check = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + check

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    png += chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


def thinking_transcript() -> list[dict[str, Any]]:
    """An Anthropic run: the task with two images (turn 0), two calls to `look`, each after the
    model's reasoning (turns 1: messages 1–2, and 2: messages 3–4), the model's answer and the
    person's next question."""
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png"}}
    image["source"]["data"] = tiny_png()

    def call(name: str, thought: str) -> list[dict[str, Any]]:
        return [
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": thought, "signature": "sig"},
                {"type": "tool_use", "id": name, "name": "look", "input": {}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": name, "content": "x" * 400},
            ]},
        ]  # fmt: skip

    text = {"type": "text", "text": "Find the hot rack."}
    task = {"role": "user", "content": [text, image, image]}
    return [
        task,
        *call("c1", "First I look at rack one."),
        *call("c2", "Then rack two."),
        {"role": "assistant", "content": [{"type": "text", "text": "Rack two."}]},
        {"role": "user", "content": "Why?"},
    ]


CLEAR_OPTIONS: dict[str, Any] = {
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 20},
    "clear": {"keep_last": 0, "step": 1, "images": True, "thinking": True},
}


def test_cleared_images_and_thinking_are_marked_on_their_rows_with_a_legend(server, page):
    # The service's own answer (no interception): clear takes the task's two images, both
    # reasoning blocks and the first result; each mark stands on the row of its message's turn.
    messages = thinking_transcript()
    body = {**CLEAR_OPTIONS, "format": "anthropic", "messages": messages, "tokenizer": "estimate"}
    answer = posted(server, body | {"include_turns": True})
    assert [entry["action"] for entry in answer["shaped"]] == [
        "image-cleared",
        "thinking-cleared",
        "cleared",
        "thinking-cleared",
    ]
    page.goto(f"{server.url}/viewer")
    page.wait_for_selector("#status[data-state=ready]", state="attached")
    page.fill("#transcript", json.dumps(messages))
    page.select_option("#format", "anthropic")
    page.fill("#options-json", json.dumps(CLEAR_OPTIONS))
    page.click("#plan")
    page.wait_for_selector("#status[data-state=done]", state="attached")
    marks = page.eval_on_selector_all(
        "#turns li.turn .badge.shaped",
        """els => els.map(e => ({turn: e.closest('li').dataset.turnIndex, text: e.textContent,
            action: e.dataset.shaped, message: e.dataset.messageIndex,
            images: e.dataset.images ?? null, chars: e.dataset.chars ?? null, title: e.title}))""",
    )
    assert [(m["turn"], m["text"], m["message"], m["images"], m["chars"]) for m in marks] == [
        ("0", "image-cleared (2 images)", "0", "2", None),
        ("1", "thinking-cleared (25 chars)", "1", None, "25"),
        ("1", "cleared", "2", None, None),
        ("2", "thinking-cleared (14 chars)", "3", None, "14"),
    ]
    assert all("clear." in m["title"] for m in marks if m["action"] != "cleared")
    legend = page.eval_on_selector_all(
        "#legend-shaped li", "els => els.map(e => [e.dataset.action, e.innerText])"
    )
    assert [action for action, _ in legend] == [
        "collapsed",
        "cleared",
        "capped",
        "image-cleared",
        "thinking-cleared",
    ]
    meanings = dict(legend)
    assert "clear.images" in meanings["image-cleared"]
    assert "clear.thinking" in meanings["thinking-cleared"]
    assert page.is_visible("#legend-shaped li[data-action='thinking-cleared']")


def recall_transcript() -> list[dict[str, Any]]:
    """An OpenAI run: c1's 250-character result, read (the call after it), and c2's 900-character
    one, the newest."""

    def call(call_id: str, name: str) -> dict[str, Any]:
        function = {"name": name, "arguments": "{}"}
        calls = [{"id": call_id, "type": "function", "function": function}]
        return {"role": "assistant", "content": None, "tool_calls": calls}

    return [
        {"role": "user", "content": "start"},
        call("c1", "read"),
        {"role": "tool", "tool_call_id": "c1", "content": "a" * 250},
        call("c2", "grep"),
        {"role": "tool", "tool_call_id": "c2", "content": "b" * 900},
    ]


# Nothing removed; clear takes c1 (no result pin spares it), the cap shortens c2.
RECALL_OPTIONS: dict[str, Any] = {
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 20},
    "clear": {"keep_last": 0, "step": 1},
    "cap": {"max_chars": 300},
    "keep_last_tool_results": 0,
}


def plan_recall_in_form(page: Any, server: Server, name: str | None) -> None:
    """The recall transcript planned from the form, with the recall box ticked and `name` typed
    (None: the box left empty)."""
    page.goto(f"{server.url}/viewer")
    page.wait_for_selector("#status[data-state=ready]", state="attached")
    page.fill("#transcript", json.dumps(recall_transcript()))
    page.select_option("#format", "openai")
    page.fill("#options-json", json.dumps(RECALL_OPTIONS))
    if name is not None:
        page.check("#recall")
        page.fill("#recall-name", name)
    page.click("#plan")
    page.wait_for_selector("#status[data-state=done]", state="attached")


def test_recall_refs_and_the_recall_tool_are_shown(server, page):
    body = {**RECALL_OPTIONS, "format": "openai", "messages": recall_transcript()}
    body |= {"tokenizer": "estimate", "recall": {"tool_name": "fetch_back"}}
    answer = posted(server, body)
    assert [(e["action"], e["tool_call_id"]) for e in answer["shaped"]] == [
        ("cleared", "c1"),
        ("capped", "c2"),
    ]
    plan_recall_in_form(page, server, "fetch_back")
    refs = page.eval_on_selector_all(
        "#turns li.turn .badge.ref",
        """els => els.map(e => ({turn: e.closest('li').dataset.turnIndex, text: e.textContent,
            ref: e.dataset.ref, message: e.dataset.messageIndex, title: e.title}))""",
    )
    assert [(r["turn"], r["text"], r["ref"], r["message"]) for r in refs] == [
        ("1", "ref c1", "c1", "2"),
        ("2", "ref c2", "c2", "4"),
    ]
    assert all("recall tool" in r["title"] for r in refs)
    # Each ref stands right after its result's mark.
    labels = [row["labels"] for row in drawn_rows(page)]
    assert labels[1][-2:] == ["cleared", "ref c1"] and labels[2][-2:] == ["capped", "ref c2"]
    assert page.is_visible("#recall-tool")
    assert page.get_attribute("#recall-tool", "data-name") == "fetch_back"
    assert "fetch_back" in page.inner_text("#recall-tool .recall-tool-line")
    page.click("#recall-tool summary")
    assert json.loads(page.inner_text("#recall-tool-json")) == answer["recall_tool"]
    legend = page.eval_on_selector_all(
        "#legend-recall li", "els => els.map(e => [e.dataset.word, e.innerText])"
    )
    assert [word for word, _ in legend] == ["ref"] and "recall tool" in legend[0][1]


def test_the_default_recall_name_and_recall_off(server, page):
    # The box ticked and no name: recall {} (the default name) is sent.
    plan_recall_in_form(page, server, "")
    assert page.get_attribute("#recall-tool", "data-name") == "context_recall"
    # Recall off: no declaration shown; the refs stay (the ids are in the window either way).
    plan_recall_in_form(page, server, None)
    assert not page.is_visible("#recall-tool")
    assert page.get_attribute("#recall-tool", "data-name") == ""
    assert page.eval_on_selector_all("#turns .badge.ref", "els => els.length") == 2


def test_each_format_names_its_recall_tool(server, page):
    """recall_tool's name is where each format puts it (OpenAI's function, Bedrock's toolSpec, the
    others at the top): answers of every format handed to the page."""
    page.goto(f"{server.url}/viewer")
    page.wait_for_selector("#status[data-state=ready]", state="attached")
    for tool in (
        {"type": "function", "function": {"name": "t_openai"}},
        {"name": "t_anthropic", "input_schema": {}},
        {"type": "function", "name": "t_responses", "strict": False},
        {"toolSpec": {"name": "t_bedrock", "inputSchema": {"json": {}}}},
    ):
        name = page.evaluate(
            "async tool => (await import('./viewer/assets/viewer.js')).recallToolName(tool)", tool
        )
        expected = tool.get("name") or tool.get("function", {}).get("name")
        assert name == (expected or tool["toolSpec"]["name"])
