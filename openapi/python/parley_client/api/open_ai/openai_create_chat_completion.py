from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.chat_completion import ChatCompletion
from ...models.chat_completion_request import ChatCompletionRequest
from ...models.open_ai_error import OpenAiError
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ChatCompletionRequest,
    parley_conversation: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(parley_conversation, Unset):
        headers["Parley-Conversation"] = parley_conversation

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/openai/v1/chat/completions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json; charset=utf-8"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ChatCompletion | OpenAiError | None:
    if response.status_code == 200:
        response_200 = ChatCompletion.from_dict(response.json())

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
) -> Response[ChatCompletion | OpenAiError]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ChatCompletionRequest,
    parley_conversation: str | Unset = UNSET,
) -> Response[ChatCompletion | OpenAiError]:
    """Create a chat completion (OpenAI-compatible)

     Runs the last (user) message as a Parley turn and answers with the completion, or
    streams `chat.completion.chunk` events (`stream: true`). A new conversation each
    time, its earlier messages imported as history; with `Parley-Conversation` the
    conversation is kept on the server and only the last message is sent. The chat
    tool's functions run on the server and are shown in the text; the caller's own
    (`tools`) come back as `tool_calls`, and a request whose messages end with their
    `tool` results continues the same turn.

    Args:
        parley_conversation (str | Unset):
        body (ChatCompletionRequest): `POST /openai/v1/chat/completions`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChatCompletion | OpenAiError]
    """

    kwargs = _get_kwargs(
        body=body,
        parley_conversation=parley_conversation,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: ChatCompletionRequest,
    parley_conversation: str | Unset = UNSET,
) -> ChatCompletion | OpenAiError | None:
    """Create a chat completion (OpenAI-compatible)

     Runs the last (user) message as a Parley turn and answers with the completion, or
    streams `chat.completion.chunk` events (`stream: true`). A new conversation each
    time, its earlier messages imported as history; with `Parley-Conversation` the
    conversation is kept on the server and only the last message is sent. The chat
    tool's functions run on the server and are shown in the text; the caller's own
    (`tools`) come back as `tool_calls`, and a request whose messages end with their
    `tool` results continues the same turn.

    Args:
        parley_conversation (str | Unset):
        body (ChatCompletionRequest): `POST /openai/v1/chat/completions`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChatCompletion | OpenAiError
    """

    return sync_detailed(
        client=client,
        body=body,
        parley_conversation=parley_conversation,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ChatCompletionRequest,
    parley_conversation: str | Unset = UNSET,
) -> Response[ChatCompletion | OpenAiError]:
    """Create a chat completion (OpenAI-compatible)

     Runs the last (user) message as a Parley turn and answers with the completion, or
    streams `chat.completion.chunk` events (`stream: true`). A new conversation each
    time, its earlier messages imported as history; with `Parley-Conversation` the
    conversation is kept on the server and only the last message is sent. The chat
    tool's functions run on the server and are shown in the text; the caller's own
    (`tools`) come back as `tool_calls`, and a request whose messages end with their
    `tool` results continues the same turn.

    Args:
        parley_conversation (str | Unset):
        body (ChatCompletionRequest): `POST /openai/v1/chat/completions`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChatCompletion | OpenAiError]
    """

    kwargs = _get_kwargs(
        body=body,
        parley_conversation=parley_conversation,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ChatCompletionRequest,
    parley_conversation: str | Unset = UNSET,
) -> ChatCompletion | OpenAiError | None:
    """Create a chat completion (OpenAI-compatible)

     Runs the last (user) message as a Parley turn and answers with the completion, or
    streams `chat.completion.chunk` events (`stream: true`). A new conversation each
    time, its earlier messages imported as history; with `Parley-Conversation` the
    conversation is kept on the server and only the last message is sent. The chat
    tool's functions run on the server and are shown in the text; the caller's own
    (`tools`) come back as `tool_calls`, and a request whose messages end with their
    `tool` results continues the same turn.

    Args:
        parley_conversation (str | Unset):
        body (ChatCompletionRequest): `POST /openai/v1/chat/completions`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChatCompletion | OpenAiError
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            parley_conversation=parley_conversation,
        )
    ).parsed
