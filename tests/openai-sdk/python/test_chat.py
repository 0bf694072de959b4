"""POST /openai/v1/chat/completions: plain, streamed, with a function call, with history."""

import uuid

import openai
import pytest

from sdk_helpers import CHATCMPL_ID, PROMPT_LOCATION, TIME_CALL, words

MESSAGES = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "hello there"},
]


def test_non_streamed_completion(client):
    raw = client.chat.completions.with_raw_response.create(model="mock-model", messages=MESSAGES)
    assert PROMPT_LOCATION.fullmatch(raw.headers.get("location", "")), raw.headers.get("location")
    completion = raw.parse()

    assert CHATCMPL_ID.fullmatch(completion.id), completion.id
    assert completion.object == "chat.completion"
    assert isinstance(completion.created, int)
    assert completion.model
    assert len(completion.choices) == 1
    choice = completion.choices[0]
    assert choice.index == 0
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    assert choice.message.content == "Echo: hello there"
    assert not choice.message.tool_calls

    usage = completion.usage
    assert usage is not None
    assert usage.completion_tokens == 3, "the mock's tokens: 'Echo:', ' hello', ' there'"
    assert usage.prompt_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_tool_model_id_and_content_parts(client, demo_tool_id):
    completion = client.chat.completions.create(
        model=f"tool:{demo_tool_id}",
        messages=[
            {"role": "developer", "content": [{"type": "text", "text": "Answer briefly."}]},
            {"role": "user", "content": [{"type": "text", "text": "hello"}, {"type": "text", "text": "there"}]},
        ],
        temperature=0.2,  # sent to the model
        user="sdk-test",
    )
    assert completion.choices[0].message.content == "Echo: hello there"
    assert completion.choices[0].finish_reason == "stop"


def test_streamed_completion_matches_the_non_streamed_one(client):
    plain = client.chat.completions.create(model="mock-model", messages=MESSAGES)
    chunks = list(
        client.chat.completions.create(
            model="mock-model", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
    )
    assert chunks, "no chunks"
    ids = {chunk.id for chunk in chunks}
    assert len(ids) == 1 and CHATCMPL_ID.fullmatch(ids.pop())
    assert all(chunk.object == "chat.completion.chunk" for chunk in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"

    with_choices = [chunk for chunk in chunks if chunk.choices]
    content = "".join(chunk.choices[0].delta.content or "" for chunk in with_choices)
    assert content == plain.choices[0].message.content == "Echo: hello there"
    finishes = [chunk.choices[0].finish_reason for chunk in with_choices if chunk.choices[0].finish_reason]
    assert finishes == ["stop"]
    assert all(not chunk.choices[0].delta.tool_calls for chunk in with_choices)

    last = chunks[-1]
    assert last.choices == [], "include_usage: the last chunk has no choices"
    assert last.usage is not None
    assert last.usage.completion_tokens == plain.usage.completion_tokens
    assert last.usage.total_tokens == last.usage.prompt_tokens + last.usage.completion_tokens
    assert all(chunk.usage is None for chunk in chunks[:-1])


def test_streaming_helper_builds_the_final_completion(client):
    with client.chat.completions.stream(model="mock-model", messages=MESSAGES) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.content == "Echo: hello there"
    assert final.choices[0].finish_reason == "stop"


def test_without_include_usage_no_usage_chunk(client):
    chunks = list(client.chat.completions.create(model="mock-model", messages=MESSAGES, stream=True))
    assert all(chunk.choices for chunk in chunks), "no choices-less usage chunk"
    assert all(chunk.usage is None for chunk in chunks)


def test_function_call_answers_in_text(client):
    completion = client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": TIME_CALL}]
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "stop"
    assert not choice.message.tool_calls
    assert "Europe/Paris" in choice.message.content, choice.message.content

    chunks = list(
        client.chat.completions.create(
            model="mock-model", messages=[{"role": "user", "content": TIME_CALL}], stream=True
        )
    )
    with_choices = [chunk for chunk in chunks if chunk.choices]
    assert all(not chunk.choices[0].delta.tool_calls for chunk in with_choices)
    assert [c.choices[0].finish_reason for c in with_choices if c.choices[0].finish_reason] == ["stop"]
    content = "".join(chunk.choices[0].delta.content or "" for chunk in with_choices)
    assert "Europe/Paris" in content, content


def test_earlier_messages_become_the_history(client):
    # The mock counts the words of every message it is sent as prompt tokens, so the
    # imported history shows as the difference from the same question without it.
    fresh = client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "gamma delta"}])
    history = [
        {"role": "user", "content": "alpha beta"},
        {"role": "assistant", "content": "Echo: alpha beta"},
    ]
    answer = client.chat.completions.create(
        model="mock-model", messages=[*history, {"role": "user", "content": "gamma delta"}]
    )
    assert answer.choices[0].message.content == "Echo: gamma delta"
    assert answer.usage.prompt_tokens - fresh.usage.prompt_tokens == words("alpha beta") + words("Echo: alpha beta")


def test_conversation_key_keeps_the_server_history(client):
    key = f"py-{uuid.uuid4().hex[:16]}"
    headers = {"Parley-Conversation": key}
    fresh = client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "gamma delta"}])
    first = client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": "alpha beta"}], extra_headers=headers
    )
    assert first.choices[0].message.content == "Echo: alpha beta"
    # A later request with the key sends only its last user message: the client's idea of
    # the history (here a made-up one) is ignored, the server's is used.
    second = client.chat.completions.create(
        model="mock-model",
        messages=[
            {"role": "user", "content": "made up words that never happened"},
            {"role": "assistant", "content": "nor did these"},
            {"role": "user", "content": "gamma delta"},
        ],
        extra_headers=headers,
    )
    assert second.choices[0].message.content == "Echo: gamma delta"
    assert second.usage.prompt_tokens - fresh.usage.prompt_tokens == words("alpha beta") + words("Echo: alpha beta")


def test_last_message_must_be_from_the_user(client):
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="mock-model",
            messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
        )
    assert caught.value.status_code == 400
    assert caught.value.type == "invalid_request_error"
    assert caught.value.message
