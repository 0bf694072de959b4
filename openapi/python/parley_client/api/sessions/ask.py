from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.ask_answer import AskAnswer
from ...models.ask_request import AskRequest
from ...models.problem import Problem
from ...models.sse_event import SseEvent
from ...types import Response


def _get_kwargs(
    *,
    body: AskRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/ask",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json; charset=utf-8"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AskAnswer | Problem | SseEvent | None:
    if response.status_code == 200:
        response_200 = SseEvent.from_dict(response.text)

        return response_200

    if response.status_code == 201:
        response_201 = AskAnswer.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[AskAnswer | Problem | SseEvent]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: AskRequest,
) -> Response[AskAnswer | Problem | SseEvent]:
    """Ask

     Sends one message in a conversation named by `rid` (a new one without it) and
    answers with its Server-Sent Events, or with the finished turn when `stream` is
    false. Needs the `chat:write` permission.

    Args:
        body (AskRequest): One message to ask.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AskAnswer | Problem | SseEvent]
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
    client: AuthenticatedClient,
    body: AskRequest,
) -> AskAnswer | Problem | SseEvent | None:
    """Ask

     Sends one message in a conversation named by `rid` (a new one without it) and
    answers with its Server-Sent Events, or with the finished turn when `stream` is
    false. Needs the `chat:write` permission.

    Args:
        body (AskRequest): One message to ask.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AskAnswer | Problem | SseEvent
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AskRequest,
) -> Response[AskAnswer | Problem | SseEvent]:
    """Ask

     Sends one message in a conversation named by `rid` (a new one without it) and
    answers with its Server-Sent Events, or with the finished turn when `stream` is
    false. Needs the `chat:write` permission.

    Args:
        body (AskRequest): One message to ask.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AskAnswer | Problem | SseEvent]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: AskRequest,
) -> AskAnswer | Problem | SseEvent | None:
    """Ask

     Sends one message in a conversation named by `rid` (a new one without it) and
    answers with its Server-Sent Events, or with the finished turn when `stream` is
    false. Needs the `chat:write` permission.

    Args:
        body (AskRequest): One message to ask.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AskAnswer | Problem | SseEvent
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
