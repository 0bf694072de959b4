from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.open_ai_error import OpenAiError
from ...models.open_ai_response import OpenAiResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    stream: bool | Unset = UNSET,
    starting_after: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["stream"] = stream

    params["starting_after"] = starting_after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/openai/v1/responses/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

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

    if response.status_code == 404:
        response_404 = OpenAiError.from_dict(response.json())

        return response_404

    if response.status_code == 429:
        response_429 = OpenAiError.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = OpenAiError.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = OpenAiError.from_dict(response.json())

        return response_503

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
    id: str,
    *,
    client: AuthenticatedClient,
    stream: bool | Unset = UNSET,
    starting_after: int | Unset = UNSET,
) -> Response[OpenAiError | OpenAiResponse]:
    """Get a response (OpenAI-compatible)

     The response as it stands; with `stream=true`, its events (again) from the start,
    or after `starting_after` — numbered the same as when they were first streamed,
    for as long as the prompt's events are kept.

    Args:
        id (str):
        stream (bool | Unset):
        starting_after (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        stream=stream,
        starting_after=starting_after,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    stream: bool | Unset = UNSET,
    starting_after: int | Unset = UNSET,
) -> OpenAiError | OpenAiResponse | None:
    """Get a response (OpenAI-compatible)

     The response as it stands; with `stream=true`, its events (again) from the start,
    or after `starting_after` — numbered the same as when they were first streamed,
    for as long as the prompt's events are kept.

    Args:
        id (str):
        stream (bool | Unset):
        starting_after (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiResponse
    """

    return sync_detailed(
        id=id,
        client=client,
        stream=stream,
        starting_after=starting_after,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    stream: bool | Unset = UNSET,
    starting_after: int | Unset = UNSET,
) -> Response[OpenAiError | OpenAiResponse]:
    """Get a response (OpenAI-compatible)

     The response as it stands; with `stream=true`, its events (again) from the start,
    or after `starting_after` — numbered the same as when they were first streamed,
    for as long as the prompt's events are kept.

    Args:
        id (str):
        stream (bool | Unset):
        starting_after (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        stream=stream,
        starting_after=starting_after,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    stream: bool | Unset = UNSET,
    starting_after: int | Unset = UNSET,
) -> OpenAiError | OpenAiResponse | None:
    """Get a response (OpenAI-compatible)

     The response as it stands; with `stream=true`, its events (again) from the start,
    or after `starting_after` — numbered the same as when they were first streamed,
    for as long as the prompt's events are kept.

    Args:
        id (str):
        stream (bool | Unset):
        starting_after (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            stream=stream,
            starting_after=starting_after,
        )
    ).parsed
