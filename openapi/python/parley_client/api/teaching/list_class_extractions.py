import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_teaching_extraction import PageTeachingExtraction
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    assignment_id: UUID | Unset = UNSET,
    student_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    module: str | Unset = UNSET,
    type_: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_assignment_id: str | Unset = UNSET
    if not isinstance(assignment_id, Unset):
        json_assignment_id = str(assignment_id)
    params["assignment_id"] = json_assignment_id

    json_student_id: str | Unset = UNSET
    if not isinstance(student_id, Unset):
        json_student_id = str(student_id)
    params["student_id"] = json_student_id

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.isoformat()
    params["from"] = json_from_

    json_to: str | Unset = UNSET
    if not isinstance(to, Unset):
        json_to = to.isoformat()
    params["to"] = json_to

    params["module"] = module

    params["type"] = type_

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/teaching/classes/{id}/extractions".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageTeachingExtraction | Problem | None:
    if response.status_code == 200:
        response_200 = PageTeachingExtraction.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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
) -> Response[PageTeachingExtraction | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    assignment_id: UUID | Unset = UNSET,
    student_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    module: str | Unset = UNSET,
    type_: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageTeachingExtraction | Problem]:
    """List a class's extractions

     What modules recorded about the class's sessions (detected personal data, safety
    flags, struggle or misconception signals a module emits, …), newest first, each
    with the session and message it is about and the student's and assignment's
    names. An assignment of another class or a student not in the class: 404.

    Args:
        id (UUID):
        assignment_id (UUID | Unset):
        student_id (UUID | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        module (str | Unset):
        type_ (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageTeachingExtraction | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        assignment_id=assignment_id,
        student_id=student_id,
        from_=from_,
        to=to,
        module=module,
        type_=type_,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    assignment_id: UUID | Unset = UNSET,
    student_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    module: str | Unset = UNSET,
    type_: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageTeachingExtraction | Problem | None:
    """List a class's extractions

     What modules recorded about the class's sessions (detected personal data, safety
    flags, struggle or misconception signals a module emits, …), newest first, each
    with the session and message it is about and the student's and assignment's
    names. An assignment of another class or a student not in the class: 404.

    Args:
        id (UUID):
        assignment_id (UUID | Unset):
        student_id (UUID | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        module (str | Unset):
        type_ (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageTeachingExtraction | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        assignment_id=assignment_id,
        student_id=student_id,
        from_=from_,
        to=to,
        module=module,
        type_=type_,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    assignment_id: UUID | Unset = UNSET,
    student_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    module: str | Unset = UNSET,
    type_: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> Response[PageTeachingExtraction | Problem]:
    """List a class's extractions

     What modules recorded about the class's sessions (detected personal data, safety
    flags, struggle or misconception signals a module emits, …), newest first, each
    with the session and message it is about and the student's and assignment's
    names. An assignment of another class or a student not in the class: 404.

    Args:
        id (UUID):
        assignment_id (UUID | Unset):
        student_id (UUID | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        module (str | Unset):
        type_ (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageTeachingExtraction | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        assignment_id=assignment_id,
        student_id=student_id,
        from_=from_,
        to=to,
        module=module,
        type_=type_,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    assignment_id: UUID | Unset = UNSET,
    student_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    module: str | Unset = UNSET,
    type_: str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
) -> PageTeachingExtraction | Problem | None:
    """List a class's extractions

     What modules recorded about the class's sessions (detected personal data, safety
    flags, struggle or misconception signals a module emits, …), newest first, each
    with the session and message it is about and the student's and assignment's
    names. An assignment of another class or a student not in the class: 404.

    Args:
        id (UUID):
        assignment_id (UUID | Unset):
        student_id (UUID | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        module (str | Unset):
        type_ (str | Unset):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageTeachingExtraction | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            assignment_id=assignment_id,
            student_id=student_id,
            from_=from_,
            to=to,
            module=module,
            type_=type_,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
