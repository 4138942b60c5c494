"""Request and response schemas of the kept-answer endpoints (`docs/rules.md#kept-answers`), and
examples.

The request's own fields are checked strictly: `turn` is a whole number (`3.0` is 3), names are
non-empty strings, and an answer's `value` is a string, a number or a boolean, one error at
`value` whatever else was sent. The `kept` list is the caller's stored state: only its being a list
(or absent, or null) is checked here, and its entries are read leniently by `app.core.kept`, which
skips any it cannot read. Items of `answers` and `used` belong to the caller, so their extra keys
are ignored. The response models document the answers; the routes write them directly.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, StrictStr
from pydantic_core import PydanticCustomError

from app.schemas.types import NonNegativeWhole

NonEmptyStr = Annotated[StrictStr, Field(min_length=1)]

KEPT_DESCRIPTION = (
    "The list this endpoint returned last, as stored by the caller; absent or null when there is "
    "none. Entries are read leniently: one that is not "
    '`{"turn": number, "tool_name": string, "argument": string, "value": string|number|boolean}` '
    "is skipped silently; extra keys are kept."
)
TURN_DESCRIPTION = (
    "The agent's turn number; only entries kept in this turn are read. `3.0` is turn 3."
)


def answer_value(value: Any) -> str | int | float | bool:
    """A person's answer: a string, a number or a boolean, kept in the caller's own spelling."""
    if isinstance(value, str | int | float):
        return value
    raise PydanticCustomError("answer_value", "must be a string, a number or a boolean")


AnswerValue = Annotated[
    str | int | float | bool,
    PlainValidator(answer_value, json_schema_input_type=str | float | bool),
]


class AnswerIn(BaseModel):
    """A person's value for one argument of the refused call; other keys are ignored."""

    model_config = ConfigDict(extra="ignore")
    argument: NonEmptyStr = Field(description="The argument the person answered.")
    value: AnswerValue = Field(
        description='The answer, raw: a string ("" included), a number or a boolean.'
    )


class UsedPairIn(BaseModel):
    """A (tool, argument) pair a batch filled from a kept answer; other keys are ignored."""

    model_config = ConfigDict(extra="ignore")
    tool_name: NonEmptyStr
    argument: NonEmptyStr


class KeepRequest(BaseModel):
    """Keep a refused call's answers for the next call of the same tool in this turn."""

    model_config = ConfigDict(extra="forbid")
    kept: list[Any] | None = Field(None, description=KEPT_DESCRIPTION)
    turn: NonNegativeWhole = Field(description=TURN_DESCRIPTION)
    tool_name: NonEmptyStr = Field(description="The tool of the refused call.")
    answers: list[AnswerIn] = Field(
        description="The person's answers, in order; a pair kept again replaces its earlier "
        "entry and moves to the end. May be empty."
    )


class UseRequest(BaseModel):
    """Spend the kept answers a batch filled calls from."""

    model_config = ConfigDict(extra="forbid")
    kept: list[Any] | None = Field(None, description=KEPT_DESCRIPTION)
    turn: NonNegativeWhole = Field(description=TURN_DESCRIPTION)
    used: list[UsedPairIn] = Field(
        description="The pairs the batch filled from; every entry of each goes. May be empty."
    )


class LookupRequest(BaseModel):
    """Find the kept answer for one argument of a proposed call."""

    model_config = ConfigDict(extra="forbid")
    kept: list[Any] | None = Field(None, description=KEPT_DESCRIPTION)
    turn: NonNegativeWhole = Field(description=TURN_DESCRIPTION)
    tool_name: NonEmptyStr = Field(description="The tool of the proposed call.")
    argument: NonEmptyStr = Field(description="The argument the proposed call leaves out.")


# ---- response documentation ----------------------------------------------------------------------


class KeptEntry(BaseModel):
    """A kept answer. New entries have exactly these keys; stored ones come back as received."""

    model_config = ConfigDict(extra="allow")
    turn: float
    tool_name: str
    argument: str
    value: str | float | bool


class KeepResponse(BaseModel):
    """This turn's list with the answers kept (always a list)."""

    kept: list[KeptEntry]


class UseResponse(BaseModel):
    """This turn's list without the used pairs; null when nothing is left (clear your copy)."""

    kept: list[KeptEntry] | None


class LookupResponse(BaseModel):
    """The first entry of this turn for the pair, and every entry of this turn."""

    answer: KeptEntry | None
    this_turn: list[KeptEntry]


# ---- Swagger examples ----------------------------------------------------------------------------
# One answer through one turn (docs/rules.md#kept-answers): the person answered `24h` for
# purge_logs.window on a call that was then refused; keep stores it, lookup finds it for the next
# purge_logs call without a window, and use spends it once that batch ran. The API tests post each
# and chain the answers.

E9_TURN = 3
E9_TOOL = "purge_logs"
E9_ARGUMENT = "window"
E9_STORED: list[dict[str, Any]] = [
    {"turn": E9_TURN, "tool_name": E9_TOOL, "argument": E9_ARGUMENT, "value": "24h"}
]

KEEP_EXAMPLES: dict[str, dict[str, Any]] = {
    "refused_after_an_answer": {
        "summary": "Keep the person's answer to a refused call",
        "description": (
            "The person answered `24h` for `window`; the call was refused because the resume "
            "could not pause again. Store the returned list and send it with the next request."
        ),
        "value": {
            "turn": E9_TURN,
            "tool_name": E9_TOOL,
            "answers": [{"argument": E9_ARGUMENT, "value": "24h"}],
        },
    },
}

LOOKUP_EXAMPLES: dict[str, dict[str, Any]] = {
    "call_without_the_argument": {
        "summary": "Find the answer for a call that leaves the argument out",
        "description": (
            "The model proposes purge_logs again without `window`: the kept `24h` is found, so "
            "the call runs with it and the person is not asked again."
        ),
        "value": {
            "kept": E9_STORED,
            "turn": E9_TURN,
            "tool_name": E9_TOOL,
            "argument": E9_ARGUMENT,
        },
    },
}

USE_EXAMPLES: dict[str, dict[str, Any]] = {
    "batch_filled_from_the_answer": {
        "summary": "Spend the answer once the batch ran",
        "description": (
            "The batch filled `window` from the kept answer. Nothing is left, so the answer is "
            "null: delete the stored list."
        ),
        "value": {
            "kept": E9_STORED,
            "turn": E9_TURN,
            "used": [{"tool_name": E9_TOOL, "argument": E9_ARGUMENT}],
        },
    },
}
