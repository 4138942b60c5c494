"""The text-based nesting depth agrees with a walk over the parsed value, whatever strings hold."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.body import nesting_depth

TRICKY_TEXT = st.text(alphabet='[]{}",:\\ au\u00e9\U0001f600\n', max_size=12)
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


def walked_depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((walked_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((walked_depth(v) for v in value), default=0)
    return 0


@settings(derandomize=True, max_examples=400)
@given(JSON_VALUES, st.booleans())
def test_text_depth_equals_walked_depth(value, indent):
    body = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    assert nesting_depth(body, 64) == walked_depth(value)


def test_escaped_quotes_and_brackets_in_strings_do_not_count():
    body = rb'{"a": "]]]\"[[", "b": [{"c": ["\\", "\u005b"]}]}'
    assert nesting_depth(body, 64) == 4


def test_counting_stops_past_the_limit():
    body = b"[" * 1000 + b"]" * 1000
    assert nesting_depth(body, 64) == 65
