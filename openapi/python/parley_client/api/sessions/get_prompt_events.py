from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.sse_event import SseEvent
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
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
        "url": "/v1/prompts/{id}/events".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | SseEvent | None:
    if response.status_code == 200:
        response_200 = SseEvent.from_dict(response.text)

        return response_200

    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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
) -> Response[Any | Problem | SseEvent]:
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
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> Response[Any | Problem | SseEvent]:
    """Follow a prompt's events

     Server-Sent Events from the start, or after `Last-Event-ID` / `?after=SEQ`, during
    or after the turn; any number of readers. A reconnecting `EventSource` sends
    `Last-Event-ID` on the URL it first opened, so the header wins over `after`. Closing the feed does
    not stop the
    generation. A reader that already has a finished prompt's last event gets 204.
    Authenticates with a bearer token or with `?access_token=` (a feed token).

    Args:
        id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | SseEvent]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> Any | Problem | SseEvent | None:
    """Follow a prompt's events

     Server-Sent Events from the start, or after `Last-Event-ID` / `?after=SEQ`, during
    or after the turn; any number of readers. A reconnecting `EventSource` sends
    `Last-Event-ID` on the URL it first opened, so the header wins over `after`. Closing the feed does
    not stop the
    generation. A reader that already has a finished prompt's last event gets 204.
    Authenticates with a bearer token or with `?access_token=` (a feed token).

    Args:
        id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | SseEvent
    """

    return sync_detailed(
        id=id,
        client=client,
        after=after,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> Response[Any | Problem | SseEvent]:
    """Follow a prompt's events

     Server-Sent Events from the start, or after `Last-Event-ID` / `?after=SEQ`, during
    or after the turn; any number of readers. A reconnecting `EventSource` sends
    `Last-Event-ID` on the URL it first opened, so the header wins over `after`. Closing the feed does
    not stop the
    generation. A reader that already has a finished prompt's last event gets 204.
    Authenticates with a bearer token or with `?access_token=` (a feed token).

    Args:
        id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | SseEvent]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,
) -> Any | Problem | SseEvent | None:
    """Follow a prompt's events

     Server-Sent Events from the start, or after `Last-Event-ID` / `?after=SEQ`, during
    or after the turn; any number of readers. A reconnecting `EventSource` sends
    `Last-Event-ID` on the URL it first opened, so the header wins over `after`. Closing the feed does
    not stop the
    generation. A reader that already has a finished prompt's last event gets 204.
    Authenticates with a bearer token or with `?access_token=` (a feed token).

    Args:
        id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | SseEvent
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            after=after,
            last_event_id=last_event_id,
        )
    ).parsed
