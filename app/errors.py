"""Request errors found outside pydantic: a list of field errors that becomes one 422.

The wire-format readers and the hand-written request readers (ledger rows, records, kept-answer
entries) report every violation they find, each with the path of the caller's field, so the HTTP
layer can answer with one problem+json that names them all. `loc` paths here are relative to what
the reader was given; the caller of the reader prefixes the path of that value in the body.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FieldError:
    """One violation: where (`loc`), what (`msg`) and a machine-readable `type`."""

    loc: tuple[str | int, ...]
    msg: str
    type: str = "value_error"

    def under(self, *prefix: str | int) -> FieldError:
        """The same error located under `prefix`."""
        return FieldError((*prefix, *self.loc), self.msg, self.type)


class InvalidRequest(Exception):
    """Raised with every field error found; the HTTP layer answers 422."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("; ".join(f"{'/'.join(map(str, e.loc))}: {e.msg}" for e in errors))
        self.errors = errors

    def under(self, *prefix: str | int) -> InvalidRequest:
        return InvalidRequest([error.under(*prefix) for error in self.errors])
