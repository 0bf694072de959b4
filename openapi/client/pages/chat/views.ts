/**
 * What every message has: its action bar (the ‹ n/m › switcher when it has siblings,
 * Copy, Edit or Regenerate, then what extensions add) and the user's message bubble with
 * its attachments and inline editing. The answer's bubble is `answer.ts`.
 *
 * Buttons call {@link handlers}, which `turns.ts` fills: the views know nothing of the
 * API. Buttons that start or switch a turn are marked `needs-idle` and do nothing while
 * a turn runs (the page dims them through `body[data-turn=running]`).
 */
import type { Schemas } from "../../src/index";
import { el } from "../common";
import { eachExtension } from "./extensions";
import { type IconName, icon } from "./icons";
import { chat, type Message, type Payload } from "./state";

type Attachment = Schemas["Attachment"];

/** What the message views' buttons do (`turns.ts` sets them). */
export const handlers = {
  /** Sends `content` in place of the user message `message` (a sibling of it). */
  edit: (_message: Message, _content: string): void => {},
  /** Another answer for the user message the assistant message `message` answers. */
  regenerate: (_message: Message): void => {},
  /** Shows and continues the branch through `messageId`. */
  switchTo: (_messageId: string): void => {},
  /** A suggested value: sent as the next message. */
  send: (_content: string): void => {},
  /** A suggested action. */
  action: (_action: NonNullable<Payload["suggested_actions"]>[number]): void => {},
  /** An inline edit was closed without sending (reads put off while it was open may run). */
  editClosed: (): void => {},
};

/** Copies `text` to the clipboard (the async API; the old command where it is refused). */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el("textarea", { class: "copy-buffer", "aria-hidden": "true" });
    area.value = text;
    document.body.append(area);
    area.select();
    const copied = document.execCommand("copy");
    area.remove();
    return copied;
  }
}

export function iconButton(cls: string, label: string, name: IconName, onClick: () => void): HTMLButtonElement {
  const button = el("button", { class: `icon ${cls}`, type: "button", "aria-label": label, title: label }, icon(name));
  button.addEventListener("click", onClick);
  return button;
}

export function copyButton(text: () => string): HTMLButtonElement {
  const button = iconButton("copy", "Copy", "copy", async () => {
    const copied = await copyText(text());
    button.dataset.copied = String(copied);
    if (copied) button.replaceChildren(icon("check"));
    button.setAttribute("aria-label", copied ? "Copied" : "Copy failed");
    setTimeout(() => {
      button.replaceChildren(icon("copy"));
      button.setAttribute("aria-label", "Copy");
    }, 1500);
  });
  return button;
}

/** ‹ n/m › over a message's siblings (edits of a user message, answers to one). */
function switcher(message: Message): HTMLElement | null {
  const { siblings } = message;
  if (siblings.length < 2) return null;
  const at = siblings.indexOf(message.id);
  const prev = iconButton("prev needs-idle", "Previous version", "prev", () => handlers.switchTo(siblings[at - 1]));
  const next = iconButton("next needs-idle", "Next version", "next", () => handlers.switchTo(siblings[at + 1]));
  prev.disabled = at <= 0;
  next.disabled = at >= siblings.length - 1;
  return el("span", { class: "switcher", role: "group", "aria-label": "Versions" }, prev, el("span", { class: "position" }, `${at + 1}/${siblings.length}`), next);
}

/** A message's action bar: the switcher, the page's own buttons, the extensions'. */
export function messageBar(message: Message, isLast: boolean, own: Node[]): HTMLElement {
  const extra: Node[] = [];
  const sessionId = chat.sessionId ?? "";
  eachExtension((x) => extra.push(...(x.messageActions?.({ client: chat.client, sessionId, message, isLast }) ?? [])));
  return el("div", { class: "message-bar" }, switcher(message), ...own, ...extra);
}

function attachmentList(attachments: Attachment[]): HTMLElement | null {
  if (!attachments.length) return null;
  return el(
    "ul",
    { class: "attachments", "aria-label": "Attachments" },
    ...attachments.map((a) => el("li", { class: "attachment", "data-file-id": a.file_id, title: a.content_type }, icon("paperclip"), a.name)),
  );
}

/** A user's message: as sent (pending, before the turn saves it) or from the branch. */
export class UserView {
  readonly root: HTMLElement;
  private readonly bubble: HTMLElement;
  private bar: HTMLElement;
  private message?: Message;
  private shown = "";

  constructor(text: string, attachments: Attachment[]) {
    this.bubble = el("div", { class: "bubble" });
    this.bar = el("div", { class: "message-bar" });
    this.root = el("div", { class: "message user" }, this.bubble, this.bar);
    this.draw(text, attachments);
  }

  private draw(text: string, attachments: Attachment[]): void {
    this.shown = text + JSON.stringify(attachments);
    this.bubble.replaceChildren(el("div", { class: "content" }, text), ...[attachmentList(attachments)].filter((n) => n !== null));
  }

  /** Shows `message` (the branch was read again). */
  update(message: Message, isLast: boolean): void {
    if (this.root.dataset.editing === "true") return;
    this.message = message;
    this.root.dataset.messageId = message.id;
    if (this.shown !== message.content + JSON.stringify(message.attachments)) this.draw(message.content, message.attachments);
    const bar = messageBar(message, isLast, [
      iconButton("edit needs-idle", "Edit", "edit", () => this.startEdit()),
      copyButton(() => message.content),
    ]);
    this.bar.replaceWith(bar);
    this.bar = bar;
  }

  get editing(): boolean {
    return this.root.dataset.editing === "true";
  }

  /** Inline editing: the text in a box, sent as a new version of this message. */
  startEdit(): void {
    const message = this.message;
    if (!message || chat.running || this.editing) return;
    const input = el("textarea", { class: "edit-input", rows: "3", "aria-label": "Edit message" });
    input.value = message.content;
    const cancel = el("button", { class: "edit-cancel", type: "button" }, "Cancel");
    const form = el("form", { class: "edit-form" }, input, el("div", { class: "edit-buttons" }, cancel, el("button", { class: "edit-send", type: "submit" }, "Send")));
    const stop = () => {
      delete this.root.dataset.editing;
      form.replaceWith(this.bubble);
    };
    const close = () => {
      stop();
      handlers.editClosed();
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const content = input.value;
      if (!content.trim()) return;
      stop();
      handlers.edit(message, content);
    });
    cancel.addEventListener("click", close);
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") close();
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    this.root.dataset.editing = "true";
    this.bubble.replaceWith(form);
    input.focus();
  }
}
