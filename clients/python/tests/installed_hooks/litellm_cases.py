"""`cwp_client.litellm.PlannerGuardrail` run in the venv that holds the client's `litellm` extra
(`.venv-hooks/litellm/`), against the live planner at `CWP_PLANNER_URL` (started by
`test_litellm_guardrail.py`, which runs this file with that venv's pytest). The hook is called as
the proxy calls it, with a stand-in for the proxy's `DualCache`; stand-in planners answer 500 or
a broken window."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from cwp_client import Planner
from cwp_client.litellm import GuardrailConfigError, PlannerGuardrail, estimate_tokens

PLANNER = os.environ["CWP_PLANNER_URL"]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_station",
            "description": "Read one station's log.",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
    }
]


class FakeCache:
    """The two methods of LiteLLM's `DualCache` the guardrail uses, with the TTLs it was given."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.ttls: dict[str, Any] = {}

    async def async_get_cache(self, key: str, **kwargs: Any) -> Any:
        return self.values.get(key)

    async def async_set_cache(self, key: str, value: Any, **kwargs: Any) -> None:
        self.values[key] = value
        self.ttls[key] = kwargs.get("ttl")


def guardrail(**options: Any) -> PlannerGuardrail:
    return PlannerGuardrail(
        guardrail_name="planner", event_hook="pre_call", default_on=True, api_base=PLANNER,
        **options,
    )  # fmt: skip


def hook(rail: PlannerGuardrail, data: dict[str, Any], call_type: str, cache: Any = None) -> Any:
    return asyncio.run(
        rail.async_pre_call_hook(
            user_api_key_dict=None, cache=cache or FakeCache(), data=data, call_type=call_type
        )
    )


def tool_round(number: int, size: int = 400) -> list[dict[str, Any]]:
    call_id = f"call_{number}"
    return [
        {
            "role": "assistant",  # no `content`: LiteLLM drops a null one on the way upstream
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "read_station", "arguments": json.dumps({"n": number})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": f"station {number}: " + "x" * size},
    ]


def chat(rounds: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You survey stations."},
        {"role": "user", "content": "Survey every station."},
    ]
    for number in range(1, rounds + 1):
        messages += tool_round(number)
    return messages


def expected_window(messages: list[Any], **body: Any) -> list[Any]:
    with Planner(PLANNER) as planner:
        return planner.plan(messages, **body).window


# ---- routes
def test_chat_completions_get_the_planners_window_for_the_models_budget():
    messages = chat(6)
    data = {"model": "gpt-4o-mini", "messages": list(messages), "tools": TOOLS, "max_tokens": 100}
    planned = hook(guardrail(max_input_tokens=900, reserve_tokens=50), data, "acompletion")
    assert planned is data
    reserve = 100 + estimate_tokens(TOOLS) + 50
    assert estimate_tokens(TOOLS) == -(-len(json.dumps(TOOLS, separators=(",", ":"))) // 4)
    want = expected_window(
        messages, format="openai",
        strategy={"kind": "fit", "max_tokens": 900, "reserve_tokens": reserve},
    )  # fmt: skip
    assert planned["messages"] == want
    assert len(want) < len(messages)


def test_the_models_input_limit_comes_from_litellms_model_table():
    # gpt-4o-mini: 128,000 input tokens, far above this transcript: nothing is cut.
    messages = chat(2)
    data = {"model": "gpt-4o-mini", "messages": list(messages)}
    planned = hook(guardrail(), data, "completion")
    assert planned is not None and planned["messages"] == messages


def test_anthropic_messages_are_planned_with_their_system():
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Survey every station."}]
    for number in range(1, 7):
        messages += [
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{number}", "name": "read_station",
                 "input": {"n": number}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{number}",
                 "content": "x" * 400}]},
        ]  # fmt: skip
    data = {"model": "claude", "system": "You survey.", "messages": list(messages),
            "max_tokens": 64}  # fmt: skip
    planned = hook(guardrail(max_input_tokens=700), data, "anthropic_messages")
    want = expected_window(
        messages, format="anthropic", system="You survey.",
        strategy={"kind": "fit", "max_tokens": 700, "reserve_tokens": 64},
    )  # fmt: skip
    assert planned["messages"] == want and len(want) < len(messages)
    assert planned["system"] == "You survey."


def responses_input() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [{"role": "user", "content": "Survey every station."}]
    for number in range(1, 7):
        items += [
            {"type": "function_call", "call_id": f"fc_{number}", "name": "read_station",
             "arguments": "{}"},
            {"type": "function_call_output", "call_id": f"fc_{number}", "output": "x" * 400},
        ]  # fmt: skip
    return items


def test_responses_with_a_list_input_are_planned_with_instructions_as_system():
    items = responses_input()
    data = {"model": "m", "input": list(items), "instructions": "You survey.",
            "max_output_tokens": 32}  # fmt: skip
    planned = hook(guardrail(max_input_tokens=700), data, "aresponses")
    want = expected_window(
        items, format="responses", system="You survey.",
        strategy={"kind": "fit", "max_tokens": 700, "reserve_tokens": 32},
    )  # fmt: skip
    assert planned["input"] == want and len(want) < len(items)


@pytest.mark.parametrize(
    ("data", "call_type"),
    [
        ({"model": "m", "input": "Survey every station."}, "aresponses"),
        (
            {"model": "m", "input": responses_input(), "previous_response_id": "resp_1"},
            "aresponses",
        ),
        ({"model": "m", "input": "words"}, "aembedding"),
        ({"model": "m", "messages": chat(6)}, "moderation"),
    ],
)
def test_what_the_guardrail_does_not_plan_passes_through(data, call_type):
    before = json.loads(json.dumps(data))
    assert hook(guardrail(max_input_tokens=300), data, call_type) is None
    assert data == before


def test_a_model_with_no_known_limit_passes_through_with_one_warning(caplog):
    rail = guardrail()
    with caplog.at_level(logging.WARNING, logger="cwp_client.litellm"):
        for _ in range(3):
            assert (
                hook(rail, {"model": "no-such-model-xyz", "messages": chat(6)}, "acompletion")
                is None
            )
    lines = [r for r in caplog.records if r.name == "cwp_client.litellm"]
    assert len(lines) == 1 and "no-such-model-xyz" in lines[0].getMessage()


# ---- options at load
def test_keys_the_guardrail_does_not_own_are_ignored():
    rail = guardrail(mask_request_content=False, unreachable_fallback="fail_closed", version=2)
    assert rail.options.plan_options == {}


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"recall": {"tool": True}}, "'recall'"),
        ({"summarize": {"max_tokens": 100}}, "'summarize'"),
        ({"overflow": "drop"}, "'overflow'"),
        ({"tokenizer": "gpt2"}, "'tokenizer'"),
        ({"keep_recent_turns": 0}, "'keep_recent_turns'"),
        ({"max_input_tokens": "many"}, "'max_input_tokens'"),
        ({"timeout": -1}, "'timeout'"),
        ({"clear": {"keep_last": 1, "bogus": 2}}, "'clear'"),
        ({"cap": {"max_chars_by_tool": {}}}, "'cap'"),
        ({"detect_frames": "yes"}, "'detect_frames'"),
    ],
)
def test_a_refused_or_invalid_option_stops_the_load_with_one_line(options, named):
    with pytest.raises(GuardrailConfigError) as raised:
        guardrail(**options)
    assert not isinstance(raised.value, ValueError | TypeError)  # LiteLLM would swallow those
    message = str(raised.value)
    assert named in message and "\n" not in message


def test_a_missing_planner_url_stops_the_load():
    with pytest.raises(GuardrailConfigError, match="api_base"):
        PlannerGuardrail(guardrail_name="planner", event_hook="pre_call", default_on=True)


def test_valid_plan_options_are_sent():
    rail = guardrail(clear={"keep_last": 1}, keep_last_tool_results=0, tokenizer="estimate")
    messages = chat(6)
    planned = hook(rail, {"model": "m", "messages": list(messages)}, "acompletion")
    assert planned is None  # no limit known for "m": the options alone do not plan
    rail = guardrail(
        max_input_tokens=100_000, clear={"keep_last": 1, "step": 1, "trigger_tokens": 1}
    )
    planned = hook(rail, {"model": "m", "messages": list(messages)}, "acompletion")
    cleared = [
        m for m in planned["messages"] if m.get("role") == "tool" and "x" * 400 not in m["content"]
    ]
    assert cleared  # clear's placeholders: the option reached the planner


# ---- records
def run_growing_conversation(cache: Any, requests: int = 16) -> list[list[Any]]:
    rail = guardrail(max_input_tokens=1200)
    windows = []
    for rounds in range(1, requests + 1):
        data = {"model": "m", "messages": chat(rounds), "tools": TOOLS}
        planned = hook(rail, data, "acompletion", cache)
        windows.append(planned["messages"])
    return windows


def cut_prefixes(windows: list[list[Any]]) -> list[str]:
    """Each cut window's first tool call id after the notice: which span the cut removed."""
    firsts = []
    for window in windows:
        calls = [m["tool_call_id"] for m in window if m.get("role") == "tool"]
        firsts.append(calls[0] if calls else "")
    return firsts


def test_records_are_kept_per_conversation_and_the_held_cut_holds():
    cache = FakeCache()
    windows = run_growing_conversation(cache)
    (key,) = cache.values
    assert len(cache.values[key]) == 2 and cache.ttls[key] == 3600
    firsts = cut_prefixes(windows)
    assert firsts[-1] != "call_1"  # the conversation was cut
    # With the records, the cut moves in steps: the first kept result stays the same for
    # several requests in a row (the same prefix re-sent), fewer moves than requests cut.
    cut = [first for first in firsts if first != "call_1"]
    moves = sum(1 for a, b in itertools.pairwise(cut) if a != b)
    assert len(cut) >= 6 and moves < len(cut) - 3
    for before, after in itertools.pairwise(windows):
        if cut_prefixes([before]) == cut_prefixes([after]):
            assert after[: len(before)] == before  # the same prefix, grown at the end


def test_without_records_the_cut_moves_on_every_request():
    class Forgetful(FakeCache):
        async def async_get_cache(self, key: str, **kwargs: Any) -> Any:
            return None

    firsts = cut_prefixes(run_growing_conversation(Forgetful()))
    cut = [first for first in firsts if first != "call_1"]
    moves = sum(1 for a, b in itertools.pairwise(cut) if a != b)
    assert moves >= len(cut) - 2


def test_the_session_id_names_the_conversation_unless_the_proxy_made_it_up():
    cache = FakeCache()
    rail = guardrail(max_input_tokens=900, record_ttl_seconds=120)
    for session in ("s-1", "s-2"):
        hook(rail, {"model": "m", "messages": chat(9), "litellm_session_id": session},
             "acompletion", cache)  # fmt: skip
    generated = {"model": "m", "messages": chat(9), "litellm_session_id": "made-up",
                 "metadata": {"litellm_session_id_generated": True}}  # fmt: skip
    hook(rail, generated, "acompletion", cache)
    hook(rail, {"model": "m", "messages": chat(10)}, "acompletion", cache)
    keys = sorted(cache.values)
    sessions = [key for key in keys if "session" in key]
    assert sessions == ["cwp-records:session:s-1", "cwp-records:session:s-2"]
    hashed = [key for key in keys if "session" not in key]
    assert len(hashed) == 1 and len(cache.values[hashed[0]]) == 2  # one conversation, two records
    assert set(cache.ttls.values()) == {120}


# ---- failing open
class StandIn(BaseHTTPRequestHandler):
    answer: tuple[int, Any] = (500, {"type": "about:blank", "title": "boom", "status": 500})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        status, body = self.server.answer  # type: ignore[attr-defined]
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def stand_in() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    server.handle_error = lambda *args: None  # type: ignore[method-assign]  # a client gone
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def orphan_window() -> dict[str, Any]:
    """A real plan's answer whose window holds a result without its call."""
    with Planner(PLANNER) as planner:
        answer = planner.plan(chat(6), format="openai").raw
    answer["window"] = [
        {"role": "user", "content": "Survey every station."},
        {"role": "tool", "tool_call_id": "call_1", "content": "station 1"},
    ]
    return answer


@pytest.mark.parametrize("answer", ["stopped", "500", "invalid window"])
def test_a_failing_planner_passes_the_request_through_with_one_log_line(answer, stand_in, caplog):
    if answer == "stopped":
        url = f"http://127.0.0.1:{stand_in.server_address[1]}"
        stand_in.shutdown()
        stand_in.server_close()
    else:
        url = f"http://127.0.0.1:{stand_in.server_address[1]}"
        stand_in.answer = (500, {"title": "boom"}) if answer == "500" else (200, orphan_window())  # type: ignore[attr-defined]
    rail = PlannerGuardrail(guardrail_name="p", event_hook="pre_call", api_base=url,
                            max_input_tokens=300)  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="cwp_client.litellm"):
        for _ in range(3):
            data = {"model": "m", "messages": chat(6)}
            assert hook(rail, data, "acompletion") is None
            assert data["messages"] == chat(6)
    lines = [r.getMessage() for r in caplog.records if r.name == "cwp_client.litellm"]
    assert len(lines) == 1, lines
    assert "unplanned" in lines[0]
    if answer == "invalid window":
        assert "call_1" in lines[0]


def test_a_slow_planner_times_out_and_passes_through(caplog):
    class Slow(StandIn):
        def do_POST(self) -> None:
            import time

            time.sleep(1.5)
            super().do_POST()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    server.handle_error = lambda *args: None  # type: ignore[method-assign]  # the client gave up
    server.answer = (200, orphan_window())  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        rail = PlannerGuardrail(api_base=f"http://127.0.0.1:{server.server_address[1]}",
                                timeout=0.3, max_input_tokens=300)  # fmt: skip
        with caplog.at_level(logging.WARNING, logger="cwp_client.litellm"):
            assert hook(rail, {"model": "m", "messages": chat(6)}, "acompletion") is None
        assert any("unplanned" in r.getMessage() for r in caplog.records)
    finally:
        server.shutdown()
        server.server_close()


# ---- the real proxy, as a user runs it
EXAMPLE_CONFIG = Path(__file__).resolve().parents[4] / "deploy" / "litellm" / "config.yaml"
MASTER_KEY = "sk-cwp-test-master"


class Upstream(BaseHTTPRequestHandler):
    """A model that records each request it receives (`requests`: path and body; `received`:
    a Chat Completions request's messages) and answers a line of text: on `/v1/chat/completions`
    (streamed when asked), `/v1/responses` and Anthropic's `/v1/messages`, the three wires the
    proxy calls its upstream on."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.server.requests.append((self.path, body))  # type: ignore[attr-defined]
        self.server.received.append(body.get("messages"))  # type: ignore[attr-defined]
        if self.path.endswith("/responses"):
            return self.answer(RESPONSE | {"model": body["model"]})
        if self.path.endswith("/messages"):
            return self.answer(ANTHROPIC_MESSAGE | {"model": body["model"]})
        base = {"id": "chatcmpl-1", "created": 1, "model": body["model"]}
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for delta, finish in (({"role": "assistant", "content": "Done."}, None), ({}, "stop")):
                choice = {"index": 0, "delta": delta, "finish_reason": finish}
                chunk = {**base, "object": "chat.completion.chunk", "choices": [choice]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            return
        answer = {
            **base,
            "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "Done."}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }  # fmt: skip
        self.answer(answer)

    def answer(self, answer: dict[str, Any]) -> None:
        payload = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


# The same line of text as a Responses answer and as an Anthropic Messages answer.
RESPONSE = {
    "id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
    "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}],
    "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12},
}  # fmt: skip
ANTHROPIC_MESSAGE = {
    "id": "msg_1", "type": "message", "role": "assistant",
    "content": [{"type": "text", "text": "Done."}],
    "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 2},
}  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running(server: ThreadingHTTPServer) -> Iterator[ThreadingHTTPServer]:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def proxy(tmp_path: Path, planner_url: str, upstream_url: str, **options: Any) -> Iterator[str]:
    """`litellm --config` on loopback: the example config, its models pointed at the stand-in
    upstream (Claude on its own provider, so on Anthropic's wire; the others as OpenAI models)
    and its guardrail at `planner_url`, with a budget small enough to cut."""
    config = yaml.safe_load(EXAMPLE_CONFIG.read_text())
    for entry in config["model_list"]:
        params = entry["litellm_params"]
        if params["model"].startswith("anthropic/"):
            params["api_base"] = upstream_url
        else:
            params["api_base"] = upstream_url + "/v1"
            params["model"] = "openai/" + entry["model_name"]
    (rail,) = config["guardrails"]
    rail["litellm_params"].update(api_base=planner_url, max_input_tokens=PROXY_BUDGET, **options)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    port = free_port()
    env = {
        **os.environ,
        "LITELLM_MASTER_KEY": MASTER_KEY,
        "OPENAI_API_KEY": "sk-upstream",
        "ANTHROPIC_API_KEY": "sk-upstream",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    litellm = Path(sys.executable).parent / "litellm"
    log = (tmp_path / "proxy.log").open("w")
    process = subprocess.Popen(
        [str(litellm), "--config", str(path), "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + PROXY_START_SECONDS
        while True:
            assert process.poll() is None, (tmp_path / "proxy.log").read_text()[-3000:]
            try:
                if httpx.get(url + "/health/liveliness", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "proxy.log").read_text()[-3000:]
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


PROXY_START_SECONDS = 120
PROXY_BUDGET = 1000


def ask(url: str, messages: list[Any], *, stream: bool, session: str | None) -> None:
    headers = {"Authorization": f"Bearer {MASTER_KEY}"}
    if session is not None:
        headers["x-litellm-session-id"] = session
    body = {"model": "gpt-4o-mini", "messages": messages, "tools": TOOLS, "stream": stream}
    answer = httpx.post(url + "/v1/chat/completions", json=body, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    if stream:
        assert "Done." in answer.text
    else:
        assert answer.json()["choices"][0]["message"]["content"] == "Done."


def test_the_real_proxy_sends_the_upstream_the_planners_window(tmp_path: Path):
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    upstream.received = []  # type: ignore[attr-defined]
    upstream.requests = []  # type: ignore[attr-defined]
    with (
        running(upstream),
        proxy(tmp_path, PLANNER, f"http://127.0.0.1:{upstream.server_address[1]}") as url,
        Planner(PLANNER) as planner,
    ):
        reserve = estimate_tokens(TOOLS)
        for stream, session in ((False, None), (True, "agent-run-7")):
            records: list[Any] = []
            windows = []
            for rounds in range(1, 15):
                messages = chat(rounds)
                ask(url, messages, stream=stream, session=session)
                plan = planner.plan(
                    messages, format="openai", prior_records=records or None,
                    strategy={"kind": "fit", "max_tokens": PROXY_BUDGET, "reserve_tokens": reserve},
                ).raw  # fmt: skip
                if plan.get("record") is not None:
                    records = [*records, plan["record"]][-2:]
                assert upstream.received[-1] == plan["window"], (stream, session, rounds)  # type: ignore[attr-defined]
                windows.append(plan["window"])
            firsts = cut_prefixes(windows)
            cut = [first for first in firsts if first != "call_1"]
            moves = sum(1 for a, b in itertools.pairwise(cut) if a != b)
            assert len(cut) >= 6 and moves < len(cut) - 3  # the held cut held between cuts


@pytest.mark.parametrize("answer", ["stopped", "500", "invalid window"])
def test_the_real_proxy_passes_requests_through_when_the_planner_fails(answer, tmp_path: Path):
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    upstream.received = []  # type: ignore[attr-defined]
    upstream.requests = []  # type: ignore[attr-defined]
    planner = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    planner.handle_error = lambda *args: None  # type: ignore[method-assign]
    planner.answer = (500, {"title": "boom"}) if answer == "500" else (200, orphan_window())  # type: ignore[attr-defined]
    planner_url = f"http://127.0.0.1:{planner.server_address[1]}"
    if answer == "stopped":
        planner.server_close()
        planner_url = f"http://127.0.0.1:{free_port()}"
    with (
        contextlib.nullcontext() if answer == "stopped" else running(planner),
        running(upstream),
        proxy(tmp_path, planner_url, f"http://127.0.0.1:{upstream.server_address[1]}") as url,
    ):
        for stream in (False, True):
            ask(url, chat(9), stream=stream, session=None)
            assert upstream.received[-1] == chat(9)  # type: ignore[attr-defined]


@pytest.mark.parametrize("option", [{"recall": {"tool_name": "context_recall"}}, {"overflow": "x"}])
def test_the_real_proxy_stops_at_start_up_on_a_refused_option(option, tmp_path: Path):
    with pytest.raises(AssertionError) as stopped, proxy(tmp_path, PLANNER, PLANNER, **option):
        pass
    (key,) = option
    assert f"PlannerGuardrail: option {key!r}" in str(stopped.value)


# ---- the real proxy's Anthropic Messages and Responses routes
ANTHROPIC_TOOLS = [
    {"name": "read_station", "description": "Read one station's log.",
     "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
]  # fmt: skip
RESPONSES_TOOLS = [
    {"type": "function", "name": "read_station", "description": "Read one station's log.",
     "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}},
]  # fmt: skip
SURVEY = "Survey every station."
SYSTEM = "You survey stations."


def anthropic_conversation(rounds: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": SURVEY}]
    for number in range(1, rounds + 1):
        messages += [
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{number}", "name": "read_station",
                 "input": {"n": number}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{number}",
                 "content": f"station {number}: " + "x" * 400}]},
        ]  # fmt: skip
    return messages


def responses_conversation(rounds: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [{"role": "user", "content": SURVEY}]
    for number in range(1, rounds + 1):
        items += [
            {"type": "function_call", "call_id": f"fc_{number}", "name": "read_station",
             "arguments": json.dumps({"n": number})},
            {"type": "function_call_output", "call_id": f"fc_{number}",
             "output": f"station {number}: " + "x" * 400},
        ]  # fmt: skip
    return items


def anthropic_turns(messages: list[Any]) -> list[tuple[Any, ...]]:
    """An Anthropic transcript as its sequence of texts, tool calls and tool results."""
    turns: list[tuple[Any, ...]] = []
    for message in messages:
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            if block["type"] == "text":
                turns.append(("text", message["role"], block["text"]))
            elif block["type"] == "tool_use":
                turns.append(("call", block["id"], block["name"], block["input"]))
            else:
                turns.append(("result", block["tool_use_id"], block["content"]))
    return turns


def responses_turns(items: list[Any]) -> list[tuple[Any, ...]]:
    """A Responses input as the same sequence (LiteLLM's Anthropic-to-Responses translation
    carries each block over as one item, text parts as `input_text`/`output_text`)."""
    turns: list[tuple[Any, ...]] = []
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            content = item["content"]
            parts = [{"text": content}] if isinstance(content, str) else content
            turns += [("text", item["role"], part["text"]) for part in parts]
        elif kind == "function_call":
            turns.append(("call", item["call_id"], item["name"], json.loads(item["arguments"])))
        else:
            assert kind == "function_call_output", item
            turns.append(("result", item["call_id"], item["output"]))
    return turns


def first_results(windows: list[list[tuple[Any, ...]]]) -> list[str]:
    """Each window's first tool result's call id: which span a cut removed."""
    return [next((turn[1] for turn in window if turn[0] == "result"), "") for window in windows]


ROUTE_CASES = {
    # Claude behind its own provider: the proxy sends the planned messages on as they are.
    "messages to an anthropic model": (
        "/v1/messages", "claude-sonnet", "/v1/messages", "anthropic",
    ),
    # An OpenAI model behind the Messages route: LiteLLM translates the planned messages into a
    # Responses input, compared turn by turn.
    "messages to an openai model": (
        "/v1/messages", "gpt-4o-mini", "/v1/responses", "anthropic",
    ),
    "responses to an openai model": (
        "/v1/responses", "gpt-4o-mini", "/v1/responses", "responses",
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def routes_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    upstream.received = []  # type: ignore[attr-defined]
    upstream.requests = []  # type: ignore[attr-defined]
    tmp_path = tmp_path_factory.mktemp("routes-proxy")
    with (
        running(upstream),
        proxy(tmp_path, PLANNER, f"http://127.0.0.1:{upstream.server_address[1]}") as url,
    ):
        yield url, upstream


@pytest.mark.parametrize("session", [None, "agent-run-9"])
@pytest.mark.parametrize("case", list(ROUTE_CASES))
def test_the_real_proxy_plans_the_messages_and_responses_routes(case, session, routes_proxy):
    """Each request's upstream body holds the planner's window for that request, planned with the
    records the proxy kept (its own cache), so the held cut holds between cuts."""
    route, model, upstream_path, fmt = ROUTE_CASES[case]
    url, upstream = routes_proxy
    headers = {"Authorization": f"Bearer {MASTER_KEY}"}
    if session is not None:
        headers["x-litellm-session-id"] = f"{session}-{list(ROUTE_CASES).index(case)}"
    if fmt == "anthropic":
        tools, conversation, reply = ANTHROPIC_TOOLS, anthropic_conversation, 64
        extra: dict[str, Any] = {"system": SYSTEM, "max_tokens": reply}
    else:
        tools, conversation, reply = RESPONSES_TOOLS, responses_conversation, 48
        extra = {"instructions": SYSTEM, "max_output_tokens": reply}
    reserve = reply + estimate_tokens(tools)
    records: list[Any] = []
    windows = []
    with Planner(PLANNER) as planner:
        for rounds in range(1, 15):
            transcript = conversation(rounds)
            key = "messages" if fmt == "anthropic" else "input"
            body = {"model": model, key: transcript, "tools": tools, **extra}
            answer = httpx.post(url + route, json=body, headers=headers, timeout=60)
            assert answer.status_code == 200, answer.text
            assert "Done." in answer.text
            plan = planner.plan(
                transcript, format=fmt, system=SYSTEM, prior_records=records or None,
                strategy={"kind": "fit", "max_tokens": PROXY_BUDGET, "reserve_tokens": reserve},
            ).raw  # fmt: skip
            if plan.get("record") is not None:
                records = [*records, plan["record"]][-2:]
            path, sent = upstream.requests[-1]
            # LiteLLM 1.108 sends an OpenAI model's Messages request on as a Responses request.
            assert path == upstream_path, (case, rounds, path)
            if upstream_path == "/v1/messages":
                assert sent["messages"] == plan["window"], (case, rounds)
                assert sent["system"] == SYSTEM
                window = anthropic_turns(plan["window"])
            elif fmt == "anthropic":
                window = anthropic_turns(plan["window"])
                assert responses_turns(sent["input"]) == window, (case, rounds)
                assert sent["instructions"] == SYSTEM
            else:
                assert sent["input"] == plan["window"], (case, rounds)
                assert sent["instructions"] == SYSTEM
                window = responses_turns(plan["window"])
            windows.append(window)
    firsts = first_results(windows)
    assert firsts[0] in ("toolu_1", "fc_1")
    assert len(windows[-1]) < len(conversation(14))  # the conversation was cut
    cut = [first for first in firsts if first != firsts[0]]
    moves = sum(1 for a, b in itertools.pairwise(cut) if a != b)
    assert len(cut) >= 6 and moves < len(cut) - 3  # the held cut held between cuts
