/**
 * Following a prompt's events (DESIGN §6): `GET /v1/prompts/{id}/events` as an async
 * iterator of typed events.
 *
 * - Every event has a gap-free `seq` (its SSE `id`). The follower remembers the last one
 *   and, when the connection drops or the server says `reconnect` (it is shutting down),
 *   connects again with `Last-Event-ID`, so the caller sees each event once, in order.
 * - It ends after the terminal event (`complete`, `error`, `cancelled`), or when the
 *   server answers 204 (the caller already holds the finished prompt's last event).
 * - It authenticates with a bearer token, or with a prompt-scoped feed token
 *   (`POST /v1/prompts/{id}/feed-token`), asked for again on every connection since
 *   feed tokens are short-lived.
 * - `ping` events keep the connection alive and are not yielded.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";

import { parleyBase } from "./base.js";
import type { components } from "./schema.js";

type StreamEvent = components["schemas"]["StreamEvent"];

/** The event types that end a prompt's feed. */
export const TERMINAL = new Set(["complete", "error", "cancelled"]);

export interface FollowOptions {
  baseUrl: string;
  promptId: string;
  /** Bearer token; or `feedToken`. */
  token?: string;
  /** A feed token, or a function that gets a fresh one for each connection. */
  feedToken?: string | (() => Promise<string>);
  /** Resume after this seq (the last event the caller holds); 0: from the start. */
  after?: number;
  /** Connections that may fail in a row (no event received) before giving up. */
  maxRetries?: number;
  /** The pause before connecting again when the server did not say (ms). */
  retryDelayMs?: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/** Parley answered a feed request with an error status. */
export class FeedError extends Error {
  constructor(
    readonly status: number,
    readonly problem: unknown,
  ) {
    super(
      `feed request failed with ${status}${
        problem && typeof problem === "object" && "detail" in problem
          ? `: ${(problem as { detail: string }).detail}`
          : ""
      }`,
    );
  }
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

/** The events of one SSE response body, parsed. */
async function* eventsOf(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const events = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (!value.data) continue;
      yield JSON.parse(value.data) as StreamEvent;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Yields the events of one SSE response until the terminal event (then returns
 * `"ended"`), a `reconnect` (returns its delay) or the end of the body (`"dropped"`);
 * updates `state.after` with every event's seq and skips events at or below it.
 */
async function* drain(
  body: ReadableStream<Uint8Array>,
  state: { after: number; outcome: "ended" | "dropped" | number },
): AsyncGenerator<StreamEvent> {
  state.outcome = "dropped";
  for await (const event of eventsOf(body)) {
    if (event.type === "ping") continue;
    if (event.type === "reconnect") {
      state.outcome = event.retry_ms;
      return;
    }
    if (event.type === "reset") {
      // The feed was rebuilt from the database: what follows replaces what we hold.
      state.after = event.seq;
      yield event;
      continue;
    }
    if (event.seq <= state.after) continue;
    state.after = event.seq;
    yield event;
    if (TERMINAL.has(event.type)) {
      state.outcome = "ended";
      return;
    }
  }
}

/** Follows a prompt's events until its terminal event (see the module's doc). */
export async function* followPrompt(options: FollowOptions): AsyncGenerator<StreamEvent> {
  const doFetch = options.fetch ?? fetch;
  const state: { after: number; outcome: "ended" | "dropped" | number } = {
    after: options.after ?? 0,
    outcome: "dropped",
  };
  const maxRetries = options.maxRetries ?? 10;
  let failures = 0;
  for (;;) {
    const url = new URL(
      `${parleyBase(options.baseUrl)}/v1/prompts/${options.promptId}/events`,
    );
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (state.after > 0) headers["Last-Event-ID"] = String(state.after);
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
    if (response.status === 204) return;
    if (!response.ok || !response.body) {
      const problem = await response.json().catch(() => undefined);
      // A 5xx is worth another try; anything else will not get better.
      if (response.status >= 500 && ++failures <= maxRetries) {
        await sleep(options.retryDelayMs ?? 1000, options.signal);
        continue;
      }
      throw new FeedError(response.status, problem);
    }
    const before = state.after;
    try {
      yield* drain(response.body, state);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      state.outcome = "dropped";
    }
    if (state.outcome === "ended") return;
    failures = state.after > before ? 0 : failures + 1;
    if (failures > maxRetries) {
      throw new Error(`the feed of ${options.promptId} kept dropping without events`);
    }
    const delay = typeof state.outcome === "number" ? state.outcome : (options.retryDelayMs ?? 1000);
    await sleep(delay, options.signal);
  }
}

export interface StreamTurnOptions {
  baseUrl: string;
  token: string;
  sessionId: string;
  content: string;
  /** Other fields of the message (`model`, `attachments`, `parent_message_id`,
   * `response_format`). */
  body?: Partial<Omit<components["schemas"]["CreateMessage"], "content">>;
  /** Sent as `Idempotency-Key`: a retried send returns the same turn. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  retryDelayMs?: number;
}

/**
 * Sends a message and yields its turn's events: the `POST …/messages` response streams
 * them; if that connection drops, the rest comes from {@link followPrompt} with the
 * prompt id of the first event and `Last-Event-ID`.
 */
export async function* streamTurn(options: StreamTurnOptions): AsyncGenerator<StreamEvent> {
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = {
    Accept: "text/event-stream",
    Authorization: `Bearer ${options.token}`,
    "Content-Type": "application/json",
  };
  if (options.idempotencyKey) headers["Idempotency-Key"] = options.idempotencyKey;
  const baseUrl = parleyBase(options.baseUrl);
  const response = await doFetch(`${baseUrl}/v1/sessions/${options.sessionId}/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify({ ...options.body, content: options.content }),
    signal: options.signal,
  });
  if (!response.ok || !response.body) {
    throw new FeedError(response.status, await response.json().catch(() => undefined));
  }
  const state: { after: number; outcome: "ended" | "dropped" | number } = {
    after: 0,
    outcome: "dropped",
  };
  let promptId: string | undefined;
  try {
    for await (const event of drain(response.body, state)) {
      if ("prompt_id" in event) promptId ??= event.prompt_id;
      yield event;
    }
  } catch (err) {
    if (options.signal?.aborted) throw err;
    state.outcome = "dropped";
  }
  if (state.outcome === "ended") return;
  if (!promptId) throw new Error("the turn's stream ended before its first event");
  yield* followPrompt({
    baseUrl,
    promptId,
    token: options.token,
    after: state.after,
    signal: options.signal,
    fetch: options.fetch,
    retryDelayMs: options.retryDelayMs,
  });
}
