/**
 * Parley's TypeScript client.
 *
 * - {@link createParley}: a typed client for every operation of `openapi/openapi.json`
 *   (openapi-fetch over the types openapi-typescript generated into `schema.d.ts`),
 *   with the bearer token set once.
 * - {@link followPrompt} and {@link streamTurn} (`feed.ts`): a prompt's Server-Sent
 *   Events as an async iterator, resuming with `Last-Event-ID` when the connection drops
 *   or the server asks (`reconnect`), until the terminal event.
 * - {@link followUserFeed} (`user_feed.ts`): the caller's own feed (`GET /v1/feed`):
 *   sessions, turns, approvals and timers across their tabs and devices.
 * - {@link runTurn} (`client_functions.ts`): a turn that offers the model functions the
 *   caller runs itself, answering each call's request with the function's result.
 */
import createClient, { type Client } from "openapi-fetch";

import { parleyBase } from "./base.js";
import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";
export { parleyBase } from "./base.js";
export * from "./client_functions.js";
export * from "./feed.js";
export * from "./user_feed.js";

export type Schemas = components["schemas"];
export type StreamEvent = Schemas["StreamEvent"];
export type Problem = Schemas["Problem"];
export type ParleyClient = Client<paths>;

export interface ParleyOptions {
  /** Where Parley serves, e.g. `https://chat.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** An API token (`Authorization: Bearer …`). */
  token?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** A typed client: `client.GET("/v1/sessions/{id}", { params: { path: { id } } })`. */
export function createParley(options: ParleyOptions): ParleyClient {
  const client = createClient<paths>({
    baseUrl: parleyBase(options.baseUrl),
    fetch: options.fetch,
  });
  if (options.token) {
    const authorization = `Bearer ${options.token}`;
    client.use({
      onRequest({ request }) {
        request.headers.set("Authorization", authorization);
        return request;
      },
    });
  }
  return client;
}
