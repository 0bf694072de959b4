from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.session import Session
from ...models.switch_branch import SwitchBranch
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    body: SwitchBranch,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/sessions/{id}/branch".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json; charset=utf-8"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | Session | None:
    if response.status_code == 200:
        response_200 = Session.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

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
) -> Response[Problem | Session]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: SwitchBranch,
) -> Response[Problem | Session]:
    """Switch branches

     Makes the branch through a message the one the session shows and continues (the
    ‹ n/m › switcher): the session's `active_leaf_id` becomes the newest leaf below
    it. 409 `prompt_active` while a turn of the session runs; 422 `message_not_found`
    for a message the session does not have.

    Args:
        id (UUID):
        body (SwitchBranch): The branch to show and continue.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Session]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: SwitchBranch,
) -> Problem | Session | None:
    """Switch branches

     Makes the branch through a message the one the session shows and continues (the
    ‹ n/m › switcher): the session's `active_leaf_id` becomes the newest leaf below
    it. 409 `prompt_active` while a turn of the session runs; 422 `message_not_found`
    for a message the session does not have.

    Args:
        id (UUID):
        body (SwitchBranch): The branch to show and continue.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Session
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: SwitchBranch,
) -> Response[Problem | Session]:
    """Switch branches

     Makes the branch through a message the one the session shows and continues (the
    ‹ n/m › switcher): the session's `active_leaf_id` becomes the newest leaf below
    it. 409 `prompt_active` while a turn of the session runs; 422 `message_not_found`
    for a message the session does not have.

    Args:
        id (UUID):
        body (SwitchBranch): The branch to show and continue.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Session]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: SwitchBranch,
) -> Problem | Session | None:
    """Switch branches

     Makes the branch through a message the one the session shows and continues (the
    ‹ n/m › switcher): the session's `active_leaf_id` becomes the newest leaf below
    it. 409 `prompt_active` while a turn of the session runs; 422 `message_not_found`
    for a message the session does not have.

    Args:
        id (UUID):
        body (SwitchBranch): The branch to show and continue.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Session
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
