"""The request's own sampling parameters through the official SDK: the token limit cuts the
answer as OpenAI's does (`finish_reason: "length"`, a response `incomplete` with
`max_output_tokens`), a stop sequence ends it before itself, and a value outside OpenAI's
ranges is the SDK's `BadRequestError` naming the parameter."""

import openai
import pytest


def test_max_tokens_cuts_the_answer_with_finish_reason_length(client):
    completion = client.chat.completions.create(
        model="mock-model",
        messages=[{"role": "user", "content": "[[mock tokens=40]] count"}],
        max_completion_tokens=5,
        temperature=0.3,
        seed=4,
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "length"
    assert choice.message.content == "t1 t2 t3 t4 t5"
    assert completion.usage.completion_tokens == 5


def test_a_streamed_answer_cut_at_its_limit_ends_with_length(client):
    chunks = list(
        client.chat.completions.create(
            model="mock-model",
            messages=[{"role": "user", "content": "[[mock tokens=40]] count"}],
            max_tokens=3,
            stream=True,
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reasons = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert (text, reasons) == ("t1 t2 t3", ["length"])


def test_a_stop_sequence_ends_the_answer_before_it(client):
    completion = client.chat.completions.create(
        model="mock-model",
        messages=[{"role": "user", "content": "[[mock tokens=10]] count"}],
        stop=[" t3", " t7"],
    )
    assert completion.choices[0].message.content == "t1 t2"
    assert completion.choices[0].finish_reason == "stop"


def test_a_response_cut_at_max_output_tokens_is_incomplete(client):
    response = client.responses.create(
        model="mock-model", input="[[mock tokens=40]] count", max_output_tokens=4, temperature=0.4, top_p=0.9
    )
    assert response.status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.output_text == "t1 t2 t3 t4"
    assert (response.temperature, response.top_p, response.max_output_tokens) == (0.4, 0.9, 4)
    again = client.responses.retrieve(response.id)
    assert (again.status, again.temperature) == ("incomplete", 0.4)


@pytest.mark.parametrize(
    ("option", "param"),
    [({"temperature": 2.5}, "temperature"), ({"top_p": -1}, "top_p"), ({"stop": ["a", "b", "c", "d", "e"]}, "stop")],
)
def test_a_value_outside_openais_range_is_refused_naming_it(client, option, param):
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}], **option)
    assert refused.value.param == param, refused.value.body
