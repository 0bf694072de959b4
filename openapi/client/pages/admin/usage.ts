/**
 * Usage (`#/usage`): the LLM calls of the date range grouped by day, model, user or tool,
 * with names beside ids, tokens and cost in currency side by side, and a drill-down from
 * a total to its rows: a row's link filters by its key (a day narrows the range to that
 * day) and regroups by the next dimension, so model → users → tools → days. The active
 * filters are chips that remove themselves.
 *
 * Built on `GET /v1/admin/usage` with its `model`, `user_id` and `tool_id` filters; a
 * group's `name` and the response's `currency`, once the API answers them, win over the
 * names the console resolves and over US dollars.
 */
import type { Schemas } from "../../src/index";
import { el } from "../common";
import { go, view } from "./router";
import { admin, type Kind, nameOf, range, setRange } from "./state";
import { bars, card, cell, empty, money, named, problem, table, tokens, toolbar, when } from "./ui";

type UsageGroupBy = Schemas["UsageGroupBy"];
type UsageGroup = Schemas["UsageGroup"] & { name?: string };

/** The groupings offered, in the order of the tabs and of the drill-down. */
export const GROUPINGS: UsageGroupBy[] = ["day", "model", "user", "tool", "group"];

/** The filter each grouping's key sets when drilled into, and the kind of name it has. */
const FILTERS: Partial<Record<UsageGroupBy, { param: "model" | "user_id" | "tool_id" | "group_id"; kind?: Kind }>> = {
  model: { param: "model" },
  user: { param: "user_id", kind: "user" },
  tool: { param: "tool_id", kind: "tool" },
  group: { param: "group_id", kind: "group" },
};

export interface UsageQuery {
  group_by: UsageGroupBy;
  model?: string;
  user_id?: string;
  tool_id?: string;
  group_id?: string;
}

/** Every group of the range (the API pages them; a range has few enough). */
export async function usageGroups(q: UsageQuery): Promise<{ items: UsageGroup[]; currency: string } | { error: unknown; status: number }> {
  const items: UsageGroup[] = [];
  let currency = "USD";
  let cursor: string | undefined;
  do {
    const { data, error, response } = await admin.client.GET("/v1/admin/usage", {
      params: { query: { ...q, from: range.from, to: range.to, limit: 100, cursor } },
    });
    if (!data) return { error, status: response.status };
    items.push(...data.items);
    currency = (data as { currency?: string }).currency ?? currency;
    cursor = data.next_cursor;
  } while (cursor && items.length < 1000);
  return { items, currency };
}

/** The label of a group's key: the name the API gave, the one the console knows, or the key. */
export function labelOf(groupBy: UsageGroupBy, g: UsageGroup): string {
  const kind = FILTERS[groupBy]?.kind;
  return g.name ?? (kind ? nameOf(kind, g.key) : undefined) ?? g.key;
}

function nextGrouping(q: UsageQuery, from: UsageGroupBy): UsageGroupBy {
  const order: UsageGroupBy[] = ["user", "tool", "model", "group", "day"];
  const filtered = (g: UsageGroupBy) => {
    const f = FILTERS[g];
    return f ? !!q[f.param] : false;
  };
  return order.find((g) => g !== from && !filtered(g) && !(from === "day" && g === "day")) ?? "day";
}

/** Where a row leads: its key as a filter (a day as the range) and the next grouping. */
function drill(q: UsageQuery, g: UsageGroup): void {
  const next = { ...q };
  if (q.group_by === "day") {
    const from = new Date(`${g.key}T00:00:00Z`);
    setRange({ from: from.toISOString(), to: new Date(from.getTime() + 86_400_000).toISOString(), preset: "custom" });
  } else {
    const f = FILTERS[q.group_by];
    if (f) next[f.param] = g.key;
  }
  next.group_by = nextGrouping(next, q.group_by);
  go("usage", { ...next });
}

function chips(q: UsageQuery): HTMLElement | null {
  const active: [string, HTMLElement][] = [];
  if (q.model) active.push(["model", el("span", {}, "model ", el("code", {}, q.model))]);
  if (q.user_id) active.push(["user_id", el("span", {}, "user ", named("user", q.user_id))]);
  if (q.tool_id) active.push(["tool_id", el("span", {}, "tool ", named("tool", q.tool_id))]);
  if (q.group_id) active.push(["group_id", el("span", {}, "group ", named("group", q.group_id))]);
  if (!active.length) return null;
  return el(
    "div",
    { class: "filters", "aria-label": "Filters" },
    ...active.map(([param, label]) => {
      const remove = el("button", { type: "button", class: "icon", "aria-label": `Remove the ${param} filter` }, "×");
      remove.addEventListener("click", () => go("usage", { ...q, [param]: undefined }));
      return el("span", { class: "chip filter", "data-filter": param }, label, remove);
    }),
  );
}

async function render(params: URLSearchParams): Promise<HTMLElement> {
  const groupBy = (GROUPINGS.find((g) => g === params.get("group_by")) ?? "day") as UsageGroupBy;
  const q: UsageQuery = {
    group_by: groupBy,
    model: params.get("model") ?? undefined,
    user_id: params.get("user_id") ?? undefined,
    tool_id: params.get("tool_id") ?? undefined,
    group_id: params.get("group_id") ?? undefined,
  };
  const tabs = el(
    "div",
    { class: "tabs", role: "tablist" },
    ...GROUPINGS.map((g) => {
      const a = el("a", { href: "#", role: "tab", "data-group-by": g, "aria-selected": String(g === groupBy) }, `by ${g}`);
      a.addEventListener("click", (e) => {
        e.preventDefault();
        go("usage", { ...q, group_by: g });
      });
      return a;
    }),
  );
  const answer = await usageGroups(q);
  if ("error" in answer) return el("div", { class: "stack" }, tabs, problem(answer.error, answer.status));
  const { items, currency } = answer;
  const total = items.reduce(
    (t, g) => ({
      calls: t.calls + g.calls,
      tokens: t.tokens + g.input_tokens + g.output_tokens,
      cached: t.cached + g.cached_input_tokens,
      reasoning: t.reasoning + g.reasoning_tokens,
      cost: t.cost + g.cost_usd,
      refused: t.refused + g.refused_turns,
    }),
    { calls: 0, tokens: 0, cached: 0, reasoning: 0, cost: 0, refused: 0 },
  );
  const figure = (field: string, label: string, value: number, text: string) =>
    el("div", { class: "figure", "data-field": field, "data-value": String(value) }, el("span", { class: "figure-value" }, text), el("span", { class: "figure-label" }, label));
  const totals = el(
    "div",
    { class: "figures", id: "usage-total" },
    figure("calls", "calls", total.calls, total.calls.toLocaleString("en")),
    figure("tokens", "tokens", total.tokens, tokens(total.tokens)),
    figure("cached_input_tokens", "cached input", total.cached, tokens(total.cached)),
    figure("reasoning_tokens", "reasoning", total.reasoning, tokens(total.reasoning)),
    figure("cost", `cost (${currency})`, total.cost, money(total.cost, currency)),
    figure("refused_turns", "refused turns", total.refused, String(total.refused)),
  );
  const rows = items.map((g) => {
    const label = labelOf(groupBy, g);
    const link = el("a", { href: "#", class: "drill", title: "Drill down" }, label);
    link.addEventListener("click", (e) => {
      e.preventDefault();
      drill(q, g);
    });
    const kind = FILTERS[groupBy]?.kind;
    return el(
      "tr",
      { "data-key": g.key, "data-name": label },
      cell(kind ? el("span", {}, link, " ", el("code", { class: "id" }, g.key.slice(0, 8))) : link, "key"),
      cell(String(g.calls), "calls", g.calls),
      cell(String(g.input_tokens), "input_tokens", g.input_tokens),
      cell(String(g.cached_input_tokens), "cached_input_tokens", g.cached_input_tokens),
      cell(String(g.cache_write_tokens), "cache_write_tokens", g.cache_write_tokens),
      cell(String(g.output_tokens), "output_tokens", g.output_tokens),
      cell(String(g.reasoning_tokens), "reasoning_tokens", g.reasoning_tokens),
      cell(money(g.cost_usd, currency), "cost", g.cost_usd),
      cell(String(g.refused_turns), "refused_turns", g.refused_turns),
      cell(g.ttft_p50_ms === undefined ? "–" : `${g.ttft_p50_ms} ms`, "ttft_p50_ms"),
      cell(g.latency_p50_ms === undefined ? "–" : `${g.latency_p50_ms} ms`, "latency_p50_ms"),
    );
  });
  return el(
    "div",
    { class: "stack" },
    toolbar(tabs, chips(q)),
    card("usage-summary", "Total of the range", totals),
    await calls(q),
    card(
      `usage-${groupBy}`,
      `Tokens by ${groupBy}`,
      bars(
        items.map((g) => ({ key: g.key, label: labelOf(groupBy, g), value: g.input_tokens + g.output_tokens, title: `${g.calls} calls · ${money(g.cost_usd, currency)}` })),
        tokens,
      ),
      items.length
        ? table({ class: "usage-table", "data-group-by": groupBy }, [groupBy, "calls", "in", "cached", "cache write", "out", "reasoning", "cost", "refused", "TTFT p50", "latency p50"], rows)
        : empty(),
    ),
  );
}

/** The newest calls behind the figures (the same range and filters): the rows a total is made of. */
async function calls(q: UsageQuery): Promise<HTMLElement> {
  const { group_by: _, ...filters } = q;
  const { data, error, response } = await admin.client.GET("/v1/admin/usage/calls", {
    params: { query: { ...filters, from: range.from, to: range.to, limit: CALLS } },
  });
  if (!data) return card("usage-calls", "Calls", problem(error, response.status));
  const rows = data.items.map((c) =>
    el(
      "tr",
      { "data-call": c.id, "data-user": c.user_id },
      cell(when(c.created_at)),
      cell(c.user_name ?? named("user", c.user_id), "user"),
      cell(c.tool_name ?? named("tool", c.tool_id), "tool"),
      cell(c.model, "model"),
      cell(String(c.input_tokens + c.output_tokens), "tokens", c.input_tokens + c.output_tokens),
      cell(money(c.cost_usd, c.currency), "cost", c.cost_usd),
      cell(c.error ? el("span", { class: "badge open" }, c.error) : "ok", "outcome"),
      cell(el("a", { href: `#/audit?session=${c.session_id}` }, "session")),
    ),
  );
  const more = data.next_cursor ? el("p", { class: "muted" }, `The newest ${CALLS}; narrow the range or drill down for the rest.`) : null;
  return card(
    "usage-calls",
    "Calls",
    rows.length ? table({ id: "calls-table" }, ["when", "user", "tool", "model", "tokens", "cost", "outcome", ""], rows) : empty(),
    more,
  );
}

/** How many calls the listing shows. */
const CALLS = 25;

view({ path: "usage", title: "Usage", section: "Read", ranged: true, render });
