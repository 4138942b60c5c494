"""A provider's usage report as a request field: how `strategy.measured` and
`calibration.measured` are read, and how the document describes the shapes they accept.

The reading is `app.core.usage.read_usage`'s; this module turns its problems into validation
errors at the keys they name, and writes one JSON Schema branch per group of shapes, generated from
the same table, so the document cannot describe a shape the service reads otherwise.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, PlainValidator, TypeAdapter, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.core import usage
from app.core.plan_types import Measured as MeasuredCounts
from app.schemas.types import NonNegativeWhole

# ---- strategy.measured: the counts, or a provider's usage object ---------------------------------
# (docs/rules.md#provider-usage-objects)

# The document's integers are the request's integers (`app.schemas.types`).
COUNT_SCHEMA = TypeAdapter(NonNegativeWhole).json_schema()
COUNT_OR_NULL_SCHEMA = TypeAdapter(NonNegativeWhole | None).json_schema()

USAGE_SOURCES = {
    usage.OWN: "The service's own counts.",
    usage.ANTHROPIC: "`message.usage` of the Anthropic Messages API.",
    usage.OPENAI_RESPONSES: "`response.usage` of the OpenAI Responses API.",
    usage.OPENAI_CHAT: "`completion.usage` of the OpenAI Chat Completions API.",
    usage.GEMINI: "`usageMetadata` of a Gemini response, as the REST API writes it.",
    usage.GEMINI_SNAKE: "`usage_metadata` of a Gemini response, as the Python SDK's "
    "`model_dump()` writes it.",
    usage.BEDROCK: "`usage` of a Bedrock Converse response.",
}


def _absent(*keys: str) -> dict[str, Any]:
    return {"properties": {key: False for key in keys}}


def usage_groups() -> list[tuple[usage.UsageShape, ...]]:
    """The shapes as the document lists them: provider shapes that share their required keys
    (Anthropic's and Responses' input_tokens and output_tokens) are one branch.

    One branch accepts exactly what its shapes accept when each count a shape does not read is a
    key that identifies a shape before it in the branch (an object read as Responses has no key
    of Anthropic's `any_of`, so the cache counts the branch also checks are absent from it), and
    the counts they share are read alike. Checked here, so an edit of the table that breaks it
    fails when the document is built rather than documenting what the service does not do.
    """
    groups: dict[tuple[str, ...], list[usage.UsageShape]] = {}
    for shape in usage.PROVIDER_SHAPES:
        groups.setdefault(shape.keys, []).append(shape)
    for group in groups.values():
        for index, shape in enumerate(group):
            before = {key for earlier in group[:index] for key in earlier.any_of}
            for other in group:
                extra = set(other.counts) - set(shape.counts)
                alike = other.inputs[0] == shape.inputs[0] and other.output == shape.output
                if not extra <= before or not alike:
                    raise ValueError(f"{other.name} and {shape.name} cannot share a branch")
    return [(usage.OWN,), *(tuple(group) for group in groups.values())]


def _lacks_keys_of(
    groups: list[tuple[usage.UsageShape, ...]], keys: tuple[str, ...]
) -> list[dict[str, Any]]:
    """JSON Schema conditions meaning "has the identifying keys of no shape in `groups`", for an
    object that has `keys`.

    Written small, because schemathesis expands the document into cases and gives up on an
    operation past a budget: with absent keys rather than `not` (which it cannot draw from below
    the document root), and without the options the object's own required keys rule out.
    """
    conditions: list[dict[str, Any]] = []
    for group in groups:
        options = [_absent(key) for key in group[0].keys if key not in keys]
        if all(shape.any_of for shape in group):
            options.append(_absent(*(key for shape in group for key in shape.any_of)))
        conditions.append({"anyOf": options} if len(options) > 1 else options[0])
    return conditions


def _reads(shape: usage.UsageShape) -> str:
    keys = " and ".join(shape.keys)
    if shape.any_of:
        keys += " and any of " + ", ".join(shape.any_of)
    if shape.strict:
        return (
            f"{USAGE_SOURCES[shape]} Recognised by {keys}. Both counts are required and read as "
            "given; any other key is refused."
        )
    inputs = " + ".join(shape.inputs)
    return (
        f"{USAGE_SOURCES[shape]} Recognised by {keys}. Read as input_tokens = {inputs}, "
        f"output_tokens = {shape.output}; {shape.inputs[0]} is required, the other counts may be "
        "absent or null (0)."
    )


def usage_group_schema(
    group: tuple[usage.UsageShape, ...], earlier: list[tuple[usage.UsageShape, ...]]
) -> dict[str, Any]:
    """One branch of `measured` as JSON Schema: exactly what `read_usage` accepts as its shapes.

    An object is read as the first shape whose keys it has, so a branch excludes the objects an
    earlier branch takes (the service's own shape needs no exclusion: it has no other key). One
    condition is the "not both counts 0" rule of docs/rules.md#strategies, on the counts the
    shapes yield.
    """
    first = group[0]
    counts = tuple(dict.fromkeys(key for shape in group for key in shape.counts))
    conditions: list[dict[str, Any]] = []
    if all(shape.any_of for shape in group):
        any_of = dict.fromkeys(key for shape in group for key in shape.any_of)
        conditions.append({"anyOf": [{"required": [key]} for key in any_of]})
    conditions.append(
        {
            "anyOf": [
                {"required": [key], "properties": {key: {"type": "integer", "minimum": 1}}}
                for key in counts
            ]
        }
    )
    conditions.extend(_lacks_keys_of(earlier, first.keys))
    description = " ".join(_reads(shape) for shape in group)
    if not first.strict:
        description += " Keys not listed are ignored."
    if earlier:
        description += " An object with the keys of a shape listed before is read as that shape."
    title = " or ".join(shape.name for shape in group)
    return {
        "title": title[:1].upper() + title[1:],
        "description": description,
        "type": "object",
        "properties": {
            key: COUNT_SCHEMA if first.strict or key == first.inputs[0] else COUNT_OR_NULL_SCHEMA
            for key in counts
        },
        "required": list(first.keys),
        "additionalProperties": not first.strict,
        "allOf": conditions,
    }


def _document_usage_shapes(schema: dict[str, Any]) -> None:
    groups = usage_groups()
    schema.pop("properties", None)
    schema["anyOf"] = [
        usage_group_schema(group, groups[1:index]) for index, group in enumerate(groups)
    ]


class Measured(BaseModel):
    """The provider's usage report for the last model call: the service's own counts, or the
    provider's usage object exactly as its SDK returns it. The first shape whose keys the object
    has is the one it is read as; the counts it yields are not both 0."""

    # Documentation only: `measured` is read by `read_measured` (`app.core.usage.read_usage`).
    model_config = ConfigDict(json_schema_extra=_document_usage_shapes)


def read_measured(value: Any) -> MeasuredCounts | None:
    """`strategy.measured`: null (nothing counted yet), or the counts its usage object yields.

    Every problem `read_usage` finds becomes a validation error at the key it names, so the 422
    locates it under `strategy.measured`.
    """
    if value is None:
        return None
    read = usage.read_usage(value)
    if isinstance(read, MeasuredCounts):
        return read
    raise usage_error(value, read)


def usage_error(value: Any, problems: list[usage.UsageProblem]) -> ValidationError:
    """The problems `read_usage` found, each at the key it names (under the field read)."""
    return ValidationError.from_exception_data(
        "Measured",
        [
            InitErrorDetails(
                type=PydanticCustomError(problem.type, problem.message),
                loc=problem.path,
                input=value.get(problem.path[0], value) if problem.path else value,
            )
            for problem in problems
        ],
    )


def read_calibration_usage(value: Any) -> MeasuredCounts:
    """`calibration.measured`: a usage object (docs/rules.md#provider-usage-objects) whose input
    count is not 0 (a scale is a ratio to it)."""
    if value is None:
        raise PydanticCustomError(
            "dict_type", "must be the provider's usage object of the call the window was sent in"
        )
    read = usage.read_usage(value)
    if not isinstance(read, MeasuredCounts):
        raise usage_error(value, read)
    if read.input_tokens == 0:
        raise PydanticCustomError(
            "calibration_input_zero",
            "its input count is 0: the provider reported no input, so nothing can be calibrated",
        )
    return read


UsageReport = Annotated[
    MeasuredCounts | None,
    PlainValidator(read_measured, json_schema_input_type=Measured | None),
]


CalibrationUsage = Annotated[
    MeasuredCounts, PlainValidator(read_calibration_usage, json_schema_input_type=Measured)
]
