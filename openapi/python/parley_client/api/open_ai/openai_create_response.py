from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.open_ai_error import OpenAiError
from ...models.open_ai_response import OpenAiResponse
from ...models.response_create_request import ResponseCreateRequest
from ...types import Response


def _get_kwargs(
    *,
    body: ResponseCreateRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/openai/v1/responses",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json; charset=utf-8"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> OpenAiError | OpenAiResponse | None:
    if response.status_code == 200:
        response_200 = OpenAiResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = OpenAiError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = OpenAiError.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = OpenAiError.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = OpenAiError.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = OpenAiError.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = OpenAiError.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = OpenAiError.from_dict(response.json())

        return response_415

    if response.status_code == 429:
        response_429 = OpenAiError.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = OpenAiError.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = OpenAiError.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = OpenAiError.from_dict(response.json())

        return response_503

    if response.status_code == 504:
        response_504 = OpenAiError.from_dict(response.json())

        return response_504

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[OpenAiError | OpenAiResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ResponseCreateRequest,
) -> Response[OpenAiError | OpenAiResponse]:
    """Create a response (OpenAI-compatible)

     Runs the input's last (user) message as a Parley turn. `stream: true` streams the
    response's events; `background: true` answers at once (`queued`) and the turn
    runs on; otherwise it answers with the finished response. `previous_response_id`
    continues that response's conversation; without it, a new one (earlier input
    messages imported as history). Parley's functions appear as answered `mcp_call`
    items (server `parley`); the caller's own (`tools`) as `function_call` items that
    end the response while the turn waits, and a request whose input ends with their
    `function_call_output`s continues the turn as a new response.

    Args:
        body (ResponseCreateRequest): `POST /openai/v1/responses`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiResponse]
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
    body: ResponseCreateRequest,
) -> OpenAiError | OpenAiResponse | None:
    """Create a response (OpenAI-compatible)

     Runs the input's last (user) message as a Parley turn. `stream: true` streams the
    response's events; `background: true` answers at once (`queued`) and the turn
    runs on; otherwise it answers with the finished response. `previous_response_id`
    continues that response's conversation; without it, a new one (earlier input
    messages imported as history). Parley's functions appear as answered `mcp_call`
    items (server `parley`); the caller's own (`tools`) as `function_call` items that
    end the response while the turn waits, and a request whose input ends with their
    `function_call_output`s continues the turn as a new response.

    Args:
        body (ResponseCreateRequest): `POST /openai/v1/responses`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ResponseCreateRequest,
) -> Response[OpenAiError | OpenAiResponse]:
    """Create a response (OpenAI-compatible)

     Runs the input's last (user) message as a Parley turn. `stream: true` streams the
    response's events; `background: true` answers at once (`queued`) and the turn
    runs on; otherwise it answers with the finished response. `previous_response_id`
    continues that response's conversation; without it, a new one (earlier input
    messages imported as history). Parley's functions appear as answered `mcp_call`
    items (server `parley`); the caller's own (`tools`) as `function_call` items that
    end the response while the turn waits, and a request whose input ends with their
    `function_call_output`s continues the turn as a new response.

    Args:
        body (ResponseCreateRequest): `POST /openai/v1/responses`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ResponseCreateRequest,
) -> OpenAiError | OpenAiResponse | None:
    """Create a response (OpenAI-compatible)

     Runs the input's last (user) message as a Parley turn. `stream: true` streams the
    response's events; `background: true` answers at once (`queued`) and the turn
    runs on; otherwise it answers with the finished response. `previous_response_id`
    continues that response's conversation; without it, a new one (earlier input
    messages imported as history). Parley's functions appear as answered `mcp_call`
    items (server `parley`); the caller's own (`tools`) as `function_call` items that
    end the response while the turn waits, and a request whose input ends with their
    `function_call_output`s continues the turn as a new response.

    Args:
        body (ResponseCreateRequest): `POST /openai/v1/responses`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
