"""`fit` within the model's limit (docs/rules.md#within-the-limit) over HTTP and in every wire
format: the worked examples (`tests/core/within_limit_examples.py`), the compiled reader's bytes,
the `overflow` refusal, and properties over random conversations in each format.

The examples are native messages converted by the benchmark's converters (as
`tests/api/test_fit_http.py` does); where the system prompt is sent apart it is no turn, so each
turn index is one lower there. The properties, in each of the six formats:
- the window keeps the provider's rules (pairing, opening) whenever the input did;
- a window over `max_tokens` is the smallest the stages reach: the same request at a limit of one
  token removes and shapes exactly the same (so nothing that may still leave was left);
- a plan the span alone serves (`stage` `span`) removes one contiguous run of turns and shapes
  nothing of its own, its notice counting every message it removed;
- an agent that keeps its whole history and is cut keeps its window's prefix while the cut is held.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.audit.validity import window_violations
from tests.api.test_fit_http import JSON, SYSTEM_APART, messages_in, post, shifted_budget
from tests.api.test_formats_equivalence import conversations, plan
from tests.core.native_wire import wire
from tests.core.window_fixtures import held_words
from tests.core.within_limit_examples import WITHIN_LIMIT_EXAMPLES, StagedExample
from tests.formats.test_image_clearing import CASES as IMAGE_CASES
from tests.formats.test_image_clearing import X

pytestmark = pytest.mark.anyio
FORMATS = ("native", "openai", "anthropic", "responses", "gemini", "bedrock")
PAIRING_BREAKERS = {
    "orphan-result",
    "result-outside-its-turn",
    "unanswered-call",
    "duplicate-call-id",
}


def example_body(format_name: str, example: StagedExample, **options: Any) -> dict[str, Any]:
    return {
        **messages_in(format_name, wire(example.transcript)),
        "format": format_name,
        "strategy": example.strategy,
        **example.options,
        **options,
    }


@pytest.mark.parametrize("format_name", FORMATS)
@pytest.mark.parametrize("example", WITHIN_LIMIT_EXAMPLES, ids=lambda example: example.name)
async def test_worked_example_in_every_format(
    client: Any, format_name: str, example: StagedExample
) -> None:
    body = example_body(format_name, example)
    answer = await post(client, body)
    apart = format_name in SYSTEM_APART
    words = example.held.split(" ")
    assert held_words(answer["turns"]).split(" ") == (words[1:] if apart else words)
    assert answer["budget"] == shifted_budget(example.budget, apart)
    assert window_violations(format_name, body["messages"], answer["window"]) == []
    notice = answer["notice"]
    if example.notice is None:
        assert notice is None
    else:
        # The notice counts the first span's caller messages only, in the format's own count.
        first = example.budget["spans"][0]
        turns = answer["turns"][first["from_turn"] - apart : first["through_turn"] - apart + 1]
        count = len({t["start"] + k for t in turns for k in range(t["length"])})
        assert notice["content"].startswith(f"[dropped history — {count} earlier message(s)")
        assert len(answer["evicted_messages"]) == answer["stats"]["removed_message_count"]
        assert answer["stats"]["removed_message_count"] > count
    shaped = answer.get("shaped")
    if example.shaped is None:
        assert shaped is None
    else:
        assert [(s["action"], s["chars_before"], s["chars_after"]) for s in shaped] == [
            (action, before, after) for _, action, before, after in example.shaped
        ]
        assert "look returned 4000 chars" in orjson.dumps(answer["window"]).decode()


@pytest.mark.parametrize("format_name", FORMATS)
async def test_overflow_is_cap_or_report(client: Any, format_name: str) -> None:
    body = example_body(format_name, WITHIN_LIMIT_EXAMPLES[2])
    for value in ("truncate", None, 1, ""):
        body["strategy"] = {"kind": "fit", "max_tokens": 300, "overflow": value}
        response = await client.post("/v1/window/plan", content=orjson.dumps(body), headers=JSON)
        assert response.status_code == 422
        assert response.headers["content-type"] == "application/problem+json"
        assert [e["loc"] for e in response.json()["errors"]] == [["body", "strategy", "overflow"]]


async def test_metrics_count_plans_by_stage(client: Any) -> None:
    for example in WITHIN_LIMIT_EXAMPLES:
        await post(client, example_body("native", example))
    text = (await client.get("/metrics")).text
    for stage, met in (("further-spans", "true"), ("keep-window", "true"), ("caps", "true")):
        assert f'cwp_plan_fit_stages_total{{met="{met}",stage="{stage}"}}' in text
    assert 'cwp_plan_fit_stages_total{met="false",stage="span"}' in text


# ---- properties in every format -------------------------------------------------------------


@st.composite
def fit_requests(draw: Any, wire_name: str) -> dict[str, Any]:
    """A random conversation in `wire_name` under `fit` at a budget from a tenth of its size to
    just under it, so that most plans need the stages."""
    native = draw(conversations(system=wire_name not in SYSTEM_APART, max_steps=14))
    names = {call["id"]: call["name"] for m in native for call in m.get("tool_calls") or ()}
    for message in native:
        message.pop("injected", None)
        if message["role"] == "tool" and wire_name == "gemini":
            # A Gemini function response names its function.
            message.setdefault("tool_name", names.get(message["tool_call_id"], "look"))
    request = {**messages_in(wire_name, native), "format": wire_name}
    probe = plan({**request, "strategy": {"kind": "fit", "max_tokens": 1 << 40}})
    total = probe["budget"]["total_before"]
    assume(total > 20)
    max_tokens = draw(st.integers(max(1, total // 10), total - 1))
    request["strategy"] = {
        "kind": "fit",
        "max_tokens": max_tokens,
        "keep_recent_turns": draw(st.integers(1, 3)),
        "overflow": draw(st.sampled_from(["cap", "report"])),
    }
    request["keep_last_tool_results"] = draw(st.integers(0, 2))
    return request


def check_within_limit(request: dict[str, Any]) -> None:
    answer = plan(request)
    budget = answer["budget"]
    codes = {finding["code"] for finding in answer["diagnostics"]}
    sent = request["messages"]
    if not codes & PAIRING_BREAKERS and not window_violations(request["format"], sent, sent):
        assert window_violations(request["format"], sent, answer["window"]) == []
    if budget["total_after"] > budget["max_tokens"]:
        strategy = {**request["strategy"], "max_tokens": 1, "target_tokens": 1}
        floor = plan({**request, "strategy": strategy})
        assert floor["evicted"] == answer["evicted"]
        assert floor.get("shaped") == answer.get("shaped")
        assert floor["window"] == answer["window"]
    if budget["stage"] == "span":
        evicted = answer["evicted"]
        assert evicted == list(range(evicted[0], evicted[-1] + 1)) if evicted else True
        assert len(budget["spans"]) <= 1
        assert "shaped" not in answer
        if answer["notice"] is not None:
            count = answer["stats"]["removed_message_count"]
            assert answer["notice"]["content"].startswith(f"[dropped history — {count} earlier")


FILTERED = settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@FILTERED
@given(fit_requests("native"))
def test_native_within_limit(request: dict[str, Any]) -> None:
    check_within_limit(request)


@FILTERED
@given(fit_requests("openai"))
def test_openai_within_limit(request: dict[str, Any]) -> None:
    check_within_limit(request)


@FILTERED
@given(fit_requests("anthropic"))
def test_anthropic_within_limit(request: dict[str, Any]) -> None:
    check_within_limit(request)


@FILTERED
@given(fit_requests("responses"))
def test_responses_within_limit(request: dict[str, Any]) -> None:
    check_within_limit(request)


@FILTERED
@given(fit_requests("gemini"))
def test_gemini_within_limit(request: dict[str, Any]) -> None:
    check_within_limit(request)


@FILTERED
@given(fit_requests("bedrock"))
def test_bedrock_within_limit(request: dict[str, Any]) -> None:
    check_within_limit(request)


@pytest.mark.parametrize("format_name", FORMATS)
def test_a_held_cut_over_two_spans_keeps_the_prefix(format_name: str) -> None:
    """The further-spans example grown by one turn per request, its records sent back: the cut
    reaches past the request and is held, so each window is the one before with the new turn."""
    example = WITHIN_LIMIT_EXAMPLES[0]
    native = wire(example.transcript)
    records: list[Any] = []
    windows: list[list[Any]] = []
    for step in range(4):
        grown = [
            *native,
            *(
                message
                for number in range(step)
                for message in (
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [{"id": f"g{number}", "name": "look", "arguments": {}}],
                    },
                    {
                        "role": "tool",
                        "tool_call_id": f"g{number}",
                        "tool_name": "look",
                        "content": "ok",
                    },
                )
            ),
        ]
        body = {
            **messages_in(format_name, [dict(message) for message in grown]),
            "format": format_name,
            "strategy": example.strategy,
            "keep_last_tool_results": 0,
            "prior_records": records[-2:],
        }
        answer = plan(body)
        assert window_violations(format_name, body["messages"], answer["window"]) == []
        if step:
            assert answer["budget"]["held"]
            assert answer["budget"]["stage"] == "further-spans"
            # The window before, then what the run added since (the last message of the window
            # before may have taken the new turn's first blocks where roles must alternate).
            assert answer["window"][: len(windows[-1]) - 1] == windows[-1][:-1]
        windows.append(answer["window"])
        records.append(answer["record"])


# ---- caps: images replaced, in every format that has them --------------------------------------


@pytest.mark.parametrize("format_name", sorted(IMAGE_CASES))
async def test_the_caps_replace_kept_images_by_a_text(client: Any, format_name: str) -> None:
    """A run of screenshots far over a tiny limit: every turn that may leave leaves, then the
    kept images (never the current request's, never a Responses screenshot) become the text."""
    raw, _, _ = IMAGE_CASES[format_name]()
    body = {
        "messages": raw,
        "format": format_name,
        "strategy": {"kind": "fit", "max_tokens": 50},
    }
    answer = await post(client, body)
    budget = answer["budget"]
    assert budget["stage"] == "caps" and budget["total_after"] < budget["total_before"]
    cleared = [entry for entry in answer["shaped"] if entry["action"] == "image-cleared"]
    assert cleared and all(entry["images"] >= 1 for entry in cleared)
    assert all(entry["tool_call_id"] is None and entry["chars_before"] == 0 for entry in cleared)
    assert all(entry["chars_after"] == entry["images"] * len(X) for entry in cleared)
    written = orjson.dumps(answer["window"]).decode()
    assert written.count(X) >= sum(entry["images"] for entry in cleared) - (
        format_name == "gemini"  # a function response's own parts hold media only: removed
    )
    assert window_violations(format_name, raw, answer["window"]) == []
    request = answer["current_request"]
    if request is not None:
        assert request["message_index"] not in {entry["message_index"] for entry in cleared} or (
            format_name in ("anthropic", "bedrock", "gemini")  # a result beside the request
        )
    # The report counts the texts in place of the images: planned again, the window is within
    # what was reported and clears nothing more.
    again = await post(client, {**body, "messages": answer["window"]})
    assert again["budget"]["total_before"] == budget["total_after"] or format_name == "gemini"
    if format_name == "responses":
        assert "computer_screenshot" in written  # the API requires it to stay a screenshot
