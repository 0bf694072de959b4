import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.module_outcome import ModuleOutcome
from ...models.page_block_event import PageBlockEvent
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    module: str | Unset = UNSET,
    outcome: ModuleOutcome | Unset = UNSET,
    category: str | Unset = UNSET,
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

    params["module"] = module

    json_outcome: str | Unset = UNSET
    if not isinstance(outcome, Unset):
        json_outcome = outcome.value

    params["outcome"] = json_outcome

    params["category"] = category

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/admin/blocks/events",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageBlockEvent | Problem | None:
    if response.status_code == 200:
        response_200 = PageBlockEvent.from_dict(response.json())

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
) -> Response[PageBlockEvent | Problem]:
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
    module: str | Unset = UNSET,
    outcome: ModuleOutcome | Unset = UNSET,
    category: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageBlockEvent | Problem]:
    """Module events

     The module runs behind `GET /v1/admin/blocks`' figures, filtered by module,
    outcome and category (`uncategorized`: recorded without one), newest first.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        module (str | Unset):
        outcome (ModuleOutcome | Unset): What a module decided at one hook run.
        category (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageBlockEvent | Problem]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        module=module,
        outcome=outcome,
        category=category,
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
    module: str | Unset = UNSET,
    outcome: ModuleOutcome | Unset = UNSET,
    category: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageBlockEvent | Problem | None:
    """Module events

     The module runs behind `GET /v1/admin/blocks`' figures, filtered by module,
    outcome and category (`uncategorized`: recorded without one), newest first.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        module (str | Unset):
        outcome (ModuleOutcome | Unset): What a module decided at one hook run.
        category (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageBlockEvent | Problem
    """

    return sync_detailed(
        client=client,
        from_=from_,
        to=to,
        module=module,
        outcome=outcome,
        category=category,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    module: str | Unset = UNSET,
    outcome: ModuleOutcome | Unset = UNSET,
    category: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageBlockEvent | Problem]:
    """Module events

     The module runs behind `GET /v1/admin/blocks`' figures, filtered by module,
    outcome and category (`uncategorized`: recorded without one), newest first.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        module (str | Unset):
        outcome (ModuleOutcome | Unset): What a module decided at one hook run.
        category (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageBlockEvent | Problem]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        module=module,
        outcome=outcome,
        category=category,
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
    module: str | Unset = UNSET,
    outcome: ModuleOutcome | Unset = UNSET,
    category: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageBlockEvent | Problem | None:
    """Module events

     The module runs behind `GET /v1/admin/blocks`' figures, filtered by module,
    outcome and category (`uncategorized`: recorded without one), newest first.

    Args:
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        module (str | Unset):
        outcome (ModuleOutcome | Unset): What a module decided at one hook run.
        category (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageBlockEvent | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            from_=from_,
            to=to,
            module=module,
            outcome=outcome,
            category=category,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
