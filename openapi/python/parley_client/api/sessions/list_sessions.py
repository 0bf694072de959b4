from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_session import PageSession
from ...models.problem import Problem
from ...models.session_state import SessionState
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    tool_id: UUID | Unset = UNSET,
    state: SessionState | Unset = UNSET,
    archived: bool | Unset = UNSET,
    pinned: bool | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_tool_id: str | Unset = UNSET
    if not isinstance(tool_id, Unset):
        json_tool_id = str(tool_id)
    params["tool_id"] = json_tool_id

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state.value

    params["state"] = json_state

    params["archived"] = archived

    params["pinned"] = pinned

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageSession | Problem | None:
    if response.status_code == 200:
        response_200 = PageSession.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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
) -> Response[PageSession | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    tool_id: UUID | Unset = UNSET,
    state: SessionState | Unset = UNSET,
    archived: bool | Unset = UNSET,
    pinned: bool | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageSession | Problem]:
    """List sessions

     The caller's sessions: pinned ones first, then active ones, then the most recently
    active. Archived sessions only with `archived=true` (and then only they).

    Args:
        tool_id (UUID | Unset):
        state (SessionState | Unset): A session is `active` until it is completed.
        archived (bool | Unset):
        pinned (bool | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSession | Problem]
    """

    kwargs = _get_kwargs(
        tool_id=tool_id,
        state=state,
        archived=archived,
        pinned=pinned,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    tool_id: UUID | Unset = UNSET,
    state: SessionState | Unset = UNSET,
    archived: bool | Unset = UNSET,
    pinned: bool | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageSession | Problem | None:
    """List sessions

     The caller's sessions: pinned ones first, then active ones, then the most recently
    active. Archived sessions only with `archived=true` (and then only they).

    Args:
        tool_id (UUID | Unset):
        state (SessionState | Unset): A session is `active` until it is completed.
        archived (bool | Unset):
        pinned (bool | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSession | Problem
    """

    return sync_detailed(
        client=client,
        tool_id=tool_id,
        state=state,
        archived=archived,
        pinned=pinned,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    tool_id: UUID | Unset = UNSET,
    state: SessionState | Unset = UNSET,
    archived: bool | Unset = UNSET,
    pinned: bool | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageSession | Problem]:
    """List sessions

     The caller's sessions: pinned ones first, then active ones, then the most recently
    active. Archived sessions only with `archived=true` (and then only they).

    Args:
        tool_id (UUID | Unset):
        state (SessionState | Unset): A session is `active` until it is completed.
        archived (bool | Unset):
        pinned (bool | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSession | Problem]
    """

    kwargs = _get_kwargs(
        tool_id=tool_id,
        state=state,
        archived=archived,
        pinned=pinned,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    tool_id: UUID | Unset = UNSET,
    state: SessionState | Unset = UNSET,
    archived: bool | Unset = UNSET,
    pinned: bool | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageSession | Problem | None:
    """List sessions

     The caller's sessions: pinned ones first, then active ones, then the most recently
    active. Archived sessions only with `archived=true` (and then only they).

    Args:
        tool_id (UUID | Unset):
        state (SessionState | Unset): A session is `active` until it is completed.
        archived (bool | Unset):
        pinned (bool | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSession | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            tool_id=tool_id,
            state=state,
            archived=archived,
            pinned=pinned,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
