"""`parley_client.feed` for asyncio (hand-written; kept by generate.sh): the same turns and
feeds as async iterators, over the generated client's async httpx client.

    from parley_client import AuthenticatedClient
    from parley_client.feed_async import astream_turn

    async with AuthenticatedClient(base_url="http://127.0.0.1:8080", token=token) as client:
        async for event in astream_turn(client, session_id, "Hello!"):
            if event["type"] == "text_delta":
                print(event["text"], end="", flush=True)

They resume, stop and raise as their synchronous twins do (see `parley_client.feed`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import httpx

from .client import AuthenticatedClient, Client
from .feed import (
    FeedTokenSource,
    _Feed,
    _feed_request,
    _message_request,
    check_base_url,
)
from .models.feed_token import FeedToken
from .problem import ParleyProblem

__all__ = ["afollow_prompt", "astream_turn"]


async def _amint_feed_token(client: AuthenticatedClient | Client, prompt_id: str) -> FeedToken:
    from .api.sessions import create_feed_token
    from .problem import expect

    if not isinstance(client, AuthenticatedClient):
        raise TypeError("feed_token=True needs an AuthenticatedClient to ask for feed tokens")
    return expect(await create_feed_token.asyncio_detailed(UUID(str(prompt_id)), client=client))


async def afollow_prompt(
    client: AuthenticatedClient | Client,
    prompt_id: str | UUID,
    *,
    after: int = 0,
    feed_token: FeedTokenSource | bool | None = None,
    max_retries: int = 10,
    retry_delay: float = 1.0,
) -> AsyncIterator[dict[str, Any]]:
    """Yields a prompt's events after seq `after` until its terminal event
    (`parley_client.feed.follow_prompt`, awaited)."""
    check_base_url(client)
    prompt_id = str(prompt_id)
    http = client.get_async_httpx_client()
    feed = _Feed(after)
    feed.prompt_id = prompt_id
    failures = 0
    while True:
        token: FeedTokenSource | bool | None = feed_token
        if feed_token is True:
            token = await _amint_feed_token(client, prompt_id)
        request = _feed_request(http, client, prompt_id, feed.after, token)  # type: ignore[arg-type]
        try:
            response = await http.send(request, stream=True)
        except httpx.TransportError:
            failures += 1
            if failures > max_retries:
                raise
            await asyncio.sleep(retry_delay)
            continue
        before = feed.after
        try:
            if response.status_code == 204:
                return
            if response.status_code >= 400:
                await response.aread()
                problem = feed.refused(response, failures, max_retries)
                if problem is not None:
                    raise problem
            else:
                async for event in feed.adrain(response):
                    yield event
        finally:
            await response.aclose()
        if feed.outcome == "ended":
            return
        failures, delay = feed.retry_after(before, failures, max_retries, retry_delay)
        await asyncio.sleep(delay)


async def astream_turn(
    client: AuthenticatedClient,
    session_id: str | UUID,
    content: str,
    *,
    body: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
    params: dict[str, Any] | None = None,
    max_retries: int = 10,
    retry_delay: float = 1.0,
) -> AsyncIterator[dict[str, Any]]:
    """Sends a message and yields its turn's events until the terminal one
    (`parley_client.feed.stream_turn`, awaited)."""
    check_base_url(client)
    http = client.get_async_httpx_client()
    request = _message_request(http, session_id, content, body, idempotency_key, params)
    response = await http.send(request, stream=True)
    feed = _Feed(0)
    try:
        if response.status_code >= 400:
            await response.aread()
            raise ParleyProblem.from_response(response)
        feed.name_prompt(response)
        async for event in feed.adrain(response):
            yield event
    finally:
        await response.aclose()
    delay = feed.handoff()
    if delay is None:
        return
    await asyncio.sleep(delay)
    async for event in afollow_prompt(
        client, feed.prompt_id, after=feed.after, max_retries=max_retries, retry_delay=retry_delay
    ):
        yield event
