"""Coverage-guided fuzzing of every body endpoint with atheris (libFuzzer for Python).

Run it (atheris is in the `fuzz` extra: `.venv/bin/pip install -e '.[fuzz]'`):

    .venv/bin/python fuzz/fuzz_requests.py -max_total_time=300

An input's first byte picks the endpoint, the rest is the request body, sent through the whole
ASGI app in process (middleware, body reader, deadline worker, route). A finding is any answer
that breaks the rules for bad input (docs/rules.md#validation): a status of 500 or more, or an error
answer that is not an RFC 9457 problem+json document with its own status. Without a corpus directory
on the command line the harness makes a fresh one under the temporary directory, seeded with a valid
body of each endpoint, and writes crash files there too; the JSON and field-name dictionary
`fuzz/json.dict` is used unless `-dict=` is given. Every other libFuzzer option works as usual
(`-runs=`, `-max_len=`, `-jobs=`...).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

PATHS = (
    "/v1/window/plan",
    "/v1/tool-results/cap",
    "/v1/offer",
    "/v1/kept-answers/keep",
    "/v1/kept-answers/use",
    "/v1/kept-answers/lookup",
)
SEEDS: tuple[bytes, ...] = (
    b'{"messages":[{"role":"user","content":"Find the rack."},{"role":"assistant","content":"",'
    b'"tool_calls":[{"id":"c1","name":"measure","arguments":{}}]},{"role":"tool",'
    b'"tool_call_id":"c1","tool_name":"measure","content":"41C"}],"strategy":{"kind":'
    b'"sliding-window","keep_recent_turns":1},"ledger":[{"tool_call_id":"c1","standing":"fact"}]}',
    b'{"messages":[{"role":"system","content":"s"},{"role":"user","content":"go"},{"role":'
    b'"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":'
    b'"t","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"xxxxxxxxxxxxxxxx"}],'
    b'"tokenizer":"cl100k_base","strategy":{"kind":"fit","max_tokens":9,"reserve_tokens":1},'
    b'"calibration":{"counted":20,"measured":{"input_tokens":30,"output_tokens":2}}}',
    b'{"max_chars":5,"max_chars_by_tool":{"t":9},"results":[{"tool_name":"t","result":"abcdefghij"},'
    b'{"tool_name":"u","tool_call_id":"x","result":{"a":[1,2]}},{"tool_name":"v"}]}',
    b'{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":'
    b'"tool_use","id":"c1","name":"t","input":{}}]},{"role":"user","content":[{"type":'
    b'"tool_result","tool_use_id":"c1","content":"ok"}]}],"system":"s","ledger":[],"limit":2}',
    b'{"turn":3,"tool_name":"purge_logs","answers":[{"argument":"window","value":"24h"}]}',
    b'{"kept":[{"turn":3,"tool_name":"p","argument":"w","value":1}],"turn":3,'
    b'"used":[{"tool_name":"p","argument":"w"}]}',
    b'{"kept":[{"turn":3,"tool_name":"p","argument":"w","value":true}],"turn":3,'
    b'"tool_name":"p","argument":"w"}',
    # An Anthropic run compacted mid-way (a summary, then a failed compaction), framework frames,
    # and the frame options.
    b'{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":'
    b'"compaction","content":"Racks a and c measured."},{"type":"tool_use","id":"b","name":"t",'
    b'"input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":'
    b'"41C"},{"type":"text","text":"<system-reminder>x</system-reminder>"}]},{"role":"assistant",'
    b'"content":[{"type":"compaction","content":null},{"type":"text","text":"b"}]},{"role":"user",'
    b'"content":"<lab-note>shift</lab-note>"}],"format":"anthropic","detect_frames":true,'
    b'"frame_tags":["lab-note"],"strategy":{"kind":"sliding-window","keep_recent_turns":1}}',
)
# Lists past their limits (`frame_tags` over 256, a message's `tool_calls` over 1,024), and many
# invalid messages (a 422 past 100 errors).
SEEDS += (
    b'{"messages":[{"role":"assistant","content":"","tool_calls":['
    + b",".join([b"0"] * 1025)
    + b']}],"frame_tags":['
    + b",".join([b'"a"'] * 257)
    + b"]}",
    b'{"messages":[' + b",".join([b'{"role":1}'] * 150) + b"]}",
)
# The endpoint of each seed (its index in PATHS): the first byte of an input picks the endpoint.
SEED_ROUTES: tuple[int, ...] = (0, 0, 1, 2, 3, 4, 5, 0, 0, 2)


class Target:
    """The app and the event loop that serves it, one request per input."""

    def __init__(self) -> None:
        from app.main import create_app
        from app.settings import Settings
        from bench.asgi import call_asgi

        self.app = create_app(Settings())
        self.call = call_asgi
        self.loop = asyncio.new_event_loop()

    def check(self, data: bytes) -> None:
        """Send one input; raise AssertionError when the answer breaks the rules for bad input."""
        if not data:
            return
        path = PATHS[data[0] % len(PATHS)]
        status, headers, body = self.loop.run_until_complete(
            self.call(self.app, "POST", path, data[1:])
        )
        assert status < 500, f"{path} answered {status}: {body[:500]!r}"
        if status != 200:
            assert headers.get(b"content-type") == b"application/problem+json", (path, headers)
            problem = orjson.loads(body)
            assert problem["status"] == status and isinstance(problem["errors"], list), problem
            # A 422 is bounded: at most 100 errors, the rest counted right after them.
            assert len(problem["errors"]) <= 100, path
            if "errors_left_out" in problem:
                keys = list(problem)
                assert keys[keys.index("errors") + 1] == "errors_left_out", keys
                assert problem["errors_left_out"] > 0 and len(problem["errors"]) == 100, problem


def libfuzzer_arguments(argv: list[str]) -> list[str]:
    """The command line, completed with a seeded corpus, an artifact prefix and the dictionary."""
    arguments = list(argv)
    if not any(not arg.startswith("-") for arg in arguments[1:]):
        corpus = Path(tempfile.mkdtemp(prefix="cwp-fuzz-"))
        for index, (route, seed) in enumerate(zip(SEED_ROUTES, SEEDS, strict=True)):
            (corpus / f"seed-{index}").write_bytes(bytes([route]) + seed)
        arguments.append(str(corpus))
        if not any(arg.startswith("-artifact_prefix=") for arg in arguments):
            arguments.append(f"-artifact_prefix={corpus}/")
        print(f"corpus and crash files: {corpus}", flush=True)
    if not any(arg.startswith("-dict=") for arg in arguments):
        arguments.append(f"-dict={HERE / 'json.dict'}")
    return arguments


def main() -> None:
    import atheris

    with atheris.instrument_imports(include=["app"]):
        target = Target()
    atheris.Setup(libfuzzer_arguments(sys.argv), target.check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
