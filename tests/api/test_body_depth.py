"""The nesting depth of a parsed body agrees with a plain recursive walk, whatever strings hold
and however the body escapes them, and stops counting past the limit."""

from __future__ import annotations

import json

import orjson
from hypothesis import given
from hypothesis import strategies as st

from app.api.body import nesting_depth, parse_json
from app.api.problems import ProblemError

# Every byte that can follow a backslash in an escape is here (`/`, `b`, `f`, `n`, `r`, `t`, `u`
# as letters and as the control characters they stand for), beside brackets and quotes.
TRICKY_TEXT = st.text(alphabet='[]{}",:\\/ abfnrtu\u00bf\u00e9\U0001f600\n\t\r\b\f', max_size=12)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TRICKY_TEXT,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(TRICKY_TEXT, children, max_size=4)
    ),
    max_leaves=40,
)


def reference_depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((reference_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((reference_depth(v) for v in value), default=0)
    return 0


def encoded(value: object, encoding: str) -> bytes:
    if encoding == "ascii":  # every non-ASCII character as a \uXXXX escape, `/` as `\/`
        return json.dumps(value, ensure_ascii=True).replace("/", "\\/").encode()
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 if encoding == "indented" else 0)


@given(JSON_VALUES, st.sampled_from(["compact", "indented", "ascii"]))
def test_depth_equals_the_reference_walk(value, encoding):
    body = encoded(value, encoding)
    assert orjson.loads(body) == value
    expected = reference_depth(value)
    assert nesting_depth(value, 64) == expected
    assert nesting_depth(orjson.loads(bytearray(body)), 64) == expected


def test_brackets_and_escaped_quotes_in_strings_do_not_count():
    body = rb'{"a": "]]]\"[[", "b": [{"c": ["\\", "\u005b", "{"]}]}'
    assert nesting_depth(orjson.loads(body), 64) == 4
    assert parse_json(body, 4) == orjson.loads(body)


def test_counting_stops_past_the_limit():
    value = orjson.loads(b"[" * 1000 + b"]" * 1000)
    assert nesting_depth(value, 64) == 65
    assert nesting_depth([0] * 100_000 + [[]], 64) == 2  # scalars are not counted


def test_a_body_deeper_than_the_limit_is_refused():
    body = b"[" * 65 + b"]" * 65
    try:
        parse_json(body, 64)
    except ProblemError as problem:
        assert problem.status == 422
    else:
        raise AssertionError("a body nested 65 deep was accepted")
    assert parse_json(b"[" * 64 + b"]" * 64, 64) is not None
