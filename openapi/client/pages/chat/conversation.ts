/**
 * The open session's conversation: one branch of its message tree (`GET
 * /v1/sessions/{id}/messages`, the active branch), drawn as message views kept by key so
 * that reading the branch again (after a turn, an edit, a switch, a timer's notice, an
 * event from another tab) moves the views it still has instead of rebuilding them.
 *
 * A turn this tab runs or follows is the *live* view at the end, with the user's message
 * as sent until the branch has it. Reads of the branch asked for while a turn runs or a
 * message is being edited wait until it ends (`turns.ts` reads it then).
 */
import { byId } from "../common";
import { AnswerView } from "./answer";
import { chat, type Message, notice } from "./state";
import { UserView } from "./views";
import type { Schemas } from "../../src/index";

type View = UserView | AnswerView;

let messages: Message[] = [];
let views = new Map<string, View>();
let live: { view: AnswerView; user?: UserView } | null = null;
/** A turn that ended without an answer in the branch (it failed or was cancelled early):
 * shown at the end until the next turn. */
let orphan: AnswerView | null = null;
let stale = false;
let loading: Promise<void> | null = null;
let again = false;

const box = () => byId("messages");
const keyOf = (m: Message) => (m.role === "user" ? `u:${m.id}` : `a:${m.prompt_id ?? m.id}`);

/** The branch's messages, oldest first, every page; or what went wrong. */
async function readBranch(sessionId: string, branch?: string): Promise<Message[] | string> {
  const items: Message[] = [];
  let cursor: string | undefined;
  do {
    const { data, error, response } = await chat.client.GET("/v1/sessions/{id}/messages", {
      params: { path: { id: sessionId }, query: { limit: 100, cursor, branch } },
    });
    if (!data) return String((error as { detail?: string } | undefined)?.detail ?? `request failed (${response.status})`);
    items.push(...data.items);
    cursor = data.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

function nearBottom(): boolean {
  const b = box();
  return b.scrollHeight - b.scrollTop - b.clientHeight < 80;
}

export function scrollDown(): void {
  const b = box();
  b.scrollTop = b.scrollHeight;
}

const editing = () => [...views.values()].some((v) => v instanceof UserView && v.editing);

/** Draws the branch (and the live turn) with the views it has, new ones for the rest. */
export function render(): void {
  const follow = nearBottom();
  const liveId = live?.view.promptId;
  const shown = messages.filter((m) => !(liveId && m.role === "assistant" && m.prompt_id === liveId));
  if (live?.user && live.view.userMessageId) views.set(`u:${live.view.userMessageId}`, live.user);
  const next = new Map<string, View>();
  const nodes: HTMLElement[] = [];
  shown.forEach((m, i) => {
    const key = keyOf(m);
    const view = views.get(key) ?? (m.role === "user" ? new UserView(m.content, m.attachments) : AnswerView.of(m));
    view.update(m, i === shown.length - 1 && !live);
    next.set(key, view);
    nodes.push(view.root);
  });
  if (live) {
    if (live.user && !nodes.includes(live.user.root)) nodes.push(live.user.root);
    nodes.push(live.view.root);
    if (liveId) next.set(`a:${liveId}`, live.view);
  } else if (orphan) {
    nodes.push(orphan.root);
  }
  views = next;
  const b = box();
  const same = b.children.length === nodes.length && nodes.every((n, i) => b.children[i] === n);
  if (!same) b.replaceChildren(...nodes);
  if (follow) scrollDown();
}

async function load(): Promise<void> {
  const id = chat.sessionId;
  if (!id) return;
  const items = await readBranch(id);
  if (chat.sessionId !== id) return;
  if (typeof items === "string") {
    notice(items);
    return;
  }
  messages = items;
  render();
}

/**
 * Reads the branch again and draws it; while a turn runs or an edit is open, later
 * (`force`: now, for a turn followed from another tab whose user message just landed).
 * Calls close together share one read.
 */
export async function reloadConversation(options: { force?: boolean } = {}): Promise<void> {
  if (!options.force && (chat.running || editing())) {
    stale = true;
    return;
  }
  stale = false;
  if (loading) {
    again = true;
    return loading;
  }
  loading = (async () => {
    do {
      again = false;
      await load();
    } while (again);
  })().finally(() => {
    loading = null;
  });
  return loading;
}

/** A read put off while a turn ran or an edit was open, now. */
export function flushStale(): void {
  if (stale) void reloadConversation();
}

/**
 * Opens a session's conversation: its active branch (or, for `focus`, the branch with
 * that message, which becomes the active one), drawn, and `focus` shown. Returns the
 * prompt the session is answering, if any, for the caller to follow.
 */
export async function openConversation(sessionId: string, focus?: string): Promise<string | null> {
  messages = [];
  views = new Map();
  live = null;
  orphan = null;
  box().replaceChildren();
  const [items, streaming] = await Promise.all([
    readBranch(sessionId),
    chat.client.GET("/v1/sessions/{id}/streaming", { params: { path: { id: sessionId } } }),
  ]);
  if (chat.sessionId !== sessionId) return null;
  if (typeof items === "string") {
    notice(items);
    return null;
  }
  messages = items;
  const active = streaming.data?.prompt;
  const running = active && !["completed", "failed", "error", "canceled"].includes(active.state) ? active.id : null;
  if (focus && !running && !items.some((m) => m.id === focus)) {
    const switched = await chat.client.PUT("/v1/sessions/{id}/branch", {
      params: { path: { id: sessionId } },
      body: { message_id: focus },
    });
    if (switched.data) {
      const branch = await readBranch(sessionId);
      if (typeof branch !== "string") messages = branch;
    }
  }
  render();
  if (focus) {
    const found = box().querySelector<HTMLElement>(`[data-message-id="${CSS.escape(focus)}"]`);
    if (found) {
      found.classList.add("found");
      found.scrollIntoView({ block: "center" });
    }
  }
  return running;
}

export function closeConversation(): void {
  messages = [];
  views = new Map();
  live = null;
  orphan = null;
  box().replaceChildren();
}

export interface LiveStart {
  /** The user's message as sent (absent: a regenerate, or a turn of another tab). */
  userText?: string;
  attachments?: Schemas["Attachment"][];
  /** Messages shown from this one on are replaced by the turn (an edit). */
  replacing?: string;
  /** Messages shown after this one are replaced by the turn (a regenerate). */
  after?: string;
}

/** Puts a turn's live view at the end of the conversation. */
export function startLive(view: AnswerView, start: LiveStart = {}): void {
  orphan = null;
  const cut = start.replacing ?? start.after;
  if (cut) {
    const at = messages.findIndex((m) => m.id === cut);
    if (at >= 0) messages = messages.slice(0, start.replacing ? at : at + 1);
  }
  const user = start.userText === undefined ? undefined : new UserView(start.userText, start.attachments ?? []);
  live = { view, user };
  render();
  scrollDown();
}

/** The live turn ended: read the branch, which has its messages now. */
export async function endLive(): Promise<void> {
  const ended = live;
  live = null;
  // The branch's messages of the turn keep the views that showed it.
  if (ended?.view.promptId) views.set(`a:${ended.view.promptId}`, ended.view);
  if (ended?.user && ended.view.userMessageId) views.set(`u:${ended.view.userMessageId}`, ended.user);
  await reloadConversation();
  if (ended && ended.view.state !== "complete" && !messages.some((m) => m.prompt_id === ended.view.promptId && m.role === "assistant")) {
    // Nothing of the answer was kept: the note of how it ended stays until the next turn.
    orphan = ended.view;
    render();
  }
}
