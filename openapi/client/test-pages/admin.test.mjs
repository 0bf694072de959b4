// The admin console in headless Chromium (puppeteer-core), against a live `parley serve`
// with the mock LLM: it creates a user and a token (the token then works against the
// API, and stops once revoked), a group with a member, a class with an enrolment, an
// assignment; it edits a tool, shows the server's validation error inline, then saves;
// it reads the usage of a date range with names, drills down, cancels a running prompt,
// sets a budget that refuses a user's turn (in the chat page too), and fits a 400 px
// screen. Screenshots go to target/screenshots/ (admin-*.png).
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";

import { createParley } from "../dist/parley.js";
import { startParley } from "../test-support/harness.mjs";

const root = resolve(fileURLToPath(import.meta.url), "../../../..");
const shots = process.env.PARLEY_SCREENSHOTS ?? join(root, "target/screenshots");
const WAIT = 20000;

let parley;
let admin;
let browser;
let page;
let demo;
let tool;
const person = { name: "Ada Console", email: `ada.${Date.now()}@example.org` };
let personId;

before(async () => {
  parley = await startParley();
  admin = createParley({ baseUrl: parley.baseUrl, token: parley.adminToken });
  const groups = await admin.GET("/v1/admin/groups", { params: { query: { limit: 100 } } });
  demo = groups.data.items.find((g) => g.name === "Demo");
  const created = await admin.POST("/v1/admin/tools", {
    body: { group_id: demo.id, name: "Console tutor", definition: { behavior: "Help.", functions: ["getCurrentTime"], modules: [{ name: "pii_redactor" }] } },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  tool = created.data;
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 860 });
  page.on("pageerror", (err) => console.error("page error:", err.message));
  mkdirSync(shots, { recursive: true });
  await page.goto(`${parley.baseUrl}/admin`);
  await page.type("#token", parley.adminToken);
  await page.click("#signin button[type=submit]");
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
});

after(async () => {
  await browser?.close();
  await parley?.stop();
});

/** Opens a route and waits until its view is drawn. */
async function visit(hash) {
  await page.evaluate((h) => {
    document.body.dataset.ready = "false";
    window.location.hash = h;
  }, hash);
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
}

/** Waits for the view drawn after an action (a submit that moves to another route). */
async function redrawn(action) {
  await page.evaluate(() => {
    document.body.dataset.ready = "false";
  });
  await action();
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
}

async function fill(formId, values) {
  for (const [name, value] of Object.entries(values)) {
    await page.$eval(`#${formId} [name=${name}]`, (input, v) => {
      input.value = v;
    }, value);
  }
}

const submit = (formId) => page.$eval(`#${formId}`, (f) => f.requestSubmit());

test("the console creates a user and a token that works, then revokes it", async () => {
  await visit("#/users");
  await fill("user-create", { ...person, role: "teacher" });
  await redrawn(() => submit("user-create"));
  personId = await page.$eval("#user-page", (n) => n.dataset.user);
  const stored = await admin.GET("/v1/admin/users/{id}", { params: { path: { id: personId } } });
  assert.equal(stored.data.email, person.email);
  assert.equal(stored.data.role, "teacher");

  await fill("token-create", { name: "console laptop" });
  await submit("token-create");
  const secret = await page.waitForSelector("#token-secret", { timeout: WAIT }).then((n) => n.evaluate((x) => x.textContent));
  assert.ok(secret.length > 10);
  const theirs = createParley({ baseUrl: parley.baseUrl, token: secret });
  const me = await theirs.GET("/v1/tools");
  assert.equal(me.response.status, 200, "the new token signs in");
  await page.screenshot({ path: join(shots, "admin-users.png"), fullPage: true });

  // Revoke, confirming first: the token stops working.
  await page.click("#token-table tr[data-name='console laptop'] .confirm-slot button");
  await page.click("#token-table .confirm-yes");
  await page.waitForSelector("#token-table tr[data-name='console laptop'][data-state=revoked]", { timeout: WAIT });
  assert.equal((await theirs.GET("/v1/tools")).response.status, 401);

  // The role changes through the edit form; a bad permission list is the server's 422.
  await fill("user-edit", { role: "student" });
  await redrawn(() => submit("user-edit"));
  assert.equal((await admin.GET("/v1/admin/users/{id}", { params: { path: { id: personId } } })).data.role, "student");

  // The list finds the user by a search and shows the name.
  await visit(`#/users?q=${encodeURIComponent("ada console")}`);
  const listed = await page.$eval(`#user-table tr[data-user='${personId}'] [data-field=name]`, (n) => n.textContent);
  assert.equal(listed, person.name);
});

test("groups, members, classes, enrolments and assignments are created by name", async () => {
  await visit("#/groups");
  await fill("group-create", { name: "Physics dept", parent_id: demo.id });
  await redrawn(() => submit("group-create"));
  const groupId = await page.$eval("#group-page", (n) => n.dataset.group);
  const group = await admin.GET("/v1/admin/groups/{id}", { params: { path: { id: groupId } } });
  assert.equal(group.data.parent_id, demo.id);
  await fill("member-add", { user_id: personId, role: "manager" });
  await redrawn(() => submit("member-add"));
  const member = await page.$eval(`#member-table tr[data-member='${personId}'] .name`, (n) => n.textContent);
  assert.equal(member, person.name, "the member is shown by name");
  const members = await admin.GET("/v1/admin/groups/{id}/members", { params: { path: { id: groupId } } });
  assert.equal(members.data.items.find((m) => m.user_id === personId)?.role, "manager");

  await visit("#/classes");
  await fill("class-create", { name: "Mechanics 101", group_id: groupId });
  await redrawn(() => submit("class-create"));
  const classId = await page.$eval("#class-page", (n) => n.dataset.class);
  await fill("enrollment-add", { user_id: personId, role: "student" });
  await redrawn(() => submit("enrollment-add"));
  const enrolled = await admin.GET("/v1/admin/classes/{id}/enrollments", { params: { path: { id: classId } } });
  assert.equal(enrolled.data.items.find((e) => e.user_id === personId)?.role, "student");
  assert.equal(await page.$eval(`#enrollment-table tr[data-enrollment='${personId}'] .name`, (n) => n.textContent), person.name);

  await visit(`#/assignments?class_id=${classId}`);
  await fill("assignment-create", { class_id: classId, tool_id: tool.id, title: "Forces", instructions: "Explain Newton's laws." });
  await redrawn(() => submit("assignment-create"));
  const assignmentId = await page.$eval("#assignment-page", (n) => n.dataset.assignment);
  const assignment = await admin.GET("/v1/admin/assignments/{id}", { params: { path: { id: assignmentId } } });
  assert.equal(assignment.data.tool_id, tool.id);
  assert.equal(assignment.data.instructions, "Explain Newton's laws.");
  const names = await page.$$eval("#assignment-detail .named .name", (nodes) => nodes.map((n) => n.textContent));
  assert.deepEqual(names, ["Mechanics 101", "Console tutor"]);

  // The names are the API's, as they are now: renamed behind the console's back (its
  // lists are not reloaded), the pages show the new names.
  const renamed = await admin.PATCH("/v1/admin/classes/{id}", { params: { path: { id: classId } }, body: { name: "Mechanics 102" } });
  assert.equal(renamed.response.status, 200);
  await admin.PATCH("/v1/admin/users/{id}", { params: { path: { id: personId } }, body: { name: "Ada Renamed" } });
  await redrawn(() => page.click("#refresh"));
  const now = await page.$$eval("#assignment-detail .named .name", (nodes) => nodes.map((n) => n.textContent));
  assert.deepEqual(now, ["Mechanics 102", "Console tutor"]);
  await visit(`#/groups?id=${groupId}`);
  const row = await page.$eval(`#member-table tr[data-member='${personId}']`, (r) => ({
    name: r.querySelector(".name").textContent,
    email: r.querySelector("[data-field=email]").textContent,
  }));
  assert.deepEqual(row, { name: "Ada Renamed", email: person.email });
  await admin.PATCH("/v1/admin/users/{id}", { params: { path: { id: personId } }, body: { name: person.name } });
});

test("a tool's definition is edited; the server's validation error shows inline", async () => {
  await visit(`#/tools?id=${tool.id}`);
  // The modules to name are the deployment's (GET /v1/admin/modules), with their hooks.
  const modules = await page.$$eval("#offered-modules li", (items) => items.map((li) => [li.dataset.module, li.querySelector(".muted").textContent.trim()]));
  const listed = await admin.GET("/v1/admin/modules");
  assert.deepEqual(modules, listed.data.items.map((m) => [m.name, m.hooks.join(", ")]));
  assert.ok(modules.some(([name]) => name === "pii_redactor"), JSON.stringify(modules));
  const bad = { ...tool.definition, approval_required: ["createTodo"] };
  await page.$eval("#tool-definition", (area, v) => {
    area.value = v;
  }, JSON.stringify(bad, null, 2));
  await submit("tool-edit");
  await page.waitForSelector("#tool-error .problem", { timeout: WAIT });
  const shown = await page.$eval("#tool-error", (n) => ({ field: n.dataset.field, text: n.textContent, status: n.querySelector(".problem").dataset.status }));
  assert.equal(shown.status, "422");
  assert.equal(shown.field, "approval_required");
  assert.match(shown.text, /approval_required/);
  assert.equal(await page.$eval("#tool-definition", (n) => n.getAttribute("aria-invalid")), "true");
  await page.screenshot({ path: join(shots, "admin-tool-error.png"), fullPage: true });

  // Fixed (the function is offered too), it saves.
  const good = { ...bad, functions: ["getCurrentTime", "createTodo"] };
  await page.$eval("#tool-definition", (area, v) => {
    area.value = v;
  }, JSON.stringify(good, null, 2));
  await submit("tool-edit");
  await page.waitForFunction(() => document.querySelector("#tool-saved").textContent.startsWith("Saved"), { timeout: WAIT });
  const saved = await admin.GET("/v1/admin/tools/{id}", { params: { path: { id: tool.id } } });
  assert.deepEqual(saved.data.definition.approval_required, ["createTodo"]);
  assert.equal(await page.$eval("#tool-error", (n) => n.textContent), "");

  // Sampling bounds: one that cannot hold is named; a fixed temperature and a cap save.
  const unbounded = { ...good, sampling: { top_p: { min: 0.9, max: 0.1 } } };
  await page.$eval("#tool-definition", (area, v) => {
    area.value = v;
  }, JSON.stringify(unbounded, null, 2));
  await submit("tool-edit");
  await page.waitForSelector("#tool-error .problem", { timeout: WAIT });
  const refused = await page.$eval("#tool-error", (n) => ({ field: n.dataset.field, text: n.textContent }));
  assert.equal(refused.field, "sampling");
  assert.match(refused.text, /top_p/);
  const bounded = { ...good, sampling: { temperature: { fixed: 0.3 }, max_output_tokens: 400, out_of_bounds: "refuse" } };
  await page.$eval("#tool-definition", (area, v) => {
    area.value = v;
  }, JSON.stringify(bounded, null, 2));
  await submit("tool-edit");
  await page.waitForFunction(() => document.querySelector("#tool-error").textContent === "", { timeout: WAIT });
  const kept = await admin.GET("/v1/admin/tools/{id}", { params: { path: { id: tool.id } } });
  assert.deepEqual(kept.data.definition.sampling, bounded.sampling);
});

test("usage of a date range shows names, cost and drills down; a running prompt is cancelled", async () => {
  const session = await admin.POST("/v1/sessions", { body: { tool_id: tool.id } });
  assert.equal(session.response.status, 201, JSON.stringify(session.error));
  const turn = await admin.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: session.data.id } },
    body: { content: "Hello, write to jane@example.org" },
    headers: { Accept: "application/json" },
  });
  assert.equal(turn.response.status, 201, JSON.stringify(turn.error));
  // A thinking answer: its reasoning tokens are a kind of their own in the views.
  const thought = await admin.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: session.data.id } },
    body: { content: "[[mock reasoning=one_two_three_four]] think first" },
    headers: { Accept: "application/json" },
  });
  assert.equal(thought.response.status, 201, JSON.stringify(thought.error));

  await visit("#/usage?group_by=tool");
  await page.click("#range .preset[data-preset='24h']");
  await page.waitForSelector("#range .preset[data-preset='24h'][aria-pressed=true]", { timeout: WAIT });
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  const api = await admin.GET("/v1/admin/usage", { params: { query: { group_by: "tool", from: new Date(Date.now() - 86_400_000).toISOString() } } });
  const ours = api.data.items.find((g) => g.key === tool.id);
  const row = await page.$eval(`.usage-table tr[data-key='${tool.id}']`, (n) => ({
    name: n.dataset.name,
    calls: Number(n.querySelector("[data-field=calls]").dataset.value),
    reasoning: Number(n.querySelector("[data-field=reasoning_tokens]").dataset.value),
    cached: Number(n.querySelector("[data-field=cached_input_tokens]").dataset.value),
    cost: Number(n.querySelector("[data-field=cost]").dataset.value),
    costText: n.querySelector("[data-field=cost]").textContent,
  }));
  assert.equal(row.name, "Console tutor", "the tool by name");
  assert.equal(row.calls, ours.calls);
  assert.ok(ours.reasoning_tokens >= 4, JSON.stringify(ours));
  assert.equal(row.reasoning, ours.reasoning_tokens, "tokens by kind beside cost");
  assert.equal(row.cached, ours.cached_input_tokens);
  assert.equal(row.cost, ours.cost_usd);
  assert.match(row.costText, /^\$\d+\.\d{4}$/);
  const total = await page.$eval("#usage-total [data-field=tokens]", (n) => Number(n.dataset.value));
  assert.equal(total, api.data.items.reduce((t, g) => t + g.input_tokens + g.output_tokens, 0));

  // Drill down from the tool to its users: the admin, by name.
  await redrawn(() => page.click(`.usage-table tr[data-key='${tool.id}'] a.drill`));
  assert.match(await page.evaluate(() => window.location.hash), new RegExp(`tool_id=${tool.id}`));
  const me = (await admin.GET("/v1/admin/users", { params: { query: { limit: 100 } } })).data.items.find((u) => u.role === "admin");
  const byUser = await page.$eval(`.usage-table[data-group-by=user] tr[data-key='${me.id}']`, (n) => n.dataset.name);
  assert.equal(byUser, me.name);
  // The rows behind the figures: the tool's calls, newest first, by name.
  const calls = await page.$$eval("#calls-table tr[data-call]", (rows) => rows.map((r) => r.querySelector("[data-field=tool]").textContent));
  assert.ok(calls.length >= 1 && calls.every((t) => t === "Console tutor"), JSON.stringify(calls));
  await page.screenshot({ path: join(shots, "admin-usage.png"), fullPage: true });

  // By group: the tool's group, by name.
  await visit("#/usage?group_by=group");
  const groupRow = await page.$eval(`.usage-table[data-group-by=group] tr[data-key='${demo.id}']`, (n) => n.dataset.name);
  assert.equal(groupRow, "Demo");

  // The audit of the session: the redactor's record, admins only.
  await visit(`#/audit?session=${session.data.id}`);
  const audit = await page.$$eval("#audit-table [data-field=module]", (nodes) => nodes.map((n) => n.textContent));
  assert.ok(audit.includes("pii_redactor"), JSON.stringify(audit));

  // A long turn in the background, stuck after 1 s: cancelled from the live view.
  const long = await admin.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: session.data.id }, query: { background: true } },
    body: { content: "[[mock tokens=600 token_delay_ms=50]] a long story" },
  });
  assert.equal(long.response.status, 202, JSON.stringify(long.error));
  const promptId = long.data.prompt_id;
  await new Promise((r) => setTimeout(r, 1500));
  await visit("#/live?stuck_after_s=1");
  await page.click(`#stuck-table tr[data-prompt='${promptId}'] .confirm-slot button`);
  await page.click(`#stuck-table tr[data-prompt='${promptId}'] .confirm-yes`);
  await page.waitForFunction((id) => !document.querySelector(`#stuck-table tr[data-prompt='${id}']`), { timeout: WAIT }, promptId);
  let state;
  for (let i = 0; i < 50 && state !== "canceled"; i++) {
    state = (await admin.GET("/v1/prompts/{id}", { params: { path: { id: promptId } } })).data.state;
    if (state !== "canceled") await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(state, "canceled");
});

test("a budget set in the console refuses the user's next turn, in the chat page too", async () => {
  // A student of the demo group, created in the console (so its directory knows them).
  const bea = { name: "Budget Bea", email: `bea.${Date.now()}@example.org` };
  await visit("#/users");
  await fill("user-create", { ...bea, role: "student" });
  await redrawn(() => submit("user-create"));
  const beaId = await page.$eval("#user-page", (n) => n.dataset.user);
  const member = await admin.PUT("/v1/admin/groups/{id}/members/{user_id}", {
    params: { path: { id: demo.id, user_id: beaId } },
    body: { role: "member" },
  });
  assert.ok(member.response.ok, JSON.stringify(member.error));
  const minted = await admin.POST("/v1/admin/users/{id}/tokens", { params: { path: { id: beaId } }, body: { name: "chat" } });
  assert.equal(minted.response.status, 201, JSON.stringify(minted.error));
  const beaToken = minted.data.secret;

  // Her budget: nothing a day.
  await visit("#/budgets");
  await fill("budget-create", { subject: "user", subject_id: beaId, period: "day", limit: "0" });
  await redrawn(() => submit("budget-create"));
  const row = await page.$eval(`#budget-table tr[data-subject='${beaId}']`, (n) => ({
    name: n.querySelector("[data-field=name]").textContent,
    limit: Number(n.querySelector("[data-field=limit]").dataset.value),
    spent: n.querySelector("[data-field=spent]").textContent,
  }));
  assert.deepEqual([row.name, row.limit], [bea.name, 0]);
  assert.match(row.spent, /\$0\.0000 of \$0\.0000/);
  const listed = await admin.GET("/v1/admin/budgets", { params: { query: { user_id: beaId } } });
  assert.equal(listed.data.items.length, 1);
  assert.equal(listed.data.items[0].limit, 0);
  await page.screenshot({ path: join(shots, "admin-budgets.png"), fullPage: true });

  // Her turn is refused before any model call: 429 budget_exceeded with Retry-After.
  const theirs = createParley({ baseUrl: parley.baseUrl, token: beaToken });
  const session = await theirs.POST("/v1/sessions", { body: { tool_id: tool.id } });
  assert.equal(session.response.status, 201, JSON.stringify(session.error));
  const refused = await theirs.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: session.data.id } },
    body: { content: "Hello?" },
    headers: { Accept: "application/json" },
  });
  assert.equal(refused.response.status, 429);
  assert.equal(refused.error.code, "budget_exceeded");
  assert.ok(Number(refused.response.headers.get("retry-after")) > 0);

  // And the chat page tells her so.
  const context = await browser.createBrowserContext();
  try {
    const chat = await context.newPage();
    await chat.setViewport({ width: 1200, height: 800 });
    await chat.goto(`${parley.baseUrl}/chat#session=${session.data.id}`);
    await chat.type("#token", beaToken);
    await chat.click("#signin button[type=submit]");
    await chat.waitForSelector("#composer:not([hidden])", { timeout: WAIT });
    await chat.$eval("#input", (input) => {
      input.value = "Are you there?";
    });
    await chat.$eval("#composer", (form) => form.requestSubmit());
    await chat.waitForFunction(
      () => [...document.querySelectorAll(".message.assistant")].some((m) => /budget/i.test(m.textContent)),
      { timeout: WAIT },
    );
    await chat.screenshot({ path: join(shots, "chat-budget-refused.png") });
  } finally {
    await context.close();
  }

  // The limit is raised in place: her turns run again.
  await redrawn(() =>
    page.$eval(`#budget-table tr[data-subject='${beaId}'] input.limit`, (input) => {
      input.value = "5";
      input.dispatchEvent(new Event("change"));
    }),
  );
  const raised = await admin.GET("/v1/admin/budgets", { params: { query: { user_id: beaId } } });
  assert.equal(raised.data.items[0].limit, 5);
  const allowed = await theirs.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: session.data.id } },
    body: { content: "Now?" },
    headers: { Accept: "application/json" },
  });
  assert.equal(allowed.response.status, 201, JSON.stringify(allowed.error));
});

test("the console fits a 400 px screen behind a menu", async () => {
  await page.setViewport({ width: 400, height: 800 });
  await visit("#/usage?group_by=model");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 400, `no sideways scroll: ${overflow}`);
  // Folded away: it slides out (a .15 s transition) when the screen narrows.
  const hidden = await page
    .waitForFunction(() => document.querySelector("#nav-slot").getBoundingClientRect().right <= 0, { timeout: 2000 })
    .then(() => true, () => false);
  assert.ok(hidden, "the navigation is folded away");
  await page.click("#nav-toggle");
  await page.waitForFunction(() => document.querySelector("#nav-slot").getBoundingClientRect().left >= 0, { timeout: WAIT });
  await new Promise((r) => setTimeout(r, 300));
  await page.screenshot({ path: join(shots, "admin-400-nav.png") });
  await page.click("#nav a[data-path=tools]");
  await page.waitForSelector("body[data-view=tools][data-ready=true]", { timeout: WAIT });
  assert.equal(await page.$eval("body", (n) => n.dataset.nav), "closed");
  await visit("#/usage?group_by=model");
  await page.screenshot({ path: join(shots, "admin-400.png"), fullPage: true });
  await page.setViewport({ width: 1280, height: 860 });
});
