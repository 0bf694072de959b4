/**
 * Thumbs up / down on answers (an extension: `messageActions`), through `PUT` and
 * `DELETE /v1/sessions/{id}/messages/{message_id}/feedback`.
 *
 * - Two toggle buttons (`aria-pressed`) after the action bar's own; clicking the pressed
 *   one withdraws the rating (`DELETE`), the other one gives or changes it (`PUT`).
 * - A thumbs-down opens a small comment box (Enter or Send saves it with the rating,
 *   Escape or Skip closes it); a saved comment shows under the buttons and opens the box
 *   again when clicked.
 * - The branch's messages carry the caller's own `feedback`, so the state is there after
 *   a reload. What this tab changed is kept by message until a newer read of the branch
 *   brings the server's state (an action bar may be drawn again from an older read).
 *
 * Answers only (assistant messages of a turn): a timer's notice or a user message has
 * no buttons (the API refuses them with `not_an_answer`).
 */
import type { Schemas } from "../../src/index";
import { el, problemText } from "../common";
import { type MessageContext, registerExtension } from "./extensions";
import { icon } from "./icons";
import { notice, type Message } from "./state";

type Feedback = Schemas["Feedback"];
type Rating = Schemas["Rating"];

interface Given {
  feedback: Feedback | null;
  /** The `updated_at` of the message's feedback when this tab changed it: a read of the
   * branch that brings another one is newer than the change. */
  base?: string;
}

const given = new Map<string, Given>();
/** Comment boxes open (their text), by message: kept when the action bar is redrawn. */
const drafts = new Map<string, string>();

function current(message: Message): Feedback | null {
  const mine = given.get(message.id);
  if (mine && mine.base === message.feedback?.updated_at) return mine.feedback;
  return message.feedback ?? null;
}

const LABELS: Record<Rating, string> = { up: "Good answer", down: "Bad answer" };

/** The buttons and comment box of one answer's action bar. */
class Controls {
  readonly group: HTMLElement;
  readonly comment: HTMLElement;
  private readonly up: HTMLButtonElement;
  private readonly down: HTMLButtonElement;
  private busy = false;

  constructor(private readonly ctx: MessageContext) {
    this.up = this.button("up");
    this.down = this.button("down");
    this.group = el("span", { class: "feedback", role: "group", "aria-label": "Rate this answer" }, this.up, this.down);
    this.comment = el("div", { class: "feedback-comment" });
    this.draw();
  }

  private get message(): Message {
    return this.ctx.message;
  }

  private button(rating: Rating): HTMLButtonElement {
    const button = el(
      "button",
      { class: `icon feedback-${rating}`, type: "button", "aria-label": LABELS[rating], title: LABELS[rating], "aria-pressed": "false" },
      icon(rating === "up" ? "thumbsUp" : "thumbsDown"),
    );
    button.addEventListener("click", () => void this.rate(rating));
    return button;
  }

  private draw(): void {
    const feedback = current(this.message);
    for (const [button, rating] of [[this.up, "up"], [this.down, "down"]] as const) {
      const pressed = feedback?.rating === rating;
      button.setAttribute("aria-pressed", String(pressed));
      button.title = pressed ? `${LABELS[rating]} (click again to remove)` : LABELS[rating];
      button.disabled = this.busy;
    }
    this.group.dataset.rating = feedback?.rating ?? "none";
    const draft = drafts.get(this.message.id);
    if (draft !== undefined && feedback?.rating === "down") this.openBox(draft);
    else if (feedback?.comment) this.showComment(feedback.comment);
    else this.comment.replaceChildren();
    this.comment.hidden = this.comment.childElementCount === 0;
  }

  /** Saves `body` (or withdraws the rating: `null`), then draws the new state. */
  private async save(body: Schemas["GiveFeedback"] | null): Promise<boolean> {
    const path = { id: this.ctx.sessionId, message_id: this.message.id };
    this.busy = true;
    this.draw();
    let feedback: Feedback | null = null;
    let failed: string | null = null;
    if (body) {
      const { data, error, response } = await this.ctx.client.PUT("/v1/sessions/{id}/messages/{message_id}/feedback", { params: { path }, body });
      if (data) feedback = data;
      else failed = problemText(error, response.status);
    } else {
      const { error, response } = await this.ctx.client.DELETE("/v1/sessions/{id}/messages/{message_id}/feedback", { params: { path } });
      if (!response.ok && response.status !== 404) failed = problemText(error, response.status);
    }
    this.busy = false;
    if (failed) notice(`Feedback not saved: ${failed}`);
    else given.set(this.message.id, { feedback, base: this.message.feedback?.updated_at });
    this.draw();
    return !failed;
  }

  private async rate(rating: Rating): Promise<void> {
    if (this.busy) return;
    const before = current(this.message);
    if (before?.rating === rating) {
      drafts.delete(this.message.id);
      await this.save(null);
      return;
    }
    if (rating === "down") drafts.set(this.message.id, "");
    else drafts.delete(this.message.id);
    if (!(await this.save({ rating }))) drafts.delete(this.message.id);
    this.draw();
    if (rating === "down") this.comment.querySelector<HTMLInputElement>("input")?.focus();
  }

  private openBox(text: string): void {
    if (this.comment.querySelector("form")) return;
    const input = el("input", {
      class: "feedback-comment-input",
      type: "text",
      maxlength: "2000",
      placeholder: "What was wrong? (optional)",
      "aria-label": "Comment on this answer",
    });
    input.value = text;
    const skip = el("button", { class: "feedback-comment-skip", type: "button" }, "Skip");
    const form = el("form", { class: "feedback-comment-form" }, input, el("button", { class: "feedback-comment-send", type: "submit" }, "Send"), skip);
    const close = () => {
      drafts.delete(this.message.id);
      this.comment.replaceChildren();
      this.draw();
    };
    input.addEventListener("input", () => drafts.set(this.message.id, input.value));
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") close();
    });
    skip.addEventListener("click", close);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (this.busy) return;
      const before = current(this.message);
      const comment = input.value.trim();
      drafts.delete(this.message.id);
      this.comment.replaceChildren();
      // A PUT replaces: the tags given before are sent again.
      if (!(await this.save({ rating: "down", comment: comment || null, tags: before?.tags ?? [] }))) drafts.set(this.message.id, input.value);
      this.draw();
    });
    this.comment.replaceChildren(form);
  }

  private showComment(comment: string): void {
    const shown = this.comment.querySelector<HTMLButtonElement>(".feedback-comment-text");
    if (shown?.dataset.comment === comment) return;
    const button = el(
      "button",
      { class: "link feedback-comment-text", type: "button", title: "Edit your comment", "data-comment": comment },
      `“${comment}”`,
    );
    button.addEventListener("click", () => {
      drafts.set(this.message.id, comment);
      this.comment.replaceChildren();
      this.draw();
      this.comment.querySelector<HTMLInputElement>("input")?.focus();
    });
    this.comment.replaceChildren(button);
  }
}

registerExtension({
  name: "feedback",
  messageActions(ctx) {
    if (ctx.message.role !== "assistant" || !ctx.message.prompt_id || !ctx.sessionId) return [];
    const controls = new Controls(ctx);
    return [controls.group, controls.comment];
  },
});
