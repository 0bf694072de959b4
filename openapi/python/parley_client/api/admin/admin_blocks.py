import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.block_report import BlockReport
from ...models.blocks_group_by import BlocksGroupBy
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    group_by: BlocksGroupBy | Unset = UNSET,
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

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/admin/blocks",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> BlockReport | Problem | None:
    if response.status_code == 200:
        response_200 = BlockReport.from_dict(response.json())

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
) -> Response[BlockReport | Problem]:
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
    group_by: BlocksGroupBy | Unset = UNSET,
) -> Response[BlockReport | Problem]:
    """Block metrics

     What modules did at their hooks in a window, by module or day: runs, blocks,
    modifications, errors and timeouts with their rates, the 95th percentile of the
    hook latency, and blocks and modifications by category.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        group_by (BlocksGroupBy | Unset): How `GET /v1/admin/blocks` groups module runs.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BlockReport | Problem]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        group_by=group_by,
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
    group_by: BlocksGroupBy | Unset = UNSET,
) -> BlockReport | Problem | None:
    """Block metrics

     What modules did at their hooks in a window, by module or day: runs, blocks,
    modifications, errors and timeouts with their rates, the 95th percentile of the
    hook latency, and blocks and modifications by category.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        group_by (BlocksGroupBy | Unset): How `GET /v1/admin/blocks` groups module runs.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BlockReport | Problem
    """

    return sync_detailed(
        client=client,
        from_=from_,
        to=to,
        group_by=group_by,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    group_by: BlocksGroupBy | Unset = UNSET,
) -> Response[BlockReport | Problem]:
    """Block metrics

     What modules did at their hooks in a window, by module or day: runs, blocks,
    modifications, errors and timeouts with their rates, the 95th percentile of the
    hook latency, and blocks and modifications by category.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        group_by (BlocksGroupBy | Unset): How `GET /v1/admin/blocks` groups module runs.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BlockReport | Problem]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        group_by=group_by,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    group_by: BlocksGroupBy | Unset = UNSET,
) -> BlockReport | Problem | None:
    """Block metrics

     What modules did at their hooks in a window, by module or day: runs, blocks,
    modifications, errors and timeouts with their rates, the 95th percentile of the
    hook latency, and blocks and modifications by category.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        group_by (BlocksGroupBy | Unset): How `GET /v1/admin/blocks` groups module runs.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BlockReport | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            from_=from_,
            to=to,
            group_by=group_by,
        )
    ).parsed
