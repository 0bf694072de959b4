/**
 * The teacher's page (`GET /teacher`): the classes the signed-in user teaches
 * (`/v1/teaching/classes`), and for the class picked its assignments and students, its
 * sessions, and what modules found in them — extractions and blocks — with filters
 * (assignment, student, dates, type, category). Every row links into the conversation,
 * shown read-only from `GET /v1/sessions/{id}/messages` (no composer: a teacher writes
 * nothing). The API decides what is visible: another class answers 404, which the page
 * shows as "not found".
 *
 * Where the page is lives in the address (`#class=…&session=…&message=…`), so a link to
 * a finding opens its conversation at the message, and the back button goes back.
 */
import { type ParleyClient, type Schemas } from "../src/index";
import { byId, el, problemText, signIn } from "./common";

type ClassDetail = Schemas["TeachingClassDetail"];

/** What the address says the page shows. */
interface Place {
  classId?: string;
  sessionId?: string;
  messageId?: string;
}

function place(): Place {
  const params = new URLSearchParams(window.location.hash.slice(1));
  return {
    classId: params.get("class") ?? undefined,
    sessionId: params.get("session") ?? undefined,
    messageId: params.get("message") ?? undefined,
  };
}

function href(p: Place): string {
  const params = new URLSearchParams();
  if (p.classId) params.set("class", p.classId);
  if (p.sessionId) params.set("session", p.sessionId);
  if (p.messageId) params.set("message", p.messageId);
  return `#${params.toString()}`;
}

const when = (at: string) => new Date(at).toLocaleString();
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The filters of the lists, as the form holds them. */
interface Filters {
  assignment_id?: string;
  student_id?: string;
  from?: string;
  to?: string;
}

/** A `YYYY-MM-DD` date input as the start of that day (UTC), or of the day after. */
function dayStart(value: string, plusDays = 0): string | undefined {
  if (!value) return undefined;
  const day = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return undefined;
  day.setUTCDate(day.getUTCDate() + plusDays);
  return day.toISOString();
}

function table(kind: string, head: string[], rows: HTMLElement[], empty: string): HTMLElement {
  if (!rows.length) return el("p", { class: "empty", "data-empty": kind }, empty);
  return el(
    "div",
    { class: "table-wrap" },
    el("table", { class: `${kind}-table` }, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))), el("tbody", {}, ...rows)),
  );
}

function section(id: string, title: string, ...content: (Node | string)[]): HTMLElement {
  return el("section", { class: "card", id }, el("h2", {}, title), ...content);
}

function openLink(classId: string, sessionId: string, messageId?: string): HTMLElement {
  return el("a", { class: "open", href: href({ classId, sessionId, messageId }) }, "Open");
}

async function sessions(client: ParleyClient, classId: string, f: Filters): Promise<HTMLElement> {
  const { data, error, response } = await client.GET("/v1/teaching/classes/{id}/sessions", {
    params: { path: { id: classId }, query: { ...f, limit: 100 } },
  });
  if (!data) return el("p", { class: "status" }, problemText(error, response.status));
  const rows = data.items.map((s) =>
    el(
      "tr",
      { "data-session": s.id, "data-student": s.student_id },
      el("td", { "data-label": "Student" }, s.student_name),
      el("td", { "data-label": "Assignment" }, s.assignment_title),
      el("td", { "data-label": "Title" }, s.title ?? "(untitled)"),
      el("td", { "data-label": "Messages", "data-field": "messages" }, String(s.message_count)),
      el("td", { "data-label": "Last active" }, when(s.last_activity_at)),
      el("td", { "data-label": "Findings", "data-field": "extractions" }, String(s.extractions)),
      el("td", { "data-label": "Blocks", "data-field": "blocks" }, String(s.blocks)),
      el("td", {}, openLink(classId, s.id)),
    ),
  );
  const more = data.next_cursor ? el("p", { class: "empty" }, "The 100 most recent; narrow the filters to see others.") : null;
  return el("div", {}, table("sessions", ["Student", "Assignment", "Title", "Messages", "Last active", "Findings", "Blocks", ""], rows, "No sessions match."), more ?? "");
}

/** An extraction's data in a line: `types: email · count: 1`. */
function summary(data: unknown): string {
  if (!data || typeof data !== "object") return JSON.stringify(data);
  return Object.entries(data as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(" · ");
}

async function extractions(client: ParleyClient, classId: string, f: Filters, type?: string): Promise<HTMLElement> {
  const { data, error, response } = await client.GET("/v1/teaching/classes/{id}/extractions", {
    params: { path: { id: classId }, query: { ...f, type: type || undefined, limit: 100 } },
  });
  if (!data) return el("p", { class: "status" }, problemText(error, response.status));
  const rows = data.items.map((x) =>
    el(
      "tr",
      { "data-extraction": x.id, "data-type": x.type, "data-session": x.session_id },
      el("td", { "data-label": "When" }, when(x.created_at)),
      el("td", { "data-label": "Student" }, x.student_name),
      el("td", { "data-label": "Assignment" }, x.assignment_title),
      el("td", { "data-label": "Type" }, el("span", { class: "badge signal" }, x.type)),
      el("td", { "data-label": "Module" }, x.module),
      el("td", { "data-label": "Details", class: "details" }, summary(x.data)),
      el("td", {}, openLink(classId, x.session_id, x.message_id)),
    ),
  );
  return table("extractions", ["When", "Student", "Assignment", "Type", "Module", "Details", ""], rows, "No findings match.");
}

async function blocks(client: ParleyClient, classId: string, f: Filters, category?: string): Promise<HTMLElement> {
  const { data, error, response } = await client.GET("/v1/teaching/classes/{id}/blocks", {
    params: { path: { id: classId }, query: { ...f, category: category || undefined, limit: 100 } },
  });
  if (!data) return el("p", { class: "status" }, problemText(error, response.status));
  const rows = data.items.map((b) =>
    el(
      "tr",
      { "data-block": b.id, "data-category": b.category ?? "", "data-session": b.session_id },
      el("td", { "data-label": "When" }, when(b.created_at)),
      el("td", { "data-label": "Student" }, b.student_name),
      el("td", { "data-label": "Assignment" }, b.assignment_title),
      el("td", { "data-label": "Category" }, el("span", { class: "badge blocked" }, b.category ?? "policy")),
      el("td", { "data-label": "Module" }, `${b.module} (${b.hook === "chat:after_ai" ? "answer" : "message"})`),
      el("td", { "data-label": "Reason", class: "details" }, b.reason ?? "–"),
      el("td", {}, openLink(classId, b.session_id, b.message_id)),
    ),
  );
  return table("blocks", ["When", "Student", "Assignment", "Category", "Module", "Reason", ""], rows, "No blocks match.");
}

function select(id: string, label: string, options: [string, string][]): HTMLElement {
  return el(
    "label",
    {},
    label,
    el("select", { id }, el("option", { value: "" }, "All"), ...options.map(([value, text]) => el("option", { value }, text))),
  );
}

function filtersForm(detail: ClassDetail): HTMLFormElement {
  return el(
    "form",
    { id: "filters", class: "filters" },
    select("f-assignment", "Assignment", detail.assignments.map((a) => [a.id, a.title])),
    select("f-student", "Student", detail.students.map((s) => [s.id, s.name])),
    el("label", {}, "From", el("input", { id: "f-from", type: "date" })),
    el("label", {}, "To", el("input", { id: "f-to", type: "date" })),
    el("label", {}, "Finding type", el("input", { id: "f-type", type: "text", placeholder: "e.g. pii_detected", size: "14" })),
    el("label", {}, "Block category", el("input", { id: "f-category", type: "text", placeholder: "e.g. self_harm", size: "12" })),
    el("button", { type: "submit" }, "Apply"),
    el("button", { type: "reset", id: "f-reset" }, "Clear"),
  );
}

function readFilters(): { filters: Filters; type: string; category: string } {
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
  return {
    filters: {
      assignment_id: value("f-assignment") || undefined,
      student_id: value("f-student") || undefined,
      from: dayStart(value("f-from")),
      to: dayStart(value("f-to"), 1),
    },
    type: value("f-type"),
    category: value("f-category"),
  };
}

async function refreshLists(client: ParleyClient, classId: string): Promise<void> {
  const { filters, type, category } = readFilters();
  const box = byId("lists");
  box.dataset.loading = "true";
  const [s, x, b] = await Promise.all([
    sessions(client, classId, filters),
    extractions(client, classId, filters, type),
    blocks(client, classId, filters, category),
  ]);
  box.replaceChildren(
    section("sessions", "Sessions", s),
    section("extractions", "Findings (extractions)", x),
    section("blocks", "Blocks", b),
  );
  box.dataset.loading = "false";
}

function overview(detail: ClassDetail): HTMLElement {
  const assignments = table(
    "assignments",
    ["Assignment", "Tool", "Sessions"],
    detail.assignments.map((a) =>
      el(
        "tr",
        { "data-assignment": a.id },
        el("td", { "data-label": "Assignment" }, a.title),
        el("td", { "data-label": "Tool" }, a.tool_name),
        el("td", { "data-label": "Sessions" }, String(a.sessions)),
      ),
    ),
    "No assignments yet.",
  );
  const students = table(
    "students",
    ["Student", "Email", "Sessions"],
    detail.students.map((s) =>
      el(
        "tr",
        { "data-student": s.id },
        el("td", { "data-label": "Student" }, s.name),
        el("td", { "data-label": "Email" }, s.email),
        el("td", { "data-label": "Sessions" }, String(s.sessions)),
      ),
    ),
    "No students enrolled.",
  );
  return el("div", { class: "cards" }, section("assignments", "Assignments", assignments), section("students", "Students", students));
}

async function showClass(client: ParleyClient, classId: string): Promise<void> {
  const view = byId("class");
  const { data, error, response } = await client.GET("/v1/teaching/classes/{id}", { params: { path: { id: classId } } });
  if (!data) {
    view.replaceChildren(el("p", { class: "status", id: "class-problem" }, response.status === 404 ? "Class not found." : problemText(error, response.status)));
    return;
  }
  const form = filtersForm(data);
  view.replaceChildren(el("h1", { id: "class-name" }, data.name), overview(data), form, el("div", { id: "lists" }), el("div", { id: "conversation" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void refreshLists(client, classId);
  });
  form.addEventListener("reset", () => setTimeout(() => void refreshLists(client, classId), 0));
  await refreshLists(client, classId);
}

/**
 * What the tutor still sees of a long conversation: once it outgrew the model's window,
 * the summary of what fell out of it (or a note that the tool keeps none).
 */
function memory(summary: Schemas["SessionSummary"] | undefined): HTMLElement | string {
  if (!summary || summary.steps === 0) return "";
  const last = summary.updated_at ? ` · last ${when(summary.updated_at)}` : "";
  const heading = `The tutor's memory of earlier messages (${summary.steps === 1 ? "1 step" : `${summary.steps} steps`}${last})`;
  return el(
    "details",
    { class: "memory", id: "memory", open: true },
    el("summary", {}, heading),
    summary.summary
      ? el("p", { class: "summary-text", "data-model": summary.model ?? "" }, summary.summary)
      : el("p", { class: "empty" }, "This tool keeps no summary: the earliest messages are no longer sent to the model."),
  );
}

/** The session's messages, read-only; the message asked for is marked and scrolled to. */
async function showConversation(client: ParleyClient, p: Place): Promise<void> {
  const box = byId("conversation");
  if (!p.sessionId) {
    box.replaceChildren();
    return;
  }
  const [{ data, error, response }, summary] = await Promise.all([
    client.GET("/v1/sessions/{id}/messages", {
      params: { path: { id: p.sessionId }, query: { limit: 100 } },
    }),
    client.GET("/v1/sessions/{id}/summary", { params: { path: { id: p.sessionId } } }),
  ]);
  const close = el("a", { class: "close", href: href({ classId: p.classId }) }, "Close");
  if (!data) {
    box.replaceChildren(section("transcript", "Conversation", close, el("p", { class: "status" }, response.status === 404 ? "Conversation not found." : problemText(error, response.status))));
    return;
  }
  const messages = data.items.map((m) =>
    el(
      "div",
      { class: `message ${m.role}${m.id === p.messageId ? " found" : ""}`, "data-message": m.id },
      el("div", { class: "bubble" }, m.content),
    ),
  );
  box.replaceChildren(
    section(
      "transcript",
      "Conversation (read-only)",
      close,
      memory(summary.data),
      el("div", { class: "transcript", "data-session": p.sessionId }, ...messages),
    ),
  );
  const found = box.querySelector(".message.found");
  (found ?? box).scrollIntoView({ block: "center" });
}

async function showClasses(client: ParleyClient, current?: string): Promise<string | undefined> {
  const nav = byId("classes");
  const { data, error, response } = await client.GET("/v1/teaching/classes", { params: { query: { limit: 100 } } });
  if (!data) {
    nav.replaceChildren(el("p", { class: "status" }, problemText(error, response.status)));
    return undefined;
  }
  if (!data.items.length) {
    nav.replaceChildren(el("p", { class: "empty", id: "no-classes" }, "You teach no classes."));
    return undefined;
  }
  nav.replaceChildren(
    ...data.items.map((c) =>
      el(
        "a",
        { class: `class-link${c.id === current ? " current" : ""}`, href: href({ classId: c.id }), "data-class": c.id },
        el("span", { class: "class-name" }, c.name),
        el("span", { class: "sub" }, `${count(c.students, "student", "students")} · ${count(c.assignments, "assignment", "assignments")}`),
      ),
    ),
  );
  return data.items[0]?.id;
}

/** Draws what the address names: the class (again only when it changed), the conversation. */
function router(client: ParleyClient): () => Promise<void> {
  let shown: string | undefined;
  return async () => {
    const p = place();
    const first = await showClasses(client, p.classId);
    const classId = p.classId ?? first;
    if (!classId) {
      byId("class").replaceChildren();
      shown = undefined;
    } else if (classId !== shown) {
      shown = classId;
      await showClass(client, classId);
    }
    if (classId && document.getElementById("conversation")) await showConversation(client, { ...p, classId });
    document.body.dataset.ready = "true";
  };
}

signIn(
  async (candidate) => {
    const { response } = await candidate.GET("/v1/teaching/classes", { params: { query: { limit: 1 } } });
    if (response.ok) return null;
    if (response.status === 401) return "That token is not valid.";
    return `Sign-in failed (${response.status}).`;
  },
  (client) => {
    const route = router(client);
    window.addEventListener("hashchange", () => {
      document.body.dataset.ready = "false";
      void route();
    });
    void route();
  },
);
