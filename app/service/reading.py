"""What every use case does first with a parsed body: an object, its schema, every error at once.

A request is refused with every violation found, in one 422 (docs/rules.md#validation), so the
readers here never stop at the first error: they append to a list the caller raises once.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.errors import FieldError, InvalidRequest

ModelT = TypeVar("ModelT", bound=BaseModel)


def require_object(raw: Any) -> dict[str, Any]:
    """The body as a JSON object; any other JSON value is refused before anything is read."""
    if not isinstance(raw, dict):
        raise InvalidRequest([FieldError(("body",), "the body must be a JSON object", "dict_type")])
    return raw


def pydantic_errors(errors: Any, prefix: tuple[str | int, ...] = ()) -> list[FieldError]:
    """Field errors from pydantic's error list, located under `prefix`."""
    found = []
    for error in errors:
        found.append(FieldError((*prefix, *error["loc"]), str(error["msg"]), str(error["type"])))
    return found


def validate_model(model: type[ModelT], value: Any, errors: list[FieldError]) -> ModelT | None:
    """`model` validated from `value`, or None with its errors appended (located under body)."""
    try:
        return model.model_validate(value)
    except ValidationError as error:
        errors.extend(pydantic_errors(error.errors(include_url=False), ("body",)))
        return None


def raise_if_any(errors: list[FieldError]) -> None:
    if errors:
        raise InvalidRequest(errors)


def read_request(model: type[ModelT], raw: Any) -> ModelT:
    """The body validated by `model`, or one 422 naming every violation."""
    raw = require_object(raw)
    errors: list[FieldError] = []
    body = validate_model(model, raw, errors)
    raise_if_any(errors)
    assert body is not None
    return body
