/**
 * Approval cards (an extension: `promptEvent`, `callCard`, `userEvent`, `start`): a
 * function call that waits for the user's approval gets, in its card's slot, the
 * function's name, its arguments as editable JSON, Approve and Deny (with an optional
 * reason) and when it expires; once decided, the outcome.
 *
 * - What is known of each waiting call is kept by its id (`call_id`) for the life of the
 *   page: the prompt's feed says which card is its (`approval_requested` with the call's
 *   `index`), and a turn that resumes after the decision (`retry`) draws its cards again,
 *   so the outcome is drawn into the new card's slot.
 * - A decision made elsewhere (another tab or device) reaches the page as the user
 *   feed's `approval_resolved`, as a 409 `not_awaiting_approval` when this tab decides
 *   too late, or as the resumed turn's `tool_complete` (`success` or `denied`): each
 *   updates the card, none is an error. A turn cancelled while it waits ends the wait
 *   (its `cancelled`, or the user feed's `turn_finished`).
 * - `GET /v1/approvals` is read when the page starts (and after the user feed lost
 *   events): calls waiting in other chats are listed above the conversation with a link
 *   to theirs (the open chat's own cards come from its turn's feed, followed from its
 *   first event).
 *
 * Arguments are checked as a JSON object before they are sent; the API checks them
 * against the function's schema (422 `invalid_approval_input`, shown on the card).
 */
import type { Schemas, UserEvent } from "../../src/index";
import { byId, el, problemText } from "../common";
import { type AnswerHandle, type CallContext, type PageHandle, type PromptEvent, registerExtension } from "./extensions";
import { icon } from "./icons";

type ToolCall = Schemas["ToolCall"];

type Outcome = "approved" | "denied" | "expired" | "cancelled";

interface Approval {
  callId: string;
  promptId: string;
  sessionId?: string;
  /** The call's N in its turn (from the prompt's feed). */
  index?: number;
  tool: string;
  /** The arguments the model asked for. */
  input: unknown;
  expiresAt?: string;
  state: "awaiting" | "sending" | Outcome | "decided";
  /** The arguments approved, when edited. */
  edited?: unknown;
  reason?: string;
  /** Decided in another tab or device. */
  elsewhere?: boolean;
  /** The arguments as typed (kept while the card is drawn again). */
  draft?: string;
  /** The deny form is open. */
  denying?: boolean;
  /** What the user feed said was decided while this tab's decision was on its way
   * (whose it was, the answer to it tells). */
  resolved?: Outcome;
  error?: string;
}

const approvals = new Map<string, Approval>();
/** `${promptId}:${index}` → call id. */
const byIndex = new Map<string, string>();
/** The card each call was last drawn in. */
const cards = new Map<string, CallContext>();
let page: PageHandle | null = null;

const indexKey = (promptId: string, index: number) => `${promptId}:${index}`;
const decided = (a: Approval) => a.state !== "awaiting" && a.state !== "sending";

function learn(known: Omit<Approval, "state">): Approval {
  // One object per call, changed in place: the card's buttons hold it.
  const defined = Object.fromEntries(Object.entries(known).filter(([, v]) => v !== undefined));
  const had = approvals.get(known.callId);
  const approval: Approval = had ? Object.assign(had, defined) : { ...known, state: "awaiting" };
  approvals.set(approval.callId, approval);
  if (approval.index !== undefined) byIndex.set(indexKey(approval.promptId, approval.index), approval.callId);
  return approval;
}

/** The approval a card shows: by its turn and index, or (a page that read the list
 * before the turn's feed) a waiting call of that turn with its function and input. */
function approvalOf(ctx: CallContext): Approval | undefined {
  if (!ctx.promptId) return undefined;
  const id = byIndex.get(indexKey(ctx.promptId, ctx.index));
  if (id) return approvals.get(id);
  const same = JSON.stringify(ctx.input);
  const match = [...approvals.values()].find(
    (a) => a.promptId === ctx.promptId && a.index === undefined && a.tool === ctx.tool && JSON.stringify(a.input) === same,
  );
  if (match) {
    match.index = ctx.index;
    byIndex.set(indexKey(match.promptId, ctx.index), match.callId);
  }
  return match;
}

function redraw(approval: Approval): void {
  const ctx = cards.get(approval.callId);
  if (ctx?.card.isConnected) draw(ctx, approval);
  drawBanner();
}

function settle(approval: Approval, outcome: Outcome, details: { reason?: string; edited?: unknown; elsewhere?: boolean } = {}): void {
  if (decided(approval) && approval.state !== "decided") return;
  approval.state = outcome;
  approval.denying = false;
  approval.error = undefined;
  if (details.reason !== undefined) approval.reason = details.reason;
  if (details.edited !== undefined) approval.edited = details.edited;
  if (details.elsewhere) approval.elsewhere = true;
  redraw(approval);
}

/** The call as the API returned it to this tab's decision: the truth about it. */
function fromCall(approval: Approval, call: ToolCall): void {
  if (call.state === "awaiting_approval") {
    approval.state = "awaiting";
    redraw(approval);
    return;
  }
  if (call.requested_input !== undefined) approval.edited = call.input;
  if (call.decision_reason !== undefined) approval.reason = call.decision_reason;
  approval.state = call.state === "denied" ? (call.decision_reason === "expired" ? "expired" : "denied") : call.state === "canceled" ? "cancelled" : "approved";
  approval.elsewhere = false;
  approval.denying = false;
  approval.error = undefined;
  redraw(approval);
}

/** This tab's decision came back: the call, a 409 (someone decided first) or an error. */
function answered(approval: Approval, call: ToolCall | undefined, error: unknown, status: number): void {
  const mine = approval.state === "sending";
  if (call) fromCall(approval, call);
  else if (!mine) return; // the turn was cancelled meanwhile
  else if (status === 409) {
    if (approval.resolved) {
      approval.state = "decided";
      settle(approval, approval.resolved, { elsewhere: true });
    } else tooLate(approval);
  } else {
    approval.state = "awaiting";
    approval.error = problemText(error, status);
    redraw(approval);
  }
}

/** Someone else decided first (409): the card waits for what they decided. */
function tooLate(approval: Approval): void {
  if (decided(approval) && approval.state !== "decided") return;
  approval.state = "decided";
  approval.elsewhere = true;
  approval.denying = false;
  redraw(approval);
}

function parseInput(text: string): { value?: Record<string, unknown>; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `The arguments are not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { error: "The arguments must be a JSON object ({…})." };
  return { value: value as Record<string, unknown> };
}

async function approve(approval: Approval, text: string): Promise<void> {
  if (!page || approval.state !== "awaiting") return;
  const parsed = parseInput(text);
  if (parsed.error) {
    approval.error = parsed.error;
    redraw(approval);
    return;
  }
  const changed = JSON.stringify(parsed.value) !== JSON.stringify(approval.input);
  approval.state = "sending";
  approval.error = undefined;
  redraw(approval);
  const { data, error, response } = await page.client.POST("/v1/prompts/{id}/calls/{call_id}/approve", {
    params: { path: { id: approval.promptId, call_id: approval.callId } },
    body: changed ? { input: parsed.value } : {},
  });
  answered(approval, data, error, response.status);
}

async function deny(approval: Approval, reason: string): Promise<void> {
  if (!page || approval.state !== "awaiting") return;
  approval.state = "sending";
  approval.error = undefined;
  redraw(approval);
  const { data, error, response } = await page.client.POST("/v1/prompts/{id}/calls/{call_id}/deny", {
    params: { path: { id: approval.promptId, call_id: approval.callId } },
    body: reason.trim() ? { reason: reason.trim() } : {},
  });
  answered(approval, data, error, response.status);
}

const when = (at: string) => new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
const pretty = (value: unknown) => JSON.stringify(value, null, 2);

function outcomeText(a: Approval): string {
  const where = a.elsewhere ? " in another tab or device" : "";
  switch (a.state) {
    case "approved":
      return a.edited !== undefined ? `Approved${where}, with edited arguments` : `Approved${where}`;
    case "denied":
      return `Denied${where}`;
    case "expired":
      return "Expired: no one decided in time, so it was denied";
    case "cancelled":
      return "The answer was cancelled before a decision";
    default:
      return "Already decided in another tab or device";
  }
}

const shownKey = (a: Approval) => JSON.stringify([a.callId, a.state, a.error, a.denying, a.reason, a.elsewhere, a.edited]);

/** What the card's slot shows for `approval`; drawn again only when that changes, so
 * the arguments being edited keep their caret. */
function draw(ctx: CallContext, approval: Approval): void {
  cards.set(approval.callId, ctx);
  ctx.card.dataset.approval = approval.state;
  const shown = shownKey(approval);
  const box = ctx.slot.querySelector<HTMLElement>(".approval");
  if (box?.dataset.shown === shown) return;
  const head = el(
    "div",
    { class: "approval-head" },
    el("span", { class: "approval-icon" }, icon("shield")),
    decided(approval) ? "" : "Approve this call? ",
    el("strong", { class: "approval-function" }, approval.tool),
  );
  const card = el("div", {
    class: "approval",
    role: "group",
    "aria-label": `Approval of ${approval.tool}`,
    "data-state": approval.state,
    "data-call-id": approval.callId,
    "data-shown": shown,
  }, head);
  if (decided(approval)) {
    card.append(el("p", { class: "approval-outcome", role: "status" }, outcomeText(approval)));
    if (approval.reason && approval.state === "denied") card.append(el("p", { class: "approval-reason" }, `Reason: ${approval.reason}`));
    if (approval.edited !== undefined) card.append(el("pre", { class: "approval-edited" }, pretty(approval.edited)));
  } else {
    const busy = approval.state === "sending";
    const id = `approval-input-${approval.callId}`;
    const input = el("textarea", { id, class: "approval-input", rows: "4", spellcheck: "false", "aria-describedby": `${id}-error` });
    input.value = approval.draft ?? pretty(approval.input);
    input.disabled = busy;
    const problem = el("p", { id: `${id}-error`, class: "approval-error", role: "alert" }, approval.error ?? "");
    input.addEventListener("input", () => {
      approval.draft = input.value;
      // Edited since the error: it no longer applies (the card is not drawn again).
      if (approval.error) {
        approval.error = undefined;
        problem.textContent = "";
        card.dataset.shown = shownKey(approval);
      }
    });
    card.append(el("label", { class: "approval-label", for: id }, "Arguments (JSON, editable)"), input, problem);
    if (approval.denying) {
      const reason = el("input", { class: "approval-reason-input", type: "text", maxlength: "500", placeholder: "Why? (optional)", "aria-label": "Reason for denying" });
      const confirm = el("button", { class: "danger deny-confirm", type: "submit" }, "Deny");
      const back = el("button", { class: "deny-back", type: "button" }, "Back");
      const form = el("form", { class: "approval-deny" }, reason, confirm, back);
      confirm.disabled = back.disabled = reason.disabled = busy;
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        void deny(approval, reason.value);
      });
      back.addEventListener("click", () => {
        approval.denying = false;
        redraw(approval);
      });
      reason.addEventListener("keydown", (event) => {
        if (event.key === "Escape") back.click();
      });
      card.append(form);
      queueMicrotask(() => reason.focus());
    } else {
      const approveButton = el("button", { class: "primary approve", type: "button" }, icon("check"), " Approve");
      const denyButton = el("button", { class: "deny", type: "button" }, icon("close"), " Deny…");
      approveButton.disabled = denyButton.disabled = busy;
      approveButton.addEventListener("click", () => void approve(approval, input.value));
      denyButton.addEventListener("click", () => {
        approval.denying = true;
        redraw(approval);
      });
      card.append(el("div", { class: "approval-buttons" }, approveButton, denyButton));
    }
    if (approval.expiresAt) {
      card.append(
        el("p", { class: "approval-expiry" }, icon("clock"), " Denied if not decided by ", el("time", { datetime: approval.expiresAt }, when(approval.expiresAt))),
      );
    }
    card.setAttribute("aria-busy", String(busy));
  }
  ctx.slot.replaceChildren(card);
}

/** Calls waiting in chats other than the open one, above the conversation. */
function drawBanner(): void {
  const open = page?.sessionId ?? null;
  const waiting = [...approvals.values()].filter((a) => a.state === "awaiting" && a.sessionId && a.sessionId !== open);
  let banner = document.getElementById("approvals-waiting");
  if (!banner) {
    banner = el("div", { id: "approvals-waiting", class: "approvals-waiting", role: "region", "aria-label": "Calls waiting for your approval" });
    byId("messages").before(banner);
  }
  banner.hidden = waiting.length === 0;
  banner.replaceChildren(
    ...waiting.map((a) => {
      const link = el("a", { href: `#session=${a.sessionId}`, class: "approval-open" }, "Open the chat");
      return el("p", { "data-call-id": a.callId }, icon("shield"), " ", el("strong", {}, a.tool), " waits for your approval in another chat. ", link);
    }),
  );
}

async function readWaiting(): Promise<void> {
  if (!page) return;
  const { data } = await page.client.GET("/v1/approvals");
  for (const call of data?.items ?? []) {
    const approval = learn({ callId: call.id, promptId: call.prompt_id, sessionId: call.session_id, tool: call.function, input: call.input, expiresAt: call.approval_expires_at });
    redraw(approval);
  }
  drawBanner();
}

function promptEvent(event: PromptEvent, answer: AnswerHandle): void {
  if (event.type === "approval_requested") {
    const e = event as unknown as Schemas["StreamEvent_ApprovalRequestedPromptEvent"];
    const ctx = answer.callCard(e.index);
    learn({ callId: e.call_id, promptId: e.prompt_id, index: e.index, tool: e.tool, input: e.input, expiresAt: e.expires_at, sessionId: ctx?.sessionId || undefined });
    // The card was drawn by the call's `tool_start`, before this event: fill its slot.
    if (ctx) callCard(ctx);
    drawBanner();
  } else if (event.type === "cancelled" && event.prompt_id) {
    for (const approval of approvals.values()) if (approval.promptId === event.prompt_id && !decided(approval)) settle(approval, "cancelled");
  }
}

function userEvent(event: UserEvent): void {
  switch (event.type) {
    case "approval_requested":
      redraw(learn({ callId: event.call_id, promptId: event.prompt_id, sessionId: event.session_id, tool: event.function, input: event.input, expiresAt: event.expires_at }));
      break;
    case "approval_resolved": {
      const approval = approvals.get(event.call_id);
      if (!approval) break;
      const outcome = event.approved ? "approved" : event.expired ? "expired" : "denied";
      // Ours or someone else's: the answer to this tab's request will tell.
      if (approval.state === "sending") approval.resolved = outcome;
      else settle(approval, outcome, { elsewhere: approval.state === "awaiting" || approval.elsewhere });
      break;
    }
    case "turn_finished":
      // A cancel resolves no approval on the feed; a finished turn waits for none.
      for (const approval of approvals.values()) {
        if (approval.promptId !== event.prompt_id || approval.state !== "awaiting") continue;
        if (event.state === "canceled") settle(approval, "cancelled");
        else tooLate(approval);
      }
      break;
    case "reset":
      void readWaiting();
      break;
    default:
      break;
  }
}

function callCard(ctx: CallContext): void {
  const approval = approvalOf(ctx);
  if (!approval) return;
  cards.set(approval.callId, ctx);
  // The resumed turn ran the call or told the model it was denied: decided, here or
  // elsewhere (while this tab's decision is on its way, the answer to it will tell).
  const outcome: Outcome | undefined =
    ctx.state === "success" || ctx.state === "error" ? "approved" : ctx.state === "denied" ? "denied" : ctx.state === "canceled" ? "cancelled" : undefined;
  if (outcome && approval.state === "sending") approval.resolved ??= outcome;
  else if (outcome && (approval.state === "awaiting" || approval.state === "decided")) settle(approval, outcome, { elsewhere: outcome !== "cancelled" });
  // Approved elsewhere with other arguments: the resumed turn runs the call with them.
  if (approval.state === "approved" && approval.edited === undefined && ctx.input !== undefined && JSON.stringify(ctx.input) !== JSON.stringify(approval.input)) {
    approval.edited = ctx.input;
  }
  draw(ctx, approval);
}

registerExtension({
  name: "approvals",
  start(handle) {
    page = handle;
    window.addEventListener("hashchange", () => drawBanner());
    void readWaiting();
  },
  promptEvent,
  callCard,
  userEvent,
});
