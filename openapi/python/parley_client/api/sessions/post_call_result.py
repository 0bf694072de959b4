from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.client_call_error import ClientCallError
from ...models.client_call_output import ClientCallOutput
from ...models.client_call_text import ClientCallText
from ...models.problem import Problem
from ...models.tool_call import ToolCall
from ...types import Response


def _get_kwargs(
    id: UUID,
    call_id: UUID,
    *,
    body: ClientCallError | ClientCallOutput | ClientCallText,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/prompts/{id}/calls/{call_id}/result".format(
            id=quote(str(id), safe=""),
            call_id=quote(str(call_id), safe=""),
        ),
    }

    if isinstance(body, ClientCallOutput) or isinstance(body, ClientCallText):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json; charset=utf-8"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | ToolCall | None:
    if response.status_code == 200:
        response_200 = ToolCall.from_dict(response.json())

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
) -> Response[Problem | ToolCall]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    call_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ClientCallError | ClientCallOutput | ClientCallText,
) -> Response[Problem | ToolCall]:
    """Answer a call of a client function

     The caller posts the result of a call its function was asked for
    (`client_call_requested`): JSON `output`, `text`, or the `error` it failed with.
    Once no call of the turn waits, the turn resumes as a new attempt and the model is
    called with the result. 404 for another user's prompt or a call it does not have;
    409 `not_awaiting_result` when the call does not wait for a result (answered,
    expired, cancelled, or not a client function's); 422 `invalid_call_result` when
    the result is not what the function's `returns` declares (the call keeps
    waiting). A body that is not exactly one of the three is 422 `validation_failed`.

    Args:
        id (UUID):
        call_id (UUID):
        body (ClientCallError | ClientCallOutput | ClientCallText): The result of a call of a
            client function: exactly one of `output`, `text` and
            `error`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ToolCall]
    """

    kwargs = _get_kwargs(
        id=id,
        call_id=call_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    call_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ClientCallError | ClientCallOutput | ClientCallText,
) -> Problem | ToolCall | None:
    """Answer a call of a client function

     The caller posts the result of a call its function was asked for
    (`client_call_requested`): JSON `output`, `text`, or the `error` it failed with.
    Once no call of the turn waits, the turn resumes as a new attempt and the model is
    called with the result. 404 for another user's prompt or a call it does not have;
    409 `not_awaiting_result` when the call does not wait for a result (answered,
    expired, cancelled, or not a client function's); 422 `invalid_call_result` when
    the result is not what the function's `returns` declares (the call keeps
    waiting). A body that is not exactly one of the three is 422 `validation_failed`.

    Args:
        id (UUID):
        call_id (UUID):
        body (ClientCallError | ClientCallOutput | ClientCallText): The result of a call of a
            client function: exactly one of `output`, `text` and
            `error`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ToolCall
    """

    return sync_detailed(
        id=id,
        call_id=call_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    call_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ClientCallError | ClientCallOutput | ClientCallText,
) -> Response[Problem | ToolCall]:
    """Answer a call of a client function

     The caller posts the result of a call its function was asked for
    (`client_call_requested`): JSON `output`, `text`, or the `error` it failed with.
    Once no call of the turn waits, the turn resumes as a new attempt and the model is
    called with the result. 404 for another user's prompt or a call it does not have;
    409 `not_awaiting_result` when the call does not wait for a result (answered,
    expired, cancelled, or not a client function's); 422 `invalid_call_result` when
    the result is not what the function's `returns` declares (the call keeps
    waiting). A body that is not exactly one of the three is 422 `validation_failed`.

    Args:
        id (UUID):
        call_id (UUID):
        body (ClientCallError | ClientCallOutput | ClientCallText): The result of a call of a
            client function: exactly one of `output`, `text` and
            `error`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ToolCall]
    """

    kwargs = _get_kwargs(
        id=id,
        call_id=call_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    call_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ClientCallError | ClientCallOutput | ClientCallText,
) -> Problem | ToolCall | None:
    """Answer a call of a client function

     The caller posts the result of a call its function was asked for
    (`client_call_requested`): JSON `output`, `text`, or the `error` it failed with.
    Once no call of the turn waits, the turn resumes as a new attempt and the model is
    called with the result. 404 for another user's prompt or a call it does not have;
    409 `not_awaiting_result` when the call does not wait for a result (answered,
    expired, cancelled, or not a client function's); 422 `invalid_call_result` when
    the result is not what the function's `returns` declares (the call keeps
    waiting). A body that is not exactly one of the three is 422 `validation_failed`.

    Args:
        id (UUID):
        call_id (UUID):
        body (ClientCallError | ClientCallOutput | ClientCallText): The result of a call of a
            client function: exactly one of `output`, `text` and
            `error`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ToolCall
    """

    return (
        await asyncio_detailed(
            id=id,
            call_id=call_id,
            client=client,
            body=body,
        )
    ).parsed
