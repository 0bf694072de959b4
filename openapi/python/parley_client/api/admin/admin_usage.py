import datetime
from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_usage_group import PageUsageGroup
from ...models.problem import Problem
from ...models.usage_group_by import UsageGroupBy
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    group_by: UsageGroupBy | Unset = UNSET,
    model: str | Unset = UNSET,
    user_id: UUID | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    group_id: UUID | Unset = UNSET,
    day: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
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

    json_group_by: str | Unset = UNSET
    if not isinstance(group_by, Unset):
        json_group_by = group_by.value

    params["group_by"] = json_group_by

    params["model"] = model

    json_user_id: str | Unset = UNSET
    if not isinstance(user_id, Unset):
        json_user_id = str(user_id)
    params["user_id"] = json_user_id

    json_tool_id: str | Unset = UNSET
    if not isinstance(tool_id, Unset):
        json_tool_id = str(tool_id)
    params["tool_id"] = json_tool_id

    json_group_id: str | Unset = UNSET
    if not isinstance(group_id, Unset):
        json_group_id = str(group_id)
    params["group_id"] = json_group_id

    params["day"] = day

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/admin/usage",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageUsageGroup | Problem | None:
    if response.status_code == 200:
        response_200 = PageUsageGroup.from_dict(response.json())

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
) -> Response[PageUsageGroup | Problem]:
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
    group_by: UsageGroupBy | Unset = UNSET,
    model: str | Unset = UNSET,
    user_id: UUID | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    group_id: UUID | Unset = UNSET,
    day: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageUsageGroup | Problem]:
    """Usage of models

     LLM calls in a window — calls, tokens, cost (with its currency), time to first
    token and latency percentiles — grouped by day, model, user, tool or group, in key
    order, paged by group; users, tools and groups carry their names beside their
    ids. `GET /v1/admin/usage/calls` lists the calls behind a group (same filters).

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        group_by (UsageGroupBy | Unset): How `GET /v1/admin/usage` groups LLM calls.
        model (str | Unset):
        user_id (UUID | Unset):
        tool_id (UUID | Unset):
        group_id (UUID | Unset):
        day (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageUsageGroup | Problem]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        group_by=group_by,
        model=model,
        user_id=user_id,
        tool_id=tool_id,
        group_id=group_id,
        day=day,
        limit=limit,
        cursor=cursor,
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
    group_by: UsageGroupBy | Unset = UNSET,
    model: str | Unset = UNSET,
    user_id: UUID | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    group_id: UUID | Unset = UNSET,
    day: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageUsageGroup | Problem | None:
    """Usage of models

     LLM calls in a window — calls, tokens, cost (with its currency), time to first
    token and latency percentiles — grouped by day, model, user, tool or group, in key
    order, paged by group; users, tools and groups carry their names beside their
    ids. `GET /v1/admin/usage/calls` lists the calls behind a group (same filters).

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        group_by (UsageGroupBy | Unset): How `GET /v1/admin/usage` groups LLM calls.
        model (str | Unset):
        user_id (UUID | Unset):
        tool_id (UUID | Unset):
        group_id (UUID | Unset):
        day (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageUsageGroup | Problem
    """

    return sync_detailed(
        client=client,
        from_=from_,
        to=to,
        group_by=group_by,
        model=model,
        user_id=user_id,
        tool_id=tool_id,
        group_id=group_id,
        day=day,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    group_by: UsageGroupBy | Unset = UNSET,
    model: str | Unset = UNSET,
    user_id: UUID | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    group_id: UUID | Unset = UNSET,
    day: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageUsageGroup | Problem]:
    """Usage of models

     LLM calls in a window — calls, tokens, cost (with its currency), time to first
    token and latency percentiles — grouped by day, model, user, tool or group, in key
    order, paged by group; users, tools and groups carry their names beside their
    ids. `GET /v1/admin/usage/calls` lists the calls behind a group (same filters).

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        group_by (UsageGroupBy | Unset): How `GET /v1/admin/usage` groups LLM calls.
        model (str | Unset):
        user_id (UUID | Unset):
        tool_id (UUID | Unset):
        group_id (UUID | Unset):
        day (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageUsageGroup | Problem]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        group_by=group_by,
        model=model,
        user_id=user_id,
        tool_id=tool_id,
        group_id=group_id,
        day=day,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    group_by: UsageGroupBy | Unset = UNSET,
    model: str | Unset = UNSET,
    user_id: UUID | Unset = UNSET,
    tool_id: UUID | Unset = UNSET,
    group_id: UUID | Unset = UNSET,
    day: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageUsageGroup | Problem | None:
    """Usage of models

     LLM calls in a window — calls, tokens, cost (with its currency), time to first
    token and latency percentiles — grouped by day, model, user, tool or group, in key
    order, paged by group; users, tools and groups carry their names beside their
    ids. `GET /v1/admin/usage/calls` lists the calls behind a group (same filters).

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        group_by (UsageGroupBy | Unset): How `GET /v1/admin/usage` groups LLM calls.
        model (str | Unset):
        user_id (UUID | Unset):
        tool_id (UUID | Unset):
        group_id (UUID | Unset):
        day (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageUsageGroup | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            from_=from_,
            to=to,
            group_by=group_by,
            model=model,
            user_id=user_id,
            tool_id=tool_id,
            group_id=group_id,
            day=day,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
