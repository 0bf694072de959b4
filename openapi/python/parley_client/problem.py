"""Parley's errors as Python exceptions (hand-written; kept by generate.sh).

Every error Parley answers is an RFC 9457 problem, `application/problem+json`, with a
stable `code` (`not_found`, `validation_failed`, …), the HTTP `status`, a `title` and a
`detail` for a person to read (and, for a body that does not fit, the `param` it fails
at). The generated operations return it as a `parley_client.models.Problem` among their
results; `expect` turns that into a `ParleyProblem` exception and hands back the success
value otherwise:

    from parley_client.api.sessions import get_session
    from parley_client.problem import ParleyProblem, expect

    try:
        session = expect(get_session.sync_detailed(id, client=client))
    except ParleyProblem as problem:
        print(problem.status, problem.code, problem.detail)

`ParleyProblem.from_response` reads one from any `httpx.Response` (the SSE helpers of
`parley_client.feed` raise it for a feed or a send that fails).
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import httpx

from .models.problem import Problem
from .types import Response

T = TypeVar("T")

PROBLEM_JSON = "application/problem+json"


class ParleyProblem(Exception):
    """An error answer of Parley: its problem's `code`, `status`, `detail`, and the rest."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        title: str = "",
        *,
        type: str = "about:blank",
        instance: str | None = None,
        request_id: str | None = None,
        param: str | None = None,
        body: Any = None,
    ) -> None:
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title
        self.type = type
        self.instance = instance
        self.request_id = request_id
        #: The request body's field at fault (`content`, `input[1].role`), when named.
        self.param = param
        #: The problem as it was received (a dict), or the body that was not one.
        self.body = body
        super().__init__(f"{status} {code}: {detail}" if detail else f"{status} {code}")

    @classmethod
    def from_problem(cls, problem: Problem | dict[str, Any], status: int | None = None) -> ParleyProblem:
        """From a generated `Problem` model or a problem's JSON object."""
        body = problem.to_dict() if isinstance(problem, Problem) else dict(problem)
        return cls(
            status=int(body.get("status") or status or 0),
            code=str(body.get("code") or "unknown"),
            detail=str(body.get("detail") or ""),
            title=str(body.get("title") or ""),
            type=str(body.get("type") or "about:blank"),
            instance=body.get("instance"),
            request_id=body.get("request_id"),
            param=body.get("param"),
            body=body,
        )

    @classmethod
    def from_response(cls, response: httpx.Response | Response[Any]) -> ParleyProblem:
        """From an error response: its problem when the body is one, else what it says."""
        status = int(response.status_code)
        content = response.read() if isinstance(response, httpx.Response) else response.content
        try:
            body = json.loads(content) if content else None
        except ValueError:
            body = None
        if isinstance(body, dict) and "code" in body:
            return cls.from_problem(body, status)
        text = content.decode("utf-8", "replace") if content else ""
        return cls(status=status, code=f"http_{status}", detail=text[:500], body=body if body is not None else text)


def is_problem(response: httpx.Response) -> bool:
    """Whether `response` carries a problem (`application/problem+json`)."""
    return response.headers.get("content-type", "").split(";")[0].strip().lower() == PROBLEM_JSON


def raise_for_problem(response: httpx.Response) -> httpx.Response:
    """Raises `ParleyProblem` for an error status (4xx, 5xx); returns the response otherwise."""
    if response.status_code >= 400:
        raise ParleyProblem.from_response(response)
    return response


def expect(response: Response[T | Problem]) -> T:
    """The parsed success value of a generated `sync_detailed`/`asyncio_detailed` call.

    Raises `ParleyProblem` for an error status (with the problem Parley sent), and for a
    success that the document does not describe (`parsed` is None).
    """
    status = int(response.status_code)
    if status >= 400:
        if isinstance(response.parsed, Problem):
            return _raise(ParleyProblem.from_problem(response.parsed, status))
        return _raise(ParleyProblem.from_response(response))
    if response.parsed is None and status != 204:
        return _raise(
            ParleyProblem(status=status, code="undocumented_response", detail="the response has no documented body")
        )
    return response.parsed  # type: ignore[return-value]


def _raise(problem: ParleyProblem) -> Any:
    raise problem


__all__ = ["PROBLEM_JSON", "ParleyProblem", "expect", "is_problem", "raise_for_problem"]
