/**
 * Users (`#/users`): the list with a search over names and emails and pages of 25, a
 * form to create one with a role, and one user's page (`#/users?id=…`) to change the
 * role, disable or enable, set the extra permissions, and list, create and revoke
 * tokens. A new token's secret is shown once, as the API answers it only then.
 */
import { el } from "../common";
import { go, view } from "./router";
import { admin, directory, loadDirectory, type User } from "./state";
import { button, card, cell, confirmButton, empty, form, problem, table, toolbar, when } from "./ui";

const PAGE = 25;
const ROLES = ["student", "teacher", "admin"].map((r) => ({ value: r, label: r }));

function userList(params: URLSearchParams): HTMLElement {
  const q = (params.get("q") ?? "").toLowerCase();
  const page = Math.max(0, Number(params.get("page") ?? 0) || 0);
  const matching = directory.users.filter((u) => !q || u.name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q));
  const shown = matching.slice(page * PAGE, (page + 1) * PAGE);
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
  const pager = toolbar(
    page > 0 ? button("‹ Previous", () => go("users", { q: q || undefined, page: String(page - 1) })) : null,
    el("span", { class: "muted" }, `${matching.length ? page * PAGE + 1 : 0}–${page * PAGE + shown.length} of ${matching.length}`),
    (page + 1) * PAGE < matching.length ? button("Next ›", () => go("users", { q: q || undefined, page: String(page + 1) })) : null,
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
