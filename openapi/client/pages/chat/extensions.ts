/**
 * Where later features plug into the chat page without editing its rendering: a
 * message's action bar, a function call's card, and the two feeds the page follows.
 *
 * Two are expected (issue #14 item 7): thumbs up/down on answers (`messageActions`, with
 * `PUT/DELETE /v1/sessions/{sid}/messages/{mid}/feedback`) and approval cards for a
 * function call awaiting the user (`promptEvent` / `userEvent` for `approval_requested`
 * and `approval_resolved`, `callCard` to fill the call's `slot` with Approve / Deny and
 * the editable input). An extension is a module that calls {@link registerExtension}
 * once; `chat.ts` imports it: `chat/feedback.ts` and `chat/approvals.ts` are the two.
 */
import type { ParleyClient, UserEvent } from "../../src/index";
import type { Message } from "./state";

/** A message as the page shows it, for its action bar. */
export interface MessageContext {
  client: ParleyClient;
  sessionId: string;
  message: Message;
  /** Whether it is the last message of the branch shown. */
  isLast: boolean;
}

/** A function call of an answer, live or from the history. */
export interface CallContext {
  client: ParleyClient;
  sessionId: string;
  /** The turn (prompt) that made the call; absent for a history answer not yet read. */
  promptId?: string;
  /** N of the answer's `[[tool:N]]` marker and of `tool_start` / `tool_complete`. */
  index: number;
  /** The call's id (`tool_use_id`, an approval's `call_id`), once known. */
  callId?: string;
  tool?: string;
  /** `running`, `done`, or the final `ToolCallState`. */
  state: string;
  input?: unknown;
  /** The call's card (`.call`): the collapsible details and the slot. */
  card: HTMLElement;
  /** Always visible below the collapsible details (an approval's buttons go here). */
  slot: HTMLElement;
}

/** An event of a prompt's feed: the typed `StreamEvent`s and any newer type. */
export type PromptEvent = { type: string; prompt_id?: string } & Record<string, unknown>;

/** The live answer a prompt event belongs to. */
export interface AnswerHandle {
  readonly promptId: string | null;
  /** The card of a call by its index or call id (`undefined` before its `tool_start`). */
  callCard(key: number | string): CallContext | undefined;
}

/** What a user-feed handler may do with the page. */
export interface PageHandle {
  client: ParleyClient;
  /** The open session, if any. */
  sessionId: string | null;
  /** Reads the open session's branch again and redraws it. */
  reloadConversation(): void;
  /** Reads the session list again. */
  reloadSessions(): void;
}

export interface ChatExtension {
  name: string;
  /** The page signed in and is about to open its chat (once per page load). */
  start?(page: PageHandle): void;
  /** Buttons for a message's action bar (after Copy, Edit, Regenerate). */
  messageActions?(ctx: MessageContext): Node[];
  /** A call's card was drawn or its state changed: fill or update `ctx.slot`. */
  callCard?(ctx: CallContext): void;
  /** Each event of a prompt this page follows, before the page handles it. */
  promptEvent?(event: PromptEvent, answer: AnswerHandle): void;
  /** Each event of the user's feed (`GET /v1/feed`), before the page handles it. */
  userEvent?(event: UserEvent, page: PageHandle): void;
}

const extensions: ChatExtension[] = [];

export function registerExtension(extension: ChatExtension): void {
  extensions.push(extension);
}

/** Runs `f` for every extension; one that throws does not break the page. */
export function eachExtension(f: (extension: ChatExtension) => void): void {
  for (const extension of extensions) {
    try {
      f(extension);
    } catch (err) {
      console.error(`chat extension ${extension.name}:`, err);
    }
  }
}
