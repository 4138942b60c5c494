"""What every use case does first with a parsed body: an object, its schema, every error at once.

A request is refused with every violation found, in one 422 (docs/rules.md#validation), so the
readers here never stop at the first error: they append to a list the caller raises once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.errors import MAX_ERRORS, ErrorList, FieldError, InvalidRequest
from app.service.limits import Bounds, CheckedLists, Path, refuse_long_lists, under_replaced

ModelT = TypeVar("ModelT", bound=BaseModel)


def require_object(raw: Any) -> dict[str, Any]:
    """The body as a JSON object; any other JSON value is refused before anything is read."""
    if not isinstance(raw, dict):
        raise InvalidRequest([FieldError(("body",), "the body must be a JSON object", "dict_type")])
    return raw


def pydantic_errors(
    errors: Any, prefix: tuple[str | int, ...] = (), replaced: Sequence[Path] = ()
) -> ErrorList:
    """Field errors from pydantic's error list, located under `prefix`: the first `MAX_ERRORS`
    made into field errors, the rest only counted; none about the stand-in of a list `replaced`
    for being too long (`app.service.limits`)."""
    found = ErrorList()
    for error in errors:
        if replaced and under_replaced(error["loc"], replaced):
            continue
        if len(found) < MAX_ERRORS:
            found.append(
                FieldError((*prefix, *error["loc"]), str(error["msg"]), str(error["type"]))
            )
        else:
            found.left_out += 1
    return found


def validate_model(
    model: type[ModelT], value: Any, errors: list[FieldError], lists: Bounds = ()
) -> ModelT | None:
    """`model` validated from `value`, or None with its errors appended (located under body);
    each of `lists` over its limit is one error, its items unread (`app.service.limits`)."""
    checked = (
        refuse_long_lists(value, lists, bounded_errors(errors))
        if lists and isinstance(value, dict)
        else CheckedLists(value)
    )
    try:
        return model.model_validate(checked.raw)
    except ValidationError as error:
        errors.extend(pydantic_errors(error.errors(include_url=False), ("body",), checked.replaced))
        return None


def bounded_errors(errors: list[FieldError]) -> ErrorList:
    """`errors` itself when it is an `ErrorList` (the readers' own), else refused: a plain list
    would keep every error."""
    assert isinstance(errors, ErrorList)
    return errors


def raise_if_any(errors: list[FieldError]) -> None:
    if errors:
        raise InvalidRequest(errors)


def read_request(model: type[ModelT], raw: Any, lists: Bounds = ()) -> ModelT:
    """The body validated by `model`, or one 422 naming the violations (each of `lists` over its
    limit as one error)."""
    raw = require_object(raw)
    errors = ErrorList()
    body = validate_model(model, raw, errors, lists)
    raise_if_any(errors)
    assert body is not None
    return body
