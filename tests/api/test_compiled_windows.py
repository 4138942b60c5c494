"""The scanned messages as `CallerMessages`: the dialect's one writer writes the list's bytes.

`tests/api/test_compiled_reader.py` compares whole answers; these tests hold the protocol itself:
every dialect's window from the scanned messages against the window from the parsed list (nothing
removed, a removal, shaped results, the head a summary request is written from), and a Gemini
content that also carries a `content` array, which the scan counts instead of its parts.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
from typing import Any

import orjson
import pytest

from app import compiled
from app.compiled import Unanswered
from app.compiled.messages import ScannedMessages
from app.formats import dialect_of
from app.main import create_app
from app.settings import Settings
from bench.asgi import call_asgi
from bench.generate import plan_body

if not compiled.available():
    if os.environ.get("CWP_REQUIRE_COMPILED_READER") == "1":
        raise RuntimeError("the compiled reader is required here but cwp_compiled_reader is absent")
    pytest.skip("the compiled reader is not built", allow_module_level=True)

DIALECTS = ["native", "openai", "anthropic", "responses", "gemini", "bedrock"]
INSTANCE = re.compile(rb'"instance":"[0-9a-f]{32}"')


def scanned(body: bytes, format_name: str) -> tuple[ScannedMessages, list[Any]]:
    """The body's scanned messages and the core messages read from them."""
    messages = ScannedMessages(body, compiled.scan(body, 64))
    return messages, messages.read(dialect_of(format_name))


@pytest.mark.parametrize("format_name", DIALECTS)
def test_each_writer_writes_the_same_bytes_from_the_scan_as_from_the_list(
    format_name: str,
) -> None:
    body = plan_body(200, format_name)
    raw = orjson.loads(body)["messages"]
    dialect = dialect_of(format_name)
    callers, core = scanned(body, format_name)
    results = [index for index, message in enumerate(core) if message.role == "tool"]
    shaped = {index: f"shaped {index}" for index in results[::3]}
    middle = len(core) // 2
    for removed, notice, texts in [
        ((), None, {}),
        (((1, middle),), "a notice", {}),
        (((1, middle),), None, shaped),
        ((), None, shaped),
        (((1, middle // 2), (middle, middle + 3)), "a notice", shaped),
    ]:
        from_scan = dialect.write_window(callers, core, removed, notice, texts)
        from_list = dialect.write_window(raw, core, removed, notice, texts)
        assert orjson.dumps(from_scan) == orjson.dumps(from_list)
    head = callers.head(middle)
    assert len(head) == middle
    assert orjson.dumps(list(head)) == orjson.dumps(raw[:middle])
    assert orjson.dumps(head.verbatim_slice(0, middle)) == orjson.dumps(raw[:middle])


def answers(body: dict[str, Any]) -> set[bytes]:
    """The distinct answers of the compiled and the Python path to `body`."""
    found = set()
    for compiled_reader in (True, False):
        app = create_app(Settings(compiled_reader=compiled_reader))
        status, _, payload = asyncio.run(
            call_asgi(app, "POST", "/v1/window/plan", orjson.dumps(body))
        )
        assert status == 200, payload
        found.add(INSTANCE.sub(b"", payload))
    return found


@pytest.mark.parametrize("shaped", [False, True])
def test_a_gemini_content_with_a_content_array_is_split_by_its_parts(shaped: bool) -> None:
    """The removal splits the content whose `content` array has as many items as the parts
    it keeps: the scan's count is of that array, so its parts are counted from its value."""

    def user(call: int, text: str, output: str = "r") -> dict[str, Any]:
        answer = {"name": "f", "id": f"c{call}", "response": {"output": output}}
        return {"role": "user", "parts": [{"functionResponse": answer}, {"text": text}]}

    def model(call: int) -> dict[str, Any]:
        return {"role": "model", "parts": [{"functionCall": {"name": "f", "id": f"c{call}"}}]}

    contents = [{"role": "user", "parts": [{"text": "q0"}]}, model(0)]
    for turn in range(1, 8):
        contents += [user(turn - 1, f"q{turn}"), model(turn)]
    contents[14]["content"] = [1]  # the content that starts the first turn kept
    contents.append(user(7, "last", "r" * 900))
    body: dict[str, Any] = {
        "format": "gemini",
        "messages": contents,
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 3},
    }
    if shaped:
        body["cap"] = {"max_chars": 100}
    (answer,) = answers(body)
    window = orjson.loads(answer)["window"]
    assert window[0] == {"role": "user", "parts": [{"text": "q7"}], "content": [1]}


def test_a_format_the_module_does_not_read_is_left_to_the_python_path() -> None:
    body = plan_body(50, "native")
    unknown = dataclasses.replace(dialect_of("native"), name="a-new-dialect")
    with pytest.raises(Unanswered):
        ScannedMessages(body, compiled.scan(body, 64)).read(unknown)
