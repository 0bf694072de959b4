from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.feedback import Feedback
from ...models.give_feedback import GiveFeedback
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    id: UUID,
    message_id: UUID,
    *,
    body: GiveFeedback,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/sessions/{id}/messages/{message_id}/feedback".format(
            id=quote(str(id), safe=""),
            message_id=quote(str(message_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json; charset=utf-8"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Feedback | Problem | None:
    if response.status_code == 200:
        response_200 = Feedback.from_dict(response.json())

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
) -> Response[Feedback | Problem]:
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
    body: GiveFeedback,
) -> Response[Feedback | Problem]:
    """Rate an answer

     Records the caller's thumbs up or down on an answer (an assistant message) of
    their own session, with an optional comment and tags; giving it again replaces
    it (one per answer and user). Another user's session or message: 404; a message
    that is not an answer: 422 `not_an_answer`.

    Args:
        id (UUID):
        message_id (UUID):
        body (GiveFeedback): What the caller thinks of an answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Feedback | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        message_id=message_id,
        body=body,
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
    body: GiveFeedback,
) -> Feedback | Problem | None:
    """Rate an answer

     Records the caller's thumbs up or down on an answer (an assistant message) of
    their own session, with an optional comment and tags; giving it again replaces
    it (one per answer and user). Another user's session or message: 404; a message
    that is not an answer: 422 `not_an_answer`.

    Args:
        id (UUID):
        message_id (UUID):
        body (GiveFeedback): What the caller thinks of an answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Feedback | Problem
    """

    return sync_detailed(
        id=id,
        message_id=message_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
    body: GiveFeedback,
) -> Response[Feedback | Problem]:
    """Rate an answer

     Records the caller's thumbs up or down on an answer (an assistant message) of
    their own session, with an optional comment and tags; giving it again replaces
    it (one per answer and user). Another user's session or message: 404; a message
    that is not an answer: 422 `not_an_answer`.

    Args:
        id (UUID):
        message_id (UUID):
        body (GiveFeedback): What the caller thinks of an answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Feedback | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        message_id=message_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
    body: GiveFeedback,
) -> Feedback | Problem | None:
    """Rate an answer

     Records the caller's thumbs up or down on an answer (an assistant message) of
    their own session, with an optional comment and tags; giving it again replaces
    it (one per answer and user). Another user's session or message: 404; a message
    that is not an answer: 422 `not_an_answer`.

    Args:
        id (UUID):
        message_id (UUID):
        body (GiveFeedback): What the caller thinks of an answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Feedback | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            message_id=message_id,
            client=client,
            body=body,
        )
    ).parsed
