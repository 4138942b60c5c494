"""The nesting depth, read from the text or walked over the values, agrees with a plain recursive
walk, whatever strings hold and however the body escapes them."""

from __future__ import annotations

import json

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.body import (
    BYTES_PER_WALKED_CONTAINER,
    SLICE_BYTES,
    nesting_depth,
    text_depth,
    walked_depth,
    without,
)

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


@settings(derandomize=True, max_examples=400)
@given(JSON_VALUES, st.sampled_from(["compact", "indented", "ascii"]))
def test_depth_equals_the_reference_walk(value, encoding):
    body = encoded(value, encoding)
    assert orjson.loads(body) == value
    expected = reference_depth(value)
    assert nesting_depth(body, value, 64) == expected
    assert nesting_depth(bytearray(body), value, 64) == expected
    assert text_depth(body, 64) == expected
    assert text_depth(bytearray(body), 64) == expected
    assert walked_depth(value, 64, 10**9) == expected


def test_brackets_and_escaped_quotes_in_strings_do_not_count():
    body = rb'{"a": "]]]\"[[", "b": [{"c": ["\\", "\u005b", "{"]}]}'
    assert text_depth(body, 64) == 4
    assert walked_depth(orjson.loads(body), 64, 10**9) == 4
    assert nesting_depth(body, orjson.loads(body), 64) == 4


def test_counting_stops_past_the_limit():
    body = b"[" * 1000 + b"]" * 1000
    assert text_depth(body, 64) == 65
    assert walked_depth(orjson.loads(body), 64, 10**9) == 65


def test_the_walk_gives_up_past_its_allowance():
    value = [{}, {}, [[{}]]]  # six containers in all
    assert walked_depth(value, 64, 6) == 4
    assert walked_depth(value, 64, 5) is None
    assert walked_depth([0] * 100_000 + [[]], 64, 2) == 2  # scalars are not counted


def test_a_body_dense_with_containers_is_read_even_with_an_escape():
    body = b"[" + b",".join([b"{}"] * 1000) + b',"\\n"]'
    value = orjson.loads(body)
    assert walked_depth(value, 64, len(body) // BYTES_PER_WALKED_CONTAINER) is None
    assert nesting_depth(body, value, 64) == 2


def test_a_bytearray_is_read_whole_across_its_slices():
    # Strings full of brackets, quotes and backslashes span several slices, and the deepest
    # nesting comes last, so a slice left out or cut short changes the answer.
    filler = '][}{"\\' * (SLICE_BYTES // 5)
    value = [filler, {"a": [filler, [filler]]}, [[[[[[filler, '"]\\']]]]]]]
    body = orjson.dumps(value)
    assert len(body) > 3 * SLICE_BYTES
    assert text_depth(bytearray(body), 64) == text_depth(body, 64) == reference_depth(value) == 7
    for delete in (b"[]", b'"\\', bytes(range(256))):
        assert without(bytearray(body), delete) == body.translate(None, delete)
