/**
 * Feedback (`#/feedback`): the thumbs of the date range counted by rating, tool and model
 * (`/v1/admin/feedback/metrics`), and the ratings themselves with their comments, tags,
 * the answer they are about and who gave them, filtered by rating, tool or user, a page
 * at a time. Each row leads to its session's audit trail.
 */
import type { Schemas } from "../../src/index";
import { el } from "../common";
import { go, view } from "./router";
import { admin, directory, range } from "./state";
import { bars, button, card, cell, empty, named, problem, table, toolbar, when } from "./ui";

type Rating = Schemas["Rating"];

async function render(params: URLSearchParams): Promise<HTMLElement> {
  const filters = {
    rating: (params.get("rating") as Rating | null) ?? undefined,
    tool_id: params.get("tool_id") ?? undefined,
    user_id: params.get("user_id") ?? undefined,
    model: params.get("model") ?? undefined,
  };
  const cursor = params.get("cursor") ?? undefined;
  const span = { from: range.from, to: range.to };
  const [metrics, list] = await Promise.all([
    admin.client.GET("/v1/admin/feedback/metrics", { params: { query: span } }),
    admin.client.GET("/v1/admin/feedback", { params: { query: { ...span, ...filters, limit: 50, cursor } } }),
  ]);
  const rating = el("select", { id: "feedback-rating", "aria-label": "Rating" }, el("option", { value: "" }, "any rating"), el("option", { value: "up" }, "👍 up"), el("option", { value: "down" }, "👎 down"));
  rating.value = filters.rating ?? "";
  const tool = el("select", { id: "feedback-tool", "aria-label": "Tool" }, el("option", { value: "" }, "any tool"), ...directory.tools.map((t) => el("option", { value: t.id }, t.name)));
  tool.value = filters.tool_id ?? "";
  const refilter = () => go("feedback", { ...filters, rating: rating.value || undefined, tool_id: tool.value || undefined });
  rating.addEventListener("change", refilter);
  tool.addEventListener("change", refilter);
  const m = metrics.data;
  const rows = (list.data?.items ?? []).map((f) =>
    el(
      "tr",
      { "data-feedback": f.id, "data-rating": f.rating },
      cell(f.rating === "up" ? "👍" : "👎", "rating"),
      cell(f.comment ?? "", "comment"),
      cell((f.tags ?? []).join(", "), "tags"),
      cell(el("span", { class: "excerpt", title: f.message }, f.message.slice(0, 160)), "message"),
      cell(named("user", f.user_id, f.user_name), "user"),
      cell(f.tool_id ? named("tool", f.tool_id, f.tool_name) : "–", "tool"),
      cell(f.model ?? "–", "model"),
      cell(when(f.updated_at)),
      cell(el("a", { href: `#/audit?session=${f.session_id}` }, "audit")),
    ),
  );
  return el(
    "div",
    { class: "stack" },
    m
      ? el(
          "div",
          { class: "cards" },
          card("feedback-rating-card", "Ratings", bars(m.by_rating.map((r) => ({ key: r.rating, label: r.rating === "up" ? "👍 up" : "👎 down", value: r.count })))),
          card("feedback-tools", "Down-rated share by tool", bars(m.by_tool.map((t) => ({ key: t.tool_id, label: t.tool_name, value: t.down / Math.max(1, t.up + t.down), title: `${t.up} up · ${t.down} down` })), (n) => `${(n * 100).toFixed(0)}%`)),
          card("feedback-models", "Ratings by model", bars(m.by_model.map((x) => ({ key: x.model ?? "(none)", label: x.model ?? "(no model)", value: x.up + x.down, title: `${x.up} up · ${x.down} down` })))),
        )
      : problem(metrics.error, metrics.response.status),
    card(
      "feedback-list",
      "Ratings and comments",
      toolbar(rating, tool, filters.user_id ? el("span", {}, "user ", named("user", filters.user_id)) : null),
      list.data
        ? rows.length
          ? table({ id: "feedback-table" }, ["", "comment", "tags", "answer", "user", "tool", "model", "when", ""], rows)
          : empty("No feedback in this window.")
        : problem(list.error, list.response.status),
      list.data?.next_cursor ? button("Older ›", () => go("feedback", { ...filters, cursor: list.data?.next_cursor })) : null,
    ),
  );
}

view({ path: "feedback", title: "Feedback", section: "Read", ranged: true, render });
