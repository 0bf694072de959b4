"""Functions the caller runs itself (hand-written; kept by generate.sh).

A message may offer the model functions of the caller's own (`client_functions`): when
the model calls one, the turn streams `client_call_requested` and waits until the caller
posts the call's result (`POST /v1/prompts/{id}/calls/{call_id}/result`); the model then
reads it. `run_turn` (and `arun_turn`, for asyncio) do all of that: they send the message
with the functions' definitions, yield the turn's events as `stream_turn` does, and answer
each request by running the function and posting what it returned.

- A function's result is posted as `output` (JSON) when it returns anything but a `str`,
  or when it declares `returns`; a `str` is posted as `text`.
- A function that raises is posted as `error` with the exception's message, and the model
  is told the call failed.
- Calls are answered one at a time, in the order they were requested; a call answered
  already (a resumed feed replays its request) is not run again. A 409 for a call (it was
  answered elsewhere, or expired) is not an error: the turn's events say what happened.

    from parley_client.client_functions import ClientFunction, run_turn

    def lookup(args):
        return {"meaning": DICTIONARY[args["word"]]}

    functions = [ClientFunction("lookup", lookup, description="Looks a word up.",
                                parameters={"type": "object",
                                            "properties": {"word": {"type": "string"}},
                                            "required": ["word"]})]
    for event in run_turn(client, session_id, "What is gato?", functions):
        ...

`arun_turn` also takes coroutine functions (`async def`).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import httpx

from .client import AuthenticatedClient
from .feed import stream_turn
from .feed_async import astream_turn
from .problem import ParleyProblem

__all__ = ["ClientFunction", "arun_turn", "call_result", "run_turn"]


@dataclass
class ClientFunction:
    """A function of the caller's, with the code that runs it: `run(arguments)`."""

    name: str
    run: Callable[[Any], Any]
    description: str | None = None
    parameters: dict[str, Any] | None = None
    returns: dict[str, Any] | None = None

    def definition(self) -> dict[str, Any]:
        """The `ClientFunction` of the message's `client_functions`."""
        fields = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "returns": self.returns,
        }
        return {key: value for key, value in fields.items() if value is not None}


def call_result(function: ClientFunction, value: Any) -> dict[str, Any]:
    """What a function's return value is posted as (see the module's doc)."""
    if isinstance(value, str) and function.returns is None:
        return {"text": value}
    if value is None:
        # A function that returns nothing answers an empty text (JSON null if it declares
        # a result).
        return {"output": None} if function.returns is not None else {"text": ""}
    return {"output": value}


def _unknown(event: dict[str, Any]) -> dict[str, Any]:
    return {"error": f"no function named {event['tool']} is offered"}


def _failed(error: BaseException) -> dict[str, Any]:
    return {"error": (str(error) or type(error).__name__)[:4096]}


def _body(body: dict[str, Any] | None, functions: Sequence[ClientFunction]) -> dict[str, Any]:
    return {**(body or {}), "client_functions": [function.definition() for function in functions]}


def _result_path(event: dict[str, Any]) -> str:
    return f"/v1/prompts/{event['prompt_id']}/calls/{event['call_id']}/result"


def _check(response: httpx.Response) -> None:
    if response.status_code >= 400 and response.status_code != 409:
        raise ParleyProblem.from_response(response)


class _Calls:
    """The functions by name, and the calls already answered."""

    def __init__(self, functions: Sequence[ClientFunction]) -> None:
        self.by_name = {function.name: function for function in functions}
        self.answered: set[str] = set()

    def pending(self, event: dict[str, Any]) -> bool:
        """Whether `event` requests a call not answered yet (it now counts as answered)."""
        if event.get("type") != "client_call_requested" or event["call_id"] in self.answered:
            return False
        self.answered.add(event["call_id"])
        return True

    def run(self, event: dict[str, Any]) -> dict[str, Any]:
        """Runs the call `event` requests; the result to post."""
        function = self.by_name.get(event["tool"])
        if function is None:
            return _unknown(event)
        try:
            return call_result(function, function.run(event["input"]))
        except Exception as error:  # the model is told; the turn goes on
            return _failed(error)

    async def arun(self, event: dict[str, Any]) -> dict[str, Any]:
        """`run`, awaiting a coroutine function."""
        function = self.by_name.get(event["tool"])
        if function is None:
            return _unknown(event)
        try:
            value = function.run(event["input"])
            return call_result(function, await value if inspect.isawaitable(value) else value)
        except Exception as error:  # the model is told; the turn goes on
            return _failed(error)


def run_turn(
    client: AuthenticatedClient,
    session_id: str | UUID,
    content: str,
    functions: Sequence[ClientFunction],
    *,
    body: dict[str, Any] | None = None,
    **options: Any,
) -> Iterator[dict[str, Any]]:
    """Sends a message offering `functions` and yields its turn's events, running each
    requested call and posting its result before reading on. `body` and `options` are
    `stream_turn`'s."""
    calls = _Calls(functions)
    http = client.get_httpx_client()
    for event in stream_turn(client, session_id, content, body=_body(body, functions), **options):
        yield event
        if calls.pending(event):
            _check(http.post(_result_path(event), json=calls.run(event)))


async def arun_turn(
    client: AuthenticatedClient,
    session_id: str | UUID,
    content: str,
    functions: Sequence[ClientFunction],
    *,
    body: dict[str, Any] | None = None,
    **options: Any,
) -> AsyncIterator[dict[str, Any]]:
    """`run_turn` for asyncio: a function may be a coroutine function."""
    calls = _Calls(functions)
    http = client.get_async_httpx_client()
    async for event in astream_turn(client, session_id, content, body=_body(body, functions), **options):
        yield event
        if calls.pending(event):
            _check(await http.post(_result_path(event), json=await calls.arun(event)))
