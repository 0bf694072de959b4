from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_message import PageMessage
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    branch: UUID | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_branch: str | Unset = UNSET
    if not isinstance(branch, Unset):
        json_branch = str(branch)
    params["branch"] = json_branch

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions/{id}/messages".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageMessage | Problem | None:
    if response.status_code == 200:
        response_200 = PageMessage.from_dict(response.json())

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
) -> Response[PageMessage | Problem]:
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
    branch: UUID | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageMessage | Problem]:
    """List a session's messages

     One branch of the session's message tree in conversation order: by default the
    active branch (what the session shows and continues), or with `branch` the one
    through that message (its ancestors, itself, then the newest child at each step).
    Each message names its parent and its siblings.

    Args:
        id (UUID):
        branch (UUID | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageMessage | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        branch=branch,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    branch: UUID | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageMessage | Problem | None:
    """List a session's messages

     One branch of the session's message tree in conversation order: by default the
    active branch (what the session shows and continues), or with `branch` the one
    through that message (its ancestors, itself, then the newest child at each step).
    Each message names its parent and its siblings.

    Args:
        id (UUID):
        branch (UUID | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageMessage | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        branch=branch,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    branch: UUID | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageMessage | Problem]:
    """List a session's messages

     One branch of the session's message tree in conversation order: by default the
    active branch (what the session shows and continues), or with `branch` the one
    through that message (its ancestors, itself, then the newest child at each step).
    Each message names its parent and its siblings.

    Args:
        id (UUID):
        branch (UUID | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageMessage | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        branch=branch,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    branch: UUID | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageMessage | Problem | None:
    """List a session's messages

     One branch of the session's message tree in conversation order: by default the
    active branch (what the session shows and continues), or with `branch` the one
    through that message (its ancestors, itself, then the newest child at each step).
    Each message names its parent and its siblings.

    Args:
        id (UUID):
        branch (UUID | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageMessage | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            branch=branch,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
