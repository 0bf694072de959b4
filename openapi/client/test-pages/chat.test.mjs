// The chat page's features in headless Chromium (issue #14 item 7), each as a user of
// its own against one live `parley serve` offering two models: the sidebar (titles,
// rename, pin, search, archive, delete), edits and regenerated answers with the ‹ n/m ›
// switcher, copy, a second tab following a turn and a timer's notice live, attachments,
// the model picker, a 400 px wide layout and dark mode, thumbs up / down on answers, and
// approval cards for a function call that waits for the user (decided in a second tab,
// denied with a reason, decided elsewhere first). Screenshots go to target/screenshots/
// (PARLEY_SCREENSHOTS).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";

import { createParley } from "../dist/parley.js";
import { startParley } from "../test-support/harness.mjs";

const root = resolve(fileURLToPath(import.meta.url), "../../../..");
const shots = process.env.PARLEY_SCREENSHOTS ?? join(root, "target/screenshots");
const WAIT = 20000;
// Polled on a timer, not on animation frames: a tab in the background gets none.
const POLL = { timeout: WAIT, polling: 100 };

let parley;
let admin;
let browser;
let toolId;
/** A tool whose `createTodo` calls wait for the user's approval. */
let approvalToolId;
let groupId;
let files;

before(async () => {
  parley = await startParley({ models: ["mock-model", "mock-b"] });
  admin = createParley({ baseUrl: parley.baseUrl, token: parley.adminToken });
  const groups = await admin.GET("/v1/admin/groups", { params: { query: { limit: 100 } } });
  groupId = groups.data.items.find((g) => g.name === "Demo").id;
  const tool = await admin.POST("/v1/admin/tools", {
    body: { group_id: groupId, name: "Chat features", definition: { behavior: "Help with homework." } },
  });
  assert.equal(tool.response.status, 201, JSON.stringify(tool.error));
  toolId = tool.data.id;
  const approving = await admin.POST("/v1/admin/tools", {
    body: {
      group_id: groupId,
      name: "Chores",
      definition: { behavior: "Keep track of chores.", functions: ["createTodo"], approval_required: ["createTodo"] },
    },
  });
  assert.equal(approving.response.status, 201, JSON.stringify(approving.error));
  approvalToolId = approving.data.id;
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  mkdirSync(shots, { recursive: true });
  files = mkdtempSync(join(tmpdir(), "parley-chat-files-"));
});

after(async () => {
  await browser?.close();
  await parley?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

/** A student of the Demo group: their token and a client. */
async function newUser(name) {
  const user = await admin.POST("/v1/admin/users", { body: { email: `${name}@example.com`, name, role: "student" } });
  assert.equal(user.response.status, 201, JSON.stringify(user.error));
  await admin.PUT("/v1/admin/groups/{id}/members/{user_id}", {
    params: { path: { id: groupId, user_id: user.data.id } },
    body: { role: "member" },
  });
  const minted = await admin.POST("/v1/admin/users/{id}/tokens", {
    params: { path: { id: user.data.id } },
    body: { name: "browser" },
  });
  const token = minted.data.secret;
  return { token, client: createParley({ baseUrl: parley.baseUrl, token }) };
}

/** A browser context (its own storage) signed in as `token`, with one tab open. */
async function signedIn(token, { width = 1200, height = 800, hash = "" } = {}) {
  const context = await browser.createBrowserContext();
  await context.overridePermissions(parley.baseUrl, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
  const page = await context.newPage();
  await page.setViewport({ width, height });
  page.on("pageerror", (err) => console.error("page error:", err.message));
  await page.goto(`${parley.baseUrl}/chat${hash}`);
  await page.type("#token", token);
  await page.click("#signin button[type=submit]");
  await page.waitForSelector("body[data-ready=true]", POLL);
  return { context, page };
}

/** Another tab of the same browser context (signed in by the stored token). */
async function anotherTab(context, hash = "") {
  const page = await context.newPage();
  await page.setViewport({ width: 1200, height: 800 });
  page.on("pageerror", (err) => console.error("page error:", err.message));
  await page.goto(`${parley.baseUrl}/chat${hash}`);
  await page.waitForSelector("body[data-ready=true]", POLL);
  return page;
}

const sessionOf = async (page) => new URLSearchParams((await page.evaluate(() => window.location.hash)).slice(1)).get("session");

async function newChat(page, tool = toolId) {
  await page.select("#tool", tool);
  const before = await sessionOf(page);
  await page.click("#new-session");
  await page.waitForFunction((b) => new URLSearchParams(window.location.hash.slice(1)).get("session") !== b, POLL, before);
  await page.waitForSelector("#composer:not([hidden])", POLL);
  return sessionOf(page);
}

async function send(page, content) {
  await page.$eval("#input", (input, value) => {
    input.value = value;
  }, content);
  await page.$eval("#composer", (form) => form.requestSubmit());
}

async function completeAnswers(page, n) {
  try {
    await page.waitForFunction((n) => document.querySelectorAll(".message.assistant[data-state=complete]").length >= n && document.body.dataset.turn === "idle", POLL, n);
  } catch (err) {
    console.error("turn:", await page.evaluate(() => document.body.dataset.turn), "DOM:", await page.$eval("#messages", (m) => m.outerHTML.slice(-3000)));
    throw err;
  }
}

const texts = (page, selector) => page.$$eval(selector, (nodes) => nodes.map((n) => n.textContent.trim()));

async function waitText(page, selector, text) {
  await page.waitForFunction(
    (selector, text) => [...document.querySelectorAll(selector)].some((n) => n.textContent.includes(text)),
    POLL,
    selector,
    text,
  );
}

test("the sidebar: titles, rename, pin, search, archive and delete", async () => {
  const { client, token } = await newUser("sidebar");
  const { context, page } = await signedIn(token);
  const first = await newChat(page);
  await send(page, "Photosynthesis questions for my biology class");
  await completeAnswers(page, 1);
  // The first exchange titles the session (its first words), in the list and above the chat.
  await waitText(page, `#sessions li[data-id="${first}"] .session-title`, "Photosynthesis questions for my biology class");
  await waitText(page, "#chat-title", "Photosynthesis");
  const second = await newChat(page);
  await send(page, "Volcanoes and tectonic plates");
  await completeAnswers(page, 1);
  await waitText(page, `#sessions li[data-id="${second}"] .session-title`, "Volcanoes");

  // Rename in place: the owner's title.
  await page.click(`#sessions li[data-id="${second}"] .rename`);
  await page.waitForSelector(`#sessions li[data-id="${second}"] .rename-input`);
  await page.$eval(`#sessions li[data-id="${second}"] .rename-input`, (input) => {
    input.value = "Geology";
  });
  await page.$eval(`#sessions li[data-id="${second}"] .rename-form`, (form) => form.requestSubmit());
  await waitText(page, `#sessions li[data-id="${second}"] .session-title`, "Geology");
  const renamed = await client.GET("/v1/sessions/{id}", { params: { path: { id: second } } });
  assert.deepEqual([renamed.data.title, renamed.data.title_source], ["Geology", "user"]);

  // Pin: the pinned session lists first.
  assert.equal((await page.$$eval("#sessions li.session", (n) => n.map((li) => li.dataset.id)))[0], second, "most recent first");
  await page.click(`#sessions li[data-id="${first}"] .pin`);
  await page.waitForSelector(`#sessions li[data-id="${first}"][data-pinned=true]`, POLL);
  assert.deepEqual(await page.$$eval("#sessions li.session", (n) => n.map((li) => li.dataset.id)), [first, second]);
  assert.equal(await page.$eval(`#sessions li[data-id="${first}"] .pin`, (b) => b.getAttribute("aria-label")), "Unpin");
  assert.equal((await client.GET("/v1/sessions/{id}", { params: { path: { id: first } } })).data.pinned, true);

  // Search by a message's words: the hit opens its session at that message.
  await page.type("#search", "tectonic");
  await page.waitForSelector(`#search-results li[data-id="${second}"]`, POLL);
  assert.match(await page.$eval(`#search-results li[data-id="${second}"] .snippet`, (n) => n.textContent), /tectonic/);
  assert.equal(await page.$eval("#session-lists", (n) => n.hidden), true);
  await page.click(`#search-results li[data-id="${second}"] .search-hit`);
  await page.waitForSelector(".message.found", POLL);
  assert.equal(await sessionOf(page), second);
  assert.match(await page.$eval(".message.found .content", (n) => n.textContent), /tectonic/);
  await page.$eval("#search", (input) => {
    input.value = "";
    input.dispatchEvent(new Event("input"));
  });
  await page.waitForSelector("#search-results[hidden]", POLL);
  await page.screenshot({ path: join(shots, "chat-sidebar.png") });

  // Archive: the session moves to the archived list.
  await page.click(`#sessions li[data-id="${first}"] .archive`);
  await page.waitForSelector(`#archived li[data-id="${first}"]`, POLL);
  assert.equal(await page.$(`#sessions li[data-id="${first}"]`), null);
  assert.equal(await page.$eval("#archived-count", (n) => n.textContent), "1");

  // Delete, after a confirmation; the open chat closes.
  await page.click(`#sessions li[data-id="${second}"] .delete`);
  await page.waitForSelector(`#sessions li[data-id="${second}"] .confirm-delete`);
  await page.click(`#sessions li[data-id="${second}"] .keep`);
  await page.waitForSelector(`#sessions li[data-id="${second}"] .delete`);
  await page.click(`#sessions li[data-id="${second}"] .delete`);
  await page.click(`#sessions li[data-id="${second}"] .confirm-delete`);
  await page.waitForFunction((id) => !document.querySelector(`#sessions li[data-id="${id}"]`), POLL, second);
  assert.equal((await client.GET("/v1/sessions/{id}", { params: { path: { id: second } } })).response.status, 404);
  await page.waitForSelector("#composer[hidden]", POLL);
  assert.equal(await sessionOf(page), null);
  await context.close();
});

test("edit makes a branch with a ‹ n/m › switcher; regenerate; copy", async () => {
  const { client, token } = await newUser("branches");
  const { context, page } = await signedIn(token);
  const sessionId = await newChat(page);
  await send(page, "[[mock reply='Answer A']] alpha");
  await completeAnswers(page, 1);
  assert.equal(await page.$(".switcher"), null, "no siblings, no switcher");

  // Edit the message: a new version with its own answer, shown as 2/2.
  await page.click(".message.user .edit");
  await page.waitForSelector(".message.user .edit-input");
  await page.$eval(".message.user .edit-input", (input) => {
    input.value = "[[mock reply='Answer B']] beta";
  });
  await page.click(".message.user .edit-send");
  await page.waitForFunction(() => document.querySelector(".message.user .switcher .position")?.textContent === "2/2", POLL);
  await completeAnswers(page, 1);
  assert.deepEqual(await texts(page, ".message.user .content"), ["[[mock reply='Answer B']] beta"]);
  assert.deepEqual(await texts(page, ".message.assistant .answer"), ["Answer B"]);
  const branch = await client.GET("/v1/sessions/{id}/messages", { params: { path: { id: sessionId } } });
  assert.equal(branch.data.items[0].siblings.length, 2);

  // Back to the first version: 1/2 with its old answer, and the session continues there.
  await page.click(".message.user .switcher .prev");
  await page.waitForFunction(() => document.querySelector(".message.user .switcher .position")?.textContent === "1/2", POLL);
  await waitText(page, ".message.assistant .answer", "Answer A");
  assert.deepEqual(await texts(page, ".message.user .content"), ["[[mock reply='Answer A']] alpha"]);
  const session = await client.GET("/v1/sessions/{id}", { params: { path: { id: sessionId } } });
  const shown = await page.$eval(".message.assistant", (n) => n.dataset.messageId);
  assert.equal(session.data.active_leaf_id, shown);
  await page.click(".message.user .switcher .next");
  await page.waitForFunction(() => document.querySelector(".message.user .switcher .position")?.textContent === "2/2", POLL);
  await waitText(page, ".message.assistant .answer", "Answer B");

  // Regenerate: another answer to the same message, 2/2 on the answer.
  const oldPrompt = await page.$eval(".message.assistant", (n) => n.dataset.promptId);
  await page.click(".message.assistant .regenerate");
  await page.waitForFunction(() => document.querySelector(".message.assistant .switcher .position")?.textContent === "2/2", POLL);
  await completeAnswers(page, 1);
  const newPrompt = await page.$eval(".message.assistant", (n) => n.dataset.promptId);
  assert.notEqual(newPrompt, oldPrompt);
  assert.equal(await page.$$eval(".message.assistant", (n) => n.length), 1);
  await page.click(".message.assistant .switcher .prev");
  await page.waitForFunction((p) => document.querySelector(".message.assistant")?.dataset.promptId === p, POLL, oldPrompt);
  await page.screenshot({ path: join(shots, "chat-branches.png") });

  // Copy: the answer's text on the clipboard.
  await page.bringToFront();
  await page.click(".message.assistant .copy");
  await page.waitForSelector(".message.assistant .copy[data-copied=true]", POLL);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "Answer B");
  await page.click(".message.user .copy");
  await page.waitForSelector(".message.user .copy[data-copied=true]", POLL);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "[[mock reply='Answer B']] beta");
  await context.close();
});

test("a second tab sees the first tab's turn, a timer's notice and new titles live", async () => {
  const { token } = await newUser("tabs");
  const { context, page: first } = await signedIn(token);
  const sessionId = await newChat(first);
  const second = await anotherTab(context, `#session=${sessionId}`);

  // A turn sent in the first tab streams into the second.
  const story = "[[mock tokens=80 token_delay_ms=40]] tell me a story";
  await send(first, story);
  await second.waitForFunction(() => document.querySelector(".message.assistant[data-state=streaming] .answer")?.textContent.includes("t3"), POLL);
  await completeAnswers(second, 1);
  assert.deepEqual(await texts(second, ".message.user .content"), [story]);
  assert.match((await texts(second, ".message.assistant .answer"))[0], /t80/);

  // A 2 s timer set in the first tab: its notice appears in both.
  await send(first, "set tea timer for 2 seconds");
  await completeAnswers(first, 2);
  await waitText(second, ".message.assistant .answer", "Timer 'tea' set for 2 seconds.");
  await waitText(second, ".message.notice-message .answer", "⏰ The tea timer is done");
  await waitText(first, ".message.notice-message .answer", "⏰ The tea timer is done");
  await second.screenshot({ path: join(shots, "chat-second-tab.png") });

  // A session opened and titled in the first tab reaches the second's list (a click
  // needs the tab in front: puppeteer waits for it to be drawn).
  await first.bringToFront();
  const other = await newChat(first);
  await send(first, "Fractions and decimals practice");
  await waitText(second, `#sessions li[data-id="${other}"] .session-title`, "Fractions and decimals practice");
  assert.equal(await sessionOf(second), sessionId, "the second tab stays where it was");
  await context.close();
});

test("attachments show in the message; the model picker picks the model", async () => {
  const { client, token } = await newUser("files");
  const { context, page } = await signedIn(token);
  assert.equal(await page.$eval("#model-label", (n) => n.hidden), false, "two models: the picker shows");
  assert.deepEqual(await page.$$eval("#model option", (o) => o.map((n) => n.value)), ["mock-model", "mock-b"]);
  const sessionId = await newChat(page);
  assert.equal(await page.$eval("#model", (s) => s.value), "mock-model");

  const path = join(files, "notes.txt");
  writeFileSync(path, "The secret word is pineapple.\n");
  const input = await page.$("#file");
  await input.uploadFile(path);
  await page.waitForSelector("#attachments li.attachment", POLL);
  assert.match(await page.$eval("#attachments", (n) => n.textContent), /notes\.txt/);

  await page.select("#model", "mock-b");
  await send(page, "[[mock tokens=3]] what is in my notes?");
  await completeAnswers(page, 1);
  await waitText(page, ".message.user .attachments", "notes.txt");
  assert.equal(await page.$eval("#attachments", (n) => n.hidden), true, "sent: the composer lets go of it");
  const messages = await client.GET("/v1/sessions/{id}/messages", { params: { path: { id: sessionId } } });
  assert.deepEqual(
    messages.data.items[0].attachments.map((a) => a.name),
    ["notes.txt"],
  );
  const promptId = await page.$eval(".message.assistant", (n) => n.dataset.promptId);
  const prompt = await client.GET("/v1/prompts/{id}", { params: { path: { id: promptId } } });
  assert.equal(prompt.data.model, "mock-b");

  // The default model again, for the next message.
  await page.select("#model", "mock-model");
  await send(page, "[[mock tokens=2]] and now?");
  await completeAnswers(page, 2);
  const last = await page.$$eval(".message.assistant", (n) => n.at(-1).dataset.promptId);
  assert.equal((await client.GET("/v1/prompts/{id}", { params: { path: { id: last } } })).data.model, "mock-model");

  // After a reload the attachment is still on its message.
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", POLL);
  await waitText(page, ".message.user .attachments", "notes.txt");
  await page.screenshot({ path: join(shots, "chat-attachment.png") });
  await context.close();
});

test("at 400 px the sidebar folds away; dark mode follows the system", async () => {
  const { token } = await newUser("narrow");
  const { context, page } = await signedIn(token, { width: 400, height: 760 });
  // No chat open: the list shows.
  assert.equal(await page.$eval("body", (b) => b.dataset.sidebar), "open");
  await newChat(page);
  await send(page, "[[mock reply='A short answer that wraps on a narrow screen, with **markdown** in it.']] Hello from a phone");
  await completeAnswers(page, 1);
  // The drawer slides out (a transition): wait for it to be gone, then it must stay gone.
  await page
    .waitForFunction(() => document.querySelector("#sidebar").getBoundingClientRect().right <= 0, POLL)
    .catch(() => {});
  const box = await page.$eval("#sidebar", (n) => n.getBoundingClientRect().right);
  assert.ok(box <= 0, `the sidebar is folded away (right edge ${box})`);
  assert.ok(await page.$eval("#sidebar-toggle", (b) => getComputedStyle(b).display !== "none"));
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 400), "nothing wider than the screen");
  const composer = await page.$eval("#composer", (n) => n.getBoundingClientRect().toJSON());
  assert.ok(composer.right <= 400 && composer.bottom <= 760, JSON.stringify(composer));
  await page.screenshot({ path: join(shots, "chat-400.png") });

  await page.click("#sidebar-toggle");
  await page.waitForFunction(() => document.querySelector("#sidebar").getBoundingClientRect().left >= 0, POLL);
  assert.equal(await page.$eval("#sidebar-toggle", (b) => b.getAttribute("aria-expanded")), "true");
  await page.screenshot({ path: join(shots, "chat-400-sidebar.png") });
  await page.mouse.click(380, 400); // beside the drawer, on the conversation
  await page.waitForFunction(() => document.querySelector("#sidebar").getBoundingClientRect().right <= 0, POLL);
  await page.click("#sidebar-toggle");
  await page.waitForFunction(() => document.querySelector("#sidebar").getBoundingClientRect().left >= 0, POLL);
  await page.click("#sessions li.session .session-open");
  await page.waitForFunction(() => document.querySelector("#sidebar").getBoundingClientRect().right <= 0, POLL);

  // Dark mode: the system's setting, no switch of our own.
  await page.setViewport({ width: 1200, height: 800 });
  const light = await page.$eval("body", (b) => getComputedStyle(b).backgroundColor);
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
  const dark = await page.$eval("body", (b) => getComputedStyle(b).backgroundColor);
  assert.equal(light, "rgb(248, 250, 252)");
  assert.equal(dark, "rgb(15, 23, 42)");
  const answer = await page.$eval(".message.assistant .bubble", (n) => getComputedStyle(n).color);
  assert.equal(answer, "rgb(229, 231, 235)", "light text on the dark answer");
  await page.screenshot({ path: join(shots, "chat-dark.png") });
  await page.setViewport({ width: 400, height: 760 });
  await page.screenshot({ path: join(shots, "chat-400-dark.png") });
  await context.close();
});

test("thumbs up and down on answers: a comment, kept after a reload, removed", async () => {
  const { client, token } = await newUser("thumbs");
  const { context, page } = await signedIn(token);
  const sessionId = await newChat(page);
  await send(page, "[[mock reply='Answer one']] first");
  await completeAnswers(page, 1);
  const up = ".message.assistant .feedback-up";
  const down = ".message.assistant .feedback-down";
  const pressed = (selector) => page.$eval(selector, (b) => b.getAttribute("aria-pressed"));
  const feedback = async () => {
    const messages = await client.GET("/v1/sessions/{id}/messages", { params: { path: { id: sessionId } } });
    return messages.data.items.find((m) => m.role === "assistant").feedback;
  };
  assert.equal(await page.$(".message.user .feedback-up"), null, "answers only");
  assert.deepEqual([await pressed(up), await pressed(down)], ["false", "false"]);
  assert.deepEqual(await page.$$eval(".message.assistant .feedback button", (b) => b.map((n) => n.getAttribute("aria-label"))), ["Good answer", "Bad answer"]);
  assert.ok(await page.$(`${up} svg.svg-icon`), "an inline SVG icon, not an emoji");

  // Up, then down with a comment (Enter sends it).
  await page.click(up);
  await page.waitForSelector(`${up}[aria-pressed=true]`, POLL);
  assert.equal((await feedback()).rating, "up");
  await page.click(down);
  await page.waitForSelector(`${down}[aria-pressed=true]`, POLL);
  assert.equal(await pressed(up), "false");
  await page.waitForSelector(".message.assistant .feedback-comment-input", POLL);
  assert.equal((await feedback()).rating, "down");
  await page.type(".message.assistant .feedback-comment-input", "Too short");
  await page.keyboard.press("Enter");
  await waitText(page, ".message.assistant .feedback-comment-text", "Too short");
  const given = await feedback();
  assert.deepEqual([given.rating, given.comment], ["down", "Too short"]);
  await page.screenshot({ path: join(shots, "chat-thumbs.png") });

  // After a reload: the state from the branch's messages.
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", POLL);
  await page.waitForSelector(`${down}[aria-pressed=true]`, POLL);
  assert.equal(await pressed(up), "false");
  await waitText(page, ".message.assistant .feedback-comment-text", "Too short");

  // Clicking the active one removes it.
  await page.click(down);
  await page.waitForSelector(`${down}[aria-pressed=false]`, POLL);
  assert.equal(await pressed(up), "false");
  assert.equal(await page.$(".message.assistant .feedback-comment-text"), null);
  assert.equal(await feedback(), undefined);
  await context.close();
});

const ASKS = `[[mock tool_call='createTodo:{"title": "buy milk"}']] remind me`;
const waitingCard = ".message.assistant[data-state=streaming] .call .approval[data-state=awaiting]";

/** The todos of the user, by title. */
const todos = async (client) => (await client.GET("/v1/todos")).data.items.map((t) => t.title).sort();

/** A finished turn's events, read again through the client. */
async function turnEvents(token, promptId) {
  const { followPrompt } = await import("../dist/parley.js");
  const events = [];
  for await (const event of followPrompt({ baseUrl: parley.baseUrl, token, promptId })) events.push(event);
  return events;
}

test("approval cards: approved with edited input in a second tab, denied with a reason, decided elsewhere first", async () => {
  const { client, token } = await newUser("approver");
  const { context, page: first } = await signedIn(token);
  const sessionId = await newChat(first, approvalToolId);
  await send(first, ASKS);
  await first.waitForSelector(waitingCard, POLL);
  assert.equal(await first.$eval(`${waitingCard} .approval-function`, (n) => n.textContent), "createTodo");
  assert.deepEqual(JSON.parse(await first.$eval(`${waitingCard} .approval-input`, (n) => n.value)), { title: "buy milk" });
  assert.match(await first.$eval(`${waitingCard} .approval-expiry time`, (n) => n.getAttribute("datetime")), /^\d{4}-/);
  const waiting = (await client.GET("/v1/approvals")).data.items;
  assert.equal(waiting.length, 1);
  assert.equal(await first.$eval(waitingCard, (n) => n.dataset.callId), waiting[0].id);

  // A second tab opened on no chat lists the waiting call (GET /v1/approvals) and opens its chat.
  const second = await anotherTab(context);
  await second.waitForSelector(`#approvals-waiting:not([hidden]) p[data-call-id="${waiting[0].id}"]`, POLL);
  await second.click("#approvals-waiting .approval-open");
  await second.waitForSelector(waitingCard, POLL);
  assert.equal(await sessionOf(second), sessionId);
  await second.waitForSelector("#approvals-waiting[hidden]", POLL);

  // Arguments that are not JSON are caught before sending.
  const setInput = (page, text) =>
    page.$eval(`${waitingCard} .approval-input`, (input, text) => {
      input.value = text;
      input.dispatchEvent(new Event("input"));
    }, text);
  await setInput(second, '{"title": "buy oat milk"');
  await second.click(`${waitingCard} .approve`);
  await waitText(second, `${waitingCard} .approval-error`, "not valid JSON");
  assert.equal((await client.GET("/v1/approvals")).data.items.length, 1, "nothing was sent");
  await setInput(second, '{"title": "buy oat milk"}');
  assert.equal(await second.$eval(`${waitingCard} .approval-error`, (n) => n.textContent), "", "edited: the error goes");
  await second.bringToFront();
  await second.screenshot({ path: join(shots, "chat-approval.png") });

  // Approved in the second tab: the first tab's card says so and its answer completes.
  await second.click(`${waitingCard} .approve`);
  await first.waitForSelector(".call .approval[data-state=approved]", POLL);
  await completeAnswers(first, 1);
  await completeAnswers(second, 1);
  await waitText(first, ".call .approval-outcome", "Approved in another tab or device");
  await waitText(second, ".call .approval-outcome", "Approved, with edited arguments");
  await waitText(first, ".message.assistant .answer", "buy oat milk");
  assert.deepEqual(await todos(client), ["buy oat milk"]);
  assert.equal((await client.GET("/v1/approvals")).data.items.length, 0);
  await second.close();

  // Denied with a reason: the call never runs.
  await first.bringToFront();
  await send(first, ASKS);
  await first.waitForSelector(waitingCard, POLL);
  await first.click(`${waitingCard} .deny`);
  await first.waitForSelector(`${waitingCard} .approval-reason-input`, POLL);
  await first.type(`${waitingCard} .approval-reason-input`, "I already have milk");
  await first.click(`${waitingCard} .deny-confirm`);
  await completeAnswers(first, 2);
  const denied = ".message.assistant:last-child .call .approval[data-state=denied]";
  await first.waitForSelector(denied, POLL);
  await waitText(first, `${denied} .approval-reason`, "I already have milk");
  const deniedPrompt = await first.$eval(".message.assistant:last-child", (n) => n.dataset.promptId);
  const events = await turnEvents(token, deniedPrompt);
  assert.deepEqual(events.filter((e) => e.type === "tool_complete").map((e) => e.state), ["denied"]);
  assert.equal(events.at(-1).type, "complete");
  assert.deepEqual(await todos(client), ["buy oat milk"], "no new todo");

  // Decided elsewhere first: this tab's Approve gets 409 and the card shows the decision.
  await send(first, ASKS);
  await first.waitForSelector(waitingCard, POLL);
  const callId = await first.$eval(waitingCard, (n) => n.dataset.callId);
  const promptId = await first.$eval(".message.assistant[data-state=streaming]", (n) => n.dataset.promptId);
  await first.setRequestInterception(true);
  const statuses = [];
  first.on("response", (response) => {
    if (response.url().endsWith("/approve")) statuses.push(response.status());
  });
  first.on("request", async (request) => {
    if (request.isInterceptResolutionHandled()) return;
    if (request.url().endsWith(`/calls/${callId}/approve`)) {
      // Another device denies it while this tab's approval is on its way.
      const other = await client.POST("/v1/prompts/{id}/calls/{call_id}/deny", {
        params: { path: { id: promptId, call_id: callId } },
        body: { reason: "changed my mind" },
      });
      assert.equal(other.response.status, 200);
    }
    await request.continue();
  });
  await first.click(`${waitingCard} .approve`);
  await completeAnswers(first, 3);
  const last = ".message.assistant:last-child .call .approval";
  await first.waitForSelector(`${last}[data-state=denied]`, POLL);
  assert.deepEqual(statuses, [409]);
  assert.equal(await first.$eval(`${last} .approval-outcome`, (n) => n.textContent), "Denied in another tab or device");
  assert.equal(await first.$eval("#notice", (n) => n.textContent), "");
  assert.deepEqual(await todos(client), ["buy oat milk"]);
  await context.close();
});

test("an answer with suggestions streams without its marker lines at any moment", async () => {
  const { token } = await newUser("markers");
  const { context, page } = await signedIn(token);
  await newChat(page);
  const reply =
    'Here is the plan.\nSUGGESTED_VALUES: [{"label": "Go on", "value": "Yes, go on"}]\nWe start with fractions and then decimals and then percentages.\nSUGGESTED_ACTIONS: [{"label": "Done", "action": "end_session", "handler": "server"}]';
  await send(page, `[[mock reply='${reply}' token_delay_ms=60]] plan`);
  // Every 30 ms until the answer is complete: what the page shows of it so far.
  const seen = [];
  let shot = false;
  const deadline = Date.now() + WAIT;
  for (;;) {
    assert.ok(Date.now() < deadline, `no complete answer: ${seen.at(-1)}`);
    const now = await page.evaluate(() => {
      const answer = [...document.querySelectorAll(".message.assistant")].at(-1);
      return answer ? { state: answer.dataset.state, text: answer.querySelector(".answer")?.textContent ?? "" } : null;
    });
    if (now) {
      seen.push(now.text);
      if (!shot && now.state === "streaming" && now.text.includes("fractions")) {
        await page.screenshot({ path: join(shots, "chat-streaming-suggestions.png") });
        shot = true;
      }
      if (now.state === "complete") break;
    }
    await new Promise((r) => setTimeout(r, 30));
  }
  assert.ok(shot, "a screenshot mid-stream");
  for (const text of seen) assert.ok(!/SUGGESTED|\[\{/.test(text), `a marker was shown: ${text}`);
  assert.ok(seen.some((t) => t.includes("Here is the plan.") && !t.includes("percentages")), "it streamed");
  await completeAnswers(page, 1);
  assert.deepEqual(await texts(page, ".chip"), ["Go on"]);
  assert.deepEqual(await texts(page, ".action"), ["Done"]);
  const final = await texts(page, ".message.assistant .answer");
  assert.ok(final.at(-1).startsWith("Here is the plan.") && final.at(-1).endsWith("percentages."), final.at(-1));
  await context.close();
});

test("an answer cut at the tool's length limit says so, live and after a reload", async () => {
  const capped = await admin.POST("/v1/admin/tools", {
    body: { group_id: groupId, name: "Brief tutor", definition: { behavior: "Be brief.", sampling: { max_output_tokens: 4 } } },
  });
  assert.equal(capped.response.status, 201, JSON.stringify(capped.error));
  const { token } = await newUser("brief");
  const { context, page } = await signedIn(token);
  await newChat(page, capped.data.id);
  await send(page, "[[mock tokens=40]] count");
  await completeAnswers(page, 1);
  assert.deepEqual(await texts(page, ".message.assistant .answer"), ["t1 t2 t3 t4"]);
  assert.deepEqual(await texts(page, ".message.assistant [data-note=length]"), ["Cut at the answer's length limit"]);
  await page.screenshot({ path: join(shots, "chat-cut-at-length.png") });
  // Read again from the turn's finished feed: the same note.
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", POLL);
  await page.waitForSelector(".message.assistant [data-note=length]", POLL);
  // An answer that ends by itself has no such note.
  await send(page, "[[mock tokens=2]] short");
  await completeAnswers(page, 2);
  assert.equal((await texts(page, "[data-note=length]")).length, 1);
  await context.close();
});
