"""Every request in README.md runs as written, and every answer it shows is the service's answer.

Requests: every fenced `sh` block whose first command is `curl` is run by bash with `curl` defined
as a shell function that prints its arguments, so quoting, line continuations and command
substitutions are read exactly as a reader's shell reads them. Each call's method (`-X`, else POST
with `-d`, else GET), path, headers (`-H`) and body (`-d`) are then sent to the app in process.

Shown answers: a fenced `json` block that follows a block holding exactly one request, before any
other code block or heading, is that request's answer. It is compared with the real answer as JSON
values, under one rule for what the README leaves out, `...`:

- as an array element, it stands for any run of elements (none included);
- as an object member (`{"a": 1, ...}`), it allows members not shown; without it, the object must
  have exactly the members shown. Shown members must appear in the answer's own order;
- as a value (`"record": ...`), it stands for any value;
- inside a string, it stands for any run of characters.

Everything else must be equal (numbers, strings, booleans, null, key names). A shown answer with a
numeric `status` (a problem) must come with that HTTP status; any other request must answer 2xx.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest

from tests.conftest import client_for

pytestmark = pytest.mark.anyio

README = Path(__file__).resolve().parents[2] / "README.md"
ELLIPSIS = "\u0000..."  # what `...` outside strings reads as: no real answer holds a NUL key
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.DOTALL | re.MULTILINE)
# Prints each call's arguments, NUL-separated, after their count.
CURL_SHIM = 'curl() { printf \'%s\\0\' "$#" "$@"; }\n'


@dataclass
class Request:
    line: int
    method: str
    path: str
    headers: dict[str, str]
    body: bytes | None
    shown: str | None = field(default=None)


def readme_requests(text: str) -> list[Request]:
    """Every curl call of the README, each with the answer shown after it (if any)."""
    requests: list[Request] = []
    pending: list[Request] | None = None
    position = 0
    for match in FENCE.finditer(text):
        between = text[position : match.start()]
        position = match.end()
        language, code = match.group(1), match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        if pending is not None and "\n#" in "\n" + between:
            pending = None  # a heading ends the request's section
        if language == "json" and pending is not None:
            if len(pending) == 1:
                pending[0].shown = code
            pending = None
            continue
        pending = None
        if language == "sh" and first_command(code).startswith("curl "):
            pending = [call_request(line, argv) for argv in curl_calls(code)]
            requests.extend(pending)
    return requests


def first_command(code: str) -> str:
    for text_line in code.splitlines():
        stripped = text_line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped
    return ""


def curl_calls(code: str) -> list[list[str]]:
    """The argument lists of the block's curl calls, as bash expands them."""
    bash = shutil.which("bash")
    assert bash is not None, "bash is needed to read the README's commands"
    out = subprocess.run(
        [bash, "-euo", "pipefail", "-c", CURL_SHIM + code],
        check=True,
        capture_output=True,
        timeout=30,
    ).stdout
    fields = out.split(b"\0")[:-1]
    calls: list[list[str]] = []
    while fields:
        count = int(fields.pop(0))
        calls.append([f.decode() for f in fields[:count]])
        del fields[:count]
    return calls


def call_request(line: int, argv: list[str]) -> Request:
    method: str | None = None
    headers: dict[str, str] = {}
    body: bytes | None = None
    url: str | None = None
    args = iter(argv)
    for arg in args:
        if arg == "-s":
            continue
        if arg == "-X":
            method = next(args)
        elif arg == "-H":
            name, _, value = next(args).partition(":")
            headers[name.strip()] = value.strip()
        elif arg == "-d":
            body = next(args).encode()
        elif arg.startswith("http://"):
            url = arg
        else:
            raise AssertionError(f"README.md:{line}: curl option {arg!r} is not understood here")
    assert url is not None, f"README.md:{line}: a curl call without a URL"
    parts = urlsplit(url)
    assert parts.netloc == "127.0.0.1:8080", f"README.md:{line}: {url} is not the local planner"
    if method is None:
        method = "POST" if body is not None else "GET"
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    return Request(line, method, path, headers, body)


def parse_shown(text: str) -> Any:
    """The shown answer as JSON, each `...` outside a string read as the `ELLIPSIS` marker: an
    object member `...` as the member `ELLIPSIS: null`, any other `...` as the string
    `ELLIPSIS`."""
    out: list[str] = []
    stack: list[str] = []
    previous = ""  # the last significant character written
    i = 0
    while i < len(text):
        char = text[i]
        if char == '"':
            end = i + 1
            while text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            previous = '"'
            i = end + 1
            continue
        if text.startswith("...", i):
            key_position = stack[-1:] == ["{"] and previous in "{,"
            out.append(orjson.dumps(ELLIPSIS).decode() + (": null" if key_position else ""))
            previous = '"'
            i += 3
            continue
        if char in "[{":
            stack.append(char)
        elif char in "]}":
            stack.pop()
        if not char.isspace():
            previous = char
        out.append(char)
        i += 1
    return orjson.loads("".join(out))


def matches(shown: Any, real: Any) -> bool:
    """Whether `real` is an answer the abridged `shown` stands for (the rule in the docstring)."""
    if shown == ELLIPSIS:
        return True
    if isinstance(shown, str):
        if not isinstance(real, str):
            return False
        pattern = ".*".join(re.escape(piece) for piece in shown.split("..."))
        return re.fullmatch(pattern, real, re.DOTALL) is not None
    if isinstance(shown, list):
        return isinstance(real, list) and elements_match(shown, real)
    if isinstance(shown, dict):
        if not isinstance(real, dict):
            return False
        keys = [key for key in shown if key != ELLIPSIS]
        if ELLIPSIS not in shown and set(keys) != set(real):
            return False
        if not set(keys) <= set(real):
            return False
        order = [key for key in real if key in shown]
        return order == keys and all(matches(shown[key], real[key]) for key in keys)
    if isinstance(shown, bool) or isinstance(real, bool):
        return type(shown) is type(real) and shown == real
    return bool(shown == real)


def elements_match(shown: list[Any], real: list[Any]) -> bool:
    if not shown:
        return not real
    head, rest = shown[0], shown[1:]
    if head == ELLIPSIS:
        return any(elements_match(rest, real[skip:]) for skip in range(len(real) + 1))
    return bool(real) and matches(head, real[0]) and elements_match(rest, real[1:])


REQUESTS = readme_requests(README.read_text(encoding="utf-8"))


def test_the_readme_has_requests_and_shown_answers() -> None:
    assert len(REQUESTS) >= 10
    assert sum(request.shown is not None for request in REQUESTS) >= 5


@pytest.mark.parametrize("request_", REQUESTS, ids=lambda r: f"README.md:{r.line}:{r.path}")
async def test_each_readme_request_answers_as_shown(request_: Request) -> None:
    async with client_for() as client:
        response = await client.request(
            request_.method, request_.path, headers=request_.headers, content=request_.body
        )
    where = f"README.md:{request_.line}: {request_.method} {request_.path}"
    if request_.shown is None:
        assert 200 <= response.status_code < 300, f"{where}: {response.status_code} {response.text}"
        return
    shown = parse_shown(request_.shown)
    status = shown.get("status") if isinstance(shown, dict) else None
    if isinstance(status, int) and not isinstance(status, bool):
        assert response.status_code == status, f"{where}: {response.status_code}"
    else:
        assert 200 <= response.status_code < 300, f"{where}: {response.status_code} {response.text}"
    real = orjson.loads(response.content)
    assert matches(shown, real), (
        f"{where}: the answer shown differs from the real one:\n"
        + orjson.dumps(real, option=orjson.OPT_INDENT_2).decode()
    )


@pytest.mark.parametrize(
    ("shown", "real", "expected"),
    [
        ('{"a": 1, ...}', {"a": 1, "b": 2}, True),
        ('{"a": 1}', {"a": 1, "b": 2}, False),
        ('{"b": 2, "a": 1, ...}', {"a": 1, "b": 2}, False),
        ('{"a": ...}', {"a": [1, {"x": None}]}, True),
        ("[1, ..., 4]", [1, 2, 3, 4], True),
        ("[1, ..., 4]", [1, 4], True),
        ("[1, ..., 4]", [1, 2, 3], False),
        ("[...]", [], True),
        ('["ab...yz"]', ["abcdxyz"], True),
        ('["ab...yz"]', ["abcdxy"], False),
        ('{"n": 1}', {"n": True}, False),
        ('{"n": 1}', {"n": 2}, False),
        ('{"s": "a \\"...\\" b"}', {"s": 'a "x" b'}, True),
    ],
)
def test_the_matching_rule(shown: str, real: Any, expected: bool) -> None:
    assert matches(parse_shown(shown), real) is expected
