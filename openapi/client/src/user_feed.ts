/**
 * Following the caller's own feed (DESIGN §13): `GET /v1/feed` as an async iterator of
 * typed events — sessions created, updated and deleted, turns started and finished,
 * approvals, timers fired — across every tab and device of the user.
 *
 * - Every stored event has a `seq` (its SSE `id`; increasing, not gap-free). The
 *   follower remembers the last one and, when the connection drops or the server says
 *   `reconnect`, connects again with `Last-Event-ID`, so the caller sees each event once.
 * - A `reset` means events after the caller's seq are no longer held (the feed keeps a
 *   short history): it is yielded so the caller refetches its session list; the oldest
 *   held events follow.
 * - The feed never ends on its own: stop it with `signal` (or by leaving the loop).
 * - It authenticates with a bearer token, or with a user feed token (`POST
 *   /v1/feed/token`), asked for again on every connection since they are short-lived.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";

import { FeedError } from "./feed.js";
import { parleyBase } from "./base.js";
import type { components } from "./schema.js";

export type UserEvent = components["schemas"]["UserEvent"];

export interface FollowUserFeedOptions {
  baseUrl: string;
  /** Bearer token; or `feedToken`. */
  token?: string;
  /** A user feed token, or a function that gets a fresh one for each connection. */
  feedToken?: string | (() => Promise<string>);
  /** Resume after this seq (the last event the caller holds); 0: the oldest held. */
  after?: number;
  /** Connections that may fail in a row (no event received) before giving up. */
  maxRetries?: number;
  /** The pause before connecting again when the server did not say (ms). */
  retryDelayMs?: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Follows the caller's feed until `signal` aborts (see the module's doc). */
export async function* followUserFeed(options: FollowUserFeedOptions): AsyncGenerator<UserEvent> {
  const doFetch = options.fetch ?? fetch;
  let after = options.after ?? 0;
  const maxRetries = options.maxRetries ?? 10;
  let failures = 0;
  for (;;) {
    const url = new URL(`${parleyBase(options.baseUrl)}/v1/feed`);
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (after > 0) headers["Last-Event-ID"] = String(after);
    if (options.feedToken !== undefined) {
      const token =
        typeof options.feedToken === "function" ? await options.feedToken() : options.feedToken;
      url.searchParams.set("access_token", token);
    } else if (options.token) {
      headers.Authorization = `Bearer ${options.token}`;
    }
    let response: Response;
    try {
      response = await doFetch(url, { headers, signal: options.signal });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      if (++failures > maxRetries) throw err;
      await sleep(options.retryDelayMs ?? 1000, options.signal);
      continue;
    }
    if (!response.ok || !response.body) {
      const problem = await response.json().catch(() => undefined);
      if (response.status >= 500 && ++failures <= maxRetries) {
        await sleep(options.retryDelayMs ?? 1000, options.signal);
        continue;
      }
      throw new FeedError(response.status, problem);
    }
    const before = after;
    let delay = options.retryDelayMs ?? 1000;
    const events = response.body
      .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
      .pipeThrough(new EventSourceParserStream());
    const reader = events.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!value.data) continue;
        const event = JSON.parse(value.data) as UserEvent;
        if (event.type === "ping") continue;
        if (event.type === "reconnect") {
          delay = event.retry_ms;
          break;
        }
        if (event.type === "reset") {
          // What follows are the oldest events held: take them whatever their seq.
          after = 0;
          yield event;
          continue;
        }
        if ("seq" in event) {
          if (event.seq <= after) continue;
          after = event.seq;
        }
        yield event;
      }
    } catch (err) {
      if (options.signal?.aborted) throw err;
    } finally {
      reader.releaseLock();
    }
    failures = after !== before ? 0 : failures + 1;
    if (failures > maxRetries) throw new Error("the user feed kept dropping without events");
    await sleep(delay, options.signal);
  }
}
