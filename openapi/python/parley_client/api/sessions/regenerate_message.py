from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.accepted_turn import AcceptedTurn
from ...models.finished_turn import FinishedTurn
from ...models.on_active import OnActive
from ...models.problem import Problem
from ...models.regenerate_message import RegenerateMessage
from ...models.sse_event import SseEvent
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    message_id: UUID,
    *,
    body: RegenerateMessage,
    background: bool | Unset = UNSET,
    on_active: OnActive | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["background"] = background

    json_on_active: str | Unset = UNSET
    if not isinstance(on_active, Unset):
        json_on_active = on_active.value

    params["on_active"] = json_on_active

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/sessions/{id}/messages/{message_id}/regenerate".format(
            id=quote(str(id), safe=""),
            message_id=quote(str(message_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json; charset=utf-8"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AcceptedTurn | FinishedTurn | Problem | SseEvent | None:
    if response.status_code == 200:
        response_200 = SseEvent.from_dict(response.text)

        return response_200

    if response.status_code == 201:
        response_201 = FinishedTurn.from_dict(response.json())

        return response_201

    if response.status_code == 202:
        response_202 = AcceptedTurn.from_dict(response.json())

        return response_202

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

    if response.status_code == 502:
        response_502 = Problem.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if response.status_code == 504:
        response_504 = Problem.from_dict(response.json())

        return response_504

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AcceptedTurn | FinishedTurn | Problem | SseEvent]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
    body: RegenerateMessage,
    background: bool | Unset = UNSET,
    on_active: OnActive | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[AcceptedTurn | FinishedTurn | Problem | SseEvent]:
    """Regenerate an answer

     Another answer to a user message of the session (name the user message or one of
    its answers), as a new turn: its answer is a sibling of the earlier ones and
    becomes the end of the active branch. Answers like `send_message` (a feed with
    `Accept: text/event-stream`, the finished turn, or 202 with `?background=true`),
    under the same rules (limits, quotas, `on_active` while the session is
    answering). A message that answers nothing a user said: 422
    `nothing_to_regenerate`.

    Args:
        id (UUID):
        message_id (UUID):
        background (bool | Unset):
        on_active (OnActive | Unset): What to do when the session is still answering an earlier
            message.
        idempotency_key (str | Unset):
        body (RegenerateMessage): Ask for another answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AcceptedTurn | FinishedTurn | Problem | SseEvent]
    """

    kwargs = _get_kwargs(
        id=id,
        message_id=message_id,
        body=body,
        background=background,
        on_active=on_active,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
    body: RegenerateMessage,
    background: bool | Unset = UNSET,
    on_active: OnActive | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> AcceptedTurn | FinishedTurn | Problem | SseEvent | None:
    """Regenerate an answer

     Another answer to a user message of the session (name the user message or one of
    its answers), as a new turn: its answer is a sibling of the earlier ones and
    becomes the end of the active branch. Answers like `send_message` (a feed with
    `Accept: text/event-stream`, the finished turn, or 202 with `?background=true`),
    under the same rules (limits, quotas, `on_active` while the session is
    answering). A message that answers nothing a user said: 422
    `nothing_to_regenerate`.

    Args:
        id (UUID):
        message_id (UUID):
        background (bool | Unset):
        on_active (OnActive | Unset): What to do when the session is still answering an earlier
            message.
        idempotency_key (str | Unset):
        body (RegenerateMessage): Ask for another answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AcceptedTurn | FinishedTurn | Problem | SseEvent
    """

    return sync_detailed(
        id=id,
        message_id=message_id,
        client=client,
        body=body,
        background=background,
        on_active=on_active,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
    body: RegenerateMessage,
    background: bool | Unset = UNSET,
    on_active: OnActive | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[AcceptedTurn | FinishedTurn | Problem | SseEvent]:
    """Regenerate an answer

     Another answer to a user message of the session (name the user message or one of
    its answers), as a new turn: its answer is a sibling of the earlier ones and
    becomes the end of the active branch. Answers like `send_message` (a feed with
    `Accept: text/event-stream`, the finished turn, or 202 with `?background=true`),
    under the same rules (limits, quotas, `on_active` while the session is
    answering). A message that answers nothing a user said: 422
    `nothing_to_regenerate`.

    Args:
        id (UUID):
        message_id (UUID):
        background (bool | Unset):
        on_active (OnActive | Unset): What to do when the session is still answering an earlier
            message.
        idempotency_key (str | Unset):
        body (RegenerateMessage): Ask for another answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AcceptedTurn | FinishedTurn | Problem | SseEvent]
    """

    kwargs = _get_kwargs(
        id=id,
        message_id=message_id,
        body=body,
        background=background,
        on_active=on_active,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
    body: RegenerateMessage,
    background: bool | Unset = UNSET,
    on_active: OnActive | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> AcceptedTurn | FinishedTurn | Problem | SseEvent | None:
    """Regenerate an answer

     Another answer to a user message of the session (name the user message or one of
    its answers), as a new turn: its answer is a sibling of the earlier ones and
    becomes the end of the active branch. Answers like `send_message` (a feed with
    `Accept: text/event-stream`, the finished turn, or 202 with `?background=true`),
    under the same rules (limits, quotas, `on_active` while the session is
    answering). A message that answers nothing a user said: 422
    `nothing_to_regenerate`.

    Args:
        id (UUID):
        message_id (UUID):
        background (bool | Unset):
        on_active (OnActive | Unset): What to do when the session is still answering an earlier
            message.
        idempotency_key (str | Unset):
        body (RegenerateMessage): Ask for another answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AcceptedTurn | FinishedTurn | Problem | SseEvent
    """

    return (
        await asyncio_detailed(
            id=id,
            message_id=message_id,
            client=client,
            body=body,
            background=background,
            on_active=on_active,
            idempotency_key=idempotency_key,
        )
    ).parsed
