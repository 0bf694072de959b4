/**
 * Turns: sending a message (or an edit of one: a sibling, `parent_message_id`),
 * regenerating an answer, switching branches, suggested actions, cancel, and following a
 * turn that runs already (after a reload, or started in another tab). Each turn streams
 * into a live answer view; when it ends the branch is read again, which brings the
 * messages' ids and their ‹ n/m › switchers.
 */
import { FeedError, type StreamEvent, type StreamTurnOptions, followPrompt, streamTurn } from "../../src/index";
import { baseUrl, byId, problemText } from "../common";
import { AnswerView } from "./answer";
import { composerModel, restoreInput, takeAttachments } from "./composer";
import { endLive, flushStale, type LiveStart, reloadConversation, startLive } from "./conversation";
import { scheduleSessionsReload } from "./sidebar";
import { chat, type Message, NIL_UUID, notice, type Payload } from "./state";
import { handlers } from "./views";

/** The turn this tab runs or follows; `body[data-turn]` says `running`, then `ending`
 * while the branch is read after it, then `idle`. */
export function setRunning(promptId: string | null, turn = promptId ? "running" : "idle"): void {
  chat.running = promptId;
  byId<HTMLButtonElement>("cancel").hidden = !promptId;
  byId<HTMLButtonElement>("send").disabled = Boolean(promptId);
  document.body.dataset.turn = turn;
}

async function ended(): Promise<void> {
  setRunning(null, "ending");
  await endLive();
  if (!chat.running) setRunning(null);
}

const CONTENT = new Set(["block_start", "text_delta", "tool_start", "status"]);

interface Run {
  /** Read the branch at the first content of the turn (its user message is saved by then). */
  readOnContent?: boolean;
  /** Put back into the composer when the turn is refused before it starts. */
  sentText?: string;
}

/** Streams `events` into `view` until the turn ends, then reads the branch. */
async function run(view: AnswerView, events: AsyncGenerator<StreamEvent>, options: Run = {}): Promise<void> {
  let read = !options.readOnContent;
  try {
    for await (const event of events) {
      view.on(event);
      if (view.promptId && chat.running !== view.promptId) setRunning(view.promptId);
      if (!read && CONTENT.has(event.type)) {
        read = true;
        void reloadConversation({ force: true });
      }
    }
    if (view.state === "streaming") view.finish("error", undefined, "the answer's feed ended early");
  } catch (err) {
    const refused = err instanceof FeedError && !view.promptId;
    const message = err instanceof FeedError ? problemText(err.problem, err.status) : err instanceof Error ? err.message : String(err);
    view.finish("error", undefined, message);
    if (refused && options.sentText !== undefined) restoreInput(options.sentText);
  } finally {
    await ended();
    scheduleSessionsReload();
  }
}

/** Sends a message: at the end of the branch, or in place of `replacing` (an edit). */
export async function send(content: string, replacing?: Message): Promise<void> {
  const sessionId = chat.sessionId;
  if (!sessionId || chat.running || !content.trim()) return;
  notice("");
  const files = replacing ? [] : takeAttachments();
  const view = AnswerView.live();
  const start: LiveStart = {
    userText: content,
    attachments: files.map((f) => ({ file_id: f.id, name: f.name, content_type: f.content_type })),
    replacing: replacing?.id,
  };
  startLive(view, start);
  setRunning("pending");
  const body: NonNullable<StreamTurnOptions["body"]> = {};
  const model = composerModel();
  if (model) body.model = model;
  if (files.length) body.attachments = files.map((f) => f.id);
  if (replacing) body.parent_message_id = replacing.parent_id ?? NIL_UUID;
  const events = streamTurn({ baseUrl, token: chat.token, sessionId, content, body, idempotencyKey: crypto.randomUUID() });
  await run(view, events, { sentText: replacing ? undefined : content });
}

/** Another answer to the user message `answer` answers; it replaces it on the branch. */
export async function regenerate(answer: Message): Promise<void> {
  const sessionId = chat.sessionId;
  if (!sessionId || chat.running) return;
  notice("");
  const view = AnswerView.live();
  startLive(view, { after: answer.parent_id });
  setRunning("pending");
  const model = composerModel();
  const { data, error, response } = await chat.client.POST("/v1/sessions/{id}/messages/{message_id}/regenerate", {
    params: { path: { id: sessionId, message_id: answer.id }, query: { background: true } },
    body: model ? { model } : {},
  });
  // `background`: 202 with the turn to follow.
  const promptId = data && "prompt_id" in data ? data.prompt_id : undefined;
  if (!promptId) {
    view.finish("error", undefined, problemText(error, response.status));
    await ended();
    return;
  }
  await run(view, followPrompt({ baseUrl, token: chat.token, promptId }));
}

/** Follows a turn of the open session that this tab did not start. */
export async function followRunning(promptId: string, options: { fromAnotherTab?: boolean } = {}): Promise<void> {
  if (chat.running) return;
  const view = AnswerView.live(promptId);
  setRunning(promptId);
  startLive(view);
  await run(view, followPrompt({ baseUrl, token: chat.token, promptId }), { readOnContent: options.fromAnotherTab });
}

/**
 * A turn started in the open session somewhere (the user feed's `turn_started`): follow
 * it if it still runs, else read the branch (the feed replays events it holds).
 */
export async function turnStartedElsewhere(promptId: string): Promise<void> {
  const sessionId = chat.sessionId;
  if (!sessionId || chat.running) return;
  const { data } = await chat.client.GET("/v1/sessions/{id}/streaming", { params: { path: { id: sessionId } } });
  if (chat.sessionId !== sessionId || chat.running) return;
  const active = data?.prompt;
  if (active?.id === promptId && !["completed", "failed", "error", "canceled"].includes(active.state)) {
    await followRunning(promptId, { fromAnotherTab: true });
  } else {
    void reloadConversation();
  }
}

/** Shows and continues the branch through `messageId` (the ‹ n/m › switcher). */
export async function switchTo(messageId: string): Promise<void> {
  const sessionId = chat.sessionId;
  if (!sessionId || chat.running) return;
  const { error, response } = await chat.client.PUT("/v1/sessions/{id}/branch", {
    params: { path: { id: sessionId } },
    body: { message_id: messageId },
  });
  if (!response.ok) {
    notice(problemText(error, response.status));
    return;
  }
  notice("");
  await reloadConversation();
}

async function runAction(action: NonNullable<Payload["suggested_actions"]>[number]): Promise<void> {
  const sessionId = chat.sessionId;
  if (!sessionId || chat.running) return;
  if (action.handler === "client") {
    // The page's own actions: closing the chat leaves the session list.
    if (action.action.startsWith("close")) window.location.hash = "";
    return;
  }
  const { data, error, response } = await chat.client.POST("/v1/sessions/{id}/actions", {
    params: { path: { id: sessionId } },
    body: { action: action.action as "send_message" | "end_session" },
  });
  if (!data) {
    notice(problemText(error, response.status));
    return;
  }
  if (data.prompt_id) await followRunning(data.prompt_id);
  if (data.session_state === "completed") notice("The session is completed.");
}

export async function cancel(): Promise<void> {
  const promptId = chat.running;
  if (!promptId || promptId === "pending") return;
  await chat.client.POST("/v1/prompts/{id}/cancel", { params: { path: { id: promptId } } });
}

handlers.edit = (message, content) => void send(content, message);
handlers.regenerate = (message) => void regenerate(message);
handlers.switchTo = (messageId) => void switchTo(messageId);
handlers.send = (content) => void send(content);
handlers.action = (action) => void runAction(action);
handlers.editClosed = flushStale;
