"""A turn's Server-Sent Events as a Python iterator (hand-written; kept by generate.sh).

- `stream_turn(client, session_id, content)` sends a message with
  `Accept: text/event-stream` (`POST /v1/sessions/{id}/messages` then streams the turn's
  events itself) and yields them; if that connection drops, the rest comes from the
  prompt's feed (`follow_prompt`, resuming after the last event it yielded).
- `follow_user_feed(client)` follows the caller's own feed (`GET /v1/feed`): sessions,
  turns, approvals and timers across their tabs and devices (see its doc).
- `follow_prompt(client, prompt_id)` follows `GET /v1/prompts/{id}/events`: every event
  has a gap-free `seq` (its SSE `id`); when the connection drops, or the server says
  `reconnect` (it is shutting down), it connects again with `Last-Event-ID`, so the
  caller sees each event once, in order. With `feed_token=True` it authenticates each
  connection with a fresh prompt-scoped feed token (`POST /v1/prompts/{id}/feed-token`,
  whose `events_url` carries `?access_token=`) instead of the bearer token.

Both yield each event as the dict its SSE `data:` holds (`{"type": "text_delta",
"seq": 3, "prompt_id": …, "text": …}`; the `StreamEvent` schema of the document), skip
`ping`s, stop after the terminal event (`complete`, `error`, `cancelled`) or when the
server answers 204 (the caller already holds the finished prompt's last event), and raise
`parley_client.problem.ParleyProblem` when Parley answers with a problem. `client` is the
generated `AuthenticatedClient` (or `Client`, with a feed token): its base URL, headers
and connection pool are used. SSE is parsed by `httpx-sse`.

    from parley_client import AuthenticatedClient
    from parley_client.feed import stream_turn

    client = AuthenticatedClient(base_url="http://127.0.0.1:8080", token=token)
    for event in stream_turn(client, session_id, "Hello!"):
        if event["type"] == "text_delta":
            print(event["text"], end="", flush=True)
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from uuid import UUID

import httpx
from httpx_sse import EventSource, SSEError

from .client import AuthenticatedClient, Client
from .models.feed_token import FeedToken
from .problem import ParleyProblem

#: The event types that end a prompt's feed.
TERMINAL = frozenset({"complete", "error", "cancelled"})

FeedTokenSource = str | FeedToken | Callable[[], "str | FeedToken"]


class FeedDropped(Exception):
    """The feed kept dropping without delivering an event (`max_retries` times in a row)."""


class _Feed:
    """Where a feed stands: the last seq the caller has, and how the last connection ended."""

    def __init__(self, after: int) -> None:
        self.after = after
        #: "ended" (terminal event), "dropped" (the connection broke or closed), or the
        #: delay in seconds a `reconnect` event asked for.
        self.outcome: str | float = "dropped"
        self.prompt_id: str | None = None

    def check(self, response: httpx.Response) -> None:
        """Starts reading one SSE response: raises unless it is an event stream."""
        self.outcome = "dropped"
        media = response.headers.get("content-type", "").split(";")[0].strip()
        if media != "text/event-stream":
            raise ParleyProblem(
                status=response.status_code,
                code="not_an_event_stream",
                detail=f"expected text/event-stream, got {media or 'no content type'}",
            )

    def take(self, data: str) -> tuple[dict[str, Any] | None, bool]:
        """One SSE event's `data:`: the event to yield (None: none), and whether the
        response is done with (a terminal event, or `reconnect`; `outcome` says which)."""
        if not data:
            return None, False
        event = json.loads(data)
        kind = event.get("type")
        if kind == "ping":
            return None, False
        if kind == "reconnect":
            self.outcome = int(event.get("retry_ms", 1000)) / 1000
            return None, True
        self.prompt_id = self.prompt_id or event.get("prompt_id")
        seq = event.get("seq")
        if kind == "reset":
            # The feed was rebuilt from the database: what follows replaces what we hold.
            self.after = int(seq)
            return event, False
        if seq is not None:
            if seq <= self.after:
                return None, False
            self.after = int(seq)
        if kind in TERMINAL:
            self.outcome = "ended"
            return event, True
        return event, False

    def drain(self, response: httpx.Response) -> Iterator[dict[str, Any]]:
        """Yields the new events of one SSE response; sets `outcome` when it stops."""
        self.check(response)
        try:
            for sse in EventSource(response).iter_sse():
                event, done = self.take(sse.data)
                if event is not None:
                    yield event
                if done:
                    return
        except (httpx.TransportError, SSEError):
            # The connection dropped mid-stream (or the body is not SSE any more): resume.
            self.outcome = "dropped"

    async def adrain(self, response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
        """`drain` for an async response."""
        self.check(response)
        try:
            async for sse in EventSource(response).aiter_sse():
                event, done = self.take(sse.data)
                if event is not None:
                    yield event
                if done:
                    return
        except (httpx.TransportError, SSEError):
            self.outcome = "dropped"

    def refused(self, response: httpx.Response, failures: int, max_retries: int) -> ParleyProblem | None:
        """A feed answered with an error status (its body read): the problem to raise, or
        None when it is worth another try (a 5xx, retries left)."""
        problem = ParleyProblem.from_response(response)
        # A 5xx is worth another try; anything else will not get better.
        if response.status_code < 500 or failures >= max_retries:
            return problem
        self.outcome = "dropped"
        return None

    def retry_after(self, before: int, failures: int, max_retries: int, retry_delay: float) -> tuple[int, float]:
        """After a connection that did not end the feed: the failures in a row now (reset by
        a new event) and the seconds to wait; `FeedDropped` past `max_retries`."""
        failures = 0 if self.after > before else failures + 1
        if failures > max_retries:
            raise FeedDropped(f"the feed of {self.prompt_id} kept dropping without events")
        return failures, self.outcome if isinstance(self.outcome, float) else retry_delay

    def name_prompt(self, response: httpx.Response) -> None:
        """A send's `Location` names the prompt, so the turn can be followed even if the
        stream drops before its first event."""
        named = re.search(r"/prompts/([^/?#]+)", response.headers.get("location", ""))
        self.prompt_id = named.group(1) if named else None

    def handoff(self) -> float | None:
        """A send's stream stopped: None if the turn ended, else the seconds to wait before
        following the prompt's feed (`FeedDropped` if no event or header named it)."""
        if self.outcome == "ended":
            return None
        if not self.prompt_id:
            raise FeedDropped("the turn's stream ended before naming its prompt")
        return self.outcome if isinstance(self.outcome, float) else 0.0


def _message_request(
    http: httpx.Client | httpx.AsyncClient,
    session_id: str | UUID,
    content: str,
    body: dict[str, Any] | None,
    idempotency_key: str | None,
    params: dict[str, Any] | None,
) -> httpx.Request:
    """The send of a message that asks for its turn's events."""
    headers = {"Accept": "text/event-stream"}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    return http.build_request(
        "POST",
        f"/v1/sessions/{session_id}/messages",
        json={**(body or {}), "content": content},
        params=params,
        headers=headers,
    )


def check_base_url(client: AuthenticatedClient | Client) -> None:
    """Raises ValueError for a base URL that ends with `/v1` (or the OpenAI surface's
    `/openai/v1`): Parley's paths start with `/v1`, so every request would answer 404."""
    base = str(client._base_url).rstrip("/")
    if base.endswith("/v1"):
        fixed = base.removesuffix("/v1").removesuffix("/openai")
        raise ValueError(
            f"Parley's base URL is where it serves, without /v1 (the operations' paths start with it): "
            f"use {fixed!r}, not {str(client._base_url)!r}"
        )


def _sse_headers(after: int) -> dict[str, str]:
    headers = {"Accept": "text/event-stream"}
    if after > 0:
        headers["Last-Event-ID"] = str(after)
    return headers


def _feed_request(
    http: httpx.Client,
    client: AuthenticatedClient | Client,
    prompt_id: str,
    after: int,
    feed_token: FeedTokenSource | bool | None,
) -> httpx.Request:
    """The request for the next connection: bearer-authenticated, or with a feed token."""
    if feed_token is None or feed_token is False:
        return http.build_request("GET", f"/v1/prompts/{prompt_id}/events", headers=_sse_headers(after))
    if feed_token is True:
        token: str | FeedToken = _mint_feed_token(client, prompt_id)
    elif callable(feed_token):
        token = feed_token()
    else:
        token = feed_token
    if isinstance(token, FeedToken):
        request = http.build_request("GET", token.events_url, headers=_sse_headers(after))
    else:
        request = http.build_request(
            "GET",
            f"/v1/prompts/{prompt_id}/events",
            params={"access_token": token},
            headers=_sse_headers(after),
        )
    # The feed token is the credential: the bearer token is not sent along.
    request.headers.pop("Authorization", None)
    return request


def _mint_feed_token(client: AuthenticatedClient | Client, prompt_id: str) -> FeedToken:
    from .api.sessions import create_feed_token
    from .problem import expect

    if not isinstance(client, AuthenticatedClient):
        raise TypeError("feed_token=True needs an AuthenticatedClient to ask for feed tokens")
    return expect(create_feed_token.sync_detailed(UUID(str(prompt_id)), client=client))


def follow_prompt(
    client: AuthenticatedClient | Client,
    prompt_id: str | UUID,
    *,
    after: int = 0,
    feed_token: FeedTokenSource | bool | None = None,
    max_retries: int = 10,
    retry_delay: float = 1.0,
) -> Iterator[dict[str, Any]]:
    """Yields a prompt's events after seq `after` until its terminal event (see the module doc).

    `feed_token`: None (the client's bearer token), True (a fresh feed token for each
    connection, asked for with the client's bearer token), a token or a `FeedToken`, or a
    function that returns one for each connection. `max_retries`: connections that may
    fail in a row (no new event) before giving up (`FeedDropped`, or the error);
    `retry_delay`: seconds to wait before connecting again when the server did not say.
    """
    check_base_url(client)
    prompt_id = str(prompt_id)
    http = client.get_httpx_client()
    feed = _Feed(after)
    feed.prompt_id = prompt_id
    failures = 0
    while True:
        request = _feed_request(http, client, prompt_id, feed.after, feed_token)
        try:
            response = http.send(request, stream=True)
        except httpx.TransportError:
            failures += 1
            if failures > max_retries:
                raise
            time.sleep(retry_delay)
            continue
        before = feed.after
        try:
            if response.status_code == 204:
                return
            if response.status_code >= 400:
                problem = feed.refused(response, failures, max_retries)
                if problem is not None:
                    raise problem
            else:
                yield from feed.drain(response)
        finally:
            response.close()
        if feed.outcome == "ended":
            return
        failures, delay = feed.retry_after(before, failures, max_retries, retry_delay)
        time.sleep(delay)


def stream_turn(
    client: AuthenticatedClient,
    session_id: str | UUID,
    content: str,
    *,
    body: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
    params: dict[str, Any] | None = None,
    max_retries: int = 10,
    retry_delay: float = 1.0,
) -> Iterator[dict[str, Any]]:
    """Sends a message and yields its turn's events until the terminal one.

    `body`: other fields of the message (`model`, `attachments`); `idempotency_key` is sent
    as `Idempotency-Key` (a retried send returns the same turn); `params`: query
    parameters (`on_active`). Raises `ParleyProblem` when Parley refuses the message.
    """
    check_base_url(client)
    http = client.get_httpx_client()
    request = _message_request(http, session_id, content, body, idempotency_key, params)
    response = http.send(request, stream=True)
    feed = _Feed(0)
    try:
        if response.status_code >= 400:
            raise ParleyProblem.from_response(response)
        feed.name_prompt(response)
        yield from feed.drain(response)
    finally:
        response.close()
    delay = feed.handoff()
    if delay is None:
        return
    time.sleep(delay)
    yield from follow_prompt(
        client,
        feed.prompt_id,
        after=feed.after,
        max_retries=max_retries,
        retry_delay=retry_delay,
    )


def follow_user_feed(
    client: AuthenticatedClient | Client,
    *,
    after: int = 0,
    feed_token: str | Callable[[], str] | bool | None = None,
    max_retries: int = 10,
    retry_delay: float = 1.0,
) -> Iterator[dict[str, Any]]:
    """Yields the caller's own feed (`GET /v1/feed`) after seq `after`; it never ends.

    Events (the `UserEvent` schema): `session_created`, `session_updated`,
    `session_deleted`, `turn_started`, `turn_finished`, `approval_requested`,
    `approval_resolved`, `timer_fired`. Each stored event has a `seq` (increasing, not
    gap-free); after a dropped connection or a `reconnect` it connects again with
    `Last-Event-ID`. A `reset` (the feed no longer holds the events after `after`) is
    yielded: refetch the session list; the oldest events held follow. `feed_token`:
    None (the bearer token), True (a fresh user feed token per connection, `POST
    /v1/feed/token`), a token, or a function returning one. Stop by leaving the loop.
    """
    http = client.get_httpx_client()
    failures = 0
    while True:
        headers = _sse_headers(after)
        if feed_token is None or feed_token is False:
            request = http.build_request("GET", "/v1/feed", headers=headers)
        else:
            if feed_token is True:
                token = _mint_user_feed_token(client)
            elif callable(feed_token):
                token = feed_token()
            else:
                token = feed_token
            request = http.build_request("GET", "/v1/feed", params={"access_token": token}, headers=headers)
            request.headers.pop("Authorization", None)
        try:
            response = http.send(request, stream=True)
        except httpx.TransportError:
            failures += 1
            if failures > max_retries:
                raise
            time.sleep(retry_delay)
            continue
        before = after
        delay = retry_delay
        try:
            if response.status_code >= 400:
                problem = ParleyProblem.from_response(response)
                if response.status_code < 500 or failures >= max_retries:
                    raise problem
            else:
                try:
                    for sse in EventSource(response).iter_sse():
                        if not sse.data:
                            continue
                        event = json.loads(sse.data)
                        kind = event.get("type")
                        if kind == "ping":
                            continue
                        if kind == "reconnect":
                            delay = int(event.get("retry_ms", 1000)) / 1000
                            break
                        if kind == "reset":
                            # What follows are the oldest events held: take them all.
                            after = 0
                            yield event
                            continue
                        seq = event.get("seq")
                        if seq is not None:
                            if seq <= after:
                                continue
                            after = int(seq)
                        yield event
                except (httpx.TransportError, SSEError):
                    pass
        finally:
            response.close()
        failures = 0 if after != before else failures + 1
        if failures > max_retries:
            raise FeedDropped("the user feed kept dropping without events")
        time.sleep(delay)


def _mint_user_feed_token(client: AuthenticatedClient | Client) -> str:
    from .api.sessions import create_user_feed_token
    from .problem import expect

    if not isinstance(client, AuthenticatedClient):
        raise TypeError("feed_token=True needs an AuthenticatedClient to ask for feed tokens")
    return expect(create_user_feed_token.sync_detailed(client=client)).token


__all__ = ["TERMINAL", "FeedDropped", "follow_prompt", "follow_user_feed", "stream_turn"]
