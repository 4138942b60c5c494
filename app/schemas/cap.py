"""Request and response schemas of `POST /v1/tool-results/cap` (`docs/rules.md#cap-request` and
`#cap-response`).

A ceiling (`max_chars` and every `max_chars_by_tool` value) follows one integer rule, and every way
of breaking it is one error of one shape (`invalid_cap`, one fixed message), so a caller reads the
same answer for `0`, `1.5`, `true`, `"200"`, `null` and a missing `max_chars`. Result items belong
to the caller: their extra keys are ignored, and an item without a `result` key (the tool returned
no value) is told apart from one whose result is `null`. The response models document the answer;
the route writes it directly.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictStr
from pydantic_core import PydanticCustomError

from app.core import defaults
from app.errors import ErrorList, FieldError
from app.schemas.types import MAX_INT64, whole_number

CAP_RULE_MESSAGE = f"must be a whole number of characters from 1 to {MAX_INT64}"
CAP_RULE_TYPE = "invalid_cap"


def cap_chars(value: Any) -> int:
    """A ceiling: a JSON number with an integral value from 1 to 2**63 - 1 (`2.0` is 2)."""
    try:
        number = whole_number(value)
    except PydanticCustomError:
        raise PydanticCustomError(CAP_RULE_TYPE, CAP_RULE_MESSAGE) from None
    if number < 1:
        raise PydanticCustomError(CAP_RULE_TYPE, CAP_RULE_MESSAGE)
    return number


# The bounds come before the validator so the document shows them as `minimum` and `maximum`.
CapChars = Annotated[int, Field(ge=1, le=MAX_INT64), BeforeValidator(cap_chars)]


def is_cap_loc(loc: tuple[str | int, ...]) -> bool:
    """Whether `loc` names a ceiling: `max_chars` or one tool's entry of `max_chars_by_tool`."""
    return loc == ("body", "max_chars") or (
        len(loc) == 3 and loc[:2] == ("body", "max_chars_by_tool")
    )


def with_cap_rule(errors: list[FieldError]) -> ErrorList:
    """Every error about a ceiling as the one cap-rule error; a missing `max_chars` included."""
    return ErrorList(
        (
            FieldError(error.loc, CAP_RULE_MESSAGE, CAP_RULE_TYPE)
            if is_cap_loc(error.loc)
            else error
            for error in errors
        ),
        errors.left_out if isinstance(errors, ErrorList) else 0,
    )


def _no_default_shown(schema: dict[str, Any]) -> None:
    # An absent `result` is not `null`: the document must not claim a default value.
    schema.pop("default", None)


class CapItem(BaseModel):
    """One tool result to measure; other keys of the item are ignored."""

    model_config = ConfigDict(extra="ignore")
    tool_name: Annotated[StrictStr, Field(min_length=1)] = Field(
        description="The tool's name; selects a `max_chars_by_tool` entry and is written into "
        "the reason verbatim."
    )
    tool_call_id: StrictStr | None = Field(
        None, description="Echoed back when present; null is the same as absent."
    )
    result: Any = Field(
        None,
        description="Any JSON value. Absent means the tool returned no value (measured as "
        "`(this tool returned no value)`); `null` is the JSON value null (4 chars).",
        json_schema_extra=_no_default_shown,
    )

    @property
    def has_result(self) -> bool:
        return "result" in self.model_fields_set


class CapRequest(BaseModel):
    """The ceilings and the results to measure against them."""

    model_config = ConfigDict(extra="forbid")
    max_chars: CapChars = Field(
        description="The ceiling on ONE result, in characters (Unicode code points). "
        "`200.0` and `2e2` mean 200."
    )
    max_chars_by_tool: dict[str, CapChars] | None = Field(
        default_factory=dict,
        description="Per-tool ceilings overriding `max_chars` (exact, case-sensitive tool name); "
        "null means {}. Every value follows the rule of `max_chars`.",
    )
    results: list[CapItem] = Field(
        min_length=1,
        # The default limit, documented; the limit in force is the setting's (`/v1/info`).
        json_schema_extra={"maxItems": defaults.MAX_CAP_RESULTS},
        description="The results to measure, each independently, in order: at most "
        f"{defaults.MAX_CAP_RESULTS:,} by default (`CWP_MAX_LIST_ITEMS`).",
    )


# ---- response documentation ----------------------------------------------------------------------


class CapMarker(BaseModel):
    """What replaces an over-size result: one shape whatever the result's type."""

    truncated: Literal[True]
    reason: str = Field(
        description="`{tool_name} returned {n} chars, over the {cap}-char cap. Narrow the "
        "request and call again.`"
    )
    head: str | None = Field(
        None,
        description="The first characters of the measured text, verbatim; left out when none "
        "fits. Written compactly, the marker is then within the cap.",
    )


class CapResultOut(BaseModel):
    """The decision for one item, in request order."""

    tool_call_id: str | None = Field(None, description="Echoed; left out when the item had none.")
    tool_name: str
    truncated: bool
    chars: int = Field(description="The measured size of the result received.")
    max_chars: int = Field(description="The ceiling applied to this item.")
    result: CapMarker | Any = Field(
        None,
        description="Not truncated: the value received, unchanged (left out when the item had "
        "none). Truncated: the marker, as a JSON object.",
    )


class CapResponse(BaseModel):
    """One entry per result, and how many were replaced by a marker."""

    results: list[CapResultOut]
    truncated_count: int


# ---- Swagger examples ----------------------------------------------------------------------------
# A string over the cap, an object under its tool's own cap, and a tool that returned
# no value. The API tests post it and check the answer byte for byte.

CAP_EXAMPLES: dict[str, dict[str, Any]] = {
    "three_results": {
        "summary": "A string over the cap, an object under it, and no value",
        "description": (
            "orders_export returned 500 characters against a cap of 200: it is replaced by a "
            "marker that keeps a 69-character head. read_file has its own cap of 1000, so its "
            "object comes back unchanged. ping returned no value: it measures 29 characters "
            "and passes, without a `result` key."
        ),
        "value": {
            "max_chars": 200,
            "max_chars_by_tool": {"read_file": 1000},
            "results": [
                {"tool_name": "orders_export", "tool_call_id": "c1", "result": "x" * 500},
                {"tool_name": "read_file", "tool_call_id": "c2", "result": {"rows": [1, 2, 3]}},
                {"tool_name": "ping", "tool_call_id": "c3"},
            ],
        },
    },
}
