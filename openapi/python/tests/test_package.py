"""The package as a project that installed it uses it: scripts/test-python-client.sh also
runs this file in a fresh venv into which `pip install openapi/python` put parley_client
(a copy in site-packages, not the checkout). A streamed turn, synchronous and async, whose
text is the stored answer, and a base URL with `/v1` refused with a hint."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest
from proxy import DroppingProxy

import parley_client
from parley_client import AuthenticatedClient
from parley_client.api.sessions import list_session_messages
from parley_client.feed import stream_turn
from parley_client.feed_async import afollow_prompt, astream_turn
from parley_client.problem import expect


def text(events: list[dict]) -> str:
    return "".join(e["text"] for e in events if e["type"] == "text_delta")


def test_the_package_is_the_installed_one_when_asked() -> None:
    if os.environ.get("PARLEY_EXPECT_INSTALLED") == "1":
        assert "site-packages" in parley_client.__file__, parley_client.__file__


def test_a_turn_streams_the_stored_text_sync_and_async(parley, client: AuthenticatedClient, new_session) -> None:
    session = new_session()
    events = list(stream_turn(client, session, "[[mock tokens=4]] sync"))
    assert events[-1]["type"] == "complete"
    assert text(events) == "t1 t2 t3 t4" == events[-1]["payload"]["message"]

    async def run() -> list[dict]:
        async with AuthenticatedClient(base_url=parley.base_url, token=parley.admin_token) as aclient:
            return [event async for event in astream_turn(aclient, session, "[[mock tokens=3]] async")]

    events = asyncio.run(run())
    assert events[-1]["type"] == "complete"
    assert text(events) == "t1 t2 t3"
    stored = expect(list_session_messages.sync_detailed(uuid.UUID(str(session)), client=client))
    assert [m.content for m in stored.items][-1] == "t1 t2 t3", "what was streamed is what is stored"


@pytest.mark.parametrize("suffix", ["/v1", "/v1/", "/openai/v1"])
def test_a_base_url_with_v1_is_refused_saying_what_to_use(parley, suffix: str) -> None:
    wrong = AuthenticatedClient(base_url=parley.base_url + suffix, token=parley.admin_token)
    with pytest.raises(ValueError, match=f"use '{parley.base_url}'"):
        next(iter(stream_turn(wrong, uuid.uuid4(), "hi")))

    async def run() -> None:
        async for _ in astream_turn(wrong, uuid.uuid4(), "hi"):
            pass

    with pytest.raises(ValueError, match="without /v1"):
        asyncio.run(run())


LONG = "[[mock tokens=200 token_delay_ms=10]] tell me a long story"
ALL = " ".join(f"t{i}" for i in range(1, 201))


def test_async_streams_resume_after_dropped_connections(parley, new_session) -> None:
    """Through a proxy that cuts connections mid-stream: the async turn continues on the
    prompt's feed, and the async follower resumes with `Last-Event-ID` and a fresh feed
    token each time — every event once, in order."""

    async def read(proxy: DroppingProxy, prompt_id: str | None) -> list[dict]:
        async with AuthenticatedClient(base_url=proxy.base_url, token=parley.admin_token) as aclient:
            if prompt_id is None:
                return [e async for e in astream_turn(aclient, new_session(), LONG, retry_delay=0.05)]
            return [e async for e in afollow_prompt(aclient, prompt_id, feed_token=True, retry_delay=0.05)]

    prompt_id = None
    for drops in [1, 2]:
        proxy = DroppingProxy(parley.base_url, cut_after=1200, drops=drops)
        try:
            events = asyncio.run(read(proxy, prompt_id))
        finally:
            proxy.close()
        seqs = [e["seq"] for e in events if "seq" in e]
        assert seqs == list(range(1, len(seqs) + 1)), "every event once, in order"
        assert events[-1]["type"] == "complete"
        assert text(events) == ALL
        assert proxy.dropped == drops
        feeds = [r for r in proxy.requests if r.startswith("GET ") and "/events" in r.split("\r\n", 1)[0]]
        resumed = [r for r in feeds if "last-event-id" in r.lower()]
        assert len(resumed) == 1 if prompt_id is None else len(resumed) == 2, feeds
        if prompt_id is not None:
            assert all("access_token=" in r.split("\r\n", 1)[0] for r in feeds), "feed tokens, not the bearer"
        prompt_id = events[0]["prompt_id"]
