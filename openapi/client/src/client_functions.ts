/**
 * Functions the caller runs itself (`CreateMessage.client_functions`): {@link runTurn}
 * sends a message offering them to the model, streams the turn's events like
 * {@link streamTurn}, and answers each `client_call_requested` event by running the
 * function and posting its result (`POST /v1/prompts/{id}/calls/{call_id}/result`); the
 * turn, which waits meanwhile, then goes on with the model reading the result.
 *
 * - A function's result is posted as `output` (JSON) when it returns anything but a
 *   string, or when it declares `returns`; a string is posted as `text`.
 * - A function that throws is posted as `error` with the message, and the model is told
 *   the call failed.
 * - Calls are answered one at a time, in the order they were requested; a call that has
 *   already been answered (a resumed feed replays its request) is not run again.
 */
import { parleyBase } from "./base.js";
import { FeedError, streamTurn, type StreamTurnOptions } from "./feed.js";
import type { components } from "./schema.js";

type StreamEvent = components["schemas"]["StreamEvent"];
type ClientCallRequested = Extract<StreamEvent, { type: "client_call_requested" }>;

/** A function of the caller's, with the code that runs it. */
export interface ClientFunctionImpl {
  /** Letters, digits, `_` and `-`; not one of the session tool's own functions. */
  name: string;
  /** What it does, for the model. */
  description?: string;
  /** The JSON schema of its arguments (default: any object). */
  parameters?: Record<string, unknown>;
  /** The JSON schema of its result, when it answers JSON. */
  returns?: Record<string, unknown>;
  /** Runs a call with the model's arguments (checked against `parameters`). */
  run(input: unknown, call: ClientCallRequested): unknown | Promise<unknown>;
}

export interface RunTurnOptions extends StreamTurnOptions {
  functions: ClientFunctionImpl[];
}

/** The body of a call's result: exactly one of `output`, `text` and `error`. */
export type CallResult = components["schemas"]["ClientCallResult"];

/** What a function's return value is posted as (see the module's doc). */
export function callResult(fn: ClientFunctionImpl, value: unknown): CallResult {
  if (typeof value === "string" && !fn.returns) return { text: value };
  // A function that returns nothing answers an empty text (JSON `null` if it declares
  // a result).
  if (value === undefined || value === null) return fn.returns ? { output: null } : { text: "" };
  return { output: value } as CallResult;
}

/**
 * Sends a message offering `functions` to the model and yields its turn's events, running
 * each requested call and posting its result before reading on (see the module's doc).
 */
export async function* runTurn(options: RunTurnOptions): AsyncGenerator<StreamEvent> {
  const { functions, ...rest } = options;
  const byName = new Map(functions.map((fn) => [fn.name, fn]));
  const definitions = functions.map(({ name, description, parameters, returns }) => ({
    name,
    description,
    parameters,
    returns,
  })) as components["schemas"]["ClientFunction"][];
  const answered = new Set<string>();
  const events = streamTurn({
    ...rest,
    body: { ...rest.body, client_functions: definitions },
  });
  for await (const event of events) {
    yield event;
    if (event.type !== "client_call_requested" || answered.has(event.call_id)) continue;
    answered.add(event.call_id);
    const fn = byName.get(event.tool);
    let result: CallResult;
    if (!fn) {
      result = { error: `no function named ${event.tool} is offered` };
    } else {
      try {
        result = callResult(fn, await fn.run(event.input, event));
      } catch (err) {
        result = { error: (err instanceof Error ? err.message : String(err)) || "failed" };
      }
    }
    await postResult(options, event, result);
  }
}

async function postResult(
  options: RunTurnOptions,
  call: ClientCallRequested,
  result: CallResult,
): Promise<void> {
  const doFetch = options.fetch ?? fetch;
  const url = `${parleyBase(options.baseUrl)}/v1/prompts/${call.prompt_id}/calls/${call.call_id}/result`;
  const response = await doFetch(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${options.token}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify(result),
    signal: options.signal,
  });
  // 409: the call was answered already (another tab, or an earlier try of ours) or has
  // expired; the turn goes on either way, and its events say how.
  if (!response.ok && response.status !== 409) {
    throw new FeedError(response.status, await response.json().catch(() => undefined));
  }
  await response.body?.cancel();
}
