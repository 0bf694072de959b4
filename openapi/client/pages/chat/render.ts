/**
 * How an answer looks (seed 002's final message): its text as sanitized markdown, a
 * collapsible card where each `[[tool:N]]` marker is (name, input and output from the
 * turn's `tool_history`), suggested values as chips and suggested actions as buttons.
 *
 * A call's card is one element for the life of the answer ({@link CallCards}): the text
 * around it is drawn again on every delta, the card is moved, not rebuilt, so it stays
 * open and keeps what an extension put in its slot. Calls started but not yet marked in
 * the text (running, or waiting for an approval) are shown after the text.
 */
import DOMPurify from "dompurify";
import { marked } from "marked";

import type { Schemas } from "../../src/index";
import { el } from "../common";
import { type CallContext, eachExtension } from "./extensions";
import { icon } from "./icons";
import { chat, type Payload } from "./state";

type HistoryEntry = Schemas["ToolHistoryEntry"];

const MARKER = /\[\[tool:(\d+)\]\]/;

/** Markdown to sanitized HTML. */
export function markdown(text: string): string {
  return DOMPurify.sanitize(marked.parse(text, { async: false }));
}

/** The answer's text without its `[[tool:N]]` markers (what Copy copies). */
export function plainText(text: string): string {
  return text.replace(new RegExp(MARKER.source, "g"), "").replace(/\n{3,}/g, "\n\n").trim();
}

export const hasMarkers = (text: string) => MARKER.test(text);

/** What is known of a call, from `tool_start`, `tool_complete` or the history. */
export interface CallInfo {
  callId?: string;
  tool?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
}

/** The function calls of one answer, each with its card. */
export class CallCards {
  private readonly calls = new Map<number, CallContext>();
  private readonly known = new Map<number, CallInfo>();

  constructor(private promptId?: string) {}

  setPrompt(promptId: string): void {
    this.promptId = promptId;
    for (const call of this.calls.values()) call.promptId = promptId;
  }

  /** Records what is known of call `index` and draws its card again. */
  update(index: number, info: CallInfo): CallContext {
    const merged = { ...this.known.get(index), ...info };
    this.known.set(index, merged);
    let call = this.calls.get(index);
    if (!call) {
      const slot = el("div", { class: "call-slot" });
      const card = el("div", { class: "call", "data-tool-index": String(index) });
      call = { client: chat.client, sessionId: chat.sessionId ?? "", promptId: this.promptId, index, state: "running", card, slot };
      this.calls.set(index, call);
    }
    call.callId = merged.callId;
    call.tool = merged.tool;
    call.input = merged.input;
    call.state = merged.state ?? "running";
    drawCard(call, merged);
    const drawn = call;
    eachExtension((x) => x.callCard?.(drawn));
    return call;
  }

  card(index: number): HTMLElement {
    return (this.calls.get(index) ?? this.update(index, {})).card;
  }

  get(key: number | string): CallContext | undefined {
    if (typeof key === "number") return this.calls.get(key);
    return [...this.calls.values()].find((c) => c.callId === key);
  }

  indexes(): number[] {
    return [...this.calls.keys()].sort((a, b) => a - b);
  }

  clear(): void {
    this.calls.clear();
    this.known.clear();
  }

  /** Fills the cards from a finished turn's history (entry N is call N). */
  fromHistory(history: HistoryEntry[] | undefined): void {
    history?.forEach((entry, n) =>
      this.update(n, { tool: entry.tool_name, state: entry.status, input: entry.input, output: entry.output }),
    );
  }
}

function drawCard(call: CallContext, info: CallInfo): void {
  // The details element stays (open or not, and whoever holds it); its content is new.
  let details = call.card.querySelector<HTMLDetailsElement>("details.tool-card");
  if (!details) {
    details = el("details", { class: "tool-card", "data-tool-index": String(call.index) });
    call.card.replaceChildren(details, call.slot);
  }
  details.dataset.state = call.state;
  details.replaceChildren(
    el("summary", {}, el("span", { class: "tool-icon" }, icon("wrench")), " ", info.tool ?? `tool ${call.index}`),
  );
  if (info.input !== undefined) {
    details.append(el("div", { class: "tool-io" }, el("strong", {}, "Input"), el("pre", { class: "tool-input" }, JSON.stringify(info.input, null, 2))));
  }
  if (info.output !== undefined) {
    details.append(el("div", { class: "tool-io" }, el("strong", {}, "Output"), el("pre", { class: "tool-output" }, JSON.stringify(info.output, null, 2))));
  }
  call.card.dataset.state = call.state;
  if (call.callId) call.card.dataset.callId = call.callId;
}

/** Draws `text` into `target`: markdown between the markers, each call's card at its
 * marker, then the calls not marked yet. */
export function renderAnswer(target: HTMLElement, text: string, calls: CallCards): void {
  const nodes: Node[] = [];
  const placed = new Set<number>();
  text.split(MARKER).forEach((part, i) => {
    if (i % 2 === 0) {
      if (part.trim()) {
        const block = el("div", { class: "md" });
        block.innerHTML = markdown(part);
        nodes.push(block);
      }
    } else {
      const n = Number(part);
      placed.add(n);
      nodes.push(calls.card(n));
    }
  });
  for (const n of calls.indexes()) if (!placed.has(n)) nodes.push(calls.card(n));
  target.replaceChildren(...nodes);
}

export interface SuggestionHandlers {
  send(value: string): void;
  action(action: NonNullable<Payload["suggested_actions"]>[number]): void;
}

/** The answer's suggested values (chips) and actions (buttons), if any. */
export function suggestions(payload: Payload, on: SuggestionHandlers): HTMLElement[] {
  const out: HTMLElement[] = [];
  const values = payload.suggested_values ?? [];
  const actions = payload.suggested_actions ?? [];
  if (values.length) {
    out.push(
      el(
        "div",
        { class: "chips" },
        ...values.map((v) => {
          const chip = el("button", { class: "chip", type: "button", "data-value": v.value }, v.label);
          chip.addEventListener("click", () => on.send(v.value));
          return chip;
        }),
      ),
    );
  }
  if (actions.length) {
    out.push(
      el(
        "div",
        { class: "actions" },
        ...actions.map((a) => {
          const button = el("button", { class: `action ${a.style ?? "secondary"}`, type: "button", "data-action": a.action }, a.label);
          button.addEventListener("click", () => on.action(a));
          return button;
        }),
      ),
    );
  }
  return out;
}
