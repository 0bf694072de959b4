/**
 * The console's building blocks: cards, tables, bars, forms whose errors are the
 * server's problem+json shown next to the field it names, an inline confirmation before
 * anything is deleted, and the formats of money, tokens and times.
 *
 * Figures carry their number in `data-value` (bars) or `data-field` cells, so what the
 * console shows can be checked against the API by a test.
 */
import { el, problemText } from "../common";
import { type Kind, nameOf } from "./state";

export type Child = Node | string | null | undefined;

export function card(id: string, title: string, ...content: Child[]): HTMLElement {
  return el("section", { class: "card", id }, el("h2", {}, title), ...content);
}

export function empty(text = "Nothing in this window yet."): HTMLElement {
  return el("p", { class: "empty" }, text);
}

export interface Bar {
  label: string;
  value: number;
  key?: string;
  title?: string;
}

/** Horizontal bars scaled to the largest value; each carries its number in `data-value`. */
export function bars(rows: Bar[], format: (n: number) => string = String): HTMLElement {
  if (!rows.length) return empty();
  const most = Math.max(...rows.map((r) => r.value), 1e-9);
  return el(
    "div",
    { class: "bars" },
    ...rows.map((r) => {
      const fill = el("div", { class: "fill" });
      fill.style.width = `${Math.max(0, (r.value / most) * 100)}%`;
      return el(
        "div",
        { class: "bar", "data-label": r.key ?? r.label, "data-value": String(r.value), title: r.title ?? r.label },
        el("span", { class: "label" }, r.label),
        el("div", { class: "track" }, fill),
        el("span", { class: "value" }, format(r.value)),
      );
    }),
  );
}

/** A table with a header row; wide tables scroll sideways inside their card. */
export function table(attrs: Record<string, string>, headers: string[], rows: HTMLTableRowElement[]): HTMLElement {
  return el(
    "div",
    { class: "table-wrap" },
    el("table", attrs, el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))), el("tbody", {}, ...rows)),
  );
}

export function cell(text: Child, field?: string, value?: string | number): HTMLTableCellElement {
  return el("td", { "data-field": field, "data-value": value === undefined ? undefined : String(value) }, text);
}

/** A name with its id beside it, small, for copying; the id alone when no name is known. */
export function named(kind: Kind, id: string | undefined, known?: string): HTMLElement {
  if (!id) return el("span", { class: "muted" }, "–");
  const name = known ?? nameOf(kind, id);
  return el(
    "span",
    { class: "named", "data-id": id, title: id },
    name ? el("span", { class: "name" }, name) : null,
    el("code", { class: "id" }, name ? id.slice(0, 8) : id),
  );
}

export const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

export const tokens = (n: number) => `${n.toLocaleString("en")} tok`;

/** An amount in a currency (`$0.0123`): four decimals, as LLM calls cost fractions of a cent. */
export function money(amount: number, currency = "USD"): string {
  return new Intl.NumberFormat("en", { style: "currency", currency, minimumFractionDigits: 4, maximumFractionDigits: 4 }).format(amount);
}

export function when(iso: string | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** `datetime-local` input value (local time) of an ISO time, and back. */
export function toLocalInput(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** The problem of a failed request as a paragraph: its `detail`, with its `code` beside it. */
export function problem(error: unknown, status: number): HTMLElement {
  const code = error && typeof error === "object" && "code" in error ? String((error as { code: unknown }).code) : undefined;
  return el(
    "p",
    { class: "problem", role: "alert", "data-status": String(status), "data-code": code },
    problemText(error, status),
    code ? el("code", { class: "code" }, ` ${code}`) : null,
  );
}

/**
 * The field a problem is about: a JSON pointer when the problem gives one, otherwise the
 * first `name` in backticks of its `detail` that is one of `fields` (the server names
 * the offending option that way, e.g. "`approval_required` names `x`…").
 */
export function problemField(error: unknown, fields: string[]): string | undefined {
  if (!error || typeof error !== "object") return undefined;
  const e = error as { pointer?: unknown; detail?: unknown };
  if (typeof e.pointer === "string") {
    const top = e.pointer.split("/").filter(Boolean).find((p) => fields.includes(p));
    if (top) return top;
  }
  const detail = typeof e.detail === "string" ? e.detail : "";
  for (const m of detail.matchAll(/`([^`]+)`|"([^"]+)"|\b([a-z_]+)\b/g)) {
    const word = (m[1] ?? m[2] ?? m[3] ?? "").split(/[.[]/)[0];
    if (fields.includes(word)) return word;
  }
  return undefined;
}

export interface Field {
  name: string;
  label: string;
  type?: "text" | "email" | "select" | "checkbox" | "datetime" | "textarea" | "number" | "custom";
  value?: string | boolean;
  /** A `custom` field's control (shown) and the input inside it that holds the value. */
  control?: { node: HTMLElement; input: HTMLSelectElement | HTMLInputElement };
  options?: { value: string; label: string }[];
  required?: boolean;
  placeholder?: string;
}

export type Values = Record<string, string | boolean>;

/** What a submit handler answers: nothing on success, or the failed response's parts. */
export type Outcome = void | { error: unknown; status: number };

/**
 * A form of `fields`; on submit `onSubmit` gets the values, and a problem it answers is
 * shown under the form and next to the field it names (`aria-invalid`).
 */
export function form(id: string, fields: Field[], submit: string, onSubmit: (values: Values) => Promise<Outcome>): HTMLFormElement {
  const inputs = new Map<string, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>();
  const errorSlot = el("div", { class: "form-error" });
  const rows = fields.map((f) => {
    let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    let shown: HTMLElement | undefined;
    if (f.type === "custom" && f.control) {
      input = f.control.input;
      shown = f.control.node;
    } else if (f.type === "select") {
      input = el("select", { name: f.name }, ...(f.options ?? []).map((o) => el("option", { value: o.value }, o.label)));
      if (typeof f.value === "string") input.value = f.value;
    } else if (f.type === "textarea") {
      input = el("textarea", { name: f.name, rows: "3", placeholder: f.placeholder });
      input.value = typeof f.value === "string" ? f.value : "";
    } else {
      const type = f.type === "datetime" ? "datetime-local" : (f.type ?? "text");
      input = el("input", { name: f.name, type, placeholder: f.placeholder, required: f.required });
      if (f.type === "checkbox") (input as HTMLInputElement).checked = f.value === true;
      else input.value = typeof f.value === "string" ? f.value : "";
    }
    inputs.set(f.name, input);
    return el("label", { class: `field field-${f.type ?? "text"}`, "data-field": f.name }, el("span", {}, f.label), shown ?? input, el("span", { class: "field-error" }));
  });
  const button = el("button", { type: "submit" }, submit);
  const node = el("form", { class: "admin-form", id }, ...rows, el("div", { class: "form-buttons" }, button), errorSlot);
  node.addEventListener("submit", (event) => {
    event.preventDefault();
    const values: Values = {};
    for (const [name, input] of inputs) values[name] = input instanceof HTMLInputElement && input.type === "checkbox" ? input.checked : input.value.trim();
    for (const row of rows) {
      row.querySelector(".field-error")!.textContent = "";
      row.querySelector("input,select,textarea")!.removeAttribute("aria-invalid");
    }
    errorSlot.replaceChildren();
    button.disabled = true;
    void onSubmit(values)
      .then((outcome) => {
        if (!outcome) return;
        errorSlot.replaceChildren(problem(outcome.error, outcome.status));
        const field = problemField(outcome.error, fields.map((f) => f.name));
        const row = rows.find((r) => r.dataset.field === field);
        if (row) {
          row.querySelector("input,select,textarea")!.setAttribute("aria-invalid", "true");
          row.querySelector(".field-error")!.textContent = problemText(outcome.error, outcome.status);
        }
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  return node;
}

/**
 * A button that asks before it acts: the first click turns it into "Delete …? Yes / No"
 * in place, and only "Yes" runs `action`.
 */
export function confirmButton(label: string, question: string, action: () => Promise<void>, cls = "danger"): HTMLElement {
  const slot = el("span", { class: "confirm-slot" });
  const ask = el("button", { type: "button", class: cls }, label);
  const reset = () => slot.replaceChildren(ask);
  ask.addEventListener("click", () => {
    const yes = el("button", { type: "button", class: "danger confirm-yes" }, "Yes");
    const no = el("button", { type: "button", class: "confirm-no" }, "No");
    yes.addEventListener("click", () => {
      yes.disabled = true;
      void action().finally(reset);
    });
    no.addEventListener("click", reset);
    slot.replaceChildren(el("span", { class: "confirm", role: "group" }, el("span", {}, question), yes, no));
  });
  reset();
  return slot;
}

export function button(label: string, onClick: () => void, cls?: string, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = el("button", { type: "button", class: cls, ...attrs }, label);
  b.addEventListener("click", onClick);
  return b;
}

/** A small toolbar above a card's content. */
export function toolbar(...children: Child[]): HTMLElement {
  return el("div", { class: "toolbar" }, ...children);
}

/** Shows the problem of an action that has no form of its own (a delete, a cancel). */
export function flash(error: unknown, status: number): void {
  document.getElementById("flash")?.replaceChildren(problem(error, status));
}
