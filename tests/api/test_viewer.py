"""The plan viewer's routes in process: the page and its assets, the transcripts it opens (and only
those), and the links to it. The page itself is tested in a browser
(tests/e2e/test_viewer_browser.py).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any, get_args

import pytest

from app import viewer
from app.core.plan_types import HeldBy, ShapeAction
from tests.conftest import client_for

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
DIALECTS = ("native", "openai", "anthropic", "responses", "gemini", "bedrock")
EXAMPLES = [f"example-{name}" for name in DIALECTS]


async def test_the_page_loads_its_script_and_style_from_the_service(client):
    page = await client.get("/viewer")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    urls = re.findall(r'(?:src|href)=["\']([^"\']+)["\']', page.text)
    assert "viewer/assets/viewer.js" in urls and "viewer/assets/viewer.css" in urls
    for url in urls:
        # Relative or a data: URL, never another host.
        assert "//" not in url, url
    for asset, kind in (("viewer.js", "javascript"), ("viewer.css", "text/css")):
        response = await client.get(f"/viewer/assets/{asset}")
        assert response.status_code == 200
        assert kind in response.headers["content-type"]


def test_the_script_and_style_name_no_other_host():
    files = (
        viewer.ASSETS / "viewer.js",
        viewer.ASSETS / "viewer.css",
        viewer.VIEWER / "index.html",
    )
    for path in files:
        assert not re.search(r"https?://", path.read_text()), path


async def test_the_examples_are_listed_and_served(client):
    names = (await client.get("/viewer/samples")).json()
    assert set(EXAMPLES) <= set(names)
    assert names == sorted(names)
    for name in EXAMPLES:
        response = await client.get(f"/viewer/samples/{name}")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/json")
        assert response.json()["format"] == name.removeprefix("example-")


async def test_each_example_plans_with_a_notice_and_a_pin_and_no_diagnostics(client):
    for name in EXAMPLES:
        body = (await client.get(f"/viewer/samples/{name}")).json()
        answer = (await client.post("/v1/window/plan", json=body)).json()
        assert answer["format"] == body["format"], name
        assert answer["notice"] is not None, name
        assert answer["pins"]["last_tool_result"]["pinned"], name
        assert answer["diagnostics"] == [], name


@pytest.mark.parametrize(
    "name",
    [
        "no-such-sample",
        "%2E%2E",
        "..%2Froutes%2Fviewer",
        "..%2F..%2Fsettings",
        "example-native.json",
    ],
)
async def test_an_unknown_name_is_a_404_problem(client, name):
    response = await client.get(f"/viewer/samples/{name}")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["title"] == "Not found"


async def test_samples_are_listed_beside_the_examples_and_win_a_name(client, tmp_path, monkeypatch):
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "recorded-run.jsonl").write_text('{"role": "user", "content": "hi"}\n')
    (samples / "example-openai.json").write_text('[{"role": "user", "content": "sample"}]')
    (samples / "notes.txt").write_text("not a transcript")
    (samples / "folder.json").mkdir()
    monkeypatch.setattr(viewer, "SAMPLES", samples)
    names = (await client.get("/viewer/samples")).json()
    assert "recorded-run" in names and "notes" not in names and "folder" not in names
    lines = await client.get("/viewer/samples/recorded-run")
    assert lines.headers["content-type"].startswith("application/jsonl")
    assert json.loads(lines.text.splitlines()[0]) == {"role": "user", "content": "hi"}
    assert (await client.get("/viewer/samples/example-openai")).json()[0]["content"] == "sample"


async def test_without_a_samples_folder_the_examples_are_listed(client, tmp_path, monkeypatch):
    monkeypatch.setattr(viewer, "SAMPLES", tmp_path / "absent")
    assert (await client.get("/viewer/samples")).json() == sorted(EXAMPLES)


async def test_the_index_and_the_api_description_link_the_viewer(client):
    index = await client.get("/")
    assert index.status_code == 200
    assert 'href="/viewer"' in index.text and 'href="/docs"' in index.text
    description = (await client.get("/openapi.json")).json()["info"]["description"]
    assert "](/viewer)" in description
    assert (await client.get("/v1/info")).json()["viewer"] == "/viewer"


async def test_the_page_follows_a_trailing_slash():
    async with client_for() as client:
        response = await client.get("/viewer/", follow_redirects=False)
    assert response.status_code in (307, 308)
    assert response.headers["location"].endswith("/viewer")


def test_the_package_carries_the_viewer_files():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = data["package-data"]["app.viewer"]
    assert {"index.html", "assets/*", "examples/*"} <= set(patterns)
    for folder in (viewer.ASSETS, viewer.EXAMPLES):
        assert any(folder.iterdir()), folder


async def test_the_page_has_the_summaries_inputs_and_the_summary_request_panel(client):
    page = (await client.get("/viewer")).text
    # The options the page sends (summarize, its min_span_tokens, summaries) and where it shows
    # the answer's summary_request, summary_used and summaries_ignored.
    for element in (
        'id="summarize"',
        'id="min-span"',
        'id="summaries"',
        'id="summary-request"',
        'id="summary-request-json"',
        'id="copy-request"',
        'id="summary-used"',
        'id="summaries-ignored"',
    ):
        assert element in page, element
    script = (await client.get("/viewer/assets/viewer.js")).text
    for field in ("summary_request", "summary_used", "summaries_ignored", "min_span_tokens"):
        assert field in script, field


def literal_words(annotation: Any) -> set[str]:
    """The strings of a `Literal`, or of a union of them."""
    words: set[str] = set()
    for arg in get_args(annotation):
        words |= literal_words(arg) if get_args(arg) else {arg}
    return words


def script_object_keys(script: str, name: str) -> list[str]:
    """The keys of `const NAME = { … };` in the viewer's script, in order."""
    found = re.search(rf"const {name} = \{{(.*?)\n\}};", script, re.S)
    assert found, name
    return re.findall(r'^  "?([a-z-]+)"?:', found.group(1), re.M)


def test_the_legend_explains_every_held_by_word_and_no_other():
    script = (viewer.ASSETS / "viewer.js").read_text()
    words = script_object_keys(script, "HELD_BY")
    assert len(words) == len(set(words))
    assert set(words) == literal_words(HeldBy)
    assert {"not-reached", "within-budget", "replacement-not-smaller"} <= set(words)


def test_the_legend_explains_every_shaped_action_and_no_other():
    # Images and thinking that clear took are marked beside the results it cleared or capped.
    script = (viewer.ASSETS / "viewer.js").read_text()
    actions = script_object_keys(script, "SHAPED")
    assert len(actions) == len(set(actions))
    assert set(actions) == literal_words(ShapeAction)
    assert {"image-cleared", "thinking-cleared"} <= set(actions)
    # The marks carry what was taken: an image count, and the reasoning's characters.
    for field in ("entry.images", "entry.chars_before", "dataset.images", "dataset.chars"):
        assert field in script, field


def test_the_script_names_the_stage_of_each_span():
    # Every stage of the fit strategy that removes turns (docs/rules.md#the-fit-strategy); `caps`
    # only shapes texts, so it takes no turn.
    script = (viewer.ASSETS / "viewer.js").read_text()
    assert script_object_keys(script, "TAKEN_BY") == [
        "span",
        "further-spans",
        "pins",
        "keep-window",
    ]
    for field in ("spans", "stage", "from_turn", "through_turn", "image-cleared"):
        assert field in script, field


async def test_the_budget_warning_stands_first_in_the_answer_and_the_legend_below_the_tabs(client):
    page = (await client.get("/viewer")).text
    answer = page.index('<section id="answer"')
    warning = page.index('id="budget-warning"')
    assert answer < warning < page.index('id="stats"') and warning < page.index('id="summary"')
    tag = page[page.rindex("<", 0, warning) : page.index(">", warning)]
    assert 'role="alert"' in tag and "data-budget-warning" in tag and "hidden" in tag
    for element in (
        'id="legend-held-by"',
        'id="legend-taken-by"',
        'id="legend-shaped"',
        'id="legend-recall"',
    ):
        assert page.index('id="view-turns"') < page.index(element) < page.index('id="turns"')


async def test_the_page_has_the_recall_inputs_and_the_recall_tool_panel(client):
    page = (await client.get("/viewer")).text
    for element in ('id="recall"', 'id="recall-name"', 'id="recall-tool"', 'id="recall-tool-json"'):
        assert element in page, element
    tag = page[
        page.rindex("<", 0, page.index('id="recall-tool"')) : page.index(
            ">", page.index('id="recall-tool"')
        )
    ]
    assert "hidden" in tag  # shown only when the answer carries recall_tool
    # Inside the figures panel, with the other parts of the answer.
    assert page.index('id="stats"') < page.index('id="recall-tool"') < page.index('class="tabs"')
    script = (viewer.ASSETS / "viewer.js").read_text()
    # The option it sends, the answer's key it reads, and each format's place of the tool's name.
    for field in ("chosen.recall", "tool_name", "recall_tool", "toolSpec", "function?.name"):
        assert field in script, field


def test_a_cleared_or_capped_result_is_marked_with_its_ref():
    script = (viewer.ASSETS / "viewer.js").read_text()
    # The ref is the shaped entry's tool_call_id, on the actions that keep a result's id in the
    # window (the placeholder's, the marker's ref); collapsed tickets are the ledger's.
    assert 'new Set(["cleared", "capped"])' in script
    for field in ("entry.tool_call_id", "dataset.ref", "RECALL_REF", "legend-recall"):
        assert field in script, field
    css = (viewer.ASSETS / "viewer.css").read_text()
    assert ".badge.ref" in css and "#legend-recall" in css


async def test_the_viewer_keeps_its_policy_with_recall(client):
    # No inline script or style came with the recall panel: the policy is unchanged and the page
    # carries neither.
    response = await client.get("/viewer")
    policy = response.headers["content-security-policy"]
    assert "'unsafe-inline'" not in policy
    assert "<script>" not in response.text and "<style" not in response.text
    assert " style=" not in response.text and "onclick" not in response.text
