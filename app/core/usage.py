"""Provider usage objects: which shape a `measured` value has and the two counts it yields.

The token budget judges the provider's own count of the last call (docs/rules.md#strategies), so an
agent should be able to pass `response.usage` on exactly as its SDK returns it. Providers count the
context differently: Anthropic reports cached input apart from `input_tokens`, OpenAI's Responses
usage already includes it, Gemini reports tool-use prompt tokens apart, Bedrock reports cache reads
and writes apart. `read_usage` decides, by the keys of the object alone
(docs/rules.md#provider-usage-objects, first row that matches), which shape it is, and yields
`input_tokens` (everything the provider read as context, cached or not) and `output_tokens`, or
every problem found, each located by the key it names.

Why the rules are what they are:
- Provider shapes ignore keys they do not read, because SDKs add fields over time and a usage
  object passed on unchanged must keep working; the service's own shape stays strict, so a typo in
  a hand-written report is refused rather than read as 0.
- An object with `input_tokens` or `output_tokens` that matches no provider row is read as the
  service's own shape, so the caller is told which key is unknown or which count is missing rather
  than only that the shape is not recognised.
- A Gemini object is read in the spelling of its prompt count (camelCase as the REST API and
  `model_dump(by_alias=True)` write it, snake_case as the Python SDK's `model_dump()` does); an SDK
  never mixes the two.
- Integers are as docs/rules.md#validation says: a JSON number with an integral value up to 2**63 -
1, never a boolean,
  string or fraction. Each count read is bounded; a sum of counts is not (it is only compared).

Pure: no I/O, no web framework. Null (nothing measured yet) is the caller's to handle before this.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from app.core.plan_types import Measured

MAX_INT64 = 9_223_372_036_854_775_807


class UsageShape(NamedTuple):
    """One row of docs/rules.md#provider-usage-objects.

    An object has the shape when it holds every key of `keys` and, if `any_of` is not empty, at
    least one key of `any_of`. It yields `input_tokens` = the sum of `inputs` (the first one is
    required) and `output_tokens` = `output`. A `strict` shape refuses other keys and null counts.
    """

    name: str
    keys: tuple[str, ...]
    any_of: tuple[str, ...]
    inputs: tuple[str, ...]
    output: str
    strict: bool = False

    def matches(self, usage: Mapping[str, object]) -> bool:
        """Whether `usage` has this shape's identifying keys (whatever their values)."""
        return all(key in usage for key in self.keys) and (
            not self.any_of or any(key in usage for key in self.any_of)
        )

    @property
    def counts(self) -> tuple[str, ...]:
        """Every key the shape reads, in the order its problems are reported."""
        return (*self.inputs, self.output)


class UsageProblem(NamedTuple):
    """Why a `measured` value was refused: `path` is the key it names, `()` for the whole value."""

    path: tuple[str, ...]
    message: str
    type: str


OWN = UsageShape(
    "the service's own counts",
    keys=("input_tokens", "output_tokens"),
    any_of=(),
    inputs=("input_tokens",),
    output="output_tokens",
    strict=True,
)
ANTHROPIC = UsageShape(
    "Anthropic Messages usage",
    keys=("input_tokens", "output_tokens"),
    any_of=(
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "cache_creation",
        "server_tool_use",
        "service_tier",
    ),
    inputs=("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),
    output="output_tokens",
)
OPENAI_RESPONSES = UsageShape(
    "OpenAI Responses usage",
    keys=("input_tokens", "output_tokens"),
    any_of=("input_tokens_details", "output_tokens_details", "total_tokens"),
    inputs=("input_tokens",),
    output="output_tokens",
)
OPENAI_CHAT = UsageShape(
    "OpenAI Chat Completions usage",
    keys=("prompt_tokens", "completion_tokens"),
    any_of=(),
    inputs=("prompt_tokens",),
    output="completion_tokens",
)
GEMINI = UsageShape(
    "Gemini usageMetadata",
    keys=("promptTokenCount",),
    any_of=(),
    inputs=("promptTokenCount", "toolUsePromptTokenCount"),
    output="candidatesTokenCount",
)
GEMINI_SNAKE = UsageShape(
    "Gemini usage_metadata in snake_case",
    keys=("prompt_token_count",),
    any_of=(),
    inputs=("prompt_token_count", "tool_use_prompt_token_count"),
    output="candidates_token_count",
)
BEDROCK = UsageShape(
    "Bedrock Converse usage",
    keys=("inputTokens", "outputTokens"),
    any_of=(),
    inputs=("inputTokens", "cacheReadInputTokens", "cacheWriteInputTokens"),
    output="outputTokens",
)

# In the order they are tried. The service's own shape comes first, and no provider row can take
# an object of exactly its two keys (each needs a key of its own), so it is also where an object
# with one of those two keys ends up when no provider row matches.
SHAPES = (OWN, ANTHROPIC, OPENAI_RESPONSES, OPENAI_CHAT, GEMINI, GEMINI_SNAKE, BEDROCK)
PROVIDER_SHAPES = SHAPES[1:]


def _identifying(shape: UsageShape) -> str:
    keys = " and ".join(shape.keys)
    if shape.any_of:
        keys += " and any of " + ", ".join(shape.any_of)
    return keys


ACCEPTED = "; ".join(f"{shape.name} ({_identifying(shape)})" for shape in SHAPES)
NO_SHAPE_MESSAGE = "matches none of the usage shapes accepted: " + ACCEPTED


def shape_of(usage: Mapping[str, object]) -> UsageShape | None:
    """The first row of the usage shapes that `usage` matches by its keys, or None."""
    for shape in PROVIDER_SHAPES:
        if shape.matches(usage):
            return shape
    if any(key in usage for key in OWN.keys):
        return OWN
    return None


def read_usage(usage: object) -> Measured | list[UsageProblem]:
    """The counts a `measured` value yields (docs/rules.md#provider-usage-objects), or every problem
    found in it.

    `usage` is the JSON value as parsed (not null: null means nothing was measured, and is the
    caller's). The problems are, each once: the value is not an object; it matches no row; a count
    the row reads is missing where required, not an integer, negative or too large; in the
    service's own shape, an unknown key; and, only when every count is valid, both yielded counts 0.
    """
    if not isinstance(usage, Mapping):
        return [
            UsageProblem((), "must be an object (a usage report), not " + _kind(usage), "dict_type")
        ]
    shape = shape_of(usage)
    if shape is None:
        return [UsageProblem((), NO_SHAPE_MESSAGE, "usage_shape")]
    problems: list[UsageProblem] = []
    read: dict[str, int] = {}
    for key in shape.counts:
        required = shape.strict or key == shape.inputs[0]
        value = usage.get(key)
        # Absent, or null in a provider shape (SDK dumps write null for a count not reported).
        if value is None and not (shape.strict and key in usage):
            if required:
                problems.append(UsageProblem((key,), _missing(shape, key in usage), "missing"))
            continue
        count = whole_count(value)
        if isinstance(count, UsageProblem):
            problems.append(count._replace(path=(key,)))
        else:
            read[key] = count
    if shape.strict:
        problems.extend(
            UsageProblem((key,), _unknown(), "extra_forbidden")
            for key in usage
            if key not in shape.counts
        )
    if problems:
        return problems
    measured = Measured(
        input_tokens=sum(read.get(key, 0) for key in shape.inputs),
        output_tokens=read.get(shape.output, 0),
    )
    if measured.input_tokens == 0 and measured.output_tokens == 0:
        return [UsageProblem((), _empty(shape), "measured_empty")]
    return measured


def whole_count(value: object) -> int | UsageProblem:
    """`value` as a count (docs/rules.md#validation: a JSON number with an integral value, 0 to
    2**63 - 1), or why not.

    The same rule and error types as the HTTP layer's `NonNegativeWhole`; the problem has no path.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return UsageProblem((), "must be a whole number (a JSON integer)", "int_type")
    if isinstance(value, float):
        if not value.is_integer():
            return UsageProblem((), "must be a whole number, not a fraction", "int_from_fraction")
        value = int(value)
    if value < 0:
        return UsageProblem((), "must be greater than or equal to 0", "greater_than_equal")
    if value > MAX_INT64:
        return UsageProblem((), f"must be at most {MAX_INT64}", "int_too_large")
    return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    return type(value).__name__


def _missing(shape: UsageShape, is_null: bool) -> str:
    if shape.strict:
        return f"is required in {shape.name} ({', '.join(shape.keys)})"
    return f"is required: the input count of {shape.name}" + (", not null" if is_null else "")


def _unknown() -> str:
    return (
        f"is not a field of {OWN.name} (input_tokens, output_tokens), and the object has the keys "
        "of no provider's usage object either"
    )


def _empty(shape: UsageShape) -> str:
    if shape.strict:
        return (
            "input_tokens and output_tokens are both 0: the provider reported nothing, "
            "so the budget cannot be judged"
        )
    return (
        f"read as {shape.name}, it yields input_tokens 0 and output_tokens 0: the provider "
        "reported nothing, so the budget cannot be judged"
    )
