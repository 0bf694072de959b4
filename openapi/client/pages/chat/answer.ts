/**
 * An answer's bubble, live or from the branch (seed 002's ChatTray states): "Thinking…"
 * until the first text, the text streaming in with its calls' cards, then the final
 * answer with its suggestions (on the last answer only: an older one's actions are no
 * longer offered), or a note when the turn was cancelled or failed.
 *
 * One view per turn for the life of the page: the live view of a turn becomes the
 * branch's view of its answer when the branch is read again, so its cards, their slots
 * and the action bar's state survive. An answer read from the branch without a payload
 * (its calls, suggestions, or how it ended) reads its prompt's finished feed once.
 */
import { type StreamEvent, followPrompt } from "../../src/index";
import { baseUrl, el } from "../common";
import { type AnswerHandle, type CallContext, type PromptEvent, eachExtension } from "./extensions";
import { CallCards, hasMarkers, plainText, renderAnswer, suggestions } from "./render";
import { chat, type Message, type Payload } from "./state";
import { copyButton, handlers, iconButton, messageBar } from "./views";

export type AnswerState = "streaming" | "complete" | "cancelled" | "error" | "partial";

export class AnswerView implements AnswerHandle {
  readonly root: HTMLElement;
  private readonly thinking: HTMLElement;
  private readonly body: HTMLElement;
  private readonly extras: HTMLElement;
  private bar: HTMLElement;
  readonly calls = new CallCards();
  promptId: string | null = null;
  /** The user message the turn answers (from its first `prompt_state`). */
  userMessageId?: string;
  message?: Message;
  state: AnswerState;
  payload?: Payload;
  private text = "";
  private error?: string;
  /** Why the answer stopped before the model was done (`max_tokens`: its length limit). */
  private stopReason?: string;
  private isLast = false;
  private reading = false;

  private constructor(state: AnswerState) {
    this.state = state;
    this.thinking = el("div", { class: "thinking" }, "Thinking…");
    this.body = el("div", { class: "answer" });
    this.extras = el("div", { class: "extras" });
    this.bar = el("div", { class: "message-bar" });
    this.root = el("div", { class: "message assistant" }, el("div", { class: "bubble" }, this.thinking, this.body, this.extras), this.bar);
  }

  /** A turn about to stream (its events come through {@link on}). */
  static live(promptId?: string): AnswerView {
    const view = new AnswerView("streaming");
    if (promptId) view.setPrompt(promptId);
    view.draw();
    return view;
  }

  /** An answer of the branch (or a timer's notice). */
  static of(message: Message): AnswerView {
    const view = new AnswerView(message.is_complete ? "complete" : "partial");
    if (message.prompt_id) view.setPrompt(message.prompt_id);
    return view;
  }

  private setPrompt(promptId: string): void {
    this.promptId = promptId;
    this.root.dataset.promptId = promptId;
    this.calls.setPrompt(promptId);
  }

  callCard(key: number | string): CallContext | undefined {
    return this.calls.get(key);
  }

  /** One event of the turn's feed. */
  on(event: StreamEvent): void {
    eachExtension((x) => x.promptEvent?.(event as PromptEvent, this));
    if ("prompt_id" in event && !this.promptId) this.setPrompt(event.prompt_id);
    switch (event.type) {
      case "prompt_state":
        if (event.user_message_id) this.userMessageId = event.user_message_id;
        break;
      case "text_delta":
        this.text += event.text;
        this.drawBody();
        break;
      case "tool_start":
        this.calls.update(event.index, { callId: event.tool_use_id, tool: event.tool, input: event.input, state: "running" });
        this.drawBody();
        break;
      case "tool_complete":
        this.calls.update(event.index, { callId: event.tool_use_id, tool: event.tool, state: event.state, output: event.output });
        break;
      case "status":
        this.thinking.textContent = event.message;
        break;
      case "retry":
      case "reset":
        // The turn starts over (or its feed was rebuilt): drop what was shown.
        this.text = "";
        this.calls.clear();
        this.drawBody();
        break;
      case "complete":
        this.stopReason = event.stop_reason;
        this.finish("complete", event.payload);
        break;
      case "error":
        this.finish("error", undefined, event.message);
        break;
      case "cancelled":
        this.finish("cancelled");
        break;
      default:
        break;
    }
  }

  /** The turn ended (its terminal event, or the page could not follow it). */
  finish(state: Exclude<AnswerState, "streaming" | "partial">, payload?: Payload, error?: string): void {
    this.state = state;
    this.error = error;
    if (payload) {
      this.payload = payload;
      this.text = payload.message;
      this.calls.fromHistory(payload.tool_history);
    }
    this.draw();
  }

  /** Shows `message` (the branch was read again). */
  update(message: Message, isLast: boolean): void {
    const changed = message.content !== this.text || message.id !== this.message?.id || isLast !== this.isLast;
    this.message = message;
    this.isLast = isLast;
    this.root.dataset.messageId = message.id;
    this.root.classList.toggle("notice-message", !message.prompt_id);
    if (this.state === "streaming") this.state = message.is_complete ? "complete" : "partial";
    this.text = message.content;
    if (changed) this.draw();
    const wanted = hasMarkers(message.content) || isLast || !message.is_complete;
    if (wanted && !this.payload && this.state === (message.is_complete ? "complete" : "partial")) void this.readFeed();
  }

  /** How the turn ended, its calls and suggestions: from its finished feed. */
  private async readFeed(): Promise<void> {
    if (this.reading || !this.promptId) return;
    this.reading = true;
    try {
      for await (const event of followPrompt({ baseUrl, token: chat.token, promptId: this.promptId, maxRetries: 1 })) {
        if (event.type === "complete") {
          this.stopReason = event.stop_reason;
          this.finish("complete", event.payload);
        } else if (event.type === "cancelled") this.finish("cancelled");
        else if (event.type === "error") this.finish("error", undefined, event.message);
      }
    } catch {
      // The feed is gone (expired): the answer stays as the branch has it.
    }
  }

  private drawBody(): void {
    this.thinking.hidden = this.state !== "streaming" || this.text.length > 0 || this.calls.indexes().length > 0;
    renderAnswer(this.body, this.text, this.calls);
  }

  private draw(): void {
    this.root.dataset.state = this.state;
    this.drawBody();
    const notes: Node[] = [];
    if (this.state === "error") notes.push(el("div", { class: "turn-error" }, `Error: ${this.error ?? "the answer failed"}`));
    if (this.state === "cancelled") notes.push(el("div", { class: "turn-note" }, "Cancelled"));
    if (this.state === "partial") notes.push(el("div", { class: "turn-note" }, "Stopped before the end"));
    if (this.state === "complete" && this.stopReason === "max_tokens") {
      notes.push(el("div", { class: "turn-note", "data-note": "length" }, "Cut at the answer's length limit"));
    }
    if (this.isLast && this.state === "complete" && this.payload) notes.push(...suggestions(this.payload, handlers));
    this.extras.replaceChildren(...notes);
    const message = this.message;
    const bar = message
      ? messageBar(message, this.isLast, [
          copyButton(() => plainText(message.content)),
          ...(message.prompt_id ? [iconButton("regenerate needs-idle", "Regenerate", "regenerate", () => handlers.regenerate(message))] : []),
        ])
      : el("div", { class: "message-bar" });
    this.bar.replaceWith(bar);
    this.bar = bar;
  }
}
