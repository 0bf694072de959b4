/**
 * The sidebar (architecture §7): the caller's sessions with their titles, pinned first
 * (the API's order), archived ones apart; each can be renamed in place, pinned,
 * archived and deleted (after a confirmation); a search box finds sessions by their
 * messages (`GET /v1/sessions/search`) and opens the one picked at the message found.
 * The lists are read again when the user feed says a session changed (titles arrive
 * that way), coalesced.
 */
import { byId, el, problemText } from "../common";
import { icon } from "./icons";
import { chat, notice, type Session } from "./state";
import { iconButton } from "./views";

type Open = (id: string | null, focus?: string) => void;

let open: Open = () => {};
let reloadTimer: ReturnType<typeof setTimeout> | undefined;
let searchTimer: ReturnType<typeof setTimeout> | undefined;

const when = (s: Session) => new Date(s.last_activity_at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
export const titleOf = (s: Session) => s.title ?? "New chat";

async function patch(id: string, body: { title?: string | null; pinned?: boolean; archived?: boolean }): Promise<void> {
  const { error, response } = await chat.client.PATCH("/v1/sessions/{id}", { params: { path: { id } }, body });
  if (!response.ok) notice(problemText(error, response.status));
  await loadSessions();
}

function rename(item: HTMLElement, session: Session): void {
  const input = el("input", { class: "rename-input", type: "text", "aria-label": "New title", maxlength: "200" });
  input.value = session.title ?? "";
  const form = el("form", { class: "rename-form" }, input, el("button", { type: "submit", class: "rename-save" }, "Save"));
  const row = item.querySelector(".session-row");
  let done = false;
  const finish = async (save: boolean) => {
    if (done) return;
    done = true;
    form.replaceWith(row as Node);
    if (save && input.value.trim() !== (session.title ?? "")) {
      // A blank title clears the owner's: the next exchange titles the session again.
      await patch(session.id, { title: input.value.trim() || null });
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void finish(true);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") void finish(false);
  });
  row?.replaceWith(form);
  input.focus();
  input.select();
}

function confirmDelete(item: HTMLElement, session: Session): void {
  const tools = item.querySelector(".session-tools");
  const yes = el("button", { type: "button", class: "danger confirm-delete" }, "Delete");
  const no = el("button", { type: "button", class: "keep" }, "Keep");
  const ask = el("div", { class: "confirm", role: "alertdialog", "aria-label": `Delete “${titleOf(session)}”?` }, el("span", {}, "Delete this chat?"), yes, no);
  no.addEventListener("click", () => ask.replaceWith(tools as Node));
  yes.addEventListener("click", async () => {
    const { error, response } = await chat.client.DELETE("/v1/sessions/{id}", { params: { path: { id: session.id } } });
    if (!response.ok) {
      notice(problemText(error, response.status));
      ask.replaceWith(tools as Node);
      return;
    }
    if (chat.sessionId === session.id) open(null);
    await loadSessions();
  });
  tools?.replaceWith(ask);
  no.focus();
}

function sessionItem(s: Session): HTMLElement {
  const item = el("li", {
    class: s.pinned ? "session pinned" : "session",
    "data-id": s.id,
    "data-pinned": String(Boolean(s.pinned)),
  });
  const openButton = el(
    "button",
    { class: "session-open", type: "button", title: titleOf(s) },
    el("span", { class: "session-title" }, s.pinned ? el("span", { class: "pin-mark", title: "Pinned" }, icon("pin")) : null, titleOf(s)),
    el("span", { class: "session-when" }, `${when(s)}${s.state === "completed" ? " · ended" : ""}`),
  );
  openButton.addEventListener("click", () => open(s.id));
  const pin = iconButton("pin", s.pinned ? "Unpin" : "Pin", "pin", () => void patch(s.id, { pinned: !s.pinned }));
  pin.setAttribute("aria-pressed", String(Boolean(s.pinned)));
  const tools = el(
    "div",
    { class: "session-tools" },
    iconButton("rename", "Rename", "edit", () => rename(item, s)),
    pin,
    iconButton("archive", s.archived ? "Unarchive" : "Archive", s.archived ? "unarchive" : "archive", () => void patch(s.id, { archived: !s.archived })),
    iconButton("delete", "Delete", "trash", () => confirmDelete(item, s)),
  );
  item.append(el("div", { class: "session-row" }, openButton, tools));
  return item;
}

async function list(archived: boolean): Promise<Session[]> {
  const { data } = await chat.client.GET("/v1/sessions", { params: { query: { limit: 100, archived } } });
  return data?.items ?? [];
}

/** The items drawn, by session, with what they showed: an unchanged session keeps its
 * item, and one being renamed or confirming a delete is left alone. */
const items = new Map<string, { shown: string; item: HTMLElement }>();

function itemFor(s: Session): HTMLElement {
  const shown = JSON.stringify([s.title, s.pinned, s.archived, s.state, s.last_activity_at]);
  const kept = items.get(s.id);
  if (kept && (kept.shown === shown || kept.item.querySelector(".rename-form, .confirm"))) return kept.item;
  const item = sessionItem(s);
  items.set(s.id, { shown, item });
  return item;
}

function drawList(list: HTMLElement, sessions: Session[]): void {
  const nodes = sessions.map(itemFor);
  const same = list.children.length === nodes.length && nodes.every((n, i) => list.children[i] === n);
  if (!same) list.replaceChildren(...nodes);
}

/** Reads both lists and draws them. */
export async function loadSessions(): Promise<void> {
  const [active, archived] = await Promise.all([list(false), list(true)]);
  const all = [...active, ...archived];
  for (const id of items.keys()) if (!all.some((s) => s.id === id)) items.delete(id);
  drawList(byId("sessions"), active);
  drawList(byId("archived"), archived);
  byId("archived-count").textContent = String(archived.length);
  markCurrent(chat.sessionId);
  const current = all.find((s) => s.id === chat.sessionId);
  if (current) {
    chat.session = current;
    byId("chat-title").textContent = titleOf(current);
  }
}

/** Reads the lists soon (events arrive in bursts). */
export function scheduleSessionsReload(): void {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(() => void loadSessions(), 150);
}

export function markCurrent(id: string | null): void {
  document.querySelectorAll<HTMLElement>("#sidebar li.session").forEach((li) => li.classList.toggle("current", li.dataset.id === id));
}

async function search(q: string): Promise<void> {
  const results = byId("search-results");
  const lists = byId("session-lists");
  if (!q.trim()) {
    results.hidden = true;
    lists.hidden = false;
    return;
  }
  const { data, error, response } = await chat.client.GET("/v1/sessions/search", { params: { query: { q, limit: 20 } } });
  if (byId<HTMLInputElement>("search").value !== q) return;
  results.hidden = false;
  lists.hidden = true;
  const hits = data?.items ?? [];
  if (!data && (error as { code?: string } | undefined)?.code !== "empty_query") {
    results.replaceChildren(el("li", { class: "empty" }, problemText(error, response.status)));
    return;
  }
  if (!hits.length) {
    results.replaceChildren(el("li", { class: "empty" }, "No chats found."));
    return;
  }
  results.replaceChildren(
    ...hits.map((hit) => {
      const button = el(
        "button",
        { class: "search-hit", type: "button" },
        el("span", { class: "session-title" }, hit.title ?? "New chat"),
        el("span", { class: "snippet" }, hit.snippet),
      );
      button.addEventListener("click", () => open(hit.session_id, hit.message_id));
      return el("li", { "data-id": hit.session_id, "data-message-id": hit.message_id }, button);
    }),
  );
}

export function initSidebar(onOpen: Open): void {
  open = onOpen;
  const box = byId<HTMLInputElement>("search");
  box.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void search(box.value), 250);
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      box.value = "";
      void search("");
    }
  });
}
