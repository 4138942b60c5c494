"""Request errors found outside pydantic: a list of field errors that becomes one 422.

The wire-format readers and the hand-written request readers (ledger rows, records, kept-answer
entries) report every violation they find, each with the path of the caller's field, so the HTTP
layer can answer with one problem+json that names them. `loc` paths here are relative to what
the reader was given; the caller of the reader prefixes the path of that value in the body.

What is kept is bounded (`ErrorList`): the first `MAX_ERRORS` errors, in the order found, and a
count of the rest. A body of a million invalid items would otherwise build a million error
objects and an answer of tens of megabytes (docs/decisions/0043-bounded-errors-and-lists.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import SupportsIndex

# The most field errors a 422 lists; the rest are only counted (`errors_left_out`).
MAX_ERRORS = 100


@dataclass(frozen=True, slots=True)
class FieldError:
    """One violation: where (`loc`), what (`msg`) and a machine-readable `type`."""

    loc: tuple[str | int, ...]
    msg: str
    type: str = "value_error"

    def under(self, *prefix: str | int) -> FieldError:
        """The same error located under `prefix`."""
        return FieldError((*prefix, *self.loc), self.msg, self.type)


class ErrorList(list[FieldError]):
    """The first `MAX_ERRORS` field errors added, in order, and how many more were added
    (`left_out`), which are counted and never kept. True when any error was added."""

    left_out: int

    def __init__(self, errors: Iterable[FieldError] = (), left_out: int = 0) -> None:
        super().__init__()
        self.left_out = 0
        self.extend(errors)
        self.left_out += left_out

    def append(self, error: FieldError) -> None:
        if len(self) < MAX_ERRORS:
            super().append(error)
        else:
            self.left_out += 1

    def extend(self, errors: Iterable[FieldError]) -> None:
        for error in errors:
            self.append(error)
        if isinstance(errors, ErrorList):
            self.left_out += errors.left_out

    def __iadd__(self, errors: Iterable[FieldError]) -> ErrorList:  # type: ignore[override, misc]
        self.extend(errors)
        return self

    def insert(self, index: SupportsIndex, error: FieldError) -> None:
        super().insert(index, error)
        if len(self) > MAX_ERRORS:
            super().pop()
            self.left_out += 1

    @property
    def total(self) -> int:
        """Every error added, kept or not."""
        return len(self) + self.left_out

    def under(self, *prefix: str | int) -> ErrorList:
        """The same errors located under `prefix`, with the same count left out."""
        return ErrorList((error.under(*prefix) for error in self), self.left_out)


def bounded(errors: Iterable[FieldError]) -> ErrorList:
    """`errors` as an `ErrorList` (itself when it is one)."""
    return errors if isinstance(errors, ErrorList) else ErrorList(errors)


class InvalidRequest(Exception):
    """Raised with the field errors found (at most `MAX_ERRORS` kept, the rest counted in
    `errors.left_out`); the HTTP layer answers 422."""

    def __init__(self, errors: Iterable[FieldError]) -> None:
        self.errors = bounded(errors)
        shown = "; ".join(f"{'/'.join(map(str, e.loc))}: {e.msg}" for e in self.errors)
        more = self.errors.left_out
        super().__init__(shown + (f" (and {more} more)" if more else ""))

    def under(self, *prefix: str | int) -> InvalidRequest:
        return InvalidRequest(self.errors.under(*prefix))
