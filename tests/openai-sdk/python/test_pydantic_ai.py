"""pydantic-ai asks Parley for a structured output: an agent whose `output_type` is a
pydantic model in native mode (`NativeOutput`: a `response_format` / `text.format` JSON
schema) gets a validated instance, on the chat-completions and the Responses model, even
when the model's first answer does not fit (Parley asks again; the agent never sees it).
An agent's own tool (`@agent.tool_plain`) is called, run by the agent, and its result
continues the turn, on both models."""

import asyncio

import pytest
from pydantic import BaseModel, Field
from pydantic_ai import Agent, NativeOutput
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider


class Trip(BaseModel):
    city: str
    days: int = Field(ge=2)


@pytest.mark.parametrize("kind", [OpenAIChatModel, OpenAIResponsesModel], ids=["chat", "responses"])
def test_a_native_output_type_gets_a_checked_value(parley, kind):
    provider = OpenAIProvider(base_url=parley.openai_url, api_key=parley.admin_token)
    agent = Agent(kind("mock-model", provider=provider), output_type=NativeOutput(Trip), retries=0)

    async def run():
        return await agent.run("""[[mock reply='{"city": 3}']] plan a trip""")

    result = asyncio.run(run())
    assert result.output == Trip(city="mock", days=2)
    # One request of the agent's: the repair round was Parley's.
    assert len([m for m in result.all_messages() if m.kind == "response"]) == 1


@pytest.mark.parametrize("kind", [OpenAIChatModel, OpenAIResponsesModel], ids=["chat", "responses"])
def test_an_agents_own_tool_is_called_and_its_result_reaches_the_model(parley, kind):
    provider = OpenAIProvider(base_url=parley.openai_url, api_key=parley.admin_token)
    agent = Agent(kind("mock-model", provider=provider), retries=0)
    runs = []

    @agent.tool_plain
    def lookup(word: str) -> str:
        """Looks a word up in the caller's dictionary."""
        runs.append(word)
        return {"gato": "cat"}.get(word, "unknown")

    async def run():
        return await agent.run("""[[mock tool_call='lookup:{"word": "gato"}']] what is gato?""")

    result = asyncio.run(run())
    assert runs == ["gato"]
    assert result.output == "Tool result: cat"
