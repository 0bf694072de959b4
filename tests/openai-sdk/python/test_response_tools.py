"""The caller's own functions on the Responses API (#46 item 1), as the SDKs and agent
frameworks run them: the model's call is a `function_call` output item that ends the
response, the client runs it and sends a `function_call_output` item — after
`previous_response_id`, or after the whole input sent back — and the same Parley turn
goes on as a new response. The openai SDK (plain, and its `responses.stream` helper,
which accumulates the argument deltas itself), the OpenAI Agents SDK's default
(Responses) model with `Runner.run` and `Runner.run_streamed`, and LangChain's
`bind_tools` on the Responses API."""

import asyncio
import json

from agents import Agent, OpenAIResponsesModel, Runner
from openai import AsyncOpenAI
from test_client_tools import ASKS, DICTIONARY, langchain_loop, lookup

LOOKUP = {
    "type": "function",
    "name": "lookup",
    "description": "Looks a word up in the caller's dictionary.",
    "parameters": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
}


def the_call(response):
    calls = [item for item in response.output if item.type == "function_call"]
    assert len(calls) == 1, response.output
    [call] = calls
    assert call.name == "lookup"
    assert json.loads(call.arguments) == {"word": "gato"}
    return call


def test_the_openai_sdk_answers_a_function_call_by_previous_response_id(client):
    first = client.responses.create(model="mock-model", input=ASKS, tools=[LOOKUP])
    assert first.status == "completed"
    call = the_call(first)
    word = json.loads(call.arguments)["word"]
    second = client.responses.create(
        model="mock-model",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": DICTIONARY[word]}],
        tools=[LOOKUP],
    )
    assert second.status == "completed"
    assert second.output_text == "Tool result: cat"
    assert second.id != first.id
    assert client.responses.retrieve(second.id).output_text == "Tool result: cat"


def test_the_openai_sdk_sends_the_output_back_and_streams_with_its_helper(client):
    with client.responses.stream(model="mock-model", input=ASKS, tools=[LOOKUP]) as stream:
        kinds = [event.type for event in stream]
        first = stream.get_final_response()
    assert "response.function_call_arguments.delta" in kinds
    call = the_call(first)
    # `input += response.output`, then the result.
    items = [{"role": "user", "content": ASKS}] + [item.model_dump(exclude_none=True) for item in first.output]
    items.append({"type": "function_call_output", "call_id": call.call_id, "output": "cat"})
    with client.responses.stream(model="mock-model", input=items, tools=[LOOKUP]) as stream:
        text = "".join(event.delta for event in stream if event.type == "response.output_text.delta")
        second = stream.get_final_response()
    assert text == "Tool result: cat"
    assert second.output_text == text


def test_the_agents_sdk_runs_a_function_tool_on_its_responses_model(parley):
    client = AsyncOpenAI(base_url=parley.openai_url, api_key=parley.admin_token, max_retries=0)
    agent = Agent(
        name="tutor",
        model=OpenAIResponsesModel(model="mock-model", openai_client=client),
        tools=[lookup],
    )

    async def run():
        result = await Runner.run(agent, ASKS)
        streamed = Runner.run_streamed(agent, ASKS)
        kinds = [event.type async for event in streamed.stream_events()]
        # The next turn sends everything back, calls and results included.
        follow_up = await Runner.run(agent, result.to_input_list() + [{"role": "user", "content": "thanks"}])
        return result.final_output, streamed.final_output, kinds, follow_up.final_output

    final, streamed_final, kinds, follow_up = asyncio.run(run())
    assert final == "Tool result: cat"
    assert streamed_final == "Tool result: cat"
    assert "run_item_stream_event" in kinds
    assert follow_up


def test_langchain_bind_tools_runs_a_tool_calling_loop_on_the_responses_api(parley):
    langchain_loop(parley, use_responses_api=True)
