"""`POST /v1/kept-answers/{keep,use,lookup}`: validate the request, call `app.core.kept`, answer.

This module decides nothing about kept answers: it checks the request's own fields (every
violation in one 422), hands the caller's `kept` list as received to the core, which reads it
leniently, and writes the answer in the key order of `docs/rules.md#kept-answers`. Entries that come
back are the values orjson read from the request, written back by orjson, so a stored `2.0` stays
`2.0`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel

from app.api.body import raise_if_any, require_object, validate_model
from app.api.dependencies import JsonBody
from app.api.examples import answer_examples
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS
from app.api.responses import json_response
from app.api.schemas.kept import (
    KEEP_EXAMPLES,
    LOOKUP_EXAMPLES,
    USE_EXAMPLES,
    KeepRequest,
    KeepResponse,
    LookupRequest,
    LookupResponse,
    UseRequest,
    UseResponse,
)
from app.core.kept import Answer, UsedPair, answer_for, keep, this_turn, use
from app.errors import FieldError

router = APIRouter(tags=["kept-answers"])

RequestT = TypeVar("RequestT", bound=BaseModel)
KEEP_PATH = "/v1/kept-answers/keep"
USE_PATH = "/v1/kept-answers/use"
LOOKUP_PATH = "/v1/kept-answers/lookup"
documented_answers(KEEP_PATH, answer_examples(KEEP_PATH, KEEP_EXAMPLES))
documented_answers(USE_PATH, answer_examples(USE_PATH, USE_EXAMPLES))
documented_answers(LOOKUP_PATH, answer_examples(LOOKUP_PATH, LOOKUP_EXAMPLES))


@router.post(
    KEEP_PATH,
    summary="Keep a refused call's answers for the next call of the same tool",
    description=(
        "Returns this turn's list with the answers kept: entries of other turns and entries "
        "that cannot be read are dropped, and a (tool, argument) pair kept again replaces its "
        "earlier entry at the end of the list. Store the list and send it back as `kept`."
    ),
    response_model=KeepResponse,
    responses=BODY_ERRORS,
    openapi_extra=documented_body(KeepRequest, KEEP_EXAMPLES),
)
async def keep_route(body: JsonBody) -> Response:
    return await body.answer(keep_answer)


@router.post(
    USE_PATH,
    summary="Spend the kept answers a batch filled calls from",
    description=(
        "Returns this turn's list without every entry of the used pairs, or null when nothing "
        "is left: then delete the stored list rather than keep an empty one."
    ),
    response_model=UseResponse,
    responses=BODY_ERRORS,
    openapi_extra=documented_body(UseRequest, USE_EXAMPLES),
)
async def use_route(body: JsonBody) -> Response:
    return await body.answer(use_answer)


@router.post(
    LOOKUP_PATH,
    summary="Find the kept answer for an argument a proposed call leaves out",
    description=(
        "Returns the first entry of this turn for the (tool, argument) pair, or null, and every "
        "entry of this turn. Use the answer only when its value still fits the argument; "
        "otherwise ask the person again."
    ),
    response_model=LookupResponse,
    responses=BODY_ERRORS,
    openapi_extra=documented_body(LookupRequest, LOOKUP_EXAMPLES),
)
async def lookup_route(body: JsonBody) -> Response:
    return await body.answer(lookup_answer)


def keep_answer(raw: Any) -> Response:
    body = read_request(KeepRequest, raw)
    answers = [Answer(answer.argument, answer.value) for answer in body.answers]
    return json_response({"kept": keep(body.kept, body.turn, body.tool_name, answers)})


def use_answer(raw: Any) -> Response:
    body = read_request(UseRequest, raw)
    used = [UsedPair(pair.tool_name, pair.argument) for pair in body.used]
    return json_response({"kept": use(body.kept, body.turn, used)})


def lookup_answer(raw: Any) -> Response:
    body = read_request(LookupRequest, raw)
    entries = this_turn(body.kept, body.turn)
    answer = answer_for(entries, body.tool_name, body.argument)
    return json_response({"answer": answer, "this_turn": entries})


def read_request(model: type[RequestT], raw: Any) -> RequestT:
    """The validated request, or one 422 naming every violation."""
    raw = require_object(raw)
    errors: list[FieldError] = []
    body = validate_model(model, raw, errors)
    raise_if_any(errors)
    assert body is not None
    return body
