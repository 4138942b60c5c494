"""Request and response schemas of `POST /v1/offer` (`docs/rules.md#the-offer`), and its examples.

The request schema checks the option types and refuses unknown top-level fields; `messages` are
checked by the wire-format readers and ledger rows by `app.service.ledger`, because both report the
caller's own field paths. `previous_batch` items belong to the caller, so their extra keys are
ignored. `system` is accepted so one request body serves the window plan and the offer; the offer
never reads it. The response models document the answer; the route serializes the core's offer.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from app.core import defaults
from app.core.ledger import Standing
from app.schemas.common import (
    FORMAT_DESCRIPTION,
    MESSAGES_DESCRIPTION,
    NO_SYSTEM_FOR_MESSAGE_FORMATS,
    SYSTEM_DESCRIPTION,
    FormatName,
    LedgerRows,
    SystemPrompt,
)
from app.schemas.types import PositiveWhole


class PreviousBatchItem(BaseModel):
    """A result that landed this iteration, as the agent recorded it; other keys are ignored."""

    model_config = ConfigDict(extra="ignore")
    tool_call_id: StrictStr = Field(description='The result\'s id; an entry with "" is skipped.')
    tool_name: StrictStr | None = Field(
        None, description="The tool's name; absent, null or empty: recovered from the call."
    )
    result: StrictStr = Field(description="The text the model was served, verbatim.")


class OfferRequest(BaseModel):
    """The committed transcript, the findings ledger and the results of this iteration."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=NO_SYSTEM_FOR_MESSAGE_FORMATS)
    messages: list[Any] = Field(
        description=MESSAGES_DESCRIPTION
        + " Send the committed transcript, `not_dispatched` marks included: a settled message "
        "is no result."
    )
    format: FormatName = Field(defaults.DEFAULT_FORMAT, description=FORMAT_DESCRIPTION)
    ledger: LedgerRows | None = Field(
        default_factory=list,
        description="The findings ledger, oldest row first; null means []. Standing rows "
        '`{"kind": "standing" (or absent), "tool_call_id", "standing": "fact" | "open" | '
        '"ruled-out" | "noise", "tool_name"?, "ref"?}` are folded (the last row per id wins); '
        "rows of other kinds are skipped; extra fields are ignored.",
    )
    previous_batch: list[PreviousBatchItem] | None = Field(
        default_factory=list,
        description="The results that landed this iteration, read first by `known_results`; "
        "null means [].",
    )
    system: SystemPrompt = Field(
        None, description=SYSTEM_DESCRIPTION + " Accepted here, and not read by the offer."
    )
    limit: PositiveWhole = Field(
        defaults.DEFAULT_OFFER_LIMIT, description="How many offered ids are listed for the model."
    )


# ---- response documentation ----------------------------------------------------------------------


class StandingOut(BaseModel):
    """A fold entry: the last row naming the id, at the place where the id was first named."""

    tool_call_id: str
    standing: Standing
    tool_name: str | None = Field(
        None, description="The winning row's `tool_name`; left out when that row has none."
    )


class KnownResultOut(BaseModel):
    """An entry of the identity source: the first entry for an id wins."""

    tool_call_id: str
    tool_name: str | None = Field(
        None, description="The wire name, else the one recovered from the call; left out if none."
    )
    result: str = Field(description="The text the model was served.")


class OfferResponse(BaseModel):
    """The offer: which result ids the model may still name, and what each id stands for."""

    offered: list[str] = Field(description="Every nameable served id, newest first (uncapped).")
    listed: list[str] = Field(description="The first `limit` ids of `offered`.")
    omitted: int = Field(description="How many ids of `offered` are not listed.")
    description: str = Field(description="The sentence that tells the model what `listed` is.")
    served: list[str] = Field(description="Result ids in transcript order, each once.")
    undeclared: list[str] = Field(description="Served ids no standing row names.")
    nameable: list[str] = Field(
        description="Served ids whose standing is absent, `fact` or `open`, transcript order."
    )
    standings: list[StandingOut] = Field(description="The ledger fold, in first-naming order.")
    known_results: list[KnownResultOut] = Field(
        description="The previous batch, then every result; the first entry per id wins."
    )


# ---- Swagger examples ----------------------------------------------------------------------------
# One conversation in native, OpenAI and Anthropic form: six results (c1-c6) and one settled
# call (c7), with a ledger holding a fact, a noise, an open result and a ruled-out result
# re-filed as a fact, so c5 and c6 are undeclared. The API tests post each example and check the
# whole answer.

LAB_SYSTEM = "You operate the lab floor through tools."
LAB_TASK = "Find the hottest rack on the floor and report it."
LAB_RESULTS: dict[str, str] = {
    "c1": "IDS: lab1-rack-a, lab1-rack-b, lab2-rack-a",
    "c2": "lab1-rack-a: sensor offline",
    "c3": "lab1-rack-b: 41C",
    "c4": "moved to lab2",
    "c5": "lab2-rack-a: 37C",
    "c6": "lab1-rack-a: 44C",
}
LAB_SETTLED = "Not run: the operator declined power_cycle."

LAB_LEDGER: list[dict[str, Any]] = [
    {"tool_call_id": "c1", "standing": "fact", "tool_name": "whats_here"},
    {"tool_call_id": "c3", "standing": "ruled-out", "tool_name": "measure"},
    {"tool_call_id": "c2", "standing": "noise", "tool_name": "measure"},
    {"tool_call_id": "c4", "standing": "open", "tool_name": "move"},
    {
        "tool_call_id": "c3",
        "standing": "fact",
        "tool_name": "measure",
        "assertions": ["lab1-rack-b runs at 41C"],
    },
]
LAB_PREVIOUS_BATCH: list[dict[str, Any]] = [
    {"tool_call_id": "c6", "tool_name": "measure", "result": LAB_RESULTS["c6"]},
]
LAB_LIMIT = 4


def _native_call(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": i, "name": name, "arguments": args} for i, name, args in calls],
    }


def _native_result(call_id: str, name: str) -> dict[str, Any]:
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "tool_name": name,
        "content": LAB_RESULTS[call_id],
    }


NATIVE_LAB_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": LAB_SYSTEM},
    {"role": "user", "content": LAB_TASK},
    _native_call(("c1", "whats_here", {"floor": "lab"})),
    _native_result("c1", "whats_here"),
    _native_call(("c2", "measure", {"rack": "lab1-rack-a"})),
    _native_result("c2", "measure"),
    _native_call(("c3", "measure", {"rack": "lab1-rack-b"})),
    _native_result("c3", "measure"),
    _native_call(("c4", "move", {"to": "lab2"}), ("c5", "measure", {"rack": "lab2-rack-a"})),
    _native_result("c4", "move"),
    _native_result("c5", "measure"),
    _native_call(
        ("c6", "measure", {"rack": "lab1-rack-a"}), ("c7", "power_cycle", {"rack": "lab1-rack-a"})
    ),
    _native_result("c6", "measure"),
    {
        "role": "tool",
        "tool_call_id": "c7",
        "tool_name": "power_cycle",
        "content": LAB_SETTLED,
        "not_dispatched": True,
    },
]


def _openai_call(*calls: tuple[str, str, str]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": name, "arguments": args}}
            for i, name, args in calls
        ],
    }


def _openai_result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": LAB_RESULTS[call_id]}


OPENAI_LAB_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": LAB_SYSTEM},
    {"role": "user", "content": LAB_TASK},
    _openai_call(("c1", "whats_here", '{"floor":"lab"}')),
    _openai_result("c1"),
    _openai_call(("c2", "measure", '{"rack":"lab1-rack-a"}')),
    _openai_result("c2"),
    _openai_call(("c3", "measure", '{"rack":"lab1-rack-b"}')),
    _openai_result("c3"),
    _openai_call(("c4", "move", '{"to":"lab2"}'), ("c5", "measure", '{"rack":"lab2-rack-a"}')),
    _openai_result("c4"),
    _openai_result("c5"),
    _openai_call(
        ("c6", "measure", '{"rack":"lab1-rack-a"}'), ("c7", "power_cycle", '{"rack":"lab1-rack-a"}')
    ),
    _openai_result("c6"),
    {"role": "tool", "tool_call_id": "c7", "content": LAB_SETTLED, "not_dispatched": True},
]


def _anthropic_call(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": i, "name": name, "input": args} for i, name, args in calls
        ],
    }


def _anthropic_result(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": LAB_RESULTS[call_id]}


ANTHROPIC_LAB_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "user", "content": LAB_TASK},
    _anthropic_call(("c1", "whats_here", {"floor": "lab"})),
    {"role": "user", "content": [_anthropic_result("c1")]},
    _anthropic_call(("c2", "measure", {"rack": "lab1-rack-a"})),
    {"role": "user", "content": [_anthropic_result("c2")]},
    _anthropic_call(("c3", "measure", {"rack": "lab1-rack-b"})),
    {"role": "user", "content": [_anthropic_result("c3")]},
    _anthropic_call(("c4", "move", {"to": "lab2"}), ("c5", "measure", {"rack": "lab2-rack-a"})),
    {"role": "user", "content": [_anthropic_result("c4"), _anthropic_result("c5")]},
    _anthropic_call(
        ("c6", "measure", {"rack": "lab1-rack-a"}), ("c7", "power_cycle", {"rack": "lab1-rack-a"})
    ),
    {
        "role": "user",
        "content": [
            _anthropic_result("c6"),
            {
                "type": "tool_result",
                "tool_use_id": "c7",
                "content": LAB_SETTLED,
                "not_dispatched": True,
            },
        ],
    },
]

_LAB_DESCRIPTION = (
    "c2 is noise, so it leaves the offer; c3 was ruled out, then re-filed as a fact, so it is "
    "back; c7 was never run (`not_dispatched`), so it is no result. c5 and c6 are undeclared. "
    "With `limit` 4, c1 is offered but not listed."
)

OFFER_EXAMPLES: dict[str, dict[str, Any]] = {
    "native": {
        "summary": "Six results, a revised ledger and a settled call",
        "description": _LAB_DESCRIPTION,
        "value": {
            "messages": NATIVE_LAB_TRANSCRIPT,
            "format": "native",
            "ledger": LAB_LEDGER,
            "previous_batch": LAB_PREVIOUS_BATCH,
            "limit": LAB_LIMIT,
        },
    },
    "openai": {
        "summary": "The same conversation as OpenAI Chat Completions messages",
        "description": "OpenAI results carry no tool name: each is recovered from its call. "
        + _LAB_DESCRIPTION,
        "value": {
            "messages": OPENAI_LAB_TRANSCRIPT,
            "format": "openai",
            "ledger": LAB_LEDGER,
            "previous_batch": LAB_PREVIOUS_BATCH,
            "limit": LAB_LIMIT,
        },
    },
    "anthropic": {
        "summary": "The same conversation as Anthropic Messages",
        "description": "The top-level `system` is accepted and not read; results are "
        "`tool_result` blocks named by their `tool_use` calls. " + _LAB_DESCRIPTION,
        "value": {
            "messages": ANTHROPIC_LAB_TRANSCRIPT,
            "format": "anthropic",
            "system": LAB_SYSTEM,
            "ledger": LAB_LEDGER,
            "previous_batch": LAB_PREVIOUS_BATCH,
            "limit": LAB_LIMIT,
        },
    },
}
