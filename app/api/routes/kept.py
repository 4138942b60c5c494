"""`POST /v1/kept-answers/{keep,use,lookup}`: each body handed to its use case
(`app.service.kept`)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.answers import keep_answer, lookup_answer, use_answer
from app.api.dependencies import JsonBody, SettingsDep
from app.api.examples import answer_examples
from app.api.openapi_doc import documented_answers, documented_body
from app.api.problems import BODY_ERRORS
from app.schemas.kept import (
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

router = APIRouter(tags=["kept-answers"])

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
async def keep_route(body: JsonBody, settings: SettingsDep) -> Response:
    limits = settings.list_limits()
    return await body.answer(lambda raw: keep_answer(raw, limits))


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
async def use_route(body: JsonBody, settings: SettingsDep) -> Response:
    limits = settings.list_limits()
    return await body.answer(lambda raw: use_answer(raw, limits))


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
async def lookup_route(body: JsonBody, settings: SettingsDep) -> Response:
    limits = settings.list_limits()
    return await body.answer(lambda raw: lookup_answer(raw, limits))
