/**
 * Live (`#/live`): prompts by state, the stuck ones (unfinished longer than a threshold)
 * with a cancel button, and the providers' breakers. The view redraws every 10 s while
 * the tab is visible (the router's live refresh) and shows when it last did.
 *
 * Cancel is the admin route `POST /v1/admin/prompts/{id}/cancel` (any user's prompt).
 */
import { el } from "../common";
import { draw, view } from "./router";
import { admin } from "./state";
import { bars, card, cell, confirmButton, empty, flash, percent, problem, table, when } from "./ui";

const cancelPrompt = (id: string) => admin.client.POST("/v1/admin/prompts/{id}/cancel", { params: { path: { id } } });

async function prompts(stuckAfter: number): Promise<HTMLElement> {
  const { data, error, response } = await admin.client.GET("/v1/admin/prompts/stats", { params: { query: { stuck_after_s: stuckAfter } } });
  if (!data) return problem(error, response.status);
  const rows = data.stuck.map((p) =>
    el(
      "tr",
      { "data-prompt": p.id, "data-state": p.state },
      cell(el("code", {}, p.id), "id"),
      cell(p.state, "state"),
      cell(p.user_name ?? "–", "user"),
      cell(p.tool_name ?? "–", "tool"),
      cell(`${p.age_s} s`, "age_s", p.age_s),
      cell(when(p.created_at)),
      cell(el("a", { href: `#/audit?session=${p.session_id}` }, "session audit")),
      cell(
        confirmButton("Cancel", "Cancel this prompt?", async () => {
          const done = await cancelPrompt(p.id);
          if (!done.response.ok) flash(done.error, done.response.status);
          await draw(true);
        }, "warning"),
      ),
    ),
  );
  return el(
    "div",
    {},
    bars(data.by_state.map((s) => ({ label: s.state, value: s.count }))),
    el("h3", {}, `Stuck (unfinished after ${data.stuck_after_s} s): `, el("span", { id: "stuck-count", "data-value": String(data.stuck_count) }, String(data.stuck_count))),
    rows.length ? table({ id: "stuck-table" }, ["prompt", "state", "user", "tool", "age", "created", "", ""], rows) : empty("None."),
  );
}

async function providers(): Promise<HTMLElement> {
  const { data, error, response } = await admin.client.GET("/v1/admin/providers");
  if (!data) return problem(error, response.status);
  if (!data.providers.length) return empty("No provider configured: the offline demo model answers.");
  return table(
    {},
    ["provider", "breaker", "models", "calls", "failed", "error rate", "last error"],
    data.providers.map((p) =>
      el(
        "tr",
        { "data-provider": p.name },
        cell(p.name),
        cell(el("span", { class: `badge ${p.breaker.state}`, "data-state": p.breaker.state }, p.breaker.state), "breaker"),
        cell(p.models.join(", ")),
        cell(String(p.calls), "calls", p.calls),
        cell(String(p.failed_calls), "failed_calls", p.failed_calls),
        cell(p.error_rate === undefined ? "–" : percent(p.error_rate), "error_rate"),
        cell(p.last_error ? `${p.last_error.category} ${when(p.last_error.at)}` : "–"),
      ),
    ),
  );
}

view({
  path: "live",
  title: "Prompts & providers",
  section: "Read",
  live: true,
  render: async (params) => {
    const stuckAfter = Math.max(1, Number(params.get("stuck_after_s") ?? 300) || 300);
    const [p, v] = await Promise.all([prompts(stuckAfter), providers()]);
    return el("div", { class: "cards" }, card("prompts", "Prompts by state", p), card("providers", "Provider breakers", v));
  },
});
