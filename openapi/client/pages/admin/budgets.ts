/**
 * Budgets (`#/budgets`): spend limits in money per user and per group, per UTC day or
 * month, with what each has spent (settled model calls) and holds (calls in flight, at
 * their worst case) in the current period, and when the period renews. A turn over a
 * budget is refused before any model call (`budget_exceeded`, `Retry-After` at the
 * period's end). Create with the subject picked by name, change a limit in place,
 * delete after a confirm.
 */
import { type Schemas } from "../../src/index";
import { el } from "../common";
import { go, view } from "./router";
import { admin, directory } from "./state";
import { button, card, cell, confirmButton, empty, flash, form, money, problem, table, when } from "./ui";

type Budget = Schemas["Budget"];

const SUBJECTS = [
  { value: "user", label: "user" },
  { value: "group", label: "group" },
];
const PERIODS = [
  { value: "day", label: "per day" },
  { value: "month", label: "per month" },
];

/** Spent and held against the limit, as a bar and figures. */
function gauge(b: Budget): HTMLElement {
  const used = b.spent + b.reserved;
  const share = b.limit > 0 ? Math.min(1, used / b.limit) : 1;
  const fill = el("div", { class: "fill" });
  fill.style.width = `${share * 100}%`;
  const over = used >= b.limit;
  return el(
    "div",
    { class: `bar${over ? " over" : ""}`, "data-value": String(b.spent) },
    el("div", { class: "track" }, fill),
    el("span", { class: "value" }, `${money(b.spent, b.currency)} of ${money(b.limit, b.currency)}`, b.reserved > 0 ? ` (+${money(b.reserved, b.currency)} held)` : ""),
  );
}

/** The limit as a number input that saves on change. */
function limitEditor(b: Budget): HTMLElement {
  const input = el("input", { type: "number", min: "0", step: "0.01", value: String(b.limit), "aria-label": `Limit of ${b.subject_name}`, class: "limit" });
  input.addEventListener("change", () => {
    void admin.client
      .PATCH("/v1/admin/budgets/{id}", { params: { path: { id: b.id } }, body: { limit: Number(input.value) } })
      .then(({ data, error, response }) => (data ? go("budgets") : flash(error, response.status)));
  });
  return input;
}

async function budgets(): Promise<HTMLElement> {
  const { data, error, response } = await admin.client.GET("/v1/admin/budgets", { params: { query: { limit: 100 } } });
  if (!data) return problem(error, response.status);
  const rows = data.items.map((b) =>
    el(
      "tr",
      { "data-budget": b.id, "data-subject": b.subject_id },
      cell(b.subject, "subject"),
      cell(b.subject_name, "name"),
      cell(b.period, "period"),
      cell(limitEditor(b), "limit", b.limit),
      cell(gauge(b), "spent", b.spent),
      cell(when(b.period_ends_at), "renews"),
      cell(
        confirmButton("Delete", `Delete the budget of ${b.subject_name}?`, async () => {
          const { error, response } = await admin.client.DELETE("/v1/admin/budgets/{id}", { params: { path: { id: b.id } } });
          if (!response.ok) flash(error, response.status);
          go("budgets");
        }),
      ),
    ),
  );
  const subjectOptions = (kind: string) =>
    (kind === "group" ? directory.groups : directory.users).map((s) => ({ value: s.id, label: s.name }));
  const subjectSelect = el("select", { name: "subject_id" }, ...subjectOptions("user").map((o) => el("option", { value: o.value }, o.label)));
  const create = form(
    "budget-create",
    [
      { name: "subject", label: "For a", type: "select", options: SUBJECTS, value: "user" },
      { name: "subject_id", label: "Who", type: "custom", control: { node: subjectSelect, input: subjectSelect } },
      { name: "period", label: "Period", type: "select", options: PERIODS, value: "day" },
      { name: "limit", label: "Limit (USD)", type: "number", required: true, placeholder: "5.00" },
    ],
    "Set budget",
    async (v) => {
      const { data, error, response } = await admin.client.POST("/v1/admin/budgets", {
        body: {
          subject: v.subject as Budget["subject"],
          subject_id: String(v.subject_id),
          period: v.period as Budget["period"],
          limit: Number(v.limit),
        },
      });
      if (!data) return { error, status: response.status };
      go("budgets");
    },
  );
  const kind = create.querySelector<HTMLSelectElement>("select[name=subject]")!;
  kind.addEventListener("change", () =>
    subjectSelect.replaceChildren(...subjectOptions(kind.value).map((o) => el("option", { value: o.value }, o.label))),
  );
  return el(
    "div",
    { class: "stack" },
    card(
      "budgets",
      "Budgets",
      el("p", { class: "muted" }, "A turn is refused before any model call once what its user or group spent and holds in the period reaches a limit."),
      rows.length ? table({ id: "budget-table" }, ["for", "name", "period", "limit", "spent", "renews", ""], rows) : empty("No budget: spending is not limited."),
      button("Refresh", () => go("budgets")),
    ),
    card("budget-new", "New budget", create),
  );
}

view({ path: "budgets", title: "Budgets", section: "Manage", render: budgets });
