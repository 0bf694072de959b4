/**
 * Classes (`#/classes`): the list with each class's group, a form to create one, and a
 * class's page (`#/classes?id=…`) to rename or delete it, enrol people by name with a
 * role (or change their role: enrolling again replaces it) and remove them, and see its
 * assignments (`assignments.ts` creates and edits them). The names beside ids (a
 * class's group, an enrolled person, an assignment's tool) are the API's own.
 */
import { el } from "../common";
import { groupOptions, userPicker } from "./groups";
import { go, view } from "./router";
import { admin, directory, loadDirectory } from "./state";
import { card, cell, confirmButton, empty, flash, form, named, problem, table, toolbar, when } from "./ui";

export const classOptions = () =>
  directory.classes.map((c) => ({ value: c.id, label: `${c.name} (${c.group_name ?? "?"})` }));

function classList(): HTMLElement {
  const rows = directory.classes.map((c) =>
    el(
      "tr",
      { "data-class": c.id, "data-name": c.name },
      cell(el("a", { href: `#/classes?id=${c.id}`, class: "name" }, c.name), "name"),
      cell(named("group", c.group_id, c.group_name), "group"),
      cell(when(c.created_at)),
    ),
  );
  const create = form(
    "class-create",
    [
      { name: "name", label: "Name", required: true },
      { name: "group_id", label: "Group", type: "select", options: groupOptions() },
    ],
    "Create class",
    async (v) => {
      const { data, error, response } = await admin.client.POST("/v1/admin/classes", { body: { name: String(v.name), group_id: String(v.group_id) } });
      if (!data) return { error, status: response.status };
      await loadDirectory();
      go("classes", { id: data.id });
    },
  );
  return el(
    "div",
    { class: "stack" },
    card("classes", "Classes", rows.length ? table({ id: "class-table" }, ["name", "group", "created"], rows) : empty("No classes.")),
    card("class-new", "New class", create),
  );
}

async function classPage(id: string): Promise<HTMLElement> {
  const [klass, enrollments, assignments] = await Promise.all([
    admin.client.GET("/v1/admin/classes/{id}", { params: { path: { id } } }),
    admin.client.GET("/v1/admin/classes/{id}/enrollments", { params: { path: { id }, query: { limit: 100 } } }),
    admin.client.GET("/v1/admin/assignments", { params: { query: { class_id: id, limit: 100 } } }),
  ]);
  if (!klass.data) return problem(klass.error, klass.response.status);
  const c = klass.data;
  const rename = form("class-rename", [{ name: "name", label: "Name", value: c.name, required: true }], "Rename", async (v) => {
    const saved = await admin.client.PATCH("/v1/admin/classes/{id}", { params: { path: { id } }, body: { name: String(v.name) } });
    if (!saved.data) return { error: saved.error, status: saved.response.status };
    await loadDirectory();
    go("classes", { id });
  });
  const rows = (enrollments.data?.items ?? []).map((e) =>
    el(
      "tr",
      { "data-enrollment": e.user_id },
      cell(named("user", e.user_id, e.user_name), "user"),
      cell(e.user_email ?? "", "email"),
      cell(e.role, "role"),
      cell(when(e.created_at)),
      cell(
        confirmButton("Remove", `Remove ${e.user_name ?? "this person"}?`, async () => {
          const gone = await admin.client.DELETE("/v1/admin/classes/{id}/enrollments/{user_id}", { params: { path: { id, user_id: e.user_id } } });
          if (!gone.response.ok) return flash(gone.error, gone.response.status);
          go("classes", { id });
        }),
      ),
    ),
  );
  const enrol = form(
    "enrollment-add",
    [
      { name: "user_id", label: "Person", type: "custom", control: await userPicker() },
      { name: "role", label: "Role", type: "select", options: ["student", "teacher"].map((r) => ({ value: r, label: r })) },
    ],
    "Enrol",
    async (v) => {
      const put = await admin.client.PUT("/v1/admin/classes/{id}/enrollments/{user_id}", {
        params: { path: { id, user_id: String(v.user_id) } },
        body: { role: v.role as "student" | "teacher" },
      });
      if (!put.data) return { error: put.error, status: put.response.status };
      go("classes", { id });
    },
  );
  const work = (assignments.data?.items ?? []).map((a) =>
    el(
      "tr",
      { "data-assignment": a.id },
      cell(el("a", { href: `#/assignments?id=${a.id}`, class: "name" }, a.title), "title"),
      cell(named("tool", a.tool_id, a.tool_name), "tool"),
      cell(when(a.available_at)),
      cell(when(a.closes_at)),
    ),
  );
  const remove = confirmButton("Delete class", `Delete ${c.name}?`, async () => {
    const gone = await admin.client.DELETE("/v1/admin/classes/{id}", { params: { path: { id } } });
    if (!gone.response.ok) return flash(gone.error, gone.response.status);
    await loadDirectory();
    go("classes");
  });
  return el(
    "div",
    { class: "stack", id: "class-page", "data-class": id },
    toolbar(el("a", { href: "#/classes" }, "‹ All classes"), el("span", {}, "Group: ", named("group", c.group_id, c.group_name)), remove),
    card("class-detail", c.name, rename),
    card(
      "class-enrollments",
      "Enrolments",
      enrollments.data ? (rows.length ? table({ id: "enrollment-table" }, ["person", "email", "role", "since", ""], rows) : empty("Nobody is enrolled.")) : problem(enrollments.error, enrollments.response.status),
      enrol,
    ),
    card(
      "class-assignments",
      "Assignments",
      work.length ? table({ id: "class-assignment-table" }, ["title", "tool", "opens", "closes"], work) : empty("No assignments."),
      el("a", { href: `#/assignments?class_id=${id}&new=1` }, "New assignment"),
    ),
  );
}

view({
  path: "classes",
  title: "Classes",
  section: "Manage",
  render: async (params) => {
    const id = params.get("id");
    return id ? classPage(id) : classList();
  },
});
