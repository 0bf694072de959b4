"""The caller's own functions on chat completions (#46 item 1), as the SDKs and agent
frameworks run them: the model's call comes back as `tool_calls`, the client runs it and
sends the result as a `tool` message, and the same Parley turn goes on with the model
reading it. The openai SDK (plain and streamed), the OpenAI Agents SDK's `Runner.run` and
`Runner.run_streamed` with a function tool on its chat-completions model, and LangChain's
`bind_tools` loop."""

import asyncio
import json

from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from openai import AsyncOpenAI

set_tracing_disabled(True)

ASKS = """[[mock tool_call='lookup:{"word": "gato"}']] what is gato?"""
LOOKUP = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Looks a word up in the caller's dictionary.",
        "parameters": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
    },
}
DICTIONARY = {"gato": "cat"}


def test_the_openai_sdk_runs_a_tool_call_loop(client):
    messages = [{"role": "user", "content": ASKS}]
    first = client.chat.completions.create(model="mock-model", messages=messages, tools=[LOOKUP])
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    [call] = choice.message.tool_calls
    assert call.function.name == "lookup"
    assert json.loads(call.function.arguments) == {"word": "gato"}

    messages.append(choice.message.model_dump(exclude_none=True))
    word = json.loads(call.function.arguments)["word"]
    messages.append({"role": "tool", "tool_call_id": call.id, "content": DICTIONARY[word]})
    second = client.chat.completions.create(model="mock-model", messages=messages, tools=[LOOKUP])
    assert second.choices[0].finish_reason == "stop"
    assert second.choices[0].message.content == "Tool result: cat"
    assert second.id == first.id, "the same Parley turn"


def test_the_openai_sdk_streams_a_tool_call_and_its_continuation(client):
    messages = [{"role": "user", "content": ASKS}]
    calls: dict[int, dict] = {}
    finish = None
    for chunk in client.chat.completions.create(model="mock-model", messages=messages, tools=[LOOKUP], stream=True):
        if not chunk.choices:
            continue
        for delta in chunk.choices[0].delta.tool_calls or []:
            entry = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
            entry["id"] += delta.id or ""
            entry["name"] += (delta.function.name or "") if delta.function else ""
            entry["arguments"] += (delta.function.arguments or "") if delta.function else ""
        finish = chunk.choices[0].finish_reason or finish
    assert finish == "tool_calls"
    assert list(calls) == [0]
    call = calls[0]
    assert call["name"] == "lookup" and json.loads(call["arguments"]) == {"word": "gato"}

    messages.append(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": call["id"], "type": "function", "function": {"name": "lookup", "arguments": call["arguments"]}}
            ],
        }
    )
    messages.append({"role": "tool", "tool_call_id": call["id"], "content": "cat"})
    text = ""
    for chunk in client.chat.completions.create(model="mock-model", messages=messages, tools=[LOOKUP], stream=True):
        if chunk.choices:
            text += chunk.choices[0].delta.content or ""
            finish = chunk.choices[0].finish_reason or finish
    assert finish == "stop"
    assert text == "Tool result: cat"


@function_tool
def lookup(word: str) -> str:
    """Looks a word up in the caller's dictionary."""
    return DICTIONARY.get(word, "unknown")


def test_the_agents_sdk_runs_a_function_tool_on_the_chat_completions_model(parley):
    client = AsyncOpenAI(base_url=parley.openai_url, api_key=parley.admin_token, max_retries=0)
    agent = Agent(
        name="tutor",
        model=OpenAIChatCompletionsModel(model="mock-model", openai_client=client),
        tools=[lookup],
    )

    async def run():
        result = await Runner.run(agent, ASKS)
        streamed = Runner.run_streamed(agent, ASKS)
        kinds = [event.type async for event in streamed.stream_events()]
        return result.final_output, streamed.final_output, kinds

    final, streamed_final, kinds = asyncio.run(run())
    assert final == "Tool result: cat"
    assert streamed_final == "Tool result: cat"
    assert "raw_response_event" in kinds


def test_the_agents_sdk_forces_its_tool_and_calls_one_at_a_time(parley):
    """`ModelSettings(tool_choice=…, parallel_tool_calls=False)`: the first answer must call
    the named function, though the message asks for no call; after it the model answers."""
    client = AsyncOpenAI(base_url=parley.openai_url, api_key=parley.admin_token, max_retries=0)
    seen = []

    @function_tool
    def word_of_the_day() -> str:
        """Today's word, from the caller's dictionary."""
        seen.append("gato")
        return DICTIONARY["gato"]

    agent = Agent(
        name="tutor",
        model=OpenAIChatCompletionsModel(model="mock-model", openai_client=client),
        tools=[lookup, word_of_the_day],
        model_settings=ModelSettings(tool_choice="word_of_the_day", parallel_tool_calls=False),
    )
    result = asyncio.run(Runner.run(agent, "what is the word of the day?"))
    assert seen == ["gato"]
    assert result.final_output == "Tool result: cat"


def langchain_loop(parley, **options):
    """LangChain's `bind_tools` loop: the model's call, the tool run, its result sent back."""

    @tool
    def lookup(word: str) -> str:
        """Looks a word up in the caller's dictionary."""
        return DICTIONARY.get(word, "unknown")

    model = ChatOpenAI(
        model="mock-model", base_url=parley.openai_url, api_key=parley.admin_token, max_retries=0, **options
    ).bind_tools([lookup])
    history = [HumanMessage(ASKS)]
    answer = model.invoke(history)
    assert [c["name"] for c in answer.tool_calls] == ["lookup"]
    history.append(answer)
    for call in answer.tool_calls:
        history.append(ToolMessage(lookup.invoke(call["args"]), tool_call_id=call["id"]))
    final = model.invoke(history)
    assert final.text == "Tool result: cat"
    assert not final.tool_calls


def test_langchain_bind_tools_runs_a_tool_calling_loop(parley):
    langchain_loop(parley)
