/**
 * Modules (`#/modules`): what the modules did in the date range — block, modification,
 * error and timeout rates by module and by day, and the categories the blocked and
 * modified messages gave — and the audit trail of one session (`#/audit?session=…`,
 * reached from feedback rows or by pasting a session id): the originals a blocking
 * module kept (redacted, as a redactor never keeps the values it removed), the module,
 * the reason and the patterns that matched, every module run with its outcome, and what
 * modules extracted. The API answers the audit to admins only.
 */
import type { Schemas } from "../../src/index";
import { el } from "../common";
import { go, view } from "./router";
import { admin, range } from "./state";
import { bars, card, cell, empty, percent, problem, table, toolbar, when } from "./ui";

type BlockCategory = Schemas["BlockCategory"];

function categories(items: BlockCategory[], id: string): HTMLElement {
  if (!items.length) return empty("No categorised blocks or modifications.");
  return table(
    { id },
    ["category", "blocks", "modifications"],
    items.map((c) => el("tr", { "data-category": c.category }, cell(c.category, "category"), cell(String(c.blocks), "blocks", c.blocks), cell(String(c.modifications), "modifications", c.modifications))),
  );
}

async function blocks(): Promise<HTMLElement> {
  const query = { from: range.from, to: range.to };
  const [byModule, byDay] = await Promise.all([
    admin.client.GET("/v1/admin/blocks", { params: { query: { ...query, group_by: "module" } } }),
    admin.client.GET("/v1/admin/blocks", { params: { query: { ...query, group_by: "day" } } }),
  ]);
  if (!byModule.data) return problem(byModule.error, byModule.response.status);
  const groups = byModule.data.groups;
  const rows = groups.map((g) =>
    el(
      "tr",
      { "data-module": g.key },
      cell(g.key, "module"),
      cell(String(g.runs), "runs", g.runs),
      cell(`${g.blocks} (${percent(g.block_rate)})`, "blocks", g.blocks),
      cell(`${g.modifications} (${percent(g.modify_rate)})`, "modifications", g.modifications),
      cell(`${g.errors} (${percent(g.error_rate)})`, "errors", g.errors),
      cell(`${g.timeouts} (${percent(g.timeout_rate)})`, "timeouts", g.timeouts),
      cell(`${g.p95_duration_ms} ms`, "p95_duration_ms", g.p95_duration_ms),
      cell(g.by_category.map((c) => `${c.category} ${c.blocks + c.modifications}`).join(", ") || "–", "categories"),
    ),
  );
  return el(
    "div",
    { class: "cards" },
    card("blocks", "Block rate by module", bars(groups.map((g) => ({ label: g.key, value: g.block_rate, title: `${g.blocks} of ${g.runs} runs` })), percent)),
    card("modifications", "Modification rate by module", bars(groups.map((g) => ({ label: g.key, value: g.modify_rate, title: `${g.modifications} of ${g.runs} runs` })), percent)),
    card("blocks-daily", "Block rate by day", byDay.data ? bars(byDay.data.groups.map((g) => ({ label: g.key, value: g.block_rate, title: `${g.blocks} of ${g.runs} runs` })), percent) : problem(byDay.error, byDay.response.status)),
    card("block-categories", "Blocked and modified messages by category", categories(byModule.data.by_category, "category-table")),
    card("module-table-card", "Runs by module", rows.length ? table({ id: "module-table" }, ["module", "runs", "blocks", "modifications", "errors", "timeouts", "p95", "categories"], rows) : empty()),
  );
}

async function audit(params: URLSearchParams): Promise<HTMLElement> {
  const session = params.get("session") ?? "";
  const input = el("input", { id: "audit-session", placeholder: "Session id", "aria-label": "Session id", value: session, size: "38" });
  const open = el("button", { type: "submit" }, "Show audit");
  const pick = el("form", { class: "toolbar", id: "audit-form" }, input, open);
  pick.addEventListener("submit", (e) => {
    e.preventDefault();
    go("audit", { session: input.value.trim() });
  });
  if (!session) return el("div", { class: "stack" }, pick, empty("Paste a session id, or open one from a feedback row."));
  const { data, error, response } = await admin.client.GET("/v1/admin/sessions/{id}/audit", { params: { path: { id: session } } });
  if (!data) return el("div", { class: "stack" }, pick, problem(error, response.status));
  const audits = data.audits.map((a) =>
    el(
      "tr",
      { "data-audit": a.id, "data-seq": String(a.seq) },
      cell(String(a.seq), "seq"),
      cell(a.redaction_module, "module"),
      cell(a.redaction_reason, "reason"),
      cell(Array.isArray(a.patterns_matched) ? a.patterns_matched.join(", ") : JSON.stringify(a.patterns_matched ?? []), "patterns"),
      cell(el("span", { class: "original" }, a.original_content), "original"),
      cell(when(a.created_at)),
    ),
  );
  const events = data.module_events.map((m) =>
    el(
      "tr",
      { "data-event": m.id, "data-outcome": m.outcome },
      cell(when(m.created_at)),
      cell(m.module, "module"),
      cell(m.hook, "hook"),
      cell(el("span", { class: `badge outcome-${m.outcome}` }, m.outcome), "outcome"),
      cell(m.category ?? "–", "category"),
      cell(`${m.duration_ms} ms`, "duration_ms", m.duration_ms),
    ),
  );
  const extractions = data.extractions.map((x) =>
    el("tr", {}, cell(when(x.created_at)), cell(x.module, "module"), cell(x.type, "type"), cell(el("code", {}, JSON.stringify(x.data)), "data")),
  );
  return el(
    "div",
    { class: "stack", id: "audit", "data-session": session },
    pick,
    toolbar(el("span", {}, "Session ", el("code", {}, session))),
    card("audit-messages", "Redacted and blocked messages", audits.length ? table({ id: "audit-table" }, ["seq", "module", "reason", "patterns", "original (redacted)", "at"], audits) : empty("No module changed or blocked a message.")),
    card("audit-events", "Module runs", events.length ? table({ id: "event-table" }, ["at", "module", "hook", "outcome", "category", "took"], events) : empty("No module ran.")),
    card("audit-extractions", "Extractions", extractions.length ? table({}, ["at", "module", "type", "data"], extractions) : empty("Nothing extracted.")),
  );
}

view({ path: "modules", title: "Modules", section: "Read", ranged: true, render: blocks });
view({ path: "audit", title: "Session audit", section: "Read", render: audit });
