"""Errors in OpenAI's shape, raised as the SDK's typed exceptions."""

import openai
import pytest

RETRY_LIMIT = 3  # turns_per_minute = 1: of 3 quick turns at least one is refused, minute edge or not


def test_unknown_model_is_not_found(client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 404
    assert caught.value.code == "model_not_found"

    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.create(model="no-such-model", input="hi")
    assert caught.value.code == "model_not_found"


def test_unknown_response_is_not_found(client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.retrieve("resp_" + "0" * 32)
    assert caught.value.status_code == 404
    assert isinstance(caught.value.body, dict) and caught.value.body.get("message")


def test_bad_token_is_an_authentication_error(parley):
    client = parley.client(api_key="prl_not_a_real_token")
    with pytest.raises(openai.AuthenticationError) as caught:
        client.models.list()
    assert caught.value.status_code == 401
    assert caught.value.type in ("authentication_error", "invalid_request_error")
    with pytest.raises(openai.AuthenticationError):
        client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])


def _refused(call):
    for _ in range(RETRY_LIMIT):
        try:
            call()
        except openai.RateLimitError as err:
            return err
    pytest.fail(f"{RETRY_LIMIT} turns within a minute were all accepted")


def test_quota_refusal_is_a_rate_limit_error(quota_parley):
    client = quota_parley.client()  # max_retries=0: the SDK would otherwise wait and retry
    err = _refused(
        lambda: client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])
    )
    assert err.status_code == 429
    assert err.code == "rate_limit_exceeded"
    retry_after = err.response.headers.get("retry-after")
    assert retry_after is not None and retry_after.isdigit() and 0 < int(retry_after) <= 60, retry_after

    err = _refused(lambda: client.responses.create(model="mock-model", input="hi"))
    assert err.code == "rate_limit_exceeded"
