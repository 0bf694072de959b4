from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.open_ai_error import OpenAiError
from ...models.open_ai_model_list import OpenAiModelList
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/openai/v1/models",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> OpenAiError | OpenAiModelList | None:
    if response.status_code == 200:
        response_200 = OpenAiModelList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = OpenAiError.from_dict(response.json())

        return response_401

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
) -> Response[OpenAiError | OpenAiModelList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[OpenAiError | OpenAiModelList]:
    """List models (OpenAI-compatible)

     The chat tools the caller may use (`tool:<id>`, named by the tool) and the
    deployment's models, in OpenAI's list shape.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiModelList]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> OpenAiError | OpenAiModelList | None:
    """List models (OpenAI-compatible)

     The chat tools the caller may use (`tool:<id>`, named by the tool) and the
    deployment's models, in OpenAI's list shape.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiModelList
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[OpenAiError | OpenAiModelList]:
    """List models (OpenAI-compatible)

     The chat tools the caller may use (`tool:<id>`, named by the tool) and the
    deployment's models, in OpenAI's list shape.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiModelList]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> OpenAiError | OpenAiModelList | None:
    """List models (OpenAI-compatible)

     The chat tools the caller may use (`tool:<id>`, named by the tool) and the
    deployment's models, in OpenAI's list shape.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiModelList
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
