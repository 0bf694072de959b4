/**
 * Groups (`#/groups`): the organisation tree, indented by depth, a form to create a group
 * (under a parent or as a root), and one group's page (`#/groups?id=…`) to rename it,
 * delete it, and add and remove members by name. The API does not move a group (its
 * parent cannot change), so neither does the console. Names beside ids (a group's
 * parent, a member's name and email) are the API's own (`parent_name`, `user_name`).
 */
import { el } from "../common";
import { go, view } from "./router";
import { admin, directory, type Group, loadDirectory } from "./state";
import { card, cell, confirmButton, empty, flash, form, named, problem, table, toolbar, when } from "./ui";

/** Depth-first order of the tree: parents before their children, siblings by name. */
function treeOrder(groups: Group[]): { g: Group; depth: number }[] {
  const out: { g: Group; depth: number }[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const g of groups.filter((x) => x.parent_id === parent).sort((a, b) => a.name.localeCompare(b.name))) {
      out.push({ g, depth });
      walk(g.id, depth + 1);
    }
  };
  walk(undefined, 0);
  // Groups whose parent is not in the list (more than the directory holds) come last.
  for (const g of groups) if (!out.some((o) => o.g.id === g.id)) out.push({ g, depth: 0 });
  return out;
}

export function groupOptions(): { value: string; label: string }[] {
  return treeOrder(directory.groups).map(({ g, depth }) => ({ value: g.id, label: `${"· ".repeat(depth)}${g.name}` }));
}

type Picked = { value: string; label: string };

/**
 * A person picker: a select of the newest users (one page) and a search box that refills
 * it with the users whose name or email matches (`GET /v1/admin/users?q=`), so a person
 * is found among any number of users.
 */
export async function userPicker(name = "user_id"): Promise<{ node: HTMLElement; input: HTMLSelectElement }> {
  const options = async (q?: string): Promise<Picked[]> => {
    const { data } = await admin.client.GET("/v1/admin/users", { params: { query: { q, limit: 100 } } });
    return (data?.items ?? []).map((u) => ({ value: u.id, label: `${u.name} <${u.email}>` }));
  };
  const select = el("select", { name, "aria-label": "Person" });
  const fillSelect = (items: Picked[]) =>
    select.replaceChildren(...(items.length ? items.map((o) => el("option", { value: o.value }, o.label)) : [el("option", { value: "" }, "nobody matches")]));
  fillSelect(await options());
  const search = el("input", { type: "search", class: "picker-search", placeholder: "Find by name or email", "aria-label": "Find a person" });
  search.addEventListener("change", async () => fillSelect(await options(search.value.trim() || undefined)));
  return { node: el("span", { class: "picker" }, search, select), input: select };
}

function groupList(): HTMLElement {
  const rows = treeOrder(directory.groups).map(({ g, depth }) => {
    const link = el("a", { href: `#/groups?id=${g.id}`, class: `name depth-${Math.min(depth, 6)}` }, g.name);
    return el("tr", { "data-group": g.id, "data-name": g.name }, cell(link, "name"), cell(named("group", g.parent_id, g.parent_name), "parent"), cell(when(g.created_at)));
  });
  const create = form(
    "group-create",
    [
      { name: "name", label: "Name", required: true },
      { name: "parent_id", label: "Parent", type: "select", options: [{ value: "", label: "(a root group)" }, ...groupOptions()] },
    ],
    "Create group",
    async (v) => {
      const { data, error, response } = await admin.client.POST("/v1/admin/groups", {
        body: { name: String(v.name), parent_id: v.parent_id ? String(v.parent_id) : undefined },
      });
      if (!data) return { error, status: response.status };
      await loadDirectory();
      go("groups", { id: data.id });
    },
  );
  return el(
    "div",
    { class: "stack" },
    card("groups", "Groups", rows.length ? table({ id: "group-table" }, ["name", "parent", "created"], rows) : empty("No groups.")),
    card("group-new", "New group", create),
  );
}

async function groupPage(id: string): Promise<HTMLElement> {
  const [group, members] = await Promise.all([
    admin.client.GET("/v1/admin/groups/{id}", { params: { path: { id } } }),
    admin.client.GET("/v1/admin/groups/{id}/members", { params: { path: { id }, query: { limit: 100 } } }),
  ]);
  if (!group.data) return problem(group.error, group.response.status);
  const g = group.data;
  const rename = form("group-rename", [{ name: "name", label: "Name", value: g.name, required: true }], "Rename", async (v) => {
    const saved = await admin.client.PATCH("/v1/admin/groups/{id}", { params: { path: { id } }, body: { name: String(v.name) } });
    if (!saved.data) return { error: saved.error, status: saved.response.status };
    await loadDirectory();
    go("groups", { id });
  });
  const rows = (members.data?.items ?? []).map((m) =>
    el(
      "tr",
      { "data-member": m.user_id },
      cell(named("user", m.user_id, m.user_name), "user"),
      cell(m.user_email ?? "", "email"),
      cell(m.role, "role"),
      cell(when(m.created_at)),
      cell(
        confirmButton("Remove", `Remove ${m.user_name ?? "this member"}?`, async () => {
          await admin.client.DELETE("/v1/admin/groups/{id}/members/{user_id}", { params: { path: { id, user_id: m.user_id } } });
          go("groups", { id });
        }),
      ),
    ),
  );
  const add = form(
    "member-add",
    [
      { name: "user_id", label: "User", type: "custom", control: await userPicker() },
      { name: "role", label: "Role", type: "select", options: ["member", "manager"].map((r) => ({ value: r, label: r })) },
    ],
    "Add member",
    async (v) => {
      const put = await admin.client.PUT("/v1/admin/groups/{id}/members/{user_id}", {
        params: { path: { id, user_id: String(v.user_id) } },
        body: { role: v.role as "member" | "manager" },
      });
      if (!put.data) return { error: put.error, status: put.response.status };
      go("groups", { id });
    },
  );
  const remove = confirmButton("Delete group", `Delete ${g.name}?`, async () => {
    const gone = await admin.client.DELETE("/v1/admin/groups/{id}", { params: { path: { id } } });
    if (!gone.response.ok) return flash(gone.error, gone.response.status);
    await loadDirectory();
    go("groups");
  });
  return el(
    "div",
    { class: "stack", id: "group-page", "data-group": id },
    toolbar(el("a", { href: "#/groups" }, "‹ All groups"), g.parent_id ? el("span", {}, "Parent: ", named("group", g.parent_id, g.parent_name)) : null, remove),
    card("group-detail", g.name, rename),
    card(
      "group-members",
      "Members",
      members.data ? (rows.length ? table({ id: "member-table" }, ["user", "email", "role", "since", ""], rows) : empty("No members.")) : problem(members.error, members.response.status),
      add,
    ),
  );
}

view({
  path: "groups",
  title: "Groups",
  section: "Manage",
  render: async (params) => {
    const id = params.get("id");
    return id ? groupPage(id) : groupList();
  },
});
