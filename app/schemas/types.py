"""Strict JSON types for request fields, shared by every endpoint's schema.

Integers (docs/rules.md#validation) are JSON numbers with an integral value (`2`, `2.0` and `2e0`
all mean 2, and are echoed as `2`), never a fraction, a boolean or a string; pydantic's lax mode
would accept `"2"` and `true`, and its strict mode would refuse `2.0`, so the rule is written here
once.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

MAX_INT64 = 9_223_372_036_854_775_807


def whole_number(value: Any) -> int:
    """A JSON number with an integral value, as an int; anything else is refused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "must be a whole number (a JSON integer)")
    if isinstance(value, float):
        if not value.is_integer():
            raise PydanticCustomError("int_from_fraction", "must be a whole number, not a fraction")
        value = int(value)
    whole: int = value
    if whole > MAX_INT64:
        raise PydanticCustomError("int_too_large", f"must be at most {MAX_INT64}")
    return whole


def json_number(value: Any) -> float | int:
    """Any JSON number (not a boolean or a string)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("number_type", "must be a JSON number")
    return value


WholeNumber = Annotated[int, BeforeValidator(whole_number)]
# Field before the validator: the bounds then show in the schema as minimum/maximum.
PositiveWhole = Annotated[int, Field(ge=1, le=MAX_INT64), BeforeValidator(whole_number)]
NonNegativeWhole = Annotated[int, Field(ge=0, le=MAX_INT64), BeforeValidator(whole_number)]
Number = Annotated[float, BeforeValidator(json_number)]
