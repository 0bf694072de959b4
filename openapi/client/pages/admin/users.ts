/**
 * Users (`#/users`): the list with the API's search over names and emails (`q`) and its
 * pages of 25 (`cursor`; the cursors of the earlier pages ride in the URL, so Back and
 * Previous work), a
 * form to create one with a role, and one user's page (`#/users?id=…`) to change the
 * role, disable or enable, set the extra permissions, and list, create and revoke
 * tokens. A new token's secret is shown once, as the API answers it only then.
 */
import { el } from "../common";
import { go, view } from "./router";
import { admin, loadDirectory, type User } from "./state";
import { button, card, cell, confirmButton, empty, form, problem, table, toolbar, when } from "./ui";

/** The pages seen before this one: their cursors, comma-separated (`-`: the first page). */
const trail = (params: URLSearchParams) => (params.get("trail") ?? "").split(",").filter(Boolean);

const PAGE = 25;
const ROLES = ["student", "teacher", "admin"].map((r) => ({ value: r, label: r }));

async function userList(params: URLSearchParams): Promise<HTMLElement> {
  const q = (params.get("q") ?? "").trim() || undefined;
  const cursor = params.get("cursor") ?? undefined;
  const { data, error, response } = await admin.client.GET("/v1/admin/users", { params: { query: { q, cursor, limit: PAGE } } });
  if (!data) return problem(error, response.status);
  const shown = data.items;
  const before = trail(params);
  const search = el("input", { type: "search", id: "user-search", placeholder: "Search names and emails", "aria-label": "Search users", value: params.get("q") ?? "" });
  search.addEventListener("change", () => go("users", { q: search.value.trim() || undefined }));
  const rows = shown.map((u) => {
    const open = el("a", { href: `#/users?id=${u.id}`, class: "name" }, u.name);
    return el(
      "tr",
      { "data-user": u.id, "data-email": u.email },
      cell(open, "name"),
      cell(u.email, "email"),
      cell(u.role, "role"),
      cell(u.disabled_at ? el("span", { class: "badge open" }, "disabled") : el("span", { class: "badge closed" }, "active"), "state"),
      cell(when(u.created_at)),
    );
  });
  const first = before.length * PAGE;
  const previous = () => {
    const back = before.slice(0, -1);
    const to = before[before.length - 1];
    go("users", { q, cursor: to === "-" ? undefined : to, trail: back.join(",") || undefined });
  };
  const next = (to: string) => go("users", { q, cursor: to, trail: [...before, cursor ?? "-"].join(",") });
  const pager = toolbar(
    cursor ? button("‹ Previous", previous) : null,
    el("span", { class: "muted", id: "user-range" }, shown.length ? `${first + 1}–${first + shown.length}` : "none"),
    data.next_cursor ? button("Next ›", () => next(data.next_cursor!)) : null,
  );
  const create = form(
    "user-create",
    [
      { name: "name", label: "Name", required: true },
      { name: "email", label: "Email", type: "email", required: true },
      { name: "role", label: "Role", type: "select", options: ROLES, value: "student" },
    ],
    "Create user",
    async (v) => {
      const { data, error, response } = await admin.client.POST("/v1/admin/users", {
        body: { name: String(v.name), email: String(v.email), role: v.role as User["role"], permissions: [] },
      });
      if (!data) return { error, status: response.status };
      await loadDirectory();
      go("users", { id: data.id });
    },
  );
  return el(
    "div",
    { class: "stack" },
    card("users", "Users", toolbar(search), rows.length ? table({ id: "user-table" }, ["name", "email", "role", "state", "created"], rows) : empty("No user matches."), pager),
    card("user-new", "New user", create),
  );
}

async function tokens(user: User, secret?: { name: string; value: string }): Promise<HTMLElement> {
  const box = el("div", { id: "user-tokens" });
  const redraw = async (s?: { name: string; value: string }) => box.replaceWith(await tokens(user, s));
  const { data, error, response } = await admin.client.GET("/v1/admin/users/{id}/tokens", { params: { path: { id: user.id } } });
  const rows = (data?.items ?? []).map((t) =>
    el(
      "tr",
      { "data-token": t.id, "data-name": t.name, "data-state": t.revoked_at ? "revoked" : "active" },
      cell(t.name, "name"),
      cell(el("code", {}, `${t.prefix}…`), "prefix"),
      cell(when(t.created_at)),
      cell(when(t.last_used_at)),
      cell(t.expires_at ? when(t.expires_at) : "never"),
      cell(
        t.revoked_at
          ? `revoked ${when(t.revoked_at)}`
          : confirmButton("Revoke", `Revoke “${t.name}”?`, async () => {
              await admin.client.DELETE("/v1/admin/tokens/{id}", { params: { path: { id: t.id } } });
              await redraw();
            }),
        "state",
      ),
    ),
  );
  const create = form(
    "token-create",
    [
      { name: "name", label: "Token name", required: true, placeholder: "laptop" },
      { name: "expires_at", label: "Expires (optional)", type: "datetime" },
    ],
    "Create token",
    async (v) => {
      const expires = v.expires_at ? new Date(String(v.expires_at)).toISOString() : undefined;
      const created = await admin.client.POST("/v1/admin/users/{id}/tokens", {
        params: { path: { id: user.id } },
        body: { name: String(v.name), expires_at: expires },
      });
      if (!created.data) return { error: created.error, status: created.response.status };
      await redraw({ name: created.data.token.name, value: created.data.secret });
    },
  );
  box.append(
    ...[
    secret
      ? el(
          "div",
          { class: "secret", role: "status" },
          el("p", {}, `The secret of “${secret.name}”: copy it now, it is not shown again.`),
          el("code", { id: "token-secret" }, secret.value),
        )
      : "",
    data ? (rows.length ? table({ id: "token-table" }, ["name", "prefix", "created", "last used", "expires", ""], rows) : empty("No tokens.")) : problem(error, response.status),
    create,
    ],
  );
  return box;
}

async function userPage(id: string): Promise<HTMLElement> {
  const { data: user, error, response } = await admin.client.GET("/v1/admin/users/{id}", { params: { path: { id } } });
  if (!user) return problem(error, response.status);
  const edit = form(
    "user-edit",
    [
      { name: "name", label: "Name", value: user.name },
      { name: "role", label: "Role", type: "select", options: ROLES, value: user.role },
      { name: "disabled", label: "Disabled (its tokens stop working)", type: "checkbox", value: !!user.disabled_at },
      { name: "permissions", label: "Extra permissions (comma-separated; -name revokes)", value: user.permissions.join(", ") },
    ],
    "Save",
    async (v) => {
      const permissions = String(v.permissions).split(",").map((p) => p.trim()).filter(Boolean);
      const saved = await admin.client.PATCH("/v1/admin/users/{id}", {
        params: { path: { id } },
        body: { name: String(v.name), role: v.role as User["role"], disabled: v.disabled === true, permissions },
      });
      if (!saved.data) return { error: saved.error, status: saved.response.status };
      await loadDirectory();
      go("users", { id });
    },
  );
  const remove = confirmButton("Delete user", `Delete ${user.name}?`, async () => {
    await admin.client.DELETE("/v1/admin/users/{id}", { params: { path: { id } } });
    await loadDirectory();
    go("users");
  });
  return el(
    "div",
    { class: "stack", id: "user-page", "data-user": id },
    toolbar(el("a", { href: "#/users" }, "‹ All users"), el("a", { href: `#/usage?group_by=tool&user_id=${id}` }, "Usage"), remove),
    card("user-detail", `${user.name} · ${user.email}`, edit),
    card("user-tokens-card", "Tokens", await tokens(user)),
  );
}

view({
  path: "users",
  title: "Users",
  section: "Manage",
  render: async (params) => {
    const id = params.get("id");
    return id ? userPage(id) : userList(params);
  },
});
