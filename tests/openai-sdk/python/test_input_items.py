"""A response's output goes back as input: `input += response.output` after a turn in which
Parley ran a function (its `mcp_call` item and the answer), and `item_reference`s to the
caller's stored items (what the Vercel AI SDK sends with `store` on). The conversation the
items describe is what the next turn reads: the new session's history, read back through
Parley's own API."""

import uuid

import openai
import pytest

from sdk_helpers import TIME_CALL


def history_of(parley, response_id: str) -> list[tuple[str, str]]:
    """The (role, content) of the messages of the session a response's turn ran in."""
    prompt_id = uuid.UUID(response_id.removeprefix("resp_"))
    session_id = parley.native(f"/v1/prompts/{prompt_id}")["session_id"]
    messages = parley.native(f"/v1/sessions/{session_id}/messages?limit=100")["items"]
    return [(m["role"], m["content"]) for m in messages]


def test_the_output_of_a_function_turn_goes_back_as_input(parley, client):
    first = client.responses.create(model="mock-model", input=TIME_CALL)
    assert [item.type for item in first.output].count("mcp_call") == 1
    conversation = [{"role": "user", "content": TIME_CALL}]
    conversation += first.output
    conversation.append({"role": "user", "content": "thanks"})
    second = client.responses.create(model="mock-model", input=conversation)
    assert second.status == "completed"
    assert second.output_text == "Echo: thanks"
    history = history_of(parley, second.id)
    assert history[0] == ("user", TIME_CALL)
    assert history[1][0] == "assistant" and "Europe/Paris" in history[1][1], history
    assert history[2:] == [("user", "thanks"), ("assistant", "Echo: thanks")]


def test_item_references_read_the_callers_stored_items(parley, client):
    first = client.responses.create(model="mock-model", input=TIME_CALL)
    references = [{"type": "item_reference", "id": item.id} for item in first.output]
    second = client.responses.create(
        model="mock-model",
        input=[{"role": "user", "content": TIME_CALL}, *references, {"role": "user", "content": "and now?"}],
    )
    assert second.output_text == "Echo: and now?"
    history = history_of(parley, second.id)
    assert [role for role, _ in history] == ["user", "assistant", "user", "assistant"]
    assert history[1][1] == first.output_text

    with pytest.raises(openai.NotFoundError) as missing:
        client.responses.create(
            model="mock-model",
            input=[{"type": "item_reference", "id": "msg_0123456789abcdef0123456789abcdef_0"}, {"role": "user", "content": "hi"}],
        )
    assert missing.value.code == "item_not_found"
    assert missing.value.param == "input[0].id"


def test_a_bad_item_is_named_by_its_param(client):
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(
            model="mock-model",
            input=[{"role": "user", "content": "private words"}, {"type": "function_call", "name": "f", "arguments": "{}"}],
        )
    assert refused.value.param == "input[1].call_id"
    assert "private words" not in str(refused.value)
