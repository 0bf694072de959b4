// The chat and admin pages in headless Chromium (Debian's `chromium`, driven by
// puppeteer-core): a streamed turn renders, a tool card expands, a chip sends its value,
// cancel stops the stream, a reload resumes the running turn, and the dashboard shows
// the numbers of the turns this test ran. Screenshots of both pages go to
// target/screenshots/ (PARLEY_SCREENSHOTS).
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
let toolId;

before(async () => {
  parley = await startParley();
  admin = createParley({ baseUrl: parley.baseUrl, token: parley.adminToken });
  const groups = await admin.GET("/v1/admin/groups", { params: { query: { limit: 100 } } });
  const demo = groups.data.items.find((g) => g.name === "Demo");
  const tool = await admin.POST("/v1/admin/tools", {
    body: {
      group_id: demo.id,
      name: "Browser tutor",
      definition: {
        behavior: "Help with homework.",
        functions: ["getCurrentTime"],
        suggestions: true,
        modules: [{ name: "pii_redactor" }],
      },
    },
  });
  assert.equal(tool.response.status, 201, JSON.stringify(tool.error));
  toolId = tool.data.id;
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 800 });
  page.on("pageerror", (err) => console.error("page error:", err.message));
  mkdirSync(shots, { recursive: true });
});

after(async () => {
  await browser?.close();
  await parley?.stop();
});

async function signIn(path, token) {
  await page.goto(`${parley.baseUrl}${path}`);
  await page.type("#token", token);
  await page.click("#signin button[type=submit]");
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
}

/** Opens a console route and waits until its view is drawn. */
async function visit(hash) {
  await page.evaluate((h) => {
    document.body.dataset.ready = "false";
    window.location.hash = h;
  }, hash);
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
}

const answers = (state) => page.$$(`.message.assistant[data-state=${state}]`);

/** Sends `content` from the composer (set as the textarea's value: it may hold newlines). */
async function send(content) {
  await page.$eval("#input", (input, value) => {
    input.value = value;
  }, content);
  await page.$eval("#composer", (form) => form.requestSubmit());
}

/** Waits until `n` answers are complete. */
async function completeAnswers(n) {
  await page.waitForFunction((n) => document.querySelectorAll(".message.assistant[data-state=complete]").length >= n, { timeout: WAIT }, n);
}

test("the chat page streams turns, tool cards, chips, cancel and resumes after a reload", async () => {
  await signIn("/chat", parley.adminToken);
  await page.select("#tool", toolId);
  await page.click("#new-session");
  await page.waitForSelector("#composer:not([hidden])", { timeout: WAIT });
  const sessionId = new URLSearchParams((await page.evaluate(() => window.location.hash)).slice(1)).get("session");
  assert.ok(sessionId, "the open session is in the URL");

  // A streamed turn: the thinking indicator, then the answer; what it shows is what
  // Parley stored.
  await send("Hello there! Write to me at jane@example.org.");
  await page.waitForSelector(".message.user", { timeout: WAIT });
  await completeAnswers(1);
  const shown = await page.$eval(".message.assistant[data-state=complete] .answer", (n) => n.textContent.trim());
  const stored = await admin.GET("/v1/sessions/{id}/messages", { params: { path: { id: sessionId } } });
  assert.equal(shown, stored.data.items.at(-1).content.trim());
  assert.ok(shown.length > 0);

  // A tool turn: an inline card, collapsed, that expands to the call's input and output.
  await send("[[mock tool_call='getCurrentTime:{}']] what time is it?");
  await completeAnswers(2);
  const card = await page.waitForSelector(".tool-card[data-tool-index='0']", { timeout: WAIT });
  assert.equal(await card.evaluate((n) => n.open), false, "collapsed by default");
  assert.equal(await card.$eval("summary", (n) => n.textContent.includes("getCurrentTime")), true);
  await card.$eval("summary", (n) => n.click());
  assert.equal(await card.evaluate((n) => n.open), true);
  const output = await card.$eval(".tool-output", (n) => n.textContent);
  assert.match(output, /time/i);

  // Suggestions: a chip sends its value as the next message (a skill answers it).
  await send('[[mock reply=\'Pick one.\nSUGGESTED_VALUES: [{"label": "Two plus two", "value": "what is 2+2?"}]\']] choose');
  await completeAnswers(3);
  const chip = await page.waitForSelector(".chip[data-value='what is 2+2?']", { timeout: WAIT });
  assert.equal(await chip.evaluate((n) => n.textContent), "Two plus two");
  await chip.click();
  await completeAnswers(4);
  const users = await page.$$eval(".message.user .content", (nodes) => nodes.map((n) => n.textContent));
  assert.equal(users.at(-1), "what is 2+2?");
  const skill = await page.$$eval(".message.assistant[data-state=complete] .answer", (nodes) => nodes.at(-1).textContent);
  assert.match(skill, /4/);

  // Cancel stops the stream.
  await send("[[mock tokens=400 token_delay_ms=25]] a long story");
  await page.waitForFunction(() => document.querySelector(".message.assistant[data-state=streaming] .answer")?.textContent.length > 0, { timeout: WAIT });
  await page.click("#cancel");
  await page.waitForSelector(".message.assistant[data-state=cancelled]", { timeout: WAIT });
  assert.equal(await page.$eval("#cancel", (n) => n.hidden), true);

  // A reload while a turn runs resumes it: the same answer, to its end, once.
  await send("[[mock tokens=120 token_delay_ms=40]] another story");
  await page.waitForFunction(() => document.querySelector(".message.assistant[data-state=streaming] .answer")?.textContent.includes("t5"), { timeout: WAIT });
  await page.reload();
  await page.waitForSelector("body[data-ready=true], .message.assistant[data-state=streaming]", { timeout: WAIT });
  try { await completeAnswers(5); } catch (e) { console.error("DOM:", await page.$eval("#messages", (n) => n.outerHTML.slice(-3000))); throw e; }
  const resumed = await page.$$eval(".message.assistant[data-state=complete] .answer", (nodes) => nodes.at(-1).textContent);
  assert.match(resumed, /t1 t2 t3/);
  assert.match(resumed, /t120/);
  const prompts = await page.$$eval(".message.assistant[data-prompt-id]", (nodes) => nodes.map((n) => n.dataset.promptId));
  assert.equal(new Set(prompts).size, prompts.length, "the running turn is shown once");
  await page.screenshot({ path: join(shots, "chat.png"), fullPage: true });
});

test("the admin console shows the numbers of the turns that ran, for admins only", async () => {
  const usage = await admin.GET("/v1/admin/usage", { params: { query: { group_by: "model" } } });
  const model = usage.data.items.find((g) => g.key === "mock-model");
  assert.ok(model.calls >= 5, `the chat test's calls: ${model.calls}`);
  const stats = await admin.GET("/v1/admin/prompts/stats");
  const completed = stats.data.by_state.find((s) => s.state === "completed").count;

  await page.evaluate(() => window.localStorage.clear());
  await signIn("/admin", parley.adminToken);
  await visit("#/usage?group_by=model");
  const calls = await page.$eval("#usage-model tr[data-key='mock-model'] [data-field=calls]", (n) => Number(n.textContent));
  assert.equal(calls, model.calls);
  const tokens = await page.$eval("#usage-model .bar[data-label='mock-model']", (n) => Number(n.dataset.value));
  assert.equal(tokens, model.input_tokens + model.output_tokens);
  const cost = await page.$eval("#usage-model tr[data-key='mock-model'] [data-field=cost]", (n) => Number(n.dataset.value));
  assert.equal(cost, model.cost_usd);
  await visit("#/live");
  const bar = await page.$eval("#prompts .bar[data-label=completed]", (n) => Number(n.dataset.value));
  assert.equal(bar, completed);
  const cancelled = await page.$eval("#prompts .bar[data-label=canceled]", (n) => Number(n.dataset.value));
  assert.equal(cancelled, 1);
  const breaker = await page.$eval("#providers [data-provider=mock] .badge", (n) => n.dataset.state);
  assert.equal(breaker, "closed");
  // The live view redraws on its own (every 10 s): a later "updated" time, no click.
  const updated = await page.$eval("#updated", (n) => n.textContent);
  await page.waitForFunction((before) => document.querySelector("#updated").textContent !== before, { timeout: 15000 }, updated);
  // The PII redactor rewrote the first message: its modification rate, as the API says.
  const blocks = await admin.GET("/v1/admin/blocks", { params: { query: { group_by: "module" } } });
  const pii = blocks.data.groups.find((g) => g.key === "pii_redactor");
  assert.ok(pii.modifications >= 1, JSON.stringify(pii));
  await visit("#/modules");
  const modifyRate = await page.$eval("#modifications .bar[data-label=pii_redactor]", (n) => Number(n.dataset.value));
  assert.equal(modifyRate, pii.modify_rate);
  await visit("#/usage?group_by=day");
  const days = await page.$$eval("#usage-day .bar", (nodes) => nodes.length);
  assert.equal(days, 1);
  await page.screenshot({ path: join(shots, "admin.png"), fullPage: true });

  // Someone else's token is turned away with the API's answer.
  const student = await admin.POST("/v1/admin/users", {
    body: { email: "student@example.com", name: "Student", role: "student" },
  });
  const minted = await admin.POST("/v1/admin/users/{id}/tokens", {
    params: { path: { id: student.data.id } },
    body: { name: "browser" },
  });
  await page.evaluate(() => window.localStorage.clear());
  await page.goto(`${parley.baseUrl}/admin`);
  await page.type("#token", minted.data.secret);
  await page.click("#signin button[type=submit]");
  await page.waitForFunction(() => document.querySelector("#signin-status").textContent.length > 0, { timeout: WAIT });
  assert.equal(await page.$eval("#signin-status", (n) => n.textContent), "This page is for administrators.");
  assert.equal(await page.$eval("body", (n) => n.dataset.signedIn), "false");
});
