from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.recall_request import RecallRequest
from ...models.recall_response import RecallResponse
from ...types import UNSET, Response


def _get_kwargs(
    *,
    body: RecallRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/recall",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RecallResponse | None:
    if response.status_code == 200:
        response_200 = RecallResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | RecallResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RecallRequest,
) -> Response[Problem | RecallResponse]:
    """Find text the planner took out of a window in the history the caller sends

     Answers a model's recall call from the agent's whole history (never a planned window): `ref` gives
    every result answering that `tool_call_id`, whole; `query` searches every earlier message but the
    system prompt for its terms and lists the matching messages, most terms first, then newest, each
    with a header line and a snippet. The text comes in pages of `max_chars` characters. `messages`,
    `format` and `system` are read as the window plan reads them. The service keeps nothing: the same
    request, the same answer.

    Args:
        body (RecallRequest): The whole history and the recall call's arguments: `ref` or `query`,
            and `page`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RecallResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: RecallRequest,
) -> Problem | RecallResponse | None:
    """Find text the planner took out of a window in the history the caller sends

     Answers a model's recall call from the agent's whole history (never a planned window): `ref` gives
    every result answering that `tool_call_id`, whole; `query` searches every earlier message but the
    system prompt for its terms and lists the matching messages, most terms first, then newest, each
    with a header line and a snippet. The text comes in pages of `max_chars` characters. `messages`,
    `format` and `system` are read as the window plan reads them. The service keeps nothing: the same
    request, the same answer.

    Args:
        body (RecallRequest): The whole history and the recall call's arguments: `ref` or `query`,
            and `page`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RecallResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RecallRequest,
) -> Response[Problem | RecallResponse]:
    """Find text the planner took out of a window in the history the caller sends

     Answers a model's recall call from the agent's whole history (never a planned window): `ref` gives
    every result answering that `tool_call_id`, whole; `query` searches every earlier message but the
    system prompt for its terms and lists the matching messages, most terms first, then newest, each
    with a header line and a snippet. The text comes in pages of `max_chars` characters. `messages`,
    `format` and `system` are read as the window plan reads them. The service keeps nothing: the same
    request, the same answer.

    Args:
        body (RecallRequest): The whole history and the recall call's arguments: `ref` or `query`,
            and `page`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RecallResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: RecallRequest,
) -> Problem | RecallResponse | None:
    """Find text the planner took out of a window in the history the caller sends

     Answers a model's recall call from the agent's whole history (never a planned window): `ref` gives
    every result answering that `tool_call_id`, whole; `query` searches every earlier message but the
    system prompt for its terms and lists the matching messages, most terms first, then newest, each
    with a header line and a snippet. The text comes in pages of `max_chars` characters. `messages`,
    `format` and `system` are read as the window plan reads them. The service keeps nothing: the same
    request, the same answer.

    Args:
        body (RecallRequest): The whole history and the recall call's arguments: `ref` or `query`,
            and `page`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RecallResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
