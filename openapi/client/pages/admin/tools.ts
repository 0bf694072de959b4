/**
 * Tools (`#/tools`): the list with each tool's group, model and functions, a form to
 * create one, and one tool's page (`#/tools?id=…`) that edits its typed definition
 * (behavior, model, modules, functions, approval_required, constraints, …) as JSON.
 *
 * The definition is checked by the server, not here: a 400 or 422 answer is shown
 * inline under the editor with its `code`, and the option it names is marked (the
 * problem's JSON pointer when it gives one, else the option named in its `detail`) and
 * the editor's caret put on that option's line. The functions, models and modules the
 * deployment offers are listed beside the editor to pick names from (the modules from
 * `GET /v1/admin/modules`, with the hooks they run at).
 */
import { el } from "../common";
import { groupOptions } from "./groups";
import { go, view } from "./router";
import { admin, directory, loadDirectory, type Tool } from "./state";
import { card, cell, confirmButton, empty, flash, named, problem, problemField, table, toolbar, when } from "./ui";

type Definition = Tool["definition"];

/** The definition's options, for finding the one a problem names. */
const OPTIONS = [
  "approval_required", "behavior", "constraints", "enabled_skills", "functions", "history", "hold_back",
  "max_iterations", "max_messages", "max_session_duration_s", "model", "modules", "payload_types", "sampling",
  "skills", "suggestions",
];

const TEMPLATE: Definition = { behavior: "Help with homework.", functions: [], modules: [] };

function toolList(): HTMLElement {
  const rows = directory.tools.map((t) =>
    el(
      "tr",
      { "data-tool": t.id, "data-name": t.name },
      cell(el("a", { href: `#/tools?id=${t.id}`, class: "name" }, t.name), "name"),
      cell(named("group", t.group_id, t.group_name), "group"),
      cell(t.definition.model ?? "(default)", "model"),
      cell((t.definition.functions ?? []).join(", ") || "–", "functions"),
      cell((t.definition.modules ?? []).map((m) => m.name).join(", ") || "–", "modules"),
      cell(when(t.updated_at)),
    ),
  );
  return el(
    "div",
    { class: "stack" },
    card("tools", "Tools", rows.length ? table({ id: "tool-table" }, ["name", "group", "model", "functions", "modules", "updated"], rows) : empty("No tools.")),
    card("tool-new", "New tool", editor(undefined)),
  );
}

/** Puts the caret on the first line of `text` that sets `option`, and scrolls to it. */
function markLine(area: HTMLTextAreaElement, option: string): number | undefined {
  const at = area.value.indexOf(`"${option}"`);
  if (at < 0) return undefined;
  area.focus();
  area.setSelectionRange(at, at + option.length + 2);
  return area.value.slice(0, at).split("\n").length;
}

/** The editor of a new tool (`tool` absent) or of an existing one. */
function editor(tool: Tool | undefined): HTMLElement {
  const name = el("input", { name: "name", id: "tool-name", required: true, value: tool?.name ?? "", "aria-label": "Tool name" });
  const group = el("select", { id: "tool-group", "aria-label": "Group" }, ...groupOptions().map((o) => el("option", { value: o.value }, o.label)));
  const area = el("textarea", { id: "tool-definition", class: "code-editor", rows: "16", spellcheck: "false", "aria-label": "Definition (JSON)" });
  area.value = JSON.stringify(tool?.definition ?? TEMPLATE, null, 2);
  const error = el("div", { id: "tool-error", class: "form-error", "aria-live": "polite" });
  const save = el("button", { type: "submit", id: "tool-save" }, tool ? "Save" : "Create tool");
  const saved = el("span", { id: "tool-saved", class: "muted", role: "status" });
  const node = el(
    "form",
    { class: "admin-form tool-editor", id: tool ? "tool-edit" : "tool-create" },
    el("label", { class: "field" }, el("span", {}, "Name"), name),
    tool ? el("p", {}, "Group: ", named("group", tool.group_id, tool.group_name)) : el("label", { class: "field" }, el("span", {}, "Group"), group),
    el("label", { class: "field field-editor", "data-field": "definition" }, el("span", {}, "Definition (JSON)"), area),
    error,
    el("div", { class: "form-buttons" }, save, saved),
  );
  const fail = (detail: HTMLElement, option?: string) => {
    area.setAttribute("aria-invalid", "true");
    const line = option ? markLine(area, option) : undefined;
    error.dataset.field = option ?? "";
    error.replaceChildren(detail, option ? el("p", { class: "pointer" }, `at `, el("code", {}, `/${option}`), line ? ` (line ${line})` : "") : "");
  };
  area.addEventListener("input", () => area.removeAttribute("aria-invalid"));
  node.addEventListener("submit", (event) => {
    event.preventDefault();
    error.replaceChildren();
    saved.textContent = "";
    let definition: Definition;
    try {
      definition = JSON.parse(area.value) as Definition;
    } catch (err) {
      fail(el("p", { class: "problem", role: "alert" }, `Not JSON: ${(err as Error).message}`));
      return;
    }
    save.disabled = true;
    void (async () => {
      const answer = tool
        ? await admin.client.PATCH("/v1/admin/tools/{id}", { params: { path: { id: tool.id } }, body: { name: name.value.trim(), definition } })
        : await admin.client.POST("/v1/admin/tools", { body: { name: name.value.trim(), group_id: group.value, type: "chat", definition } });
      save.disabled = false;
      if (!answer.data) {
        fail(problem(answer.error, answer.response.status), problemField(answer.error, OPTIONS));
        return;
      }
      await loadDirectory();
      if (tool) {
        area.removeAttribute("aria-invalid");
        area.value = JSON.stringify(answer.data.definition, null, 2);
        saved.textContent = `Saved ${new Date().toLocaleTimeString()}`;
      } else {
        go("tools", { id: answer.data.id });
      }
    })();
  });
  return node;
}

/** What the deployment offers to name in a definition: functions, models and modules. */
async function offered(): Promise<HTMLElement> {
  const [functions, models, modules] = await Promise.all([
    admin.client.GET("/v1/functions"),
    admin.client.GET("/v1/models"),
    admin.client.GET("/v1/admin/modules"),
  ]);
  const list = (items: { name: string; note?: string }[]) =>
    el("ul", { class: "plain" }, ...items.map((i) => el("li", {}, el("code", {}, i.name), i.note ? el("span", { class: "muted" }, ` ${i.note}`) : null)));
  return el(
    "div",
    { class: "offered" },
    el("h3", {}, "Functions"),
    list((functions.data?.items ?? []).map((f) => ({ name: f.name, note: f.requires_approval ? "(always asks approval)" : undefined }))),
    el("h3", {}, "Models"),
    list((models.data?.items ?? []).map((m) => ({ name: m.id }))),
    el("h3", {}, "Modules"),
    el(
      "ul",
      { class: "plain", id: "offered-modules" },
      ...(modules.data?.items ?? []).map((m) =>
        el("li", { "data-module": m.name, title: m.description }, el("code", {}, m.name), el("span", { class: "muted" }, ` ${m.hooks.join(", ")}`)),
      ),
    ),
  );
}

async function toolPage(id: string): Promise<HTMLElement> {
  const [{ data: tool, error, response }, side] = await Promise.all([admin.client.GET("/v1/admin/tools/{id}", { params: { path: { id } } }), offered()]);
  if (!tool) return problem(error, response.status);
  const remove = confirmButton("Delete tool", `Delete ${tool.name}?`, async () => {
    const gone = await admin.client.DELETE("/v1/admin/tools/{id}", { params: { path: { id } } });
    if (!gone.response.ok) return flash(gone.error, gone.response.status);
    await loadDirectory();
    go("tools");
  });
  return el(
    "div",
    { class: "stack", id: "tool-page", "data-tool": id },
    toolbar(el("a", { href: "#/tools" }, "‹ All tools"), el("a", { href: `#/usage?group_by=user&tool_id=${id}` }, "Usage"), el("a", { href: `#/feedback?tool_id=${id}` }, "Feedback"), remove),
    el("div", { class: "split" }, card("tool-detail", tool.name, editor(tool)), card("tool-offered", "Names to use", side)),
  );
}

view({
  path: "tools",
  title: "Tools",
  section: "Manage",
  render: async (params) => {
    const id = params.get("id");
    return id ? toolPage(id) : toolList();
  },
});
