from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.open_ai_error import OpenAiError
from ...models.open_ai_response import OpenAiResponse
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/openai/v1/responses/{id}/cancel".format(
            id=quote(str(id), safe=""),
        ),
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
) -> Response[OpenAiError | OpenAiResponse]:
    """Cancel a response (OpenAI-compatible)

     Cancels the turn (durably, like `POST /v1/prompts/{id}/cancel`) and answers with
    the response once it ended (or as it stands after a few seconds). A cancelled
    response answers again as it is; a finished one cannot be cancelled (400).

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiResponse]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
) -> OpenAiError | OpenAiResponse | None:
    """Cancel a response (OpenAI-compatible)

     Cancels the turn (durably, like `POST /v1/prompts/{id}/cancel`) and answers with
    the response once it ended (or as it stands after a few seconds). A cancelled
    response answers again as it is; a finished one cannot be cancelled (400).

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiResponse
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Response[OpenAiError | OpenAiResponse]:
    """Cancel a response (OpenAI-compatible)

     Cancels the turn (durably, like `POST /v1/prompts/{id}/cancel`) and answers with
    the response once it ended (or as it stands after a few seconds). A cancelled
    response answers again as it is; a finished one cannot be cancelled (400).

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiResponse]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
) -> OpenAiError | OpenAiResponse | None:
    """Cancel a response (OpenAI-compatible)

     Cancels the turn (durably, like `POST /v1/prompts/{id}/cancel`) and answers with
    the response once it ended (or as it stands after a few seconds). A cancelled
    response answers again as it is; a finished one cannot be cancelled (400).

    Args:
        id (str):

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
        )
    ).parsed
