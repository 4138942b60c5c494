"""Provider usage objects (docs/rules.md#provider-usage-objects): which row an object matches, the
counts it yields, and every refusal with the key it names (docs/rules.md#validation, the `measured`
rows)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.plan_types import Measured
from app.core.usage import MAX_INT64, SHAPES, UsageProblem, read_usage


def problems(usage: Any) -> list[UsageProblem]:
    read = read_usage(usage)
    assert not isinstance(read, Measured), f"{usage!r} was accepted as {read}"
    return read


def paths(usage: Any) -> list[tuple[str, ...]]:
    return [problem.path for problem in problems(usage)]


def yields(usage: Any) -> tuple[int, int]:
    read = read_usage(usage)
    assert isinstance(read, Measured), f"{usage!r} was refused: {read}"
    return read.input_tokens, read.output_tokens


# ---- every usage shape with the counts it yields -------------------------------------------------

ANTHROPIC = {
    "input_tokens": 12,
    "output_tokens": 5,
    "cache_creation_input_tokens": 300,
    "cache_read_input_tokens": 4000,
    "cache_creation": {"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 0},
    "server_tool_use": {"web_search_requests": 1},
    "service_tier": "standard",
}
RESPONSES = {
    "input_tokens": 4300,
    "input_tokens_details": {"cached_tokens": 4000},
    "output_tokens": 40,
    "output_tokens_details": {"reasoning_tokens": 16},
    "total_tokens": 4340,
}
CHAT = {
    "prompt_tokens": 900,
    "completion_tokens": 12,
    "total_tokens": 912,
    "prompt_tokens_details": {"cached_tokens": 512, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0},
}
GEMINI = {
    "promptTokenCount": 800,
    "candidatesTokenCount": 30,
    "totalTokenCount": 877,
    "cachedContentTokenCount": 500,
    "thoughtsTokenCount": 7,
    "toolUsePromptTokenCount": 40,
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 800}],
}
GEMINI_SNAKE = {
    "prompt_token_count": 800,
    "candidates_token_count": 30,
    "total_token_count": 877,
    "cached_content_token_count": 500,
    "thoughts_token_count": 7,
    "tool_use_prompt_token_count": 40,
    "prompt_tokens_details": [{"modality": "TEXT", "token_count": 800}],
}
BEDROCK = {
    "inputTokens": 100,
    "outputTokens": 20,
    "totalTokens": 470,
    "cacheReadInputTokens": 300,
    "cacheWriteInputTokens": 50,
}


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        pytest.param({"input_tokens": 5000, "output_tokens": 10}, (5000, 10), id="own"),
        pytest.param(ANTHROPIC, (12 + 300 + 4000, 5), id="anthropic"),
        pytest.param(RESPONSES, (4300, 40), id="responses-cached-already-included"),
        pytest.param(CHAT, (900, 12), id="chat-completions"),
        pytest.param(GEMINI, (800 + 40, 30), id="gemini-camelCase"),
        pytest.param(GEMINI_SNAKE, (800 + 40, 30), id="gemini-snake_case"),
        pytest.param(BEDROCK, (100 + 300 + 50, 20), id="bedrock"),
    ],
)
def test_each_row_yields_its_counts(usage, counts):
    assert yields(usage) == counts


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        pytest.param(
            {"input_tokens": 7, "output_tokens": 2, "service_tier": "batch"}, (7, 2), id="anthropic"
        ),
        pytest.param({"input_tokens": 7, "output_tokens": 2, "total_tokens": 9}, (7, 2), id="resp"),
        pytest.param({"prompt_tokens": 7, "completion_tokens": 2}, (7, 2), id="chat"),
        pytest.param({"promptTokenCount": 7}, (7, 0), id="gemini-camelCase"),
        pytest.param({"prompt_token_count": 7}, (7, 0), id="gemini-snake_case"),
        pytest.param({"inputTokens": 7, "outputTokens": 2}, (7, 2), id="bedrock"),
    ],
)
def test_each_row_needs_only_its_identifying_keys(usage, counts):
    assert yields(usage) == counts


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        pytest.param(
            {
                "input_tokens": 12,
                "output_tokens": 5,
                "cache_creation_input_tokens": None,
                "cache_read_input_tokens": None,
                "cache_creation": None,
                "server_tool_use": None,
                "service_tier": None,
            },
            (12, 5),
            id="anthropic-sdk-dump-of-a-plain-usage",
        ),
        pytest.param(
            {"input_tokens": 12, "output_tokens": None, "cache_read_input_tokens": 3},
            (15, 0),
            id="anthropic-output-null",
        ),
        pytest.param(
            {"input_tokens": 4, "output_tokens": None, "output_tokens_details": None},
            (4, 0),
            id="responses-output-null",
        ),
        pytest.param({"prompt_tokens": 9, "completion_tokens": None}, (9, 0), id="chat"),
        pytest.param(
            {
                "promptTokenCount": 9,
                "candidatesTokenCount": None,
                "toolUsePromptTokenCount": None,
            },
            (9, 0),
            id="gemini-camelCase",
        ),
        pytest.param(
            {
                "prompt_token_count": 9,
                "candidates_token_count": None,
                "tool_use_prompt_token_count": None,
                "thoughts_token_count": None,
                "traffic_type": None,
            },
            (9, 0),
            id="gemini-snake_case",
        ),
        pytest.param(
            {
                "inputTokens": 9,
                "outputTokens": None,
                "cacheReadInputTokens": None,
                "cacheWriteInputTokens": None,
            },
            (9, 0),
            id="bedrock-null",
        ),
        pytest.param({"inputTokens": 9, "outputTokens": 1}, (9, 1), id="bedrock-absent"),
    ],
)
def test_other_counts_absent_or_null_are_0(usage, counts):
    assert yields(usage) == counts


# ---- first match, top to bottom ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        pytest.param(
            {
                "input_tokens": 10,
                "output_tokens": 3,
                "cache_read_input_tokens": 90,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 13,
            },
            (100, 3),
            id="anthropic-with-output_tokens_details-is-anthropic",
        ),
        pytest.param(
            {"input_tokens": 10, "output_tokens": 3, "prompt_tokens": 50, "completion_tokens": 4},
            (50, 4),
            id="a-provider-row-before-the-strict-fallback",
        ),
        pytest.param(
            {"prompt_tokens": 50, "completion_tokens": 4, "promptTokenCount": 70},
            (50, 4),
            id="chat-before-gemini",
        ),
        pytest.param(
            {"promptTokenCount": 70, "inputTokens": 9, "outputTokens": 1},
            (70, 0),
            id="gemini-before-bedrock",
        ),
        pytest.param(
            {"promptTokenCount": 70, "prompt_token_count": "not read"},
            (70, 0),
            id="camelCase-before-snake_case",
        ),
    ],
)
def test_rows_are_tried_top_to_bottom(usage, counts):
    assert yields(usage) == counts


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        pytest.param(
            {"promptTokenCount": 70, "tool_use_prompt_token_count": 5, "candidates_token_count": 3},
            (70, 0),
            id="camelCase-reads-camelCase",
        ),
        pytest.param(
            {"prompt_token_count": 70, "toolUsePromptTokenCount": 5, "candidatesTokenCount": 3},
            (70, 0),
            id="snake_case-reads-snake_case",
        ),
    ],
)
def test_a_gemini_object_is_read_in_the_spelling_of_its_prompt_count(usage, counts):
    assert yields(usage) == counts


def test_the_rows_are_listed_in_the_order_tried():
    assert [shape.keys for shape in SHAPES] == [
        ("input_tokens", "output_tokens"),
        ("input_tokens", "output_tokens"),
        ("input_tokens", "output_tokens"),
        ("prompt_tokens", "completion_tokens"),
        ("promptTokenCount",),
        ("prompt_token_count",),
        ("inputTokens", "outputTokens"),
    ]
    assert SHAPES[0].strict and not any(shape.strict for shape in SHAPES[1:])


# ---- unknown keys --------------------------------------------------------------------------------

ANYTHING = {"a string": "x", "a list": [1, 2], "null": None, "an object": {"k": -1}, "n": -1.5}


PROVIDER_OBJECTS = [ANTHROPIC, RESPONSES, CHAT, GEMINI, GEMINI_SNAKE, BEDROCK]


@pytest.mark.parametrize("usage", PROVIDER_OBJECTS, ids=lambda usage: next(iter(usage)))
def test_keys_a_provider_row_does_not_read_are_ignored(usage):
    assert yields({**usage, **ANYTHING}) == yields(usage)


def test_the_keys_a_row_does_not_read_may_hold_anything():
    assert yields(
        {
            "input_tokens": 3,
            "output_tokens": 1,
            "cache_creation": "x",
            "server_tool_use": [1],
            "service_tier": -4,
        }
    ) == (3, 1)
    assert yields({**RESPONSES, "total_tokens": "many", "input_tokens_details": 1.5}) == (4300, 40)
    assert yields({**CHAT, "total_tokens": True}) == (900, 12)
    assert yields({**GEMINI, "cachedContentTokenCount": -1, "thoughtsTokenCount": 0.5}) == (840, 30)
    assert yields({**BEDROCK, "totalTokens": None}) == (450, 20)


def test_the_services_own_shape_names_each_unknown_key():
    found = problems({"input_tokens": 5000, "output_tokens": 1, "cached_tokens": 0, "foo": None})
    assert [(p.path, p.type) for p in found] == [
        (("cached_tokens",), "extra_forbidden"),
        (("foo",), "extra_forbidden"),
    ]


def test_an_object_with_only_input_tokens_is_the_services_own_missing_output_tokens():
    assert [(p.path, p.type) for p in problems({"input_tokens": 5000})] == [
        (("output_tokens",), "missing")
    ]
    assert [(p.path, p.type) for p in problems({"output_tokens": 5})] == [
        (("input_tokens",), "missing")
    ]


def test_an_object_with_one_own_key_and_provider_keys_matching_no_row_is_read_strictly():
    assert sorted(paths({"input_tokens": 5, "cache_read_input_tokens": 3})) == [
        ("cache_read_input_tokens",),
        ("output_tokens",),
    ]
    assert paths({"input_tokens": 5, "output_tokens": 1, "prompt_tokens": 9}) == [
        ("prompt_tokens",)
    ]


def test_the_services_own_shape_has_no_null():
    assert paths({"input_tokens": None, "output_tokens": 3}) == [("input_tokens",)]
    assert paths({"input_tokens": 3, "output_tokens": None}) == [("output_tokens",)]


# ---- the input count is required -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("usage", "key"),
    [
        pytest.param(
            {"input_tokens": None, "output_tokens": 5, "cache_read_input_tokens": 3},
            "input_tokens",
            id="anthropic",
        ),
        pytest.param(
            {"input_tokens": None, "output_tokens": 5, "total_tokens": 5},
            "input_tokens",
            id="responses",
        ),
        pytest.param({"prompt_tokens": None, "completion_tokens": 1}, "prompt_tokens", id="chat"),
        pytest.param({"promptTokenCount": None, "candidatesTokenCount": 1}, "promptTokenCount"),
        pytest.param({"prompt_token_count": None}, "prompt_token_count"),
        pytest.param({"inputTokens": None, "outputTokens": 1}, "inputTokens", id="bedrock"),
    ],
)
def test_a_provider_rows_input_count_is_required(usage, key):
    found = problems(usage)
    assert [problem.path for problem in found] == [(key,)]
    assert found[0].type == "missing"


# ---- integers (validation) -----------------------------------------------------------------------

BAD = [
    pytest.param(-1, "greater_than_equal", id="negative"),
    pytest.param(1.5, "int_from_fraction", id="fraction"),
    pytest.param(True, "int_type", id="true"),
    pytest.param(False, "int_type", id="false"),
    pytest.param("3", "int_type", id="string"),
    pytest.param([3], "int_type", id="array"),
    pytest.param({"n": 3}, "int_type", id="object"),
    pytest.param(MAX_INT64 + 1, "int_too_large", id="over-int64"),
    pytest.param(float(MAX_INT64), "int_too_large", id="2**63-as-a-double"),
]

COUNTS = [
    pytest.param({"input_tokens": 5, "output_tokens": 1}, key, id=f"own-{key}")
    for key in ("input_tokens", "output_tokens")
] + [
    pytest.param(usage, key, id=f"{next(iter(usage))}-{key}")
    for usage, keys in (
        (
            ANTHROPIC,
            (
                "input_tokens",
                "output_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
            ),
        ),
        (RESPONSES, ("input_tokens", "output_tokens")),
        (CHAT, ("prompt_tokens", "completion_tokens")),
        (GEMINI, ("promptTokenCount", "toolUsePromptTokenCount", "candidatesTokenCount")),
        (
            GEMINI_SNAKE,
            ("prompt_token_count", "tool_use_prompt_token_count", "candidates_token_count"),
        ),
        (BEDROCK, ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheWriteInputTokens")),
    )
    for key in keys
]


@pytest.mark.parametrize(("usage", "key"), COUNTS)
@pytest.mark.parametrize(("value", "kind"), BAD)
def test_every_count_read_is_an_integer_at_least_0(usage, key, value, kind):
    found = problems({**usage, key: value})
    assert [(p.path, p.type) for p in found] == [((key,), kind)]
    assert found[0].message


@pytest.mark.parametrize(("usage", "key"), COUNTS)
@pytest.mark.parametrize(
    ("value", "read"),
    [(0, 0), (2, 2), (2.0, 2), (2e0, 2), (-0.0, 0), (1e3, 1000), (MAX_INT64, MAX_INT64)],
)
def test_a_count_is_any_json_number_with_an_integral_value(usage, key, value, read):
    counts = yields({**usage, key: value})
    assert counts == yields({**usage, key: read})
    assert all(type(count) is int for count in counts)


def test_every_bad_count_is_named_in_one_answer():
    found = problems(
        {
            "inputTokens": -1,
            "outputTokens": 1.5,
            "cacheReadInputTokens": "2",
            "cacheWriteInputTokens": True,
        }
    )
    assert [p.path for p in found] == [
        ("inputTokens",),
        ("cacheReadInputTokens",),
        ("cacheWriteInputTokens",),
        ("outputTokens",),
    ]


def test_the_input_sum_may_pass_the_int64_bound_of_a_single_count():
    assert yields(
        {"input_tokens": MAX_INT64, "output_tokens": 0, "cache_read_input_tokens": MAX_INT64}
    ) == (2 * MAX_INT64, 0)


# ---- both yielded counts 0 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "usage",
    [
        pytest.param({"input_tokens": 0, "output_tokens": 0}, id="own"),
        pytest.param({"input_tokens": 0.0, "output_tokens": 0e0}, id="own-as-doubles"),
        pytest.param(
            {
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": None,
            },
            id="anthropic",
        ),
        pytest.param({"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}, id="responses"),
        pytest.param({"prompt_tokens": 0, "completion_tokens": None}, id="chat"),
        pytest.param({"promptTokenCount": 0, "totalTokenCount": 5}, id="gemini"),
        pytest.param({"prompt_token_count": 0, "candidates_token_count": 0}, id="gemini-snake"),
        pytest.param({"inputTokens": 0, "outputTokens": 0, "totalTokens": 9}, id="bedrock"),
    ],
)
def test_both_yielded_counts_0_is_refused_on_measured(usage):
    found = problems(usage)
    assert [(p.path, p.type) for p in found] == [((), "measured_empty")]


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        pytest.param(
            {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 5},
            (5, 0),
            id="anthropic-cache-read",
        ),
        pytest.param({"promptTokenCount": 0, "toolUsePromptTokenCount": 3}, (3, 0), id="gemini"),
        pytest.param({"inputTokens": 0, "outputTokens": 0, "cacheWriteInputTokens": 9}, (9, 0)),
        pytest.param({"prompt_tokens": 0, "completion_tokens": 1}, (0, 1), id="chat-output"),
    ],
)
def test_the_0_rule_reads_the_yielded_counts(usage, counts):
    assert yields(usage) == counts


def test_the_0_rule_waits_until_every_count_is_valid():
    assert paths({"input_tokens": 0, "output_tokens": 0, "foo": 1}) == [("foo",)]
    assert paths({"inputTokens": 0, "outputTokens": 0, "cacheReadInputTokens": -1}) == [
        ("cacheReadInputTokens",)
    ]


# ---- objects matching no row, and values that are no object --------------------------------------


@pytest.mark.parametrize(
    "usage",
    [
        pytest.param({}, id="empty"),
        pytest.param({"foo": 1}, id="unknown"),
        pytest.param({"total_tokens": 50}, id="only-a-total"),
        pytest.param({"prompt_tokens": 50}, id="chat-without-completion_tokens"),
        pytest.param({"completion_tokens": 50}, id="only-completion_tokens"),
        pytest.param({"candidatesTokenCount": 4, "totalTokenCount": 4}, id="gemini-without-prompt"),
        pytest.param({"inputTokens": 5}, id="bedrock-without-outputTokens"),
        pytest.param({"InputTokens": 5, "OutputTokens": 1}, id="keys-are-case-sensitive"),
    ],
)
def test_an_object_matching_no_row_is_refused_on_measured_listing_the_shapes(usage):
    found = problems(usage)
    assert [(p.path, p.type) for p in found] == [((), "usage_shape")]
    for shape in SHAPES:
        assert shape.name in found[0].message
    for key in ("input_tokens", "prompt_tokens", "promptTokenCount", "inputTokens"):
        assert key in found[0].message


@pytest.mark.parametrize("value", [5000, 0, "usage", [], [{"input_tokens": 1}], True, None, 1.5])
def test_a_value_that_is_not_an_object_is_refused_on_measured(value):
    assert [(p.path, p.type) for p in problems(value)] == [((), "dict_type")]


# ---- over random objects -------------------------------------------------------------------------

KEYS = sorted(
    {key for shape in SHAPES for key in (*shape.keys, *shape.any_of, *shape.inputs, shape.output)}
    | {"total_tokens", "totalTokens", "foo"}
)
VALUES = st.sampled_from([None, 0, 1, 7, 2.0, -1, 1.5, True, "3", {}, [], MAX_INT64, MAX_INT64 + 1])


@given(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8))
def test_every_object_is_accepted_with_valid_counts_or_refused_by_its_keys(usage):
    read = read_usage(usage)
    if isinstance(read, Measured):
        assert read.input_tokens >= 0 and read.output_tokens >= 0
        assert read.input_tokens or read.output_tokens
    else:
        assert read
        for problem in read:
            assert (
                problem.path == ()
                or (len(problem.path) == 1 and problem.path[0] in usage)
                or (problem.type == "missing")
            )
            assert problem.message and problem.type
        assert len({problem.path for problem in read}) == len(read)
    assert read_usage(dict(usage)) == read
