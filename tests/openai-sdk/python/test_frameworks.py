"""Agent frameworks continue a conversation after a turn in which Parley ran a function:
the OpenAI Agents SDK with `to_input_list()` on its Responses model, and LangChain's
`ChatOpenAI` with `use_responses_api=True` (both send the function turn's output items —
an `mcp_call` and the answer — back as input)."""

import asyncio

from agents import Agent, OpenAIResponsesModel, Runner, set_tracing_disabled
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from openai import AsyncOpenAI

from sdk_helpers import TIME_CALL

set_tracing_disabled(True)


def test_the_agents_sdk_continues_from_to_input_list_after_a_function_turn(parley):
    client = AsyncOpenAI(base_url=parley.openai_url, api_key=parley.admin_token, max_retries=0)
    agent = Agent(name="tutor", model=OpenAIResponsesModel(model="mock-model", openai_client=client))

    async def run():
        first = await Runner.run(agent, TIME_CALL)
        assert "Europe/Paris" in first.final_output
        items = first.to_input_list()
        assert any(item.get("type") == "mcp_call" for item in items), items
        second = await Runner.run(agent, items + [{"role": "user", "content": "thanks"}])
        return second.final_output

    assert asyncio.run(run()) == "Echo: thanks"


def test_langchain_on_the_responses_api_continues_after_a_function_turn(parley):
    model = ChatOpenAI(
        model="mock-model",
        base_url=parley.openai_url,
        api_key=parley.admin_token,
        use_responses_api=True,
        max_retries=0,
    )
    history = [HumanMessage(TIME_CALL)]
    answer = model.invoke(history)
    assert "Europe/Paris" in answer.text
    history += [answer, HumanMessage("thanks")]
    assert model.invoke(history).text == "Echo: thanks"
