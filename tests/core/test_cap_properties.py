"""Properties of the cap (docs/rules.md#the-decision and #the-marker), checked against a literal
model of the head budget that serializes every candidate marker."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from app.core.cap import (
    ABSENT,
    cap_result,
    escaped_length,
    marker_for,
    marker_size,
    measured_text,
    reason_for,
)

# Characters that stress the rules: escapes of every kind, astral code points, joiners, and the
# characters the compact serialization writes raw although they look special.
ESCAPED = ['"', "\\", "\b", "\t", "\n", "\f", "\r", "\x00", "\x1f", "\x0b"]
RAW = ["/", "\x7f", "\u2028", "😀", "👩", "\u200d", "💻", "🔧", "é", "a", "x"]
SPECIAL = st.sampled_from(ESCAPED + RAW)
CHARS = st.one_of(SPECIAL, st.characters(exclude_categories=["Cs"]))
TEXTS = st.text(alphabet=CHARS, max_size=300)
TOOL_NAMES = st.text(alphabet=CHARS, min_size=1, max_size=20)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXTS,
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(alphabet=CHARS, max_size=8), children, max_size=5)
    ),
    max_leaves=20,
)
# Long texts made of a repeated chunk, so that a cap can leave room for the explanation and a head.
LONG_TEXTS = st.builds(
    lambda chunk, times, tail: chunk * times + tail,
    st.text(alphabet=CHARS, min_size=1, max_size=12),
    st.integers(min_value=10, max_value=80),
    TEXTS,
)
RESULTS = st.one_of(
    TEXTS,
    LONG_TEXTS,
    JSON_VALUES,
    st.dictionaries(st.text(alphabet=CHARS, max_size=8), LONG_TEXTS, min_size=1, max_size=3),
    st.lists(LONG_TEXTS, min_size=1, max_size=3),
    st.just(ABSENT),
)
CAPS = st.integers(min_value=1, max_value=500)


@st.composite
def items(draw: st.DrawFn) -> tuple[Any, str, int]:
    """A result, a tool name and a cap, most often a cap that leaves room for a head yet cuts."""
    result = draw(RESULTS)
    tool_name = draw(TOOL_NAMES)
    n = len(measured_text(result))
    if n > 2 and draw(st.integers(min_value=0, max_value=3)) > 0:
        cap = draw(st.integers(min_value=max(1, min(n - 1, 100)), max_value=n - 1))
    else:
        cap = draw(CAPS)
    return result, tool_name, cap


ITEMS = items()


def serialized_size(value: Any) -> int:
    return len(orjson.dumps(value).decode())


def model_marker(text: str, tool_name: str, cap: int) -> dict[str, Any]:
    """The head budget written out literally: every try is serialized and measured."""
    reason = reason_for(tool_name, len(text), cap)
    headless: dict[str, Any] = {"truncated": True, "reason": reason}
    budget = cap - serialized_size({**headless, "head": ""})
    if budget <= 0:
        return headless
    take = budget
    while True:
        marker = {**headless, "head": text[:take]}
        if serialized_size(marker) <= cap:
            return marker
        take = take * 4 // 5 if take > 16 else take - 1
        if take <= 0:
            return headless


@given(item=ITEMS)
def test_the_marker_follows_the_literal_head_budget(item: tuple[Any, str, int]) -> None:
    result, tool_name, cap = item
    outcome = cap_result(tool_name, result, cap)
    text = measured_text(result)
    assert outcome.chars == len(text)
    if outcome.truncated:
        # Equal to the model: the explanation and a head, nothing else of the result.
        assert outcome.result == model_marker(text, tool_name, cap)
        assert list(outcome.result)[:2] == ["truncated", "reason"]
    else:
        assert outcome.result is result


@given(item=ITEMS)
def test_a_marker_with_a_head_is_within_the_cap(item: tuple[Any, str, int]) -> None:
    result, tool_name, cap = item
    outcome = cap_result(tool_name, result, cap)
    if outcome.truncated and "head" in outcome.result:
        assert serialized_size(outcome.result) <= cap
        assert outcome.result["head"] != ""


@given(item=ITEMS)
def test_the_head_is_a_verbatim_prefix_of_whole_code_points(item: tuple[Any, str, int]) -> None:
    result, tool_name, cap = item
    outcome = cap_result(tool_name, result, cap)
    if outcome.truncated and "head" in outcome.result:
        head = outcome.result["head"]
        text = measured_text(result)
        assert text.startswith(head)
        assert len(head) < len(text)
        # A lone surrogate cannot be encoded: a head never holds half of a pair.
        head.encode("utf-8")
        orjson.dumps(outcome.result)


@given(text=TEXTS, extra=CHARS, tool_name=TOOL_NAMES)
def test_exactly_at_the_cap_passes_and_one_more_is_replaced(
    text: str, extra: str, tool_name: str
) -> None:
    cap = max(len(text), 1)
    fitting = text if text else extra
    assert cap_result(tool_name, fitting, cap).truncated is False
    over = cap_result(tool_name, fitting + extra, cap)
    assert over.truncated is True
    assert over.chars == cap + 1


@given(text=st.text(alphabet="abcxyz😀é/ ", min_size=1, max_size=400), cap=CAPS)
def test_without_escapes_the_first_try_fills_the_cap(text: str, cap: int) -> None:
    if len(text) <= cap:
        return
    marker = marker_for(text, "t", cap)
    envelope = serialized_size({"truncated": True, "reason": marker["reason"], "head": ""})
    budget = cap - envelope
    if budget > 0:
        assert len(marker["head"]) == budget
        assert serialized_size(marker) == cap
    else:
        assert "head" not in marker


@given(text=TEXTS, stop=st.integers(min_value=0, max_value=450))
def test_escaped_length_equals_the_serialized_length(text: str, stop: int) -> None:
    assert escaped_length(text) == len(orjson.dumps(text).decode()) - 2
    assert escaped_length(text, stop) == len(orjson.dumps(text[:stop]).decode()) - 2


@given(item=ITEMS)
def test_the_arithmetic_size_equals_the_serialized_size(item: tuple[Any, str, int]) -> None:
    result, tool_name, cap = item
    outcome = cap_result(tool_name, result, cap)
    if outcome.truncated:
        assert marker_size(outcome.result) == serialized_size(outcome.result)
        headless = {"truncated": True, "reason": outcome.result["reason"]}
        assert (
            marker_size(headless)
            == serialized_size(headless)
            == 30 + escaped_length(headless["reason"])
        )


@given(item=ITEMS)
def test_the_cap_is_deterministic(item: tuple[Any, str, int]) -> None:
    result, tool_name, cap = item
    first = cap_result(tool_name, result, cap)
    second = cap_result(tool_name, result, cap)
    assert first == second
    if first.truncated:
        assert orjson.dumps(first.result) == orjson.dumps(second.result)
