"""The Responses API: create, stream, drop and resume, previous_response_id, cancel."""

import time

from sdk_helpers import RESP_ID, TIME_CALL, assert_consecutive, slow, tokens_text, wait_for_status, words


def test_create_waits_for_the_answer(client):
    response = client.responses.create(model="mock-model", input="hello there", instructions="Answer briefly.")
    assert RESP_ID.fullmatch(response.id), response.id
    assert response.object == "response"
    assert response.status == "completed"
    assert response.created_at > 0
    assert response.output_text == "Echo: hello there"
    messages = [item for item in response.output if item.type == "message"]
    assert len(messages) == 1
    message = messages[0]
    assert message.role == "assistant"
    assert message.status == "completed"
    assert message.id
    assert [part.type for part in message.content] == ["output_text"]
    assert message.content[0].annotations == []
    assert response.error is None
    usage = response.usage
    assert usage.output_tokens == 3
    assert usage.input_tokens > 0
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens

    again = client.responses.retrieve(response.id)
    assert again.id == response.id
    assert again.status == "completed"
    assert again.output_text == response.output_text

    # input as a list of message items
    listed = client.responses.create(
        model="mock-model",
        input=[{"role": "user", "content": [{"type": "input_text", "text": "hello there"}]}],
    )
    assert listed.output_text == "Echo: hello there"


def test_stream_numbers_events_from_zero_and_the_helper_accumulates_them(client):
    with client.responses.stream(model="mock-model", input="hello there") as stream:
        events = list(stream)
        final = stream.get_final_response()
    assert events[0].type == "response.created"
    assert_consecutive([e.sequence_number for e in events], 0)
    assert events[-1].type == "response.completed"
    types = [e.type for e in events]
    for expected in (
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
    ):
        assert expected in types, f"{expected} missing from {types}"
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "Echo: hello there"
    assert final.output_text == "Echo: hello there"
    assert final.status == "completed"


def test_function_call_is_an_mcp_call_item(client):
    response = client.responses.create(model="mock-model", input=TIME_CALL)
    assert response.status == "completed"
    calls = [item for item in response.output if item.type == "mcp_call"]
    assert len(calls) == 1, [item.type for item in response.output]
    call = calls[0]
    assert call.server_label == "parley"
    assert call.name == "getCurrentTime"
    assert "Europe/Paris" in call.arguments
    assert "Europe/Paris" in (call.output or "")
    assert not call.error
    assert response.output.index(call) < max(
        i for i, item in enumerate(response.output) if item.type == "message"
    ), "the call comes before the answer"
    assert "Europe/Paris" in response.output_text

    with client.responses.stream(model="mock-model", input=TIME_CALL) as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [e.type for e in events]
    assert "response.mcp_call.completed" in types, types
    added = [e for e in events if e.type == "response.output_item.added"]
    assert added[0].item.type == "mcp_call"
    assert_consecutive([e.output_index for e in added], 0)
    assert [item.type for item in final.output].count("mcp_call") == 1


def test_background_stream_resumes_after_a_drop(client):
    n = 40
    stream = client.responses.create(model="mock-model", input=slow(n, 50), background=True, stream=True)
    first = []
    for event in stream:
        first.append(event)
        if sum(e.type == "response.output_text.delta" for e in first) >= 3:
            break
    stream.close()  # the connection drops; the background response goes on
    assert first[0].type == "response.created"
    response_id = first[0].response.id
    assert RESP_ID.fullmatch(response_id)
    assert_consecutive([e.sequence_number for e in first], 0)
    last_seen = first[-1].sequence_number

    rest = list(client.responses.retrieve(response_id, stream=True, starting_after=last_seen))
    assert rest, "nothing after the drop"
    assert_consecutive([e.sequence_number for e in rest], last_seen + 1)
    assert rest[-1].type == "response.completed"
    assert any(e.type == "response.output_text.delta" for e in rest), "resumed while the turn was still running"

    text = "".join(e.delta for e in first + rest if e.type == "response.output_text.delta")
    assert text == tokens_text(n)
    final = client.responses.retrieve(response_id)
    assert final.status == "completed"
    assert final.output_text == text
    assert rest[-1].response.output_text == text

    # A replay from the start is the same stream: the SDK's stream helpers depend on it.
    def key(e):
        return (e.sequence_number, e.type, getattr(e, "delta", None), getattr(e, "item_id", None))

    replay = list(client.responses.retrieve(response_id, stream=True))
    assert [key(e) for e in replay] == [key(e) for e in first + rest]

    # The helper (which replays from the start and filters on the client) gives the same tail.
    with client.responses.stream(response_id=response_id, starting_after=last_seen) as helper:
        tail = list(helper)
        resumed = helper.get_final_response()
    assert [e.sequence_number for e in tail] == [e.sequence_number for e in rest]
    assert resumed.output_text == text

    # Nothing after the last event: an empty stream, not an error.
    assert list(client.responses.retrieve(response_id, stream=True, starting_after=rest[-1].sequence_number)) == []


def test_previous_response_id_continues_the_conversation(client):
    fresh = client.responses.create(model="mock-model", input="gamma delta")
    first = client.responses.create(model="mock-model", input="alpha beta")
    second = client.responses.create(model="mock-model", input="gamma delta", previous_response_id=first.id)
    assert second.status == "completed"
    assert second.output_text == "Echo: gamma delta"
    assert second.previous_response_id == first.id
    assert second.id != first.id
    # The mock counts every word it is sent: the difference is the earlier exchange.
    assert second.usage.input_tokens - fresh.usage.input_tokens == words("alpha beta") + words(first.output_text)


def test_background_create_returns_at_once(client):
    response = client.responses.create(model="mock-model", input=slow(20, 50), background=True)
    assert response.status in ("queued", "in_progress"), response.status
    assert isinstance(response.output, list)
    done = wait_for_status(client, response.id, lambda r: r.status not in ("queued", "in_progress"))
    assert done.status == "completed"
    assert done.output_text == tokens_text(20)


def test_cancel_a_slow_background_response(client):
    n = 400
    response = client.responses.create(model="mock-model", input=slow(n, 25), background=True)
    assert response.status in ("queued", "in_progress")
    # Let it start answering, so the cancel interrupts a running turn.
    wait_for_status(client, response.id, lambda r: r.status != "queued", timeout_s=10)
    time.sleep(0.3)

    cancelled = client.responses.cancel(response.id)
    assert cancelled.id == response.id
    assert cancelled.status in ("cancelled", "in_progress"), cancelled.status

    final = wait_for_status(client, response.id, lambda r: r.status not in ("queued", "in_progress"))
    assert final.status == "cancelled"
    assert len(final.output_text.split()) < n, "the answer stopped early"

    events = list(client.responses.retrieve(response.id, stream=True))
    assert events[0].type == "response.created"
    assert_consecutive([e.sequence_number for e in events], 0)
    assert events[-1].type in ("response.incomplete", "response.failed"), events[-1].type
    assert events[-1].response.status == "cancelled"

    # The helper's accumulator takes the whole cancelled stream (no unknown event types).
    with client.responses.stream(response_id=response.id) as helper:
        assert [e.sequence_number for e in helper] == [e.sequence_number for e in events]

    again = client.responses.cancel(response.id)
    assert again.status == "cancelled", "a second cancel returns the cancelled response"
