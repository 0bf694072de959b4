from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.user_sse_event import UserSseEvent
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id

    params: dict[str, Any] = {}

    params["after"] = after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/feed",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | UserSseEvent | None:
    if response.status_code == 200:
        response_200 = UserSseEvent.from_dict(response.text)

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
) -> Response[Problem | UserSseEvent]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> Response[Problem | UserSseEvent]:
    """Follow the caller's feed

     Server-Sent Events of what happens across the caller's sessions, from any tab or
    device: `session_created`, `session_updated`, `session_deleted`, `turn_started`,
    `turn_finished`, `approval_requested`, `approval_resolved`, `timer_fired` (see the
    `UserEvent` schema). Each event's `id:` is its `seq`; resume with `Last-Event-ID`
    (or `?after=SEQ`; the header wins). Without either the feed starts with the
    oldest events it holds. The feed keeps a short history (the session list is the
    durable truth): a reader resuming from before it gets a `reset` event, and should
    refetch its session list. Authenticates with a bearer token or with
    `?access_token=` (a token from `POST /v1/feed/token`; a prompt's feed token does
    not open it).

    Args:
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UserSseEvent]
    """

    kwargs = _get_kwargs(
        after=after,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> Problem | UserSseEvent | None:
    """Follow the caller's feed

     Server-Sent Events of what happens across the caller's sessions, from any tab or
    device: `session_created`, `session_updated`, `session_deleted`, `turn_started`,
    `turn_finished`, `approval_requested`, `approval_resolved`, `timer_fired` (see the
    `UserEvent` schema). Each event's `id:` is its `seq`; resume with `Last-Event-ID`
    (or `?after=SEQ`; the header wins). Without either the feed starts with the
    oldest events it holds. The feed keeps a short history (the session list is the
    durable truth): a reader resuming from before it gets a `reset` event, and should
    refetch its session list. Authenticates with a bearer token or with
    `?access_token=` (a token from `POST /v1/feed/token`; a prompt's feed token does
    not open it).

    Args:
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UserSseEvent
    """

    return sync_detailed(
        client=client,
        after=after,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> Response[Problem | UserSseEvent]:
    """Follow the caller's feed

     Server-Sent Events of what happens across the caller's sessions, from any tab or
    device: `session_created`, `session_updated`, `session_deleted`, `turn_started`,
    `turn_finished`, `approval_requested`, `approval_resolved`, `timer_fired` (see the
    `UserEvent` schema). Each event's `id:` is its `seq`; resume with `Last-Event-ID`
    (or `?after=SEQ`; the header wins). Without either the feed starts with the
    oldest events it holds. The feed keeps a short history (the session list is the
    durable truth): a reader resuming from before it gets a `reset` event, and should
    refetch its session list. Authenticates with a bearer token or with
    `?access_token=` (a token from `POST /v1/feed/token`; a prompt's feed token does
    not open it).

    Args:
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UserSseEvent]
    """

    kwargs = _get_kwargs(
        after=after,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> Problem | UserSseEvent | None:
    """Follow the caller's feed

     Server-Sent Events of what happens across the caller's sessions, from any tab or
    device: `session_created`, `session_updated`, `session_deleted`, `turn_started`,
    `turn_finished`, `approval_requested`, `approval_resolved`, `timer_fired` (see the
    `UserEvent` schema). Each event's `id:` is its `seq`; resume with `Last-Event-ID`
    (or `?after=SEQ`; the header wins). Without either the feed starts with the
    oldest events it holds. The feed keeps a short history (the session list is the
    durable truth): a reader resuming from before it gets a `reset` event, and should
    refetch its session list. Authenticates with a bearer token or with
    `?access_token=` (a token from `POST /v1/feed/token`; a prompt's feed token does
    not open it).

    Args:
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UserSseEvent
    """

    return (
        await asyncio_detailed(
            client=client,
            after=after,
            last_event_id=last_event_id,
        )
    ).parsed
