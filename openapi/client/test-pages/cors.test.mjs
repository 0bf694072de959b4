// Cross-origin calls (CORS) in headless Chromium (Debian's `chromium`, driven by
// puppeteer-core): a page served on another origin (a small static server on another
// port) that `http.cors_origins` lists makes a JSON call, opens a session, streams a turn
// with fetch (reading the exposed `Location`) and follows a feed with `EventSource` and a
// feed token; a page on an origin that is not listed is refused (its preflight answers
// 403, its feed is withheld). A screenshot of the pages goes to target/screenshots/cors.png
// (PARLEY_SCREENSHOTS).
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";

import { startParley } from "../test-support/harness.mjs";

const root = resolve(fileURLToPath(import.meta.url), "../../../..");
const shots = process.env.PARLEY_SCREENSHOTS ?? join(root, "target/screenshots");
const WAIT = 15000;

// The foreign page: it loads nothing; the test drives it with `page.evaluate`, calling
// the functions below in the page's own origin, and each check renders a row.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Another origin</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #1d2330; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  p { margin: 0 0 10px; color: #5a6272; }
  table { border-collapse: collapse; width: 100%; }
  td { border-top: 1px solid #dde1e8; padding: 5px 8px; vertical-align: top; }
  td.check { white-space: nowrap; font-weight: 600; }
  tr[data-ok=true] td.verdict { color: #127a3a; }
  tr[data-ok=false] td.verdict { color: #b3261e; }
  td.detail { font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
  iframe { width: 100%; height: 190px; border: 2px dashed #b3261e; margin-top: 14px; }
</style>
</head>
<body>
<h1>A page on <span id="origin"></span></h1>
<p>calling Parley at <span id="base">…</span></p>
<table id="results"></table>
<script>
document.getElementById("origin").textContent = location.origin;

/** Renders one check: what was tried, whether the expected thing happened, and what came back. */
function report(check, ok, detail) {
  const row = document.createElement("tr");
  row.dataset.check = check;
  row.dataset.ok = String(ok);
  for (const [cls, text] of [["check", check], ["verdict", ok ? "✓" : "✗"], ["detail", detail]]) {
    const cell = document.createElement("td");
    cell.className = cls;
    cell.textContent = text;
    row.append(cell);
  }
  document.getElementById("results").append(row);
}

function within(ms, promise, what) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(what + ": no answer in " + ms + " ms")), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A JSON call with a bearer token (a preflight first), then a session (a JSON body). */
async function jsonCall(base, token) {
  document.getElementById("base").textContent = base;
  const auth = { Authorization: "Bearer " + token };
  const tools = await fetch(base + "/v1/tools", { headers: auth });
  const list = await tools.json();
  const demo = list.items.find((t) => t.name === "Demo tutor");
  report("GET /v1/tools", tools.status === 200 && !!demo, tools.status + " " + list.items.map((t) => t.name).join(", "));
  const created = await fetch(base + "/v1/sessions", {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ tool_id: demo.id }),
  });
  const session = await created.json();
  report("POST /v1/sessions", created.status === 201, created.status + " " + session.id);
  return { toolsStatus: tools.status, tools: list.items.map((t) => t.name), sessionStatus: created.status, sessionId: session.id };
}

/** Splits a Server-Sent Events body into events ({event, id, data}). */
function parseEvents(text) {
  return text.split(/\\r?\\n\\r?\\n/).filter((block) => block.trim()).map((block) => {
    const event = { event: "message", id: null, data: "" };
    for (const line of block.split(/\\r?\\n/)) {
      const at = line.indexOf(":");
      if (at === 0) continue;
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
      if (field === "event") event.event = value;
      else if (field === "id") event.id = value;
      else if (field === "data") event.data += (event.data ? "\\n" : "") + value;
    }
    return event;
  });
}

/** A streamed turn with fetch: read the body until the \`complete\` event. */
async function streamedTurn(base, token, sessionId, content, key) {
  const response = await fetch(base + "/v1/sessions/" + sessionId + "/messages", {
    method: "POST",
    headers: {
      Authorization: "Bearer " + token,
      Accept: "text/event-stream",
      "Content-Type": "application/json",
      "Idempotency-Key": key,
    },
    body: JSON.stringify({ content }),
  });
  const location = response.headers.get("Location");
  const requestId = response.headers.get("X-Request-Id");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let events = [];
  await within(10000, (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      const whole = text.slice(0, text.lastIndexOf("\\n\\n") + 2);
      events = parseEvents(whole);
      if (events.some((e) => ["complete", "error", "cancelled"].includes(e.event))) break;
    }
  })(), "the stream");
  reader.cancel().catch(() => {});
  const answer = events.filter((e) => e.event === "text_delta").map((e) => JSON.parse(e.data).text).join("");
  const names = events.map((e) => e.event);
  report("POST …/messages (stream)", response.status === 200 && names.at(-1) === "complete",
    response.status + " Location: " + location + " · events: " + [...new Set(names)].join(" ") + " · “" + answer + "”");
  return {
    status: response.status,
    contentType: response.headers.get("Content-Type"),
    location,
    requestId,
    names,
    ids: events.map((e) => e.id),
    answer,
  };
}

/** A turn in the background (202), a feed token, and its feed through EventSource. */
async function feed(base, token, sessionId, content) {
  const auth = { Authorization: "Bearer " + token };
  const started = await fetch(base + "/v1/sessions/" + sessionId + "/messages?background=true", {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ content }),
  });
  const accepted = await started.json();
  report("POST …/messages?background=true", started.status === 202, started.status + " prompt " + accepted.prompt_id);
  const minted = await fetch(base + "/v1/prompts/" + accepted.prompt_id + "/feed-token", { method: "POST", headers: auth });
  const feedToken = await minted.json();
  report("POST …/feed-token", minted.status === 200 && !!feedToken.events_url, minted.status + " " + feedToken.events_url.replace(/access_token=[^&]+/, "access_token=…"));
  const source = new EventSource(base + feedToken.events_url);
  const events = [];
  let failure = null;
  const names = ["prompt_state", "status", "block_start", "text_delta", "block_stop", "complete", "error", "cancelled"];
  await within(10000, new Promise((done) => {
    for (const name of names) {
      source.addEventListener(name, (e) => {
        // A transport failure is an "error" Event too, without data.
        if (name === "error" && !(e instanceof MessageEvent)) {
          failure = "connection failed (readyState " + source.readyState + ")";
          if (source.readyState === EventSource.CLOSED) done();
          return;
        }
        events.push({ event: name, id: e.lastEventId, data: JSON.parse(e.data) });
        if (["complete", "error", "cancelled"].includes(name)) done();
      });
    }
  }), "the feed").finally(() => source.close());
  const answer = events.filter((e) => e.event === "text_delta").map((e) => e.data.text).join("");
  const seen = events.map((e) => e.event);
  report("EventSource(events_url)", seen.at(-1) === "complete",
    (failure ?? "open") + " · events: " + [...new Set(seen)].join(" ") + " · “" + answer + "”");
  return {
    status: started.status,
    promptId: accepted.prompt_id,
    tokenStatus: minted.status,
    eventsUrl: feedToken.events_url,
    names: seen,
    ids: events.map((e) => e.id),
    answer,
    failure,
  };
}

/** From an origin Parley does not list: the call must fail (its preflight is refused). */
async function refusedCall(base, token) {
  document.getElementById("base").textContent = base;
  try {
    const response = await fetch(base + "/v1/tools", { headers: { Authorization: "Bearer " + token } });
    report("GET /v1/tools (not allowed)", false, "answered " + response.status);
    return { status: response.status };
  } catch (err) {
    report("GET /v1/tools (not allowed)", err instanceof TypeError, "refused: " + err.name + ": " + err.message);
    return { error: err.name, message: err.message };
  }
}

/** From an origin Parley does not list: a feed (no preflight) is withheld from the page. */
async function refusedFeed(url) {
  const source = new EventSource(url);
  const outcome = await within(10000, new Promise((done) => {
    source.addEventListener("text_delta", () => done("an event arrived"));
    source.addEventListener("complete", () => done("an event arrived"));
    source.onerror = () => done(source.readyState === EventSource.CLOSED ? "closed" : "error, readyState " + source.readyState);
  }), "the feed").finally(() => source.close());
  report("EventSource (not allowed)", outcome === "closed", outcome);
  return outcome;
}
</script>
</body>
</html>
`;

/** A static server on a free loopback port: the page at `/`, nothing else. */
async function servePage() {
  const server = createServer((req, res) => {
    if (req.url === "/" || req.url.startsWith("/?")) {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
      res.end(PAGE);
    } else {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

let allowed;
let other;
let parley;
let browser;
let page;
let sessionId;

before(async () => {
  allowed = await servePage();
  other = await servePage();
  parley = await startParley({ env: { PARLEY_HTTP__CORS_ORIGINS: JSON.stringify([allowed.origin]) } });
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 700 });
  page.on("pageerror", (err) => console.error("page error:", err.message));
  mkdirSync(shots, { recursive: true });
  await page.goto(`${allowed.origin}/`);
  assert.equal(await page.evaluate(() => location.origin), allowed.origin);
  assert.notEqual(new URL(parley.baseUrl).origin, allowed.origin, "Parley is on another origin than the page");
});

after(async () => {
  await browser?.close();
  await parley?.stop();
  allowed?.server.close();
  other?.server.close();
});

test("a JSON call from an allowed origin, and a session with a JSON body", async () => {
  const result = await page.evaluate((base, token) => jsonCall(base, token), parley.baseUrl, parley.adminToken);
  assert.equal(result.toolsStatus, 200);
  assert.ok(result.tools.includes("Demo tutor"), JSON.stringify(result.tools));
  assert.equal(result.sessionStatus, 201);
  assert.match(result.sessionId, /^[0-9a-f-]{36}$/);
  sessionId = result.sessionId;
});

test("a streamed turn with fetch, its Location exposed", async () => {
  const result = await page.evaluate(
    (base, token, id) => streamedTurn(base, token, id, "[[mock tokens=5]] hi", "cors-stream-1"),
    parley.baseUrl, parley.adminToken, sessionId,
  );
  assert.equal(result.status, 200);
  assert.match(result.contentType, /^text\/event-stream/);
  assert.match(result.location ?? "", /\/v1\/prompts\/[0-9a-f-]{36}/, "Location is readable from the page");
  assert.ok(result.requestId, "X-Request-Id is readable from the page");
  assert.equal(result.names.at(-1), "complete", result.names.join(" "));
  assert.deepEqual(result.ids, result.ids.map((_, i) => String(i + 1)), "seqs 1, 2, 3, …");
  assert.equal(result.answer, "t1 t2 t3 t4 t5");
});

test("a feed with EventSource and a feed token", async () => {
  const result = await page.evaluate(
    (base, token, id) => feed(base, token, id, "[[mock tokens=4 token_delay_ms=20]] again"),
    parley.baseUrl, parley.adminToken, sessionId,
  );
  assert.equal(result.status, 202);
  assert.equal(result.tokenStatus, 200);
  assert.match(result.eventsUrl, new RegExp(`^/v1/prompts/${result.promptId}/events\\?.*access_token=`));
  assert.equal(result.failure, null);
  assert.equal(result.names.at(-1), "complete", result.names.join(" "));
  assert.equal(result.answer, "t1 t2 t3 t4");
  assert.ok(result.ids.every((id) => /^\d+$/.test(id)), "each event carries its seq as its id");
});

test("a page on an origin that is not allowed is refused", async () => {
  // The refused page, framed in the allowed one (so the screenshot shows both); its
  // scripts run in its own origin.
  await page.evaluate((src) => {
    const frame = document.createElement("iframe");
    frame.src = src;
    document.body.append(frame);
    return new Promise((loaded) => frame.addEventListener("load", loaded, { once: true }));
  }, `${other.origin}/`);
  const frame = page.frames().find((f) => f.url().startsWith(other.origin));
  assert.ok(frame, "the other origin's page is loaded");
  assert.equal(await frame.evaluate(() => location.origin), other.origin);

  const call = await frame.evaluate((base, token) => refusedCall(base, token), parley.baseUrl, parley.adminToken);
  assert.equal(call.error, "TypeError", JSON.stringify(call));

  // A feed needs no preflight: Parley serves it, without Access-Control-Allow-Origin, and
  // the browser withholds it from the page.
  const turn = await fetch(`${parley.baseUrl}/v1/sessions/${sessionId}/messages?background=true`, {
    method: "POST",
    headers: { Authorization: `Bearer ${parley.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ content: "[[mock tokens=3]] refused" }),
  });
  assert.equal(turn.status, 202);
  const { prompt_id: promptId } = await turn.json();
  const minted = await fetch(`${parley.baseUrl}/v1/prompts/${promptId}/feed-token`, {
    method: "POST",
    headers: { Authorization: `Bearer ${parley.adminToken}` },
  });
  assert.equal(minted.status, 200);
  const { events_url: eventsUrl } = await minted.json();
  const outcome = await frame.evaluate((url) => refusedFeed(url), `${parley.baseUrl}${eventsUrl}`);
  assert.equal(outcome, "closed");

  // What the browser saw, asked directly: the preflight is refused with a problem and no
  // CORS headers, and a simple request is served without them.
  const preflight = (origin) =>
    fetch(`${parley.baseUrl}/v1/tools`, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
  const refused = await preflight(other.origin);
  assert.equal(refused.status, 403);
  assert.equal(refused.headers.get("access-control-allow-origin"), null);
  assert.equal(refused.headers.get("access-control-allow-headers"), null);
  assert.equal((await refused.json()).code, "cors_origin_refused");
  const ok = await preflight(allowed.origin);
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get("access-control-allow-origin"), allowed.origin);
  assert.equal(ok.headers.get("access-control-allow-headers"), "authorization");
  const simple = await fetch(`${parley.baseUrl}/v1/tools`, {
    headers: { Origin: other.origin, Authorization: `Bearer ${parley.adminToken}` },
  });
  assert.equal(simple.status, 200);
  assert.equal(simple.headers.get("access-control-allow-origin"), null);
  assert.equal(simple.headers.get("access-control-expose-headers"), null);

  const rows = await page.$$eval("#results tr", (nodes) => nodes.map((n) => [n.dataset.check, n.dataset.ok]));
  assert.ok(rows.length >= 5 && rows.every(([, ok]) => ok === "true"), JSON.stringify(rows));
  const refusedRows = await frame.$$eval("#results tr", (nodes) => nodes.map((n) => [n.dataset.check, n.dataset.ok]));
  assert.deepEqual(refusedRows, [["GET /v1/tools (not allowed)", "true"], ["EventSource (not allowed)", "true"]]);
  await page.screenshot({ path: join(shots, "cors.png"), fullPage: true });
});
