// The teacher's page in headless Chromium (Debian's `chromium`, driven by puppeteer-core):
// a student of the teacher's class had a turn whose email the PII redactor removed (an
// extraction) and one the safety filter blocked (a block and a `safety_flag`); another
// class's student did the same. The teacher signs in, sees only their class, its
// student and session, the findings and the block, filters them, and opens the
// conversation read-only at the blocked message. Screenshots go to target/screenshots/
// (PARLEY_SCREENSHOTS): teacher-class.png, teacher-conversation.png, teacher-400.png,
// teacher-memory.png. The mock model's window is small (`max_context`), so a
// conversation of a few dozen messages outgrows it and the teacher reads the tutor's
// summary of what fell out.
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
const POLL = { timeout: 20000, polling: 100 };

let parley;
let admin;
let browser;
let teacher;
let student;
let maths;
let art;
let adaSession;
let longTool;
let longAssignment;

async function user(name, role, groupId) {
  const made = await admin.POST("/v1/admin/users", { body: { email: `${name.toLowerCase().replace(/\s+/g, ".")}@example.com`, name, role } });
  assert.equal(made.response.status, 201, JSON.stringify(made.error));
  await admin.PUT("/v1/admin/groups/{id}/members/{user_id}", {
    params: { path: { id: groupId, user_id: made.data.id } },
    body: { role: "member" },
  });
  const minted = await admin.POST("/v1/admin/users/{id}/tokens", { params: { path: { id: made.data.id } }, body: { name: "browser" } });
  const token = minted.data.secret;
  return { id: made.data.id, token, client: createParley({ baseUrl: parley.baseUrl, token }) };
}

async function turn(client, sessionId, content) {
  const sent = await client.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: sessionId } },
    body: { content },
    headers: { Accept: "application/json" },
  });
  assert.equal(sent.response.status, 201, JSON.stringify(sent.error));
  return sent.data;
}

before(async () => {
  parley = await startParley({ modelSettings: "max_context = 1400" });
  admin = createParley({ baseUrl: parley.baseUrl, token: parley.adminToken });
  const groups = await admin.GET("/v1/admin/groups", { params: { query: { limit: 100 } } });
  const demo = groups.data.items.find((g) => g.name === "Demo");
  const tool = await admin.POST("/v1/admin/tools", {
    body: {
      group_id: demo.id,
      name: "Guarded tutor",
      definition: { behavior: "Help with homework.", modules: [{ name: "pii_redactor" }, { name: "safety_filter" }] },
    },
  });
  assert.equal(tool.response.status, 201, JSON.stringify(tool.error));
  teacher = await user("Tess Teacher", "teacher", demo.id);
  student = await user("Ada Lovelace", "student", demo.id);
  const outsider = await user("Otto Outsider", "student", demo.id);
  const klass = async (name) => (await admin.POST("/v1/admin/classes", { body: { group_id: demo.id, name } })).data.id;
  maths = await klass("Year 9 Maths");
  art = await klass("Art club");
  const enroll = (classId, userId, role) =>
    admin.PUT("/v1/admin/classes/{id}/enrollments/{user_id}", { params: { path: { id: classId, user_id: userId } }, body: { role } });
  await enroll(maths, teacher.id, "teacher");
  await enroll(maths, student.id, "student");
  await enroll(art, outsider.id, "student");
  const assignment = async (classId, title) =>
    (await admin.POST("/v1/admin/assignments", { body: { class_id: classId, tool_id: tool.data.id, title } })).data.id;
  const fractions = await assignment(maths, "Fractions");
  const long = await admin.POST("/v1/admin/tools", {
    body: {
      group_id: demo.id,
      name: "Long tutor",
      definition: { behavior: "Help with homework.", history: { compaction: "summarize" } },
    },
  });
  assert.equal(long.response.status, 201, JSON.stringify(long.error));
  const decimals = await admin.POST("/v1/admin/assignments", { body: { class_id: maths, tool_id: long.data.id, title: "Decimals" } });
  assert.equal(decimals.response.status, 201, JSON.stringify(decimals.error));
  longTool = long.data.id;
  longAssignment = decimals.data.id;
  const drawing = await assignment(art, "Drawing");
  const open = async (who, assignmentId) =>
    (await who.client.POST("/v1/sessions", { body: { tool_id: tool.data.id, assignment_id: assignmentId } })).data.id;
  adaSession = await open(student, fractions);
  await turn(student.client, adaSession, "Please email me at ada@example.com about fractions");
  const blocked = await turn(student.client, adaSession, "I want to kill myself");
  assert.equal(blocked.blocked, true);
  const otto = await open(outsider, drawing);
  await turn(outsider.client, otto, "Mail me at otto@example.com");

  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  mkdirSync(shots, { recursive: true });
});

after(async () => {
  await browser?.close();
  await parley?.stop();
});

async function signedIn(token, { width = 1200, height = 900 } = {}) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width, height });
  page.on("pageerror", (err) => console.error("page error:", err.message));
  await page.goto(`${parley.baseUrl}/teacher`);
  await page.type("#token", token);
  await page.click("#signin button[type=submit]");
  await page.waitForSelector("body[data-ready=true]", POLL);
  return { context, page };
}

const rows = (page, selector) => page.$$eval(selector, (nodes) => nodes.length);

test("a teacher sees their class, its sessions, findings and blocks, filters them and opens the conversation", async () => {
  const { context, page } = await signedIn(teacher.token);
  // Only the class they teach; it opens by itself.
  const classes = await page.$$eval("#classes [data-class]", (nodes) => nodes.map((n) => n.dataset.class));
  assert.deepEqual(classes, [maths]);
  assert.equal(await page.$(`#classes [data-class='${art}']`), null);
  await page.waitForSelector("#sessions table", POLL);
  assert.equal(await page.$eval("#class-name", (n) => n.textContent), "Year 9 Maths");
  assert.match(await page.$eval("#students", (n) => n.textContent), /Ada Lovelace/);
  assert.match(await page.$eval("#assignments", (n) => n.textContent), /Fractions/);

  // The session, by the student's name, with what the modules found.
  const session = await page.$eval(`#sessions tr[data-session='${adaSession}']`, (tr) => ({
    text: tr.textContent,
    extractions: tr.querySelector("[data-field=extractions]").textContent,
    blocks: tr.querySelector("[data-field=blocks]").textContent,
  }));
  assert.match(session.text, /Ada Lovelace/);
  assert.match(session.text, /Fractions/);
  assert.deepEqual([session.extractions, session.blocks], ["2", "1"]);
  assert.equal(await rows(page, "#sessions tbody tr"), 1, "the other class's session is not there");
  const types = await page.$$eval("#extractions tr[data-type]", (nodes) => nodes.map((n) => n.dataset.type).sort());
  assert.deepEqual(types, ["pii_detected", "safety_flag"]);
  const block = await page.$eval("#blocks tr[data-category]", (tr) => ({ category: tr.dataset.category, text: tr.textContent }));
  assert.equal(block.category, "self_harm");
  assert.match(block.text, /safety_filter/);
  assert.doesNotMatch(block.text, /kill myself/, "the blocked text is never shown");
  await page.screenshot({ path: join(shots, "teacher-class.png"), fullPage: true });

  // Filters: one type of finding; a date range before today holds nothing.
  await page.type("#f-type", "pii_detected");
  await page.$eval("#filters", (form) => form.requestSubmit());
  await page.waitForFunction(() => document.querySelectorAll("#extractions tr[data-type]").length === 1, POLL);
  assert.equal(await page.$eval("#extractions tr[data-type]", (tr) => tr.dataset.type), "pii_detected");
  await page.$eval("#f-to", (input) => {
    input.value = "2020-01-01";
  });
  await page.$eval("#filters", (form) => form.requestSubmit());
  await page.waitForSelector("[data-empty=sessions]", POLL);
  await page.waitForSelector("[data-empty=blocks]", POLL);
  await page.click("#f-reset");
  await page.waitForSelector(`#blocks tr[data-category]`, POLL);

  // The block's link opens the conversation, read-only, at the blocked message.
  await page.click("#blocks tr[data-category] a.open");
  await page.waitForSelector(".transcript .message.found", POLL);
  const found = await page.$eval(".transcript .message.found", (n) => n.textContent);
  assert.equal(found, "[blocked]");
  const transcript = await page.$eval(".transcript", (n) => n.textContent);
  assert.match(transcript, /\[email\]/, "the redacted text, as stored");
  assert.doesNotMatch(transcript, /ada@example\.com/);
  assert.equal(await page.$("#composer, textarea"), null, "no composer: a teacher writes nothing");
  await page.screenshot({ path: join(shots, "teacher-conversation.png"), fullPage: true });

  // At 400 px: the tables fold into labelled rows and nothing overflows sideways.
  await page.setViewport({ width: 400, height: 850 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen`);
  await page.screenshot({ path: join(shots, "teacher-400.png"), fullPage: true });
  await context.close();
});

test("another class answers not found, and a student teaches nothing", async () => {
  const { context, page } = await signedIn(teacher.token);
  await page.goto(`${parley.baseUrl}/teacher#class=${art}`);
  await page.waitForSelector("#class-problem", POLL);
  assert.equal(await page.$eval("#class-problem", (n) => n.textContent), "Class not found.");
  await context.close();

  const asStudent = await signedIn(student.token);
  await asStudent.page.waitForSelector("#no-classes", POLL);
  assert.equal(await rows(asStudent.page, "#classes [data-class]"), 0);
  await asStudent.context.close();
});

test("a teacher reads the tutor's memory of a long conversation", async () => {
  const session = (await student.client.POST("/v1/sessions", { body: { tool_id: longTool, assignment_id: longAssignment } })).data.id;
  // Each exchange is about thirty tokens; the window holds a dozen of them.
  for (let i = 1; i <= 30; i++) await turn(student.client, session, `question ${i}: what is ${i} over ${i + 1} as a decimal, roughly?`);
  const stored = await student.client.GET("/v1/sessions/{id}/summary", { params: { path: { id: session } } });
  assert.equal(stored.response.status, 200);
  assert.ok(stored.data.steps >= 1, JSON.stringify(stored.data));
  assert.match(stored.data.summary ?? "", /question \d+:/, "the summary is of the conversation's messages");

  const { context, page } = await signedIn(teacher.token);
  await page.goto(`${parley.baseUrl}/teacher#class=${maths}&session=${session}`);
  await page.waitForSelector("#memory .summary-text", POLL);
  const memory = await page.$eval("#memory", (n) => ({ heading: n.querySelector("summary").textContent, text: n.querySelector(".summary-text").textContent }));
  assert.equal(memory.text, stored.data.summary, "the summary as stored");
  assert.match(memory.heading, new RegExp(`${stored.data.steps} steps?`));
  await page.screenshot({ path: join(shots, "teacher-memory.png"), fullPage: true });
  await context.close();

  // A conversation that fits its window shows none.
  const short = await signedIn(teacher.token);
  await short.page.goto(`${parley.baseUrl}/teacher#class=${maths}&session=${adaSession}`);
  await short.page.waitForSelector(".transcript", POLL);
  assert.equal(await short.page.$("#memory"), null);
  await short.context.close();
});
