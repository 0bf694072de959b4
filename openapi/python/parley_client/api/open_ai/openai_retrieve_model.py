from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.open_ai_error import OpenAiError
from ...models.open_ai_model import OpenAiModel
from ...types import Response


def _get_kwargs(
    model: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/openai/v1/models/{model}".format(
            model=quote(str(model), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> OpenAiError | OpenAiModel | None:
    if response.status_code == 200:
        response_200 = OpenAiModel.from_dict(response.json())

        return response_200

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
) -> Response[OpenAiError | OpenAiModel]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    model: str,
    *,
    client: AuthenticatedClient,
) -> Response[OpenAiError | OpenAiModel]:
    """Retrieve a model (OpenAI-compatible)

     One entry of `GET /models`: a chat tool the caller may use (`tool:<id>`) or one of
    the deployment's models; 404 `model_not_found` for any other id.

    Args:
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiModel]
    """

    kwargs = _get_kwargs(
        model=model,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    model: str,
    *,
    client: AuthenticatedClient,
) -> OpenAiError | OpenAiModel | None:
    """Retrieve a model (OpenAI-compatible)

     One entry of `GET /models`: a chat tool the caller may use (`tool:<id>`) or one of
    the deployment's models; 404 `model_not_found` for any other id.

    Args:
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiModel
    """

    return sync_detailed(
        model=model,
        client=client,
    ).parsed


async def asyncio_detailed(
    model: str,
    *,
    client: AuthenticatedClient,
) -> Response[OpenAiError | OpenAiModel]:
    """Retrieve a model (OpenAI-compatible)

     One entry of `GET /models`: a chat tool the caller may use (`tool:<id>`) or one of
    the deployment's models; 404 `model_not_found` for any other id.

    Args:
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAiError | OpenAiModel]
    """

    kwargs = _get_kwargs(
        model=model,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    model: str,
    *,
    client: AuthenticatedClient,
) -> OpenAiError | OpenAiModel | None:
    """Retrieve a model (OpenAI-compatible)

     One entry of `GET /models`: a chat tool the caller may use (`tool:<id>`) or one of
    the deployment's models; 404 `model_not_found` for any other id.

    Args:
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAiError | OpenAiModel
    """

    return (
        await asyncio_detailed(
            model=model,
            client=client,
        )
    ).parsed
