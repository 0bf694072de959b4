import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.prompt_stats import PromptStats
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    stuck_after_s: int | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["stuck_after_s"] = stuck_after_s

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.isoformat()
    params["from"] = json_from_

    json_to: str | Unset = UNSET
    if not isinstance(to, Unset):
        json_to = to.isoformat()
    params["to"] = json_to

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/admin/prompts/stats",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | PromptStats | None:
    if response.status_code == 200:
        response_200 = PromptStats.from_dict(response.json())

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
) -> Response[Problem | PromptStats]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    stuck_after_s: int | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
) -> Response[Problem | PromptStats]:
    """Prompt statistics

     How many prompts created in the window are in each state, the prompts in flight
    and those still unfinished long after they were created (stuck), oldest first,
    with their users' and tools' names. Cancel one with
    `POST /v1/admin/prompts/{id}/cancel`.

    Args:
        stuck_after_s (int | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | PromptStats]
    """

    kwargs = _get_kwargs(
        stuck_after_s=stuck_after_s,
        from_=from_,
        to=to,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    stuck_after_s: int | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
) -> Problem | PromptStats | None:
    """Prompt statistics

     How many prompts created in the window are in each state, the prompts in flight
    and those still unfinished long after they were created (stuck), oldest first,
    with their users' and tools' names. Cancel one with
    `POST /v1/admin/prompts/{id}/cancel`.

    Args:
        stuck_after_s (int | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | PromptStats
    """

    return sync_detailed(
        client=client,
        stuck_after_s=stuck_after_s,
        from_=from_,
        to=to,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    stuck_after_s: int | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
) -> Response[Problem | PromptStats]:
    """Prompt statistics

     How many prompts created in the window are in each state, the prompts in flight
    and those still unfinished long after they were created (stuck), oldest first,
    with their users' and tools' names. Cancel one with
    `POST /v1/admin/prompts/{id}/cancel`.

    Args:
        stuck_after_s (int | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | PromptStats]
    """

    kwargs = _get_kwargs(
        stuck_after_s=stuck_after_s,
        from_=from_,
        to=to,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    stuck_after_s: int | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
) -> Problem | PromptStats | None:
    """Prompt statistics

     How many prompts created in the window are in each state, the prompts in flight
    and those still unfinished long after they were created (stuck), oldest first,
    with their users' and tools' names. Cancel one with
    `POST /v1/admin/prompts/{id}/cancel`.

    Args:
        stuck_after_s (int | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | PromptStats
    """

    return (
        await asyncio_detailed(
            client=client,
            stuck_after_s=stuck_after_s,
            from_=from_,
            to=to,
        )
    ).parsed
