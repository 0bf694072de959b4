/**
 * The chat page (`GET /chat`), after seed 002's ChatTray, on the generated client: sign
 * in with a token, pick a chat tool, open or reopen a session, and talk.
 *
 * - `chat/sidebar.ts`: sessions (titles, pinned first, archived apart), rename, pin,
 *   archive, delete, search.
 * - `chat/conversation.ts`: the open session's branch of its message tree;
 *   `chat/views.ts` and `chat/answer.ts` draw its messages (action bar with the ‹ n/m ›
 *   switcher, Copy, Edit, Regenerate; streamed answers with function-call cards and
 *   suggestions); `chat/render.ts` the answer's text and cards.
 * - `chat/turns.ts`: sending, editing, regenerating, switching, cancel, following a turn.
 * - `chat/composer.ts`: attachments and the model picker.
 * - `chat/live.ts`: the user's feed (another tab's turns, timer notices, titles).
 * - `chat/extensions.ts`: where features that land later plug in: `chat/feedback.ts`
 *   (thumbs up / down on answers) and `chat/approvals.ts` (approval cards for function
 *   calls that wait for the user).
 *
 * The open session is in the URL (`#session=…`): after a reload the page shows the
 * conversation and follows the turn still running from its first event. Below 720 px the
 * sidebar folds away behind a button; colours follow the system's light or dark setting.
 */
import type { ParleyClient } from "../src/index";
import { byId, el, problemText, signIn } from "./common";
import "./chat/approvals";
import { initComposer, pickFor } from "./chat/composer";
import { closeConversation, openConversation } from "./chat/conversation";
import { eachExtension } from "./chat/extensions";
import "./chat/feedback";
import { followFeed, page } from "./chat/live";
import { initSidebar, loadSessions, markCurrent, titleOf } from "./chat/sidebar";
import { chat, notice } from "./chat/state";
import { cancel, followRunning, send } from "./chat/turns";

const narrow = () => window.matchMedia("(max-width: 720px)").matches;

function showSidebar(show: boolean): void {
  document.body.dataset.sidebar = show ? "open" : "closed";
  byId("sidebar-toggle").setAttribute("aria-expanded", String(show));
}

async function openSession(id: string | null, focus?: string): Promise<void> {
  if (chat.running && id !== chat.sessionId) {
    notice("Wait for the answer (or cancel it) before leaving this chat.");
    return;
  }
  chat.sessionId = id;
  chat.session = null;
  if (window.location.hash !== (id ? `#session=${id}` : "")) window.location.hash = id ? `session=${id}` : "";
  notice("");
  markCurrent(id);
  byId("composer").hidden = !id;
  byId("chat-title").textContent = "";
  if (narrow()) showSidebar(!id);
  if (!id) {
    closeConversation();
    return;
  }
  const [session, running] = await Promise.all([
    chat.client.GET("/v1/sessions/{id}", { params: { path: { id } } }),
    openConversation(id, focus),
  ]);
  if (chat.sessionId !== id) return;
  if (session.data) {
    chat.session = session.data;
    byId("chat-title").textContent = titleOf(session.data);
    pickFor(session.data);
  } else {
    notice(problemText(session.error, session.response.status));
  }
  // A turn still running (the page was reloaded): follow it from its first event.
  if (running) void followRunning(running);
}

async function start(signedIn: ParleyClient, signedInToken: string): Promise<void> {
  chat.client = signedIn;
  chat.token = signedInToken;
  const { data } = await chat.client.GET("/v1/tools");
  const select = byId<HTMLSelectElement>("tool");
  select.replaceChildren(...(data?.items ?? []).map((t) => el("option", { value: t.id }, t.name)));
  await Promise.all([loadSessions(), initComposer()]);
  eachExtension((x) => x.start?.(page));
  void followFeed(() => void openSession(null));
  const fromUrl = new URLSearchParams(window.location.hash.slice(1)).get("session");
  if (fromUrl) await openSession(fromUrl);
  else showSidebar(true);
  document.body.dataset.ready = "true";
}

function wire(): void {
  initSidebar((id, focus) => void openSession(id, focus));
  byId("new-session").addEventListener("click", async () => {
    const toolId = byId<HTMLSelectElement>("tool").value;
    if (!toolId) return;
    if (chat.running) {
      notice("Wait for the answer (or cancel it) before opening another chat.");
      return;
    }
    const { data, error, response } = await chat.client.POST("/v1/sessions", { body: { tool_id: toolId } });
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
    if (chat.running || !input.value.trim()) return;
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
  byId("cancel").addEventListener("click", () => void cancel());
  byId("sidebar-toggle").addEventListener("click", () => showSidebar(document.body.dataset.sidebar !== "open"));
  // On a narrow screen the drawer closes when the conversation is touched.
  document.querySelector(".chat")?.addEventListener("click", () => {
    if (narrow() && chat.sessionId && document.body.dataset.sidebar === "open") showSidebar(false);
  });
  window.addEventListener("hashchange", () => {
    const id = new URLSearchParams(window.location.hash.slice(1)).get("session");
    if (chat.client && id !== chat.sessionId) void openSession(id);
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
