from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.plan_request import PlanRequest
from ...models.plan_response import PlanResponse
from ...models.problem import Problem
from ...types import UNSET, Response


def _get_kwargs(
    *,
    body: PlanRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/window/plan",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PlanResponse | Problem | None:
    if response.status_code == 200:
        response_200 = PlanResponse.from_dict(response.json())

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
) -> Response[PlanResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PlanRequest,
) -> Response[PlanResponse | Problem]:
    """Plan the context window

     Splits the transcript into turns and, when the strategy engages, removes at most one contiguous span
    of whole turns from the old end, never a turn that refuses to leave; reports why every turn is kept
    (refusals, pins) and returns the new window in the caller's format. Send each returned non-null
    `record` back in `prior_records`.

    Args:
        body (PlanRequest): What to plan: the transcript, the strategy and the pin options.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PlanResponse | Problem]
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
    body: PlanRequest,
) -> PlanResponse | Problem | None:
    """Plan the context window

     Splits the transcript into turns and, when the strategy engages, removes at most one contiguous span
    of whole turns from the old end, never a turn that refuses to leave; reports why every turn is kept
    (refusals, pins) and returns the new window in the caller's format. Send each returned non-null
    `record` back in `prior_records`.

    Args:
        body (PlanRequest): What to plan: the transcript, the strategy and the pin options.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PlanResponse | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PlanRequest,
) -> Response[PlanResponse | Problem]:
    """Plan the context window

     Splits the transcript into turns and, when the strategy engages, removes at most one contiguous span
    of whole turns from the old end, never a turn that refuses to leave; reports why every turn is kept
    (refusals, pins) and returns the new window in the caller's format. Send each returned non-null
    `record` back in `prior_records`.

    Args:
        body (PlanRequest): What to plan: the transcript, the strategy and the pin options.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PlanResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: PlanRequest,
) -> PlanResponse | Problem | None:
    """Plan the context window

     Splits the transcript into turns and, when the strategy engages, removes at most one contiguous span
    of whole turns from the old end, never a turn that refuses to leave; reports why every turn is kept
    (refusals, pins) and returns the new window in the caller's format. Send each returned non-null
    `record` back in `prior_records`.

    Args:
        body (PlanRequest): What to plan: the transcript, the strategy and the pin options.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PlanResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
