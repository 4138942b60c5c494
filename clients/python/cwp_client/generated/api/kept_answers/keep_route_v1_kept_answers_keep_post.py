from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.keep_request import KeepRequest
from ...models.keep_response import KeepResponse
from ...models.problem import Problem
from ...types import UNSET, Response


def _get_kwargs(
    *,
    body: KeepRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/kept-answers/keep",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> KeepResponse | Problem | None:
    if response.status_code == 200:
        response_200 = KeepResponse.from_dict(response.json())

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
) -> Response[KeepResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: KeepRequest,
) -> Response[KeepResponse | Problem]:
    """Keep a refused call's answers for the next call of the same tool

     Returns this turn's list with the answers kept: entries of other turns and entries that cannot be
    read are dropped, and a (tool, argument) pair kept again replaces its earlier entry at the end of
    the list. Store the list and send it back as `kept`.

    Args:
        body (KeepRequest): Keep a refused call's answers for the next call of the same tool in
            this turn.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeepResponse | Problem]
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
    body: KeepRequest,
) -> KeepResponse | Problem | None:
    """Keep a refused call's answers for the next call of the same tool

     Returns this turn's list with the answers kept: entries of other turns and entries that cannot be
    read are dropped, and a (tool, argument) pair kept again replaces its earlier entry at the end of
    the list. Store the list and send it back as `kept`.

    Args:
        body (KeepRequest): Keep a refused call's answers for the next call of the same tool in
            this turn.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeepResponse | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: KeepRequest,
) -> Response[KeepResponse | Problem]:
    """Keep a refused call's answers for the next call of the same tool

     Returns this turn's list with the answers kept: entries of other turns and entries that cannot be
    read are dropped, and a (tool, argument) pair kept again replaces its earlier entry at the end of
    the list. Store the list and send it back as `kept`.

    Args:
        body (KeepRequest): Keep a refused call's answers for the next call of the same tool in
            this turn.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeepResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: KeepRequest,
) -> KeepResponse | Problem | None:
    """Keep a refused call's answers for the next call of the same tool

     Returns this turn's list with the answers kept: entries of other turns and entries that cannot be
    read are dropped, and a (tool, argument) pair kept again replaces its earlier entry at the end of
    the list. Store the list and send it back as `kept`.

    Args:
        body (KeepRequest): Keep a refused call's answers for the next call of the same tool in
            this turn.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeepResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
