/**
 * The admin dashboard page (`GET /admin`): usage over time and by model, user and tool
 * (`/v1/admin/usage`), block and modification rates by module (`/v1/admin/blocks`),
 * prompt states and stuck prompts (`/v1/admin/prompts/stats`), and the providers'
 * breakers (`/v1/admin/providers`), for admins only (another token is refused with the
 * API's 403). Each bar carries its number in `data-value`, so what the page shows can
 * be checked against the API.
 */
import { type ParleyClient, type Schemas } from "../src/index";
import { byId, el, problemText, signIn } from "./common";

type UsageGroupBy = Schemas["UsageGroupBy"];

function bars(rows: { label: string; value: number; title?: string }[], format: (n: number) => string = String): HTMLElement {
  if (!rows.length) return el("p", { class: "empty" }, "Nothing in this window yet.");
  const most = Math.max(...rows.map((r) => r.value), 1e-9);
  return el(
    "div",
    { class: "bars" },
    ...rows.map((r) => {
      const fill = el("div", { class: "fill" });
      fill.style.width = `${Math.max(0, (r.value / most) * 100)}%`;
      return el(
        "div",
        { class: "bar", "data-label": r.label, "data-value": String(r.value), title: r.title },
        el("span", { class: "label" }, r.label),
        el("div", { class: "track" }, fill),
        el("span", { class: "value" }, format(r.value)),
      );
    }),
  );
}

function card(id: string, title: string, ...content: (Node | string)[]): HTMLElement {
  return el("section", { class: "card", id }, el("h2", {}, title), ...content);
}

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

async function usage(client: ParleyClient, groupBy: UsageGroupBy): Promise<HTMLElement> {
  const { data, error, response } = await client.GET("/v1/admin/usage", {
    params: { query: { group_by: groupBy, limit: 100 } },
  });
  if (!data) return el("p", { class: "status" }, problemText(error, response.status));
  const rows = data.items;
  return el(
    "div",
    {},
    bars(
      rows.map((g) => ({
        label: g.key,
        value: g.input_tokens + g.output_tokens,
        title: `${g.calls} calls · $${g.cost_usd.toFixed(4)}`,
      })),
      (n) => `${n} tok`,
    ),
    el(
      "table",
      { class: "usage-table", "data-group-by": groupBy },
      el("tr", {}, el("th", {}, groupBy), el("th", {}, "calls"), el("th", {}, "in"), el("th", {}, "out"), el("th", {}, "refused"), el("th", {}, "TTFT p50")),
      ...rows.map((g) =>
        el(
          "tr",
          { "data-key": g.key },
          el("td", {}, g.key),
          el("td", { "data-field": "calls" }, String(g.calls)),
          el("td", { "data-field": "input_tokens" }, String(g.input_tokens)),
          el("td", { "data-field": "output_tokens" }, String(g.output_tokens)),
          el("td", { "data-field": "refused_turns" }, String(g.refused_turns)),
          el("td", {}, g.ttft_p50_ms === undefined ? "–" : `${g.ttft_p50_ms} ms`),
        ),
      ),
    ),
  );
}

async function blocks(client: ParleyClient): Promise<HTMLElement> {
  const { data, error, response } = await client.GET("/v1/admin/blocks", {
    params: { query: { group_by: "module" } },
  });
  if (!data) return el("p", { class: "status" }, problemText(error, response.status));
  return el(
    "div",
    {},
    el("h3", {}, "Block rate"),
    bars(data.groups.map((g) => ({ label: g.key, value: g.block_rate, title: `${g.blocks} of ${g.runs} runs` })), percent),
    el("h3", {}, "Modification rate"),
    bars(data.groups.map((g) => ({ label: g.key, value: g.modify_rate, title: `${g.modifications} of ${g.runs} runs` })), percent),
  );
}

async function prompts(client: ParleyClient): Promise<HTMLElement> {
  const { data, error, response } = await client.GET("/v1/admin/prompts/stats");
  if (!data) return el("p", { class: "status" }, problemText(error, response.status));
  return el(
    "div",
    {},
    bars(data.by_state.map((s) => ({ label: s.state, value: s.count }))),
    el("h3", {}, `Stuck (unfinished after ${data.stuck_after_s} s): `, el("span", { id: "stuck-count", "data-value": String(data.stuck_count) }, String(data.stuck_count))),
    data.stuck.length
      ? el(
          "table",
          {},
          el("tr", {}, el("th", {}, "prompt"), el("th", {}, "state"), el("th", {}, "age")),
          ...data.stuck.map((p) => el("tr", {}, el("td", {}, p.id), el("td", {}, p.state), el("td", {}, `${p.age_s} s`))),
        )
      : el("p", { class: "empty" }, "None."),
  );
}

async function providers(client: ParleyClient): Promise<HTMLElement> {
  const { data, error, response } = await client.GET("/v1/admin/providers");
  if (!data) return el("p", { class: "status" }, problemText(error, response.status));
  if (!data.providers.length) return el("p", { class: "empty" }, "No provider configured: the offline demo model answers.");
  return el(
    "table",
    {},
    el("tr", {}, el("th", {}, "provider"), el("th", {}, "breaker"), el("th", {}, "calls"), el("th", {}, "error rate")),
    ...data.providers.map((p) =>
      el(
        "tr",
        { "data-provider": p.name },
        el("td", {}, p.name),
        el("td", {}, el("span", { class: `badge ${p.breaker.state}`, "data-state": p.breaker.state }, p.breaker.state)),
        el("td", { "data-field": "calls" }, String(p.calls)),
        el("td", {}, p.error_rate === undefined ? "–" : percent(p.error_rate)),
      ),
    ),
  );
}

async function render(client: ParleyClient): Promise<void> {
  const sections = await Promise.all([
    usage(client, "day").then((c) => card("usage-day", "Usage over time (tokens per day)", c)),
    usage(client, "model").then((c) => card("usage-model", "Usage by model", c)),
    usage(client, "user").then((c) => card("usage-user", "Usage by user", c)),
    usage(client, "tool").then((c) => card("usage-tool", "Usage by tool", c)),
    blocks(client).then((c) => card("blocks", "Modules: blocks and modifications", c)),
    prompts(client).then((c) => card("prompts", "Prompts by state", c)),
    providers(client).then((c) => card("providers", "Provider breakers", c)),
  ]);
  byId("cards").replaceChildren(...sections);
  byId("updated").textContent = `Updated ${new Date().toLocaleTimeString()}`;
  document.body.dataset.ready = "true";
}

signIn(
  async (candidate) => {
    const { response } = await candidate.GET("/v1/admin/providers");
    if (response.ok) return null;
    if (response.status === 403) return "This page is for administrators.";
    if (response.status === 401) return "That token is not valid.";
    return `Sign-in failed (${response.status}).`;
  },
  (client) => {
    void render(client);
    byId("refresh").addEventListener("click", () => void render(client));
  },
);
