/**
 * What the chat page's modules share: the signed-in client, the open session and the
 * turn this tab runs or follows. One object, written by the modules that own each field
 * (`chat.ts` the client and session, `turns.ts` the running turn).
 */
import type { ParleyClient, Schemas } from "../../src/index";
import { byId } from "../common";

export type Session = Schemas["Session"];
export type Message = Schemas["Message"];
export type Payload = Schemas["ChatResponsePayload"];

export const chat = {
  client: undefined as unknown as ParleyClient,
  token: "",
  /** The open session (`#session=…` in the URL). */
  sessionId: null as string | null,
  session: null as Session | null,
  /** The prompt this tab streams or follows in the open session; "pending" until its
   * first event names it. */
  running: null as string | null,
};

/** The status line under the conversation (errors and notes for the reader). */
export function notice(text: string): void {
  byId("notice").textContent = text;
}

/** The nil UUID: an edit of a session's first message has no parent. */
export const NIL_UUID = "00000000-0000-0000-0000-000000000000";
