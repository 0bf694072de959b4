import datetime
from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.exported_conversation import ExportedConversation
from ...models.problem import Problem
from ...models.rating import Rating
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    model: str | Unset = UNSET,
    rating: Rating | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.isoformat()
    params["from"] = json_from_

    json_to: str | Unset = UNSET
    if not isinstance(to, Unset):
        json_to = to.isoformat()
    params["to"] = json_to

    json_tool_id: str | Unset = UNSET
    if not isinstance(tool_id, Unset):
        json_tool_id = str(tool_id)
    params["tool_id"] = json_tool_id

    params["model"] = model

    json_rating: str | Unset = UNSET
    if not isinstance(rating, Unset):
        json_rating = rating.value

    params["rating"] = json_rating

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/admin/exports/conversations",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ExportedConversation | Problem | None:
    if response.status_code == 200:
        response_200 = ExportedConversation.from_dict(response.text)

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[ExportedConversation | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    model: str | Unset = UNSET,
    rating: Rating | Unset = UNSET,
) -> Response[ExportedConversation | Problem]:
    """Export conversations

     Conversations as JSONL in OpenAI's chat fine-tuning format, one per line: each
    session's active branch (its stored, redacted text; function calls as
    `tool_calls` and `tool` messages), oldest session first, streamed as it is read.
    Filters: sessions started in the window, with a chat tool, with an answer on the
    branch by a model, or with an answer on the branch rated so.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        tool_id (UUID | Unset):
        model (str | Unset):
        rating (Rating | Unset): What a user thought of an answer: thumbs `up` or `down`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ExportedConversation | Problem]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        tool_id=tool_id,
        model=model,
        rating=rating,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    model: str | Unset = UNSET,
    rating: Rating | Unset = UNSET,
) -> ExportedConversation | Problem | None:
    """Export conversations

     Conversations as JSONL in OpenAI's chat fine-tuning format, one per line: each
    session's active branch (its stored, redacted text; function calls as
    `tool_calls` and `tool` messages), oldest session first, streamed as it is read.
    Filters: sessions started in the window, with a chat tool, with an answer on the
    branch by a model, or with an answer on the branch rated so.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        tool_id (UUID | Unset):
        model (str | Unset):
        rating (Rating | Unset): What a user thought of an answer: thumbs `up` or `down`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ExportedConversation | Problem
    """

    return sync_detailed(
        client=client,
        from_=from_,
        to=to,
        tool_id=tool_id,
        model=model,
        rating=rating,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    model: str | Unset = UNSET,
    rating: Rating | Unset = UNSET,
) -> Response[ExportedConversation | Problem]:
    """Export conversations

     Conversations as JSONL in OpenAI's chat fine-tuning format, one per line: each
    session's active branch (its stored, redacted text; function calls as
    `tool_calls` and `tool` messages), oldest session first, streamed as it is read.
    Filters: sessions started in the window, with a chat tool, with an answer on the
    branch by a model, or with an answer on the branch rated so.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        tool_id (UUID | Unset):
        model (str | Unset):
        rating (Rating | Unset): What a user thought of an answer: thumbs `up` or `down`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ExportedConversation | Problem]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        tool_id=tool_id,
        model=model,
        rating=rating,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    model: str | Unset = UNSET,
    rating: Rating | Unset = UNSET,
) -> ExportedConversation | Problem | None:
    """Export conversations

     Conversations as JSONL in OpenAI's chat fine-tuning format, one per line: each
    session's active branch (its stored, redacted text; function calls as
    `tool_calls` and `tool` messages), oldest session first, streamed as it is read.
    Filters: sessions started in the window, with a chat tool, with an answer on the
    branch by a model, or with an answer on the branch rated so.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        tool_id (UUID | Unset):
        model (str | Unset):
        rating (Rating | Unset): What a user thought of an answer: thumbs `up` or `down`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ExportedConversation | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            from_=from_,
            to=to,
            tool_id=tool_id,
            model=model,
            rating=rating,
        )
    ).parsed
