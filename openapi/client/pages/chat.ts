/**
 * The demo chat page (`GET /chat`), after seed 002's ChatTray: sign in with a token,
 * pick a chat tool, open or reopen a session, and talk. The assistant's answer streams
 * in (a "Thinking…" bubble until the first text), function calls show as inline cards
 * where the answer has `[[tool:N]]` markers (collapsed; name, input and output from the
 * answer's `tool_history`), suggested values as chips that send their value, suggested
 * actions as buttons; Cancel stops the turn. The open session is in the URL
 * (`#session=…`): after a reload the page shows the conversation and follows the turn
 * still running from its first event.
 */
import DOMPurify from "dompurify";
import { marked } from "marked";

import {
  type ParleyClient,
  type Schemas,
  type StreamEvent,
  followPrompt,
  streamTurn,
} from "../src/index";
import { baseUrl, byId, el, problemText, signIn } from "./common";

type ToolHistory = NonNullable<Schemas["ChatResponsePayload"]["tool_history"]>;
type Payload = Schemas["ChatResponsePayload"];

let client: ParleyClient;
let token = "";
let sessionId: string | null = null;
/** The prompt being streamed, while a turn runs. */
let running: string | null = null;

const messages = () => byId("messages");

function scrollDown(): void {
  const box = messages();
  box.scrollTop = box.scrollHeight;
}

/** Markdown to sanitized HTML. */
function markdown(text: string): string {
  return DOMPurify.sanitize(marked.parse(text, { async: false }));
}

function toolCard(index: number, call: ToolHistory[number] | undefined, state: string): HTMLElement {
  const card = el(
    "details",
    { class: "tool-card", "data-tool-index": String(index), "data-state": state },
    el("summary", {}, el("span", { class: "tool-icon" }, "🔧"), " ", call?.tool_name ?? `tool ${index}`),
  );
  if (call) {
    card.append(
      el("div", { class: "tool-io" }, el("strong", {}, "Input"), el("pre", { class: "tool-input" }, JSON.stringify(call.input, null, 2))),
      el("div", { class: "tool-io" }, el("strong", {}, "Output"), el("pre", { class: "tool-output" }, JSON.stringify(call.output, null, 2))),
    );
  }
  return card;
}

/** The answer's text as markdown, with a tool card where each `[[tool:N]]` marker is. */
function renderAnswer(target: HTMLElement, text: string, history: ToolHistory | undefined, live: Map<number, string>): void {
  target.replaceChildren();
  const parts = text.split(/\[\[tool:(\d+)\]\]/);
  parts.forEach((part, i) => {
    if (i % 2 === 0) {
      if (part.trim()) {
        const block = el("div", { class: "md" });
        block.innerHTML = markdown(part);
        target.append(block);
      }
    } else {
      const n = Number(part);
      target.append(toolCard(n, history?.[n], history?.[n] ? "done" : (live.get(n) ?? "running")));
    }
  });
}

/** One assistant bubble following a turn's events. */
class AnswerView {
  readonly bubble: HTMLElement;
  private readonly body: HTMLElement;
  private readonly thinking: HTMLElement;
  private text = "";
  private readonly toolStates = new Map<number, string>();
  promptId: string | null = null;

  constructor() {
    this.thinking = el("div", { class: "thinking" }, "Thinking…");
    this.body = el("div", { class: "answer" });
    this.bubble = el("div", { class: "message assistant", "data-state": "streaming" }, this.thinking, this.body);
    messages().append(this.bubble);
    scrollDown();
  }

  on(event: StreamEvent): void {
    if ("prompt_id" in event && !this.promptId) {
      this.promptId = event.prompt_id;
      this.bubble.dataset.promptId = event.prompt_id;
    }
    switch (event.type) {
      case "text_delta":
        this.text += event.text;
        this.thinking.hidden = true;
        this.render();
        break;
      case "tool_start":
        this.toolStates.set(event.index, "running");
        this.thinking.hidden = true;
        this.render();
        break;
      case "tool_complete":
        this.toolStates.set(event.index, event.state);
        this.render();
        break;
      case "status":
        this.thinking.textContent = event.message;
        break;
      case "retry":
      case "reset":
        // The turn starts over (or the feed was rebuilt): drop what was shown.
        this.text = "";
        this.toolStates.clear();
        this.thinking.hidden = false;
        this.render();
        break;
      case "complete":
        this.finish(event.payload);
        break;
      case "error":
        this.thinking.hidden = true;
        this.bubble.dataset.state = "error";
        this.bubble.append(el("div", { class: "turn-error" }, `Error: ${event.message}`));
        break;
      case "cancelled":
        this.thinking.hidden = true;
        this.bubble.dataset.state = "cancelled";
        this.bubble.append(el("div", { class: "turn-note" }, "Cancelled"));
        break;
      default:
        break;
    }
    scrollDown();
  }

  private render(): void {
    renderAnswer(this.body, this.text, undefined, this.toolStates);
  }

  finish(payload: Payload): void {
    this.thinking.hidden = true;
    this.bubble.dataset.state = "complete";
    renderAnswer(this.body, payload.message, payload.tool_history, this.toolStates);
    const values = payload.suggested_values ?? [];
    const actions = payload.suggested_actions ?? [];
    if (values.length) {
      this.bubble.append(
        el(
          "div",
          { class: "chips" },
          ...values.map((v) => {
            const chip = el("button", { class: "chip", type: "button", "data-value": v.value }, v.label);
            chip.addEventListener("click", () => void send(v.value));
            return chip;
          }),
        ),
      );
    }
    if (actions.length) {
      this.bubble.append(
        el(
          "div",
          { class: "actions" },
          ...actions.map((a) => {
            const button = el("button", { class: `action ${a.style ?? "secondary"}`, type: "button", "data-action": a.action }, a.label);
            button.addEventListener("click", () => void runAction(a));
            return button;
          }),
        ),
      );
    }
  }
}

function userBubble(text: string): void {
  messages().append(el("div", { class: "message user" }, text));
  scrollDown();
}

function setRunning(promptId: string | null): void {
  running = promptId;
  byId<HTMLButtonElement>("cancel").hidden = !promptId;
  byId<HTMLButtonElement>("send").disabled = Boolean(promptId);
  document.body.dataset.turn = promptId ? "running" : "idle";
}

function notice(text: string): void {
  byId("notice").textContent = text;
}

/** Follows `events` into a new assistant bubble until the turn ends. */
async function follow(events: AsyncGenerator<StreamEvent>): Promise<void> {
  const view = new AnswerView();
  try {
    for await (const event of events) {
      view.on(event);
      if (view.promptId && running !== view.promptId) setRunning(view.promptId);
    }
  } catch (err) {
    view.bubble.dataset.state = "error";
    view.bubble.append(el("div", { class: "turn-error" }, `Error: ${err instanceof Error ? err.message : String(err)}`));
  } finally {
    setRunning(null);
    void loadSessions();
  }
}

async function send(content: string): Promise<void> {
  if (!sessionId || running || !content.trim()) return;
  notice("");
  userBubble(content);
  setRunning("pending");
  await follow(streamTurn({ baseUrl, token, sessionId, content, idempotencyKey: crypto.randomUUID() }));
}

async function runAction(action: NonNullable<Payload["suggested_actions"]>[number]): Promise<void> {
  if (!sessionId) return;
  if (action.handler === "client") {
    // The page's own actions: closing the chat leaves the session list.
    if (action.action.startsWith("close")) openSession(null);
    return;
  }
  const { data, error, response } = await client.POST("/v1/sessions/{id}/actions", {
    params: { path: { id: sessionId } },
    body: { action: action.action as Schemas["ServerActionName"] },
  });
  if (!data) {
    notice(problemText(error, response.status));
    return;
  }
  if (data.prompt_id) {
    await follow(followPrompt({ baseUrl, token, promptId: data.prompt_id }));
  }
  if (data.session_state === "completed") notice("The session is completed.");
}

/** An answer from the history: its tool cards need the turn's `tool_history`, which
 * the prompt's (finished) feed gives in its `complete` event. */
async function historyAnswer(message: Schemas["Message"]): Promise<void> {
  const bubble = el("div", { class: "message assistant", "data-state": message.is_complete ? "complete" : "partial" });
  const body = el("div", { class: "answer" });
  bubble.append(body);
  messages().append(bubble);
  renderAnswer(body, message.content, undefined, new Map());
  if (message.prompt_id && /\[\[tool:\d+\]\]/.test(message.content)) {
    for await (const event of followPrompt({ baseUrl, token, promptId: message.prompt_id })) {
      if (event.type === "complete") renderAnswer(body, event.payload.message, event.payload.tool_history, new Map());
    }
  }
}

/** The session's messages, oldest first, every page; or what went wrong. */
async function allMessages(id: string): Promise<Schemas["Message"][] | string> {
  const items: Schemas["Message"][] = [];
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET("/v1/sessions/{id}/messages", {
      params: { path: { id }, query: { limit: 100, cursor } },
    });
    if (!data) return problemText(error, response.status);
    items.push(...data.items);
    cursor = data.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

async function openSession(id: string | null): Promise<void> {
  sessionId = id;
  window.location.hash = id ? `session=${id}` : "";
  messages().replaceChildren();
  byId("composer").hidden = !id;
  document.querySelectorAll("#sessions li").forEach((li) => li.classList.toggle("current", (li as HTMLElement).dataset.id === id));
  if (!id) return;
  const [history, streaming] = await Promise.all([
    allMessages(id),
    client.GET("/v1/sessions/{id}/streaming", { params: { path: { id } } }),
  ]);
  if (typeof history === "string") {
    notice(history);
    return;
  }
  const active = streaming.data?.prompt;
  const runningNow = active && !["completed", "failed", "error", "canceled"].includes(active.state) ? active.id : null;
  for (const message of history) {
    if (message.role === "user") userBubble(message.content);
    else if (message.role === "assistant" && message.prompt_id !== runningNow) await historyAnswer(message);
  }
  if (runningNow) {
    // A turn still running (the page was reloaded): follow it from its first event.
    setRunning(runningNow);
    await follow(followPrompt({ baseUrl, token, promptId: runningNow }));
  }
}

async function loadSessions(): Promise<void> {
  const { data } = await client.GET("/v1/sessions", { params: { query: { limit: 100 } } });
  const list = byId("sessions");
  list.replaceChildren(
    ...(data?.items ?? []).map((s) => {
      const item = el("li", { "data-id": s.id, class: s.id === sessionId ? "current" : undefined }, `${new Date(s.started_at).toLocaleString()} · ${s.state}`);
      item.addEventListener("click", () => void openSession(s.id));
      return item;
    }),
  );
}

async function start(signedIn: ParleyClient, signedInToken: string): Promise<void> {
  client = signedIn;
  token = signedInToken;
  const { data } = await client.GET("/v1/tools");
  const select = byId<HTMLSelectElement>("tool");
  select.replaceChildren(...(data?.items ?? []).map((t) => el("option", { value: t.id }, t.name)));
  await loadSessions();
  const fromUrl = new URLSearchParams(window.location.hash.slice(1)).get("session");
  if (fromUrl) await openSession(fromUrl);
  document.body.dataset.ready = "true";
}

function wire(): void {
  byId("new-session").addEventListener("click", async () => {
    const toolId = byId<HTMLSelectElement>("tool").value;
    if (!toolId) return;
    const { data, error, response } = await client.POST("/v1/sessions", { body: { tool_id: toolId } });
    if (!data) {
      notice(problemText(error, response.status));
      return;
    }
    await loadSessions();
    await openSession(data.id);
  });
  const input = byId<HTMLTextAreaElement>("input");
  byId<HTMLFormElement>("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const content = input.value;
    input.value = "";
    void send(content);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      byId<HTMLFormElement>("composer").requestSubmit();
    }
  });
  byId("cancel").addEventListener("click", async () => {
    if (!running || running === "pending") return;
    await client.POST("/v1/prompts/{id}/cancel", { params: { path: { id: running } } });
  });
  signIn(
    async (candidate) => {
      const { response } = await candidate.GET("/v1/tools");
      return response.ok ? null : response.status === 401 ? "That token is not valid." : `Sign-in failed (${response.status}).`;
    },
    (signedIn, signedInToken) => void start(signedIn, signedInToken),
  );
}

wire();
