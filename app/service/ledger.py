"""The request reader for a `ledger` field: raw JSON rows in, standing rows out, or every violation.

Ledger rows belong to the caller, so extra fields are ignored rather than refused, and rows of any
kind other than `standing` are skipped whole without further checks: the fold reads standing rows
only. A standing row is accepted as written, whatever id it names (an id the transcript does not
serve, `""`, an ordinal); nothing is resolved, repaired or defaulted. Every violation is collected,
each located relative to the ledger array, and raised together as one `InvalidRequest`; the route
prefixes the field's path in the body.
"""

from __future__ import annotations

from typing import Any

from app.core.ledger import STANDINGS, Standing, StandingRow
from app.errors import ErrorList, FieldError, InvalidRequest

STANDING_WORDS = ", ".join(f"'{word}'" for word in STANDINGS)
_STANDING_SET = frozenset(STANDINGS)


def read_ledger(raw: Any) -> tuple[StandingRow, ...]:
    """The standing rows of a `ledger` value, oldest first; `null` is the empty ledger."""
    if raw is None:
        return ()
    return _read_rows(raw)


def _read_rows(raw: Any) -> tuple[StandingRow, ...]:
    if not isinstance(raw, list):
        raise InvalidRequest(
            [FieldError((), "ledger must be an array of rows (null means [])", "list_type")]
        )
    plain = _plain_rows(raw)
    return plain if plain is not None else checked_rows(raw)


def checked_rows(raw: list[Any]) -> tuple[StandingRow, ...]:
    """The standing rows of a ledger array, every row checked and every violation named."""
    rows: list[StandingRow] = []
    errors = ErrorList()
    for index, item in enumerate(raw):
        row_errors: list[FieldError] = []
        row = _read_row(item, row_errors)
        errors.extend(error.under(index) for error in row_errors)
        if row is not None:
            rows.append(row)
    if errors:
        raise InvalidRequest(errors)
    return tuple(rows)


def _plain_rows(raw: list[Any]) -> tuple[StandingRow, ...] | None:
    """The standing rows of a ledger whose every row is plainly well formed, or None.

    A real ledger is hundreds to thousands of ordinary rows, and checking each through
    `_read_row` costs about 2 µs a row; this reads each field once with exact type tests. Any
    unusual row (not an object, a kind that is not a string, a missing or odd field) sends the
    whole ledger through the checking path, which alone decides what is an error: this path only
    recognises what is plainly valid.
    """
    rows: list[StandingRow] = []
    keep = rows.append
    for item in raw:
        if type(item) is not dict:
            return None
        get = item.get
        kind = get("kind")
        if not is_standing_row(kind):
            if type(kind) is not str:
                return None
            continue  # a row of another kind: not the fold's business
        tool_call_id = get("tool_call_id")
        standing = get("standing")
        tool_name = get("tool_name")
        ref = get("ref")
        if (
            type(tool_call_id) is not str
            or type(standing) is not str
            or standing not in _STANDING_SET
            or (tool_name is not None and type(tool_name) is not str)
            or (ref is not None and type(ref) is not str)
        ):
            return None
        keep(
            StandingRow(tool_call_id=tool_call_id, standing=standing, tool_name=tool_name, ref=ref)
        )
    return tuple(rows)


def is_standing_row(kind: object) -> bool:
    """`kind` absent or null means a standing row; every other kind is not the fold's business."""
    return kind is None or kind == "standing"


def _read_row(item: Any, errors: list[FieldError]) -> StandingRow | None:
    """The standing row of one ledger item, None for a row of another kind or a faulty one."""
    if not isinstance(item, dict):
        errors.append(FieldError((), "a ledger row must be an object", "dict_type"))
        return None
    kind = item.get("kind")
    if kind is not None and not isinstance(kind, str):
        errors.append(FieldError(("kind",), "kind must be a string or null", "string_type"))
        return None
    if not is_standing_row(kind):
        return None
    tool_call_id = _read_tool_call_id(item, errors)
    standing = _read_standing(item, errors)
    tool_name = _read_optional_text(item, "tool_name", errors)
    ref = _read_optional_text(item, "ref", errors)
    if tool_call_id is None or standing is None or errors:
        return None
    return StandingRow(tool_call_id, standing, tool_name, ref)


def _read_tool_call_id(item: dict[str, Any], errors: list[FieldError]) -> str | None:
    if "tool_call_id" not in item:
        errors.append(
            FieldError(("tool_call_id",), "a standing row needs a tool_call_id", "missing")
        )
        return None
    value = item["tool_call_id"]
    if not isinstance(value, str):
        errors.append(FieldError(("tool_call_id",), "tool_call_id must be a string", "string_type"))
        return None
    return value


def _read_standing(item: dict[str, Any], errors: list[FieldError]) -> Standing | None:
    if "standing" not in item:
        errors.append(
            FieldError(
                ("standing",),
                f"a standing row needs a standing: one of {STANDING_WORDS}",
                "missing",
            )
        )
        return None
    value = item["standing"]
    for word in STANDINGS:
        if value == word and isinstance(value, str):
            return word
    errors.append(
        FieldError(
            ("standing",), f"standing must be exactly one of {STANDING_WORDS}", "literal_error"
        )
    )
    return None


def _read_optional_text(item: dict[str, Any], field: str, errors: list[FieldError]) -> str | None:
    value = item.get(field)
    if value is not None and not isinstance(value, str):
        errors.append(FieldError((field,), f"{field} must be a string or null", "string_type"))
        return None
    return value
