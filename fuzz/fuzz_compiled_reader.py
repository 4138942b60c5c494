"""Coverage-guided differential fuzzing of the compiled reader with atheris.

Run it (atheris is in the `fuzz` extra; `make fuzz-compiled` installs it and runs 60 s):

    .venv/bin/python fuzz/fuzz_compiled_reader.py -max_total_time=60

Each input is a plan request body. It is sent to two apps in process, one reading plan requests
with the compiled reader and one in Python, and a finding is any difference between their
answers (status and bytes, a problem's random `instance` aside) or any 5xx. The scan is also
driven directly, every method on every format, where anything but the ValueError that hands a
body to Python (a panic, say) is a finding, and so is a compiled survey or compiled findings of
the messages read that differ from `app.core.turns.survey` or `app.core.diagnostics.findings`.
Coverage guidance comes from the Python code the input reaches; seeds are the plan bodies of
`fuzz_requests.py`, one of each format, and bodies reusing a call id.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

INSTANCE = re.compile(rb'"instance":"[0-9a-f]{32}"')
FORMAT_SEEDS = (
    b'{"format":"openai","messages":[{"role":"system","content":"s"},{"role":"user","content":'
    b'[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1",'
    b'"type":"function","function":{"name":"t","arguments":"{\\"a\\":1}"}}]},{"role":"tool",'
    b'"tool_call_id":"c1","content":"ok"}],"strategy":{"kind":"sliding-window",'
    b'"keep_recent_turns":1}}',
    b'{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"text",'
    b'"text":"on it"},{"type":"tool_use","id":"c1","name":"t","input":{"k":[1,2.5,null]}}]},'
    b'{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"done"},'
    b'{"type":"text","text":"next"}]}],"system":"s","strategy":{"kind":"sliding-window",'
    b'"keep_recent_turns":1},"cap":{"max_chars":2},"include_window":true}',
    b'{"format":"responses","system":"s","messages":[{"type":"message","role":"user","content":'
    b'"go"},{"type":"reasoning","id":"r1"},{"type":"message","role":"assistant","content":[{"type":'
    b'"output_text","text":"on it"}]},{"type":"function_call","call_id":"c1","name":"t","arguments"'
    b':"{}"},{"type":"function_call_output","call_id":"c1","output":"done"},{"role":"user",'
    b'"content":[{"type":"input_text","text":"next"}]}],"strategy":{"kind":"sliding-window",'
    b'"keep_recent_turns":1},"include_window":true}',
    b'{"format":"gemini","messages":[{"role":"user","parts":[{"text":"go"}]},{"role":"model",'
    b'"parts":[{"text":"hm","thought":true},{"functionCall":{"name":"t","args":{"a":1}}},'
    b'{"functionCall":{"id":"c2","name":"t","args":{}}}]},{"role":"user","parts":[{'
    b'"functionResponse":{"name":"t","response":{"output":"ok"}}},{"functionResponse":{"id":"c2",'
    b'"name":"t","response":{"v":[1,2]}}},{"text":"next"}]}],"strategy":{"kind":"sliding-window",'
    b'"keep_recent_turns":1},"include_window":true}',
    b'{"format":"bedrock","messages":[{"role":"user","content":[{"text":"go"}]},{"role":'
    b'"assistant","content":[{"text":"on it"},{"toolUse":{"toolUseId":"c1","name":"t","input":'
    b'{"k":1}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"c1","content":[{"text":'
    b'"a"},{"json":{"b":2}}]}},{"text":"next","injected":true}]}],"strategy":{"kind":'
    b'"sliding-window","keep_recent_turns":1},"cap":{"max_chars":2},"include_window":true}',
)
# A call id reused by a later call (docs/rules.md#diagnostics): answered after each call, or the
# later call left unanswered while later messages follow it.
REUSED_ID_SEEDS = (
    b'{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":"","tool_calls":'
    b'[{"id":"c1","name":"t","arguments":{}}]},{"role":"tool","tool_call_id":"c1","content":"a"},'
    b'{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"t","arguments":{}},{"id":'
    b'"c1","name":"u","arguments":{}}]},{"role":"user","content":"and?"},{"role":"assistant",'
    b'"content":"done"}],"strategy":{"kind":"sliding-window","keep_recent_turns":1}}',
    b'{"format":"openai","messages":[{"role":"user","content":"go"},{"role":"assistant","content":'
    b'null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":"{}"}}]},'
    b'{"role":"tool","tool_call_id":"c1","content":"a"},{"role":"user","content":"again"},{"role":'
    b'"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":'
    b'"t","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"b"},{"role":"user",'
    b'"content":"next"}],"strategy":{"kind":"sliding-window","keep_recent_turns":1},'
    b'"include_window":true}',
    b'{"format":"responses","messages":[{"role":"user","content":"go"},{"type":"function_call",'
    b'"call_id":"c1","name":"t","arguments":"{}"},{"type":"function_call_output","call_id":"c1",'
    b'"output":"a"},{"type":"function_call","call_id":"c1","name":"t","arguments":"{}"},{"role":'
    b'"user","content":"and?"}],"strategy":{"kind":"sliding-window","keep_recent_turns":1}}',
    b'{"format":"bedrock","messages":[{"role":"user","content":[{"text":"go"}]},{"role":'
    b'"assistant","content":[{"toolUse":{"toolUseId":"c1","name":"t","input":{}}}]},{"role":'
    b'"user","content":[{"toolResult":{"toolUseId":"c1","content":[{"text":"a"}]}}]},{"role":'
    b'"assistant","content":[{"toolUse":{"toolUseId":"c1","name":"t","input":{}}}]},{"role":'
    b'"user","content":[{"toolResult":{"toolUseId":"c1","content":[{"text":"b"}]}},{"text":'
    b'"next"}]}],"strategy":{"kind":"sliding-window","keep_recent_turns":1}}',
)
DIALECTS = ("native", "openai", "anthropic", "responses", "gemini", "bedrock")


def comparable(read: Any) -> Any:
    """A read's messages with each call's arguments as the text tokens count
    (`app.core.tokens.arguments_text`): the compiled reader keeps arguments written as orjson
    writes them as that text, the Python readers as the parsed value. Anything but a list of
    messages is returned as it is."""
    from app.core.messages import Message
    from app.core.tokens import arguments_text

    if type(read) is not list:
        return read
    return [
        item._replace(
            tool_calls=tuple(
                call._replace(arguments=arguments_text(call.arguments)) for call in item.tool_calls
            )
        )
        if type(item) is Message
        else item
        for item in read
    ]


class Target:
    """Both apps, the loop that serves them, and the scan's types."""

    def __init__(self) -> None:
        from app import compiled
        from app.core.diagnostics import findings
        from app.core.messages import Message, ToolCall
        from app.core.turns import Segment, Survey, survey
        from app.errors import InvalidRequest
        from app.formats import read_messages
        from app.main import create_app
        from app.settings import Settings
        from bench.asgi import call_asgi

        if not compiled.available():
            raise SystemExit("the compiled reader is not built: make compiled")
        self.compiled = compiled
        self.types = (Message, ToolCall)
        self.survey_types = (Segment, Survey)
        self.python_survey, self.python_findings = survey, findings
        self.read_messages, self.invalid = read_messages, InvalidRequest
        self.fast = create_app(Settings(compiled_reader=True))
        self.reference = create_app(Settings(compiled_reader=False))
        self.call = call_asgi
        self.loop = asyncio.new_event_loop()

    def answer(self, app: object, body: bytes) -> tuple[int, bytes]:
        status, _, payload = self.loop.run_until_complete(
            self.call(app, "POST", "/v1/window/plan", body)
        )
        return status, INSTANCE.sub(b'"instance":""', payload)

    def check(self, data: bytes) -> None:
        fast = self.answer(self.fast, data)
        reference = self.answer(self.reference, data)
        assert fast == reference, (data[:400], fast, reference)
        assert fast[0] < 500, fast
        self.drive_scan(data)

    def drive_scan(self, data: bytes) -> None:
        try:
            scan = self.compiled.scan(data, 64)
        except ValueError:
            return
        scan.fields()
        count = scan.message_count()
        scan.spans()
        scan.detection_samples()
        if count is None:
            return
        for index in range(count):
            scan.block_count(index)
        for format_name in DIALECTS:
            scan.read(format_name, *self.types)
            read, surveyed = scan.read_surveyed(format_name, *self.types, *self.survey_types)
            if surveyed is not None:  # every message read by the module: the Python passes'
                assert surveyed == self.python_survey(read), data[:400]
                assert self.compiled.findings(read) == self.python_findings(read), data[:400]
                # and the Python reader's messages, which it reads without an error
                python_read = self.python_read(data, format_name)
                assert comparable(read) == comparable(python_read), data[:400]
        scan.release()
        for index in range(count):
            scan.block_count(index)
            scan.span(index)

    def python_read(self, data: bytes, format_name: str) -> Any:
        """The format's Python reader over the body's messages."""
        try:
            return self.read_messages(orjson.loads(data)["messages"], format_name)
        except self.invalid as invalid:
            raise AssertionError(f"the module read what Python refuses: {invalid}") from None


def main() -> None:
    import atheris

    from fuzz.fuzz_requests import SEEDS

    with atheris.instrument_imports(include=["app"]):
        target = Target()
    arguments = list(sys.argv)
    if not any(not arg.startswith("-") for arg in arguments[1:]):
        corpus = Path(tempfile.mkdtemp(prefix="cwp-fuzz-compiled-"))
        seeds = [seed for seed in SEEDS if b'"messages"' in seed]
        seeds += [*FORMAT_SEEDS, *REUSED_ID_SEEDS]
        for index, seed in enumerate(seeds):
            (corpus / f"seed-{index}").write_bytes(seed)
        arguments += [str(corpus), f"-artifact_prefix={corpus}/"]
        print(f"corpus and crash files: {corpus}", flush=True)
    if not any(arg.startswith("-dict=") for arg in arguments):
        arguments.append(f"-dict={HERE / 'json.dict'}")
    atheris.Setup(arguments, target.check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
