from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.file import File
from ...models.problem import Problem
from ...models.upload_file_body import UploadFileBody
from ...types import Response


def _get_kwargs(
    *,
    body: UploadFileBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/files",
    }

    _kwargs["files"] = body.to_multipart()

    headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> File | Problem | None:
    if response.status_code == 201:
        response_201 = File.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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
) -> Response[File | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: UploadFileBody,
) -> Response[File | Problem]:
    """Upload a file

     Stores a file to attach to messages (`attachments` of `POST
    /v1/sessions/{id}/messages`). Its type is read from its content: UTF-8 text, a PDF
    (its text is extracted) or a PNG, JPEG, GIF or WebP image; anything else is 415.
    413 above the deployment's size limit (`files.max_file_bytes`), 422
    `unreadable_file` for an empty file, a PDF without text or one that cannot be read.

    Args:
        body (UploadFileBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[File | Problem]
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
    body: UploadFileBody,
) -> File | Problem | None:
    """Upload a file

     Stores a file to attach to messages (`attachments` of `POST
    /v1/sessions/{id}/messages`). Its type is read from its content: UTF-8 text, a PDF
    (its text is extracted) or a PNG, JPEG, GIF or WebP image; anything else is 415.
    413 above the deployment's size limit (`files.max_file_bytes`), 422
    `unreadable_file` for an empty file, a PDF without text or one that cannot be read.

    Args:
        body (UploadFileBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        File | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: UploadFileBody,
) -> Response[File | Problem]:
    """Upload a file

     Stores a file to attach to messages (`attachments` of `POST
    /v1/sessions/{id}/messages`). Its type is read from its content: UTF-8 text, a PDF
    (its text is extracted) or a PNG, JPEG, GIF or WebP image; anything else is 415.
    413 above the deployment's size limit (`files.max_file_bytes`), 422
    `unreadable_file` for an empty file, a PDF without text or one that cannot be read.

    Args:
        body (UploadFileBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[File | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: UploadFileBody,
) -> File | Problem | None:
    """Upload a file

     Stores a file to attach to messages (`attachments` of `POST
    /v1/sessions/{id}/messages`). Its type is read from its content: UTF-8 text, a PDF
    (its text is extracted) or a PNG, JPEG, GIF or WebP image; anything else is 415.
    413 above the deployment's size limit (`files.max_file_bytes`), 422
    `unreadable_file` for an empty file, a PDF without text or one that cannot be read.

    Args:
        body (UploadFileBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        File | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
