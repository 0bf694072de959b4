"""Functions the caller runs itself, through `parley_client.client_functions`: the model's
call of one is answered by `run_turn` (and `arun_turn`, with a coroutine function) and
the model reads the result; a function that raises is told to the model as a failure;
and the call as stored, read through the generated operation, carries the result."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from parley_client import AuthenticatedClient
from parley_client.api.sessions import get_prompt
from parley_client.client_functions import ClientFunction, arun_turn, call_result, run_turn
from parley_client.problem import ParleyProblem, expect

WORD = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
MEANING = {"type": "object", "properties": {"meaning": {"type": "string"}}, "required": ["meaning"]}


def dictionary(calls: list[tuple[str, Any]]) -> list[ClientFunction]:
    """`lookup` answers JSON of its `returns`; `define` raises."""

    def lookup(args: dict[str, Any]) -> dict[str, str]:
        calls.append(("lookup", args))
        return {"meaning": "cat" if args["word"] == "gato" else "?"}

    def define(args: dict[str, Any]) -> str:
        calls.append(("define", args))
        raise RuntimeError("the dictionary is offline")

    return [
        ClientFunction("lookup", lookup, description="Looks a word up.", parameters=WORD, returns=MEANING),
        ClientFunction("define", define, parameters=WORD),
    ]


def test_run_turn_runs_the_function_the_model_calls_and_the_model_reads_its_result(
    client: AuthenticatedClient, new_session
) -> None:
    calls: list[tuple[str, Any]] = []
    asks = """[[mock tool_call='lookup:{"word": "gato"}']] what is gato?"""
    events = list(run_turn(client, new_session(), asks, dictionary(calls)))
    assert calls == [("lookup", {"word": "gato"})]
    requested = [e for e in events if e["type"] == "client_call_requested"]
    assert requested and requested[0]["tool"] == "lookup", [e["type"] for e in events]
    last = events[-1]
    assert last["type"] == "complete", last
    history = last["payload"]["tool_history"]
    assert [(h["tool_name"], h["output"]) for h in history] == [("lookup", {"meaning": "cat"})]
    assert "cat" in last["payload"]["message"]

    prompt = expect(get_prompt.sync_detailed(requested[0]["prompt_id"], client=client))
    assert prompt.state.value == "completed"


def test_a_function_that_raises_is_posted_as_its_error_and_the_model_is_told(
    client: AuthenticatedClient, new_session
) -> None:
    calls: list[tuple[str, Any]] = []
    asks = """[[mock tool_call='define:{"word": "gato"}']] define gato"""
    events = list(run_turn(client, new_session(), asks, dictionary(calls)))
    assert calls == [("define", {"word": "gato"})]
    done = [e for e in events if e["type"] == "tool_complete"]
    assert done and done[-1]["state"] == "error", done
    assert events[-1]["type"] == "complete"
    assert "the dictionary is offline" in events[-1]["payload"]["message"]


def test_a_function_that_clashes_with_the_tools_own_is_a_problem(client: AuthenticatedClient, new_session) -> None:
    with pytest.raises(ParleyProblem) as refused:
        list(run_turn(client, new_session(), "what time is it?", [ClientFunction("getCurrentTime", lambda _: "noon")]))
    assert refused.value.status == 422
    assert refused.value.code == "invalid_client_function"


def test_arun_turn_awaits_a_coroutine_function(parley, new_session) -> None:
    calls: list[str] = []

    async def lookup(args: dict[str, Any]) -> dict[str, str]:
        await asyncio.sleep(0)
        calls.append(args["word"])
        return {"meaning": "cat"}

    async def run() -> list[dict[str, Any]]:
        session = new_session()
        async with AuthenticatedClient(base_url=parley.base_url, token=parley.admin_token) as aclient:
            functions = [ClientFunction("lookup", lookup, parameters=WORD, returns=MEANING)]
            asks = """[[mock tool_call='lookup:{"word": "gato"}']] what is gato?"""
            return [event async for event in arun_turn(aclient, session, asks, functions)]

    events = asyncio.run(run())
    assert calls == ["gato"]
    assert events[-1]["type"] == "complete", events[-1]
    assert events[-1]["payload"]["tool_history"][0]["output"] == {"meaning": "cat"}


def test_what_a_return_value_is_posted_as() -> None:
    plain = ClientFunction("f", lambda _: None)
    typed = ClientFunction("g", lambda _: None, returns=MEANING)
    assert call_result(plain, "noon") == {"text": "noon"}
    assert call_result(plain, {"a": 1}) == {"output": {"a": 1}}
    assert call_result(plain, [1, 2]) == {"output": [1, 2]}
    assert call_result(plain, None) == {"text": ""}
    assert call_result(typed, "noon") == {"output": "noon"}
    assert call_result(typed, None) == {"output": None}
