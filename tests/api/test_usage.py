"""`strategy.measured` through HTTP (docs/rules.md#strategies, #provider-usage-objects,
#validation): each provider's usage object as its SDK returns it, engaged or not by the counts it
yields, every refusal with its `loc`, and the
OpenAPI document's `measured` schema accepting exactly what the service accepts."""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema
import orjson
import pytest
from anthropic.types import CacheCreation, ServerToolUsage
from anthropic.types import Usage as AnthropicUsage
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types import CompletionUsage
from openai.types.completion_usage import CompletionTokensDetails, PromptTokensDetails
from openai.types.responses import ResponseUsage
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from pydantic import TypeAdapter, ValidationError

from app.core.plan_types import Measured
from app.core.usage import MAX_INT64, SHAPES, UsageProblem, read_usage, whole_count
from app.export_openapi import render
from app.schemas.types import NonNegativeWhole
from tests.core.native_wire import wire
from tests.core.window_transcripts import X3

pytestmark = pytest.mark.anyio

PATH = "/v1/window/plan"
MEASURED_LOC = ["body", "strategy", "measured"]


def body(measured: Any, threshold: float = 1000, **strategy: Any) -> dict[str, Any]:
    return {
        "messages": wire(X3),
        "strategy": {
            "kind": "token-budget",
            "threshold_tokens": threshold,
            "keep_recent_turns": 1,
            "measured": measured,
            **strategy,
        },
    }


async def engaged(client: httpx.AsyncClient, measured: Any, threshold: float) -> bool:
    response = await client.post(PATH, json=body(measured, threshold))
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["strategy"] == "token-budget"
    return bool(answer["engaged"])


async def refused(client: httpx.AsyncClient, payload: Any) -> list[dict[str, Any]]:
    response = await client.post(PATH, json=payload)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["status"] == 422
    errors: list[dict[str, Any]] = problem["errors"]
    for error in errors:
        assert error["msg"] and error["type"]
    return errors


def locs(errors: list[dict[str, Any]]) -> list[list[Any]]:
    return [error["loc"] for error in errors]


# ---- the usage objects, as the SDKs produce them -------------------------------------------------


def anthropic_usage(**counts: Any) -> AnthropicUsage:
    fields: dict[str, Any] = {
        "input_tokens": 12,
        "output_tokens": 5,
        "cache_creation_input_tokens": 300,
        "cache_read_input_tokens": 4000,
        "cache_creation": CacheCreation(ephemeral_5m_input_tokens=300, ephemeral_1h_input_tokens=0),
        "server_tool_use": ServerToolUsage(web_search_requests=1, web_fetch_requests=0),
        "service_tier": "standard",
    }
    return AnthropicUsage(**{**fields, **counts})


def responses_usage() -> ResponseUsage:
    return ResponseUsage(
        input_tokens=4300,
        input_tokens_details=InputTokensDetails(cached_tokens=4000, cache_write_tokens=0),
        output_tokens=40,
        output_tokens_details=OutputTokensDetails(reasoning_tokens=16),
        total_tokens=4340,
    )


def chat_usage(**details: Any) -> CompletionUsage:
    return CompletionUsage(
        prompt_tokens=900,
        completion_tokens=12,
        total_tokens=912,
        **details,
    )


GEMINI = {
    "promptTokenCount": 800,
    "candidatesTokenCount": 30,
    "totalTokenCount": 877,
    "cachedContentTokenCount": 500,
    "thoughtsTokenCount": 7,
    "toolUsePromptTokenCount": 40,
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 800}],
    "cacheTokensDetails": [{"modality": "TEXT", "tokenCount": 500}],
    "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 30}],
}
GEMINI_SNAKE = {
    "prompt_token_count": 800,
    "candidates_token_count": 30,
    "total_token_count": 877,
    "cached_content_token_count": 500,
    "thoughts_token_count": 7,
    "tool_use_prompt_token_count": 40,
    "prompt_tokens_details": [{"modality": "TEXT", "token_count": 800}],
    "cache_tokens_details": None,
    "candidates_tokens_details": None,
    "tool_use_prompt_tokens_details": None,
    "traffic_type": None,
}
BEDROCK = {
    "inputTokens": 100,
    "outputTokens": 20,
    "totalTokens": 470,
    "cacheReadInputTokens": 300,
    "cacheWriteInputTokens": 50,
}


def dumps(name: str, usage: Any) -> list[Any]:
    """The SDK object as `.model_dump()` and `.model_dump(mode="json")` write it."""
    return [
        pytest.param(usage.model_dump(), id=f"{name}-model_dump"),
        pytest.param(usage.model_dump(mode="json"), id=f"{name}-model_dump-json"),
    ]


# The usage object, the input_tokens it yields, and what a reader taking the input count alone (or,
# for Responses, adding the cached tokens again) would yield instead.
CASES = [
    *(
        pytest.param(p.values[0], 12 + 300 + 4000, 12, id=p.id)
        for p in dumps("anthropic", anthropic_usage())
    ),
    *(
        pytest.param(p.values[0], 12, 12, id=p.id)
        for p in dumps("anthropic-no-cache", AnthropicUsage(input_tokens=12, output_tokens=5))
    ),
    *(
        pytest.param(p.values[0], 4300, 4300 + 4000, id=p.id)
        for p in dumps("responses", responses_usage())
    ),
    *(pytest.param(p.values[0], 900, 900, id=p.id) for p in dumps("chat", chat_usage())),
    *(
        pytest.param(p.values[0], 900, 900, id=p.id)
        for p in dumps(
            "chat-details",
            chat_usage(
                prompt_tokens_details=PromptTokensDetails(cached_tokens=512, audio_tokens=0),
                completion_tokens_details=CompletionTokensDetails(reasoning_tokens=0),
            ),
        )
    ),
    pytest.param(GEMINI, 800 + 40, 800, id="gemini-usageMetadata"),
    pytest.param(GEMINI_SNAKE, 800 + 40, 800, id="gemini-snake_case"),
    pytest.param(BEDROCK, 100 + 300 + 50, 100, id="bedrock"),
    pytest.param({"input_tokens": 5000, "output_tokens": 10}, 5000, 5000, id="own"),
]


@pytest.mark.parametrize(("usage", "yielded", "unaware"), CASES)
async def test_the_yielded_input_count_decides_engagement(client, usage, yielded, unaware):
    assert await engaged(client, usage, yielded - 1)
    assert await engaged(client, usage, yielded - 0.5)
    assert not await engaged(client, usage, yielded)
    assert not await engaged(client, usage, yielded + 1)
    if unaware < yielded:
        assert await engaged(client, usage, unaware)
    elif unaware > yielded:
        assert not await engaged(client, usage, unaware - 1)


@pytest.mark.parametrize(("usage", "yielded", "unaware"), CASES)
def test_the_core_reads_the_same_count(usage, yielded, unaware):
    read = read_usage(usage)
    assert isinstance(read, Measured) and read.input_tokens == yielded


@pytest.mark.parametrize(
    ("usage", "yielded"),
    [
        pytest.param(anthropic_usage().model_dump(exclude_none=True), 4312, id="anthropic"),
        pytest.param(
            AnthropicUsage(input_tokens=12, output_tokens=5).model_dump(exclude_none=True),
            12,
            id="anthropic-no-cache-is-the-services-own-shape",
        ),
        pytest.param(chat_usage().model_dump(exclude_none=True), 900, id="chat"),
        pytest.param(responses_usage().model_dump(exclude_unset=True), 4300, id="responses"),
    ],
)
async def test_dumps_without_nulls_yield_the_same(client, usage, yielded):
    assert await engaged(client, usage, yielded - 1)
    assert not await engaged(client, usage, yielded)


async def test_the_google_genai_sdk_dumps(client):
    genai_types = pytest.importorskip("google.genai.types")
    metadata = genai_types.GenerateContentResponseUsageMetadata(
        prompt_token_count=800,
        candidates_token_count=30,
        total_token_count=877,
        cached_content_token_count=500,
        thoughts_token_count=7,
        tool_use_prompt_token_count=40,
    )
    for usage in (
        metadata.model_dump(),
        metadata.model_dump(mode="json"),
        metadata.model_dump(by_alias=True),
        metadata.model_dump(mode="json", by_alias=True, exclude_none=True),
    ):
        assert await engaged(client, usage, 839)
        assert not await engaged(client, usage, 840)


PROVIDER_DUMPS = [
    pytest.param(anthropic_usage().model_dump(mode="json"), id="anthropic"),
    pytest.param(responses_usage().model_dump(mode="json"), id="responses"),
    pytest.param(chat_usage().model_dump(mode="json"), id="chat"),
    pytest.param(GEMINI, id="gemini"),
    pytest.param(GEMINI_SNAKE, id="gemini-snake_case"),
    pytest.param(BEDROCK, id="bedrock"),
]
LATER_FIELDS = {
    "a_field_added_later": {"tokens": -1},
    "speed": "fast",
    "inference_geo": None,
    "reasoning": [1.5, "x"],
}


@pytest.mark.parametrize("usage", PROVIDER_DUMPS)
async def test_keys_a_provider_row_does_not_read_are_ignored(client, usage):
    plain = await client.post(PATH, json=body(usage, 1))
    extended = await client.post(PATH, json=body({**usage, **LATER_FIELDS}, 1))
    assert plain.status_code == extended.status_code == 200, extended.text
    assert plain.content == extended.content
    assert plain.json()["engaged"]


async def test_the_services_own_shape_refuses_unknown_keys(client):
    errors = await refused(
        client, body({"input_tokens": 5000, "output_tokens": 1, "foo": 1, "cached_tokens": 0})
    )
    assert locs(errors) == [[*MEASURED_LOC, "foo"], [*MEASURED_LOC, "cached_tokens"]]
    assert {error["type"] for error in errors} == {"extra_forbidden"}


async def test_only_input_tokens_names_the_missing_output_tokens(client):
    errors = await refused(client, body({"input_tokens": 5000}))
    assert locs(errors) == [[*MEASURED_LOC, "output_tokens"]]


@pytest.mark.parametrize(
    "usage",
    [
        pytest.param({}, id="empty"),
        pytest.param({"total_tokens": 5000}, id="only-a-total"),
        pytest.param({"prompt_tokens": 5000}, id="chat-without-completion_tokens"),
        pytest.param({"candidatesTokenCount": 3, "totalTokenCount": 3}, id="gemini-no-prompt"),
        pytest.param({"inputTokens": 5000}, id="bedrock-without-outputTokens"),
        pytest.param({"usage": {"input_tokens": 5000, "output_tokens": 1}}, id="a-whole-response"),
    ],
)
async def test_an_object_matching_no_row_is_refused_on_measured(client, usage):
    errors = await refused(client, body(usage))
    assert locs(errors) == [MEASURED_LOC]
    for shape in SHAPES:
        assert shape.name in errors[0]["msg"]


@pytest.mark.parametrize(
    "usage",
    [
        pytest.param({"input_tokens": 0, "output_tokens": 0}, id="own"),
        pytest.param(
            anthropic_usage(
                input_tokens=0,
                output_tokens=0,
                cache_creation_input_tokens=0,
                cache_read_input_tokens=None,
            ).model_dump(),
            id="anthropic",
        ),
        pytest.param(
            CompletionUsage(prompt_tokens=0, completion_tokens=0, total_tokens=0).model_dump(),
            id="chat",
        ),
        pytest.param({"promptTokenCount": 0, "totalTokenCount": 0}, id="gemini"),
        pytest.param({"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}, id="bedrock"),
    ],
)
async def test_both_yielded_counts_0_is_refused(client, usage):
    errors = await refused(client, body(usage))
    assert locs(errors) == [MEASURED_LOC]
    assert errors[0]["loc"][-2:] == ["strategy", "measured"]


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        pytest.param(
            anthropic_usage(input_tokens=0, output_tokens=0, cache_creation_input_tokens=0),
            4000,
            id="anthropic-cache-only",
        ),
        pytest.param(
            {"promptTokenCount": 0, "toolUsePromptTokenCount": 3}, 3, id="gemini-tool-use-only"
        ),
    ],
)
async def test_a_cache_or_tool_count_alone_is_a_report(client, usage, counts):
    usage = usage.model_dump() if hasattr(usage, "model_dump") else usage
    assert await engaged(client, usage, counts - 1)


@pytest.mark.parametrize(
    ("usage", "key"),
    [
        pytest.param(
            {**anthropic_usage().model_dump(), "cache_read_input_tokens": -1},
            "cache_read_input_tokens",
            id="anthropic-negative",
        ),
        pytest.param(
            {**anthropic_usage().model_dump(), "input_tokens": None},
            "input_tokens",
            id="anthropic-input-null",
        ),
        pytest.param(
            {**responses_usage().model_dump(), "output_tokens": True},
            "output_tokens",
            id="responses-boolean",
        ),
        pytest.param(
            {**chat_usage().model_dump(), "prompt_tokens": None}, "prompt_tokens", id="chat-null"
        ),
        pytest.param({**GEMINI, "candidatesTokenCount": 1.5}, "candidatesTokenCount", id="gemini"),
        pytest.param(
            {**GEMINI_SNAKE, "tool_use_prompt_token_count": "40"},
            "tool_use_prompt_token_count",
            id="gemini-snake-string",
        ),
        pytest.param(
            {**BEDROCK, "cacheWriteInputTokens": MAX_INT64 + 1},
            "cacheWriteInputTokens",
            id="bedrock-over-int64",
        ),
    ],
)
async def test_a_bad_count_is_refused_naming_its_key(client, usage, key):
    errors = await refused(client, body(usage))
    assert locs(errors) == [[*MEASURED_LOC, key]]


async def test_every_violation_is_named_in_one_answer(client):
    payload = {
        **body({"inputTokens": -1, "outputTokens": 0.5, "totalTokens": "ignored"}),
        "keep_last_tool_results": -1,
    }
    errors = await refused(client, payload)
    assert sorted(map(str, locs(errors))) == sorted(
        map(
            str,
            [
                [*MEASURED_LOC, "inputTokens"],
                [*MEASURED_LOC, "outputTokens"],
                ["body", "keep_last_tool_results"],
            ],
        )
    )


async def test_counts_are_json_numbers_with_an_integral_value(client):
    def raw(measured: str, threshold: str) -> bytes:
        payload = orjson.dumps(body(None, 1))
        strategy = (
            b'"strategy":{"kind":"token-budget","threshold_tokens":%s,"keep_recent_turns":1,'
            b'"measured":%s}' % (threshold.encode(), measured.encode())
        )
        start = payload.index(b'"strategy":')
        return payload[:start] + strategy + b"}"

    for measured in (
        '{"inputTokens":1e2,"outputTokens":2.0,"cacheReadInputTokens":3e2,"cacheWriteInputTokens":50}',
        '{"inputTokens":100,"outputTokens":2,"cacheReadInputTokens":300,"cacheWriteInputTokens":5e1}',
    ):
        for threshold, expected in (("449", True), ("450", False), ("4.5e2", False)):
            response = await client.post(
                PATH, content=raw(measured, threshold), headers={"content-type": "application/json"}
            )
            assert response.status_code == 200, response.text
            assert response.json()["engaged"] is expected


@pytest.mark.parametrize("value", ["usage", 5000, [], [{"input_tokens": 1}], True])
async def test_measured_neither_an_object_nor_null_is_refused(client, value):
    assert locs(await refused(client, body(value))) == [MEASURED_LOC]


async def test_measured_null_or_absent_does_not_engage(client):
    assert not await engaged(client, None, 1)
    strategy = {"kind": "token-budget", "threshold_tokens": 1, "keep_recent_turns": 1}
    response = await client.post(PATH, json={"messages": wire(X3), "strategy": strategy})
    assert response.status_code == 200 and response.json()["engaged"] is False


# ---- the OpenAPI document ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return orjson.loads(render())


@pytest.fixture(scope="module")
def measured_schema(document) -> jsonschema.Draft202012Validator:
    root = {"$ref": "#/components/schemas/Measured", "components": document["components"]}
    return jsonschema.Draft202012Validator(root)


def test_the_document_lists_every_shape(document):
    schemas = document["components"]["schemas"]
    field = schemas["TokenBudgetStrategy"]["properties"]["measured"]
    assert field["anyOf"] == [{"$ref": "#/components/schemas/Measured"}, {"type": "null"}]
    assert field["default"] is None
    branches = schemas["Measured"]["anyOf"]
    titles = " | ".join(branch["title"].lower() for branch in branches)
    count = TypeAdapter(NonNegativeWhole).json_schema()
    for shape in SHAPES:
        assert titles.count(shape.name.lower()) == 1, shape.name
        (branch,) = [b for b in branches if shape.name.lower() in b["title"].lower()]
        assert set(shape.counts) <= set(branch["properties"])
        assert branch["properties"][shape.inputs[0]] == count
        assert branch["required"] == list(shape.keys)
        assert branch["additionalProperties"] is not shape.strict
        assert shape.output in branch["description"]


SAMPLES = [
    *(p.values[0] for p in CASES),
    *(p.values[0] for p in PROVIDER_DUMPS),
    {**BEDROCK, **LATER_FIELDS},
    {"input_tokens": 5000, "output_tokens": 1, "foo": 1},
    {"input_tokens": 5000},
    {},
    {"input_tokens": 0, "output_tokens": 0},
    {"promptTokenCount": 0, "toolUsePromptTokenCount": 3},
    {"promptTokenCount": 0},
    {"prompt_token_count": 5, "promptTokenCount": None},
    {"promptTokenCount": 5, "prompt_token_count": "x"},
    {"input_tokens": 1, "output_tokens": 1, "prompt_tokens": 9, "completion_tokens": None},
    {"input_tokens": 1, "output_tokens": 1, "cache_read_input_tokens": "x", "total_tokens": 2},
    {"inputTokens": 2.0, "outputTokens": 1e0},
    {"inputTokens": 2.5, "outputTokens": 1},
    # objects with the keys of two rows: the first decides
    {"input_tokens": 1, "output_tokens": 1, "output_tokens_details": {}, "service_tier": None},
    {"input_tokens": 1, "output_tokens": 1, "service_tier": "x", "prompt_tokens": "x"},
    {"promptTokenCount": 5, "prompt_tokens": "x", "completion_tokens": 1},
    {"promptTokenCount": 5, "prompt_tokens": 3, "completion_tokens": None},
    {"inputTokens": 5, "outputTokens": 1, "promptTokenCount": "x"},
    {"inputTokens": 5, "outputTokens": 1, "input_tokens": 1, "output_tokens": 1, "total_tokens": 3},
    {"inputTokens": 5, "outputTokens": 1, "input_tokens": 0, "output_tokens": 0, "total_tokens": 3},
    {"inputTokens": 5, "outputTokens": 1, "input_tokens": 5, "cache_read_input_tokens": 1},
]


def accepted(usage: Any) -> bool:
    return isinstance(read_usage(usage), Measured)


@pytest.mark.parametrize("usage", SAMPLES)
def test_the_document_accepts_exactly_the_samples_the_service_accepts(measured_schema, usage):
    assert measured_schema.is_valid(usage) is accepted(usage), usage


KEYS = sorted(
    {key for shape in SHAPES for key in (*shape.keys, *shape.any_of, *shape.counts)}
    | {"total_tokens", "totalTokens", "foo"}
)
VALUES = st.sampled_from(
    [None, 0, 0, 1, 7, 2.0, -1, 1.5, True, "3", {}, [], MAX_INT64, MAX_INT64 + 1, 1e19]
)


def shaped() -> st.SearchStrategy[dict[str, Any]]:
    """An object with some shape's identifying keys, then random keys and values."""

    def fill(shape: Any) -> st.SearchStrategy[dict[str, Any]]:
        keys = [*shape.keys, *shape.any_of[:1]]
        return st.fixed_dictionaries(
            {key: VALUES for key in keys},
            optional={key: VALUES for key in KEYS if key not in keys},
        )

    return st.sampled_from(SHAPES).flatmap(fill)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(shaped(), st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6)))
def test_the_document_accepts_exactly_what_the_service_accepts(measured_schema, usage):
    assert measured_schema.is_valid(usage) is accepted(usage), usage


# ---- the same integer rule as every other field --------------------------------------------------

INTEGER_VALUES = [
    0,
    1,
    2.0,
    2e0,
    -0.0,
    MAX_INT64,
    float(MAX_INT64),
    MAX_INT64 + 1,
    -1,
    -1.0,
    1.5,
    True,
    False,
    "2",
    None,
    [],
    {},
]


@pytest.mark.parametrize("value", INTEGER_VALUES, ids=repr)
def test_a_count_follows_the_rule_of_non_negative_whole(value):
    adapter = TypeAdapter(NonNegativeWhole)
    counted = whole_count(value)
    try:
        expected = adapter.validate_python(value)
    except ValidationError as error:
        assert isinstance(counted, UsageProblem)
        assert counted.type == error.errors()[0]["type"]
    else:
        assert counted == expected and type(counted) is int
