/**
 * Assignments (`#/assignments`): every assignment with its class and tool by name (or
 * one class's, `?class_id=…`), a form to create one (class, tool, title, instructions,
 * when it opens and closes), and one assignment's page (`?id=…`) to edit or delete it.
 * The class and the tool of an assignment cannot change (the API keeps them); their
 * names are the API's own (`class_name`, `tool_name`).
 */
import { el } from "../common";
import { classOptions } from "./classes";
import { go, view } from "./router";
import { admin, directory } from "./state";
import { card, cell, confirmButton, empty, flash, form, fromLocalInput, named, problem, table, toLocalInput, toolbar, when } from "./ui";

const toolOptions = () => directory.tools.map((t) => ({ value: t.id, label: t.name }));

async function assignmentList(params: URLSearchParams): Promise<HTMLElement> {
  const classId = params.get("class_id") ?? undefined;
  const { data, error, response } = await admin.client.GET("/v1/admin/assignments", { params: { query: { class_id: classId, limit: 100 } } });
  if (!data) return problem(error, response.status);
  const rows = data.items.map((a) =>
    el(
      "tr",
      { "data-assignment": a.id, "data-title": a.title },
      cell(el("a", { href: `#/assignments?id=${a.id}`, class: "name" }, a.title), "title"),
      cell(named("class", a.class_id, a.class_name), "class"),
      cell(named("tool", a.tool_id, a.tool_name), "tool"),
      cell(when(a.available_at)),
      cell(when(a.closes_at)),
    ),
  );
  const create = form(
    "assignment-create",
    [
      { name: "class_id", label: "Class", type: "select", options: classOptions(), value: classId },
      { name: "tool_id", label: "Tool", type: "select", options: toolOptions() },
      { name: "title", label: "Title", required: true },
      { name: "instructions", label: "Instructions", type: "textarea" },
      { name: "available_at", label: "Opens (optional)", type: "datetime" },
      { name: "closes_at", label: "Closes (optional)", type: "datetime" },
    ],
    "Create assignment",
    async (v) => {
      const created = await admin.client.POST("/v1/admin/assignments", {
        body: {
          class_id: String(v.class_id),
          tool_id: String(v.tool_id),
          title: String(v.title),
          instructions: String(v.instructions),
          available_at: fromLocalInput(String(v.available_at)),
          closes_at: fromLocalInput(String(v.closes_at)),
        },
      });
      if (!created.data) return { error: created.error, status: created.response.status };
      go("assignments", { id: created.data.id });
    },
  );
  return el(
    "div",
    { class: "stack" },
    card(
      "assignments",
      classId ? "Assignments of one class" : "Assignments",
      classId ? toolbar(el("span", {}, "Class: ", named("class", classId)), el("a", { href: "#/assignments" }, "All classes")) : null,
      rows.length ? table({ id: "assignment-table" }, ["title", "class", "tool", "opens", "closes"], rows) : empty("No assignments."),
    ),
    card("assignment-new", "New assignment", create),
  );
}

async function assignmentPage(id: string): Promise<HTMLElement> {
  const { data: a, error, response } = await admin.client.GET("/v1/admin/assignments/{id}", { params: { path: { id } } });
  if (!a) return problem(error, response.status);
  const edit = form(
    "assignment-edit",
    [
      { name: "title", label: "Title", value: a.title, required: true },
      { name: "instructions", label: "Instructions", type: "textarea", value: a.instructions },
      { name: "available_at", label: "Opens", type: "datetime", value: toLocalInput(a.available_at) },
      { name: "closes_at", label: "Closes", type: "datetime", value: toLocalInput(a.closes_at) },
    ],
    "Save",
    async (v) => {
      const saved = await admin.client.PATCH("/v1/admin/assignments/{id}", {
        params: { path: { id } },
        // An emptied date clears it (`null`), as the API reads it.
        body: {
          title: String(v.title),
          instructions: String(v.instructions),
          available_at: fromLocalInput(String(v.available_at)) ?? null,
          closes_at: fromLocalInput(String(v.closes_at)) ?? null,
        },
      });
      if (!saved.data) return { error: saved.error, status: saved.response.status };
      go("assignments", { id });
    },
  );
  const remove = confirmButton("Delete assignment", `Delete “${a.title}”?`, async () => {
    const gone = await admin.client.DELETE("/v1/admin/assignments/{id}", { params: { path: { id } } });
    if (!gone.response.ok) return flash(gone.error, gone.response.status);
    go("assignments", { class_id: a.class_id });
  });
  return el(
    "div",
    { class: "stack", id: "assignment-page", "data-assignment": id },
    toolbar(el("a", { href: `#/assignments?class_id=${a.class_id}` }, "‹ Assignments of the class"), remove),
    card(
      "assignment-detail",
      a.title,
      el("p", {}, "Class: ", named("class", a.class_id, a.class_name), " · Tool: ", named("tool", a.tool_id, a.tool_name)),
      edit,
    ),
  );
}

view({
  path: "assignments",
  title: "Assignments",
  section: "Manage",
  render: async (params) => {
    const id = params.get("id");
    return id ? assignmentPage(id) : assignmentList(params);
  },
});
