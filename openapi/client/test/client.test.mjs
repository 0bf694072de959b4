// The TypeScript client against a live `parley serve` (the mock LLM as its model): a
// session, edit and regenerate, feedback on an answer and the export, a budget, a streamed turn, a
// structured turn (response_format), a tool turn, cancel, resuming a feed whose connection dropped, the user feed, and
// function calls that wait for approval (approved with edited input, denied, refused
// input, told on the user feed), and a teacher reading their class. Runs the bundle
// (`npm run build`) that the pages use too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  FeedError,
  createParley,
  followPrompt,
  followUserFeed,
  runTurn,
  streamTurn,
} from "../dist/parley.js";
import { startParley } from "../test-support/harness.mjs";

const LONG = "[[mock tokens=200 token_delay_ms=10]] tell me a long story";

let parley;
let client;
let toolId;
/** A tool in the demo's group whose `createTodo` calls wait for approval. */
let approvingToolId;

before(async () => {
  parley = await startParley();
  client = createParley({ baseUrl: parley.baseUrl, token: parley.adminToken });
  const { data, error } = await client.GET("/v1/tools");
  assert.equal(error, undefined);
  const demo = data.items.find((tool) => tool.name === "Demo tutor");
  toolId = demo.id;
  const created = await client.POST("/v1/admin/tools", {
    body: {
      group_id: demo.group_id,
      name: "Approving tutor",
      definition: {
        behavior: "Keep track of things.",
        functions: ["createTodo", "getCurrentTime"],
        approval_required: ["createTodo"],
      },
    },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  assert.deepEqual(created.data.definition.approval_required, ["createTodo"]);
  approvingToolId = created.data.id;
});

after(async () => {
  await parley?.stop();
});

async function newSession(tool = toolId) {
  const { data, error, response } = await client.POST("/v1/sessions", { body: { tool_id: tool } });
  assert.equal(response.status, 201, JSON.stringify(error));
  return data.id;
}

async function collect(events) {
  const out = [];
  for await (const event of events) out.push(event);
  return out;
}

function text(events) {
  return events
    .filter((e) => e.type === "text_delta")
    .map((e) => e.text)
    .join("");
}

/** Seqs 1, 2, 3, … with none missing and none twice. */
function assertGapFree(events) {
  const seqs = events.map((e) => e.seq);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
  );
}

/** A fetch whose first feed connection breaks after `chunks` chunks of its body. */
function droppingFetch(chunks, seen) {
  let dropped = false;
  return async (input, init) => {
    const response = await fetch(input, init);
    seen.push({ url: String(input), lastEventId: new Headers(init?.headers).get("Last-Event-ID") });
    if (dropped || !response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
      return response;
    }
    dropped = true;
    const reader = response.body.getReader();
    let n = 0;
    const body = new ReadableStream({
      async pull(controller) {
        if (n++ >= chunks) {
          await reader.cancel();
          controller.error(new TypeError("the connection dropped"));
          return;
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

test("a session: opened, read, listed; another id is a 404 problem", async () => {
  const id = await newSession();
  const got = await client.GET("/v1/sessions/{id}", { params: { path: { id } } });
  assert.equal(got.data.id, id);
  assert.equal(got.data.tool_id, toolId);
  const list = await client.GET("/v1/sessions", { params: { query: { limit: 100 } } });
  assert.ok(list.data.items.some((s) => s.id === id));
  const missing = await client.GET("/v1/sessions/{id}", {
    params: { path: { id: "01900000-0000-7000-8000-000000000000" } },
  });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.error.code, "not_found");
});

test("edit and regenerate make siblings; a switch moves the active branch", async () => {
  const id = await newSession();
  const send = async (body) => {
    const { data, error, response } = await client.POST("/v1/sessions/{id}/messages", {
      params: { path: { id } },
      body,
      headers: { Accept: "application/json" },
    });
    assert.equal(response.status, 201, JSON.stringify(error));
    return data;
  };
  const shown = async (branch) => {
    const { data } = await client.GET("/v1/sessions/{id}/messages", {
      params: { path: { id }, query: { branch, limit: 100 } },
    });
    return data.items;
  };
  const first = await send({ content: "alpha" });
  const second = await send({ content: "beta" });
  const edited = await send({ content: "gamma", parent_message_id: first.message_id });
  let messages = await shown();
  assert.deepEqual(
    messages.filter((m) => m.role === "user").map((m) => m.content),
    ["alpha", "gamma"],
  );
  assert.equal(messages[2].parent_id, first.message_id);
  assert.deepEqual(messages[2].siblings, [second.parent_id, edited.parent_id]);

  const again = await client.POST("/v1/sessions/{id}/messages/{message_id}/regenerate", {
    params: { path: { id, message_id: edited.message_id } },
    body: {},
    headers: { Accept: "application/json" },
  });
  assert.equal(again.response.status, 201, JSON.stringify(again.error));
  assert.equal(again.data.parent_id, edited.parent_id);
  messages = await shown();
  assert.deepEqual(messages[3].siblings, [edited.message_id, again.data.message_id]);

  const switched = await client.PUT("/v1/sessions/{id}/branch", {
    params: { path: { id } },
    body: { message_id: second.parent_id },
  });
  assert.equal(switched.response.status, 200, JSON.stringify(switched.error));
  assert.equal(switched.data.active_leaf_id, second.message_id);
  messages = await shown();
  assert.deepEqual(
    messages.filter((m) => m.role === "user").map((m) => m.content),
    ["alpha", "beta"],
  );
  assert.equal((await shown(edited.parent_id)).at(-1).id, again.data.message_id);
});

test("a session: titled, renamed, pinned, archived, searched and deleted", async () => {
  const id = await newSession();
  const words = "Photosynthesis questions for my biology homework tonight please";
  const events = await collect(
    streamTurn({ baseUrl: parley.baseUrl, token: parley.adminToken, sessionId: id, content: words }),
  );
  assert.equal(events.at(-1).type, "complete");
  const titled = await client.GET("/v1/sessions/{id}", { params: { path: { id } } });
  assert.equal(titled.data.title, "Photosynthesis questions for my biology homework");
  assert.equal(titled.data.title_source, "words");

  const changed = await client.PATCH("/v1/sessions/{id}", {
    params: { path: { id } },
    body: { title: "Biology", pinned: true, archived: true },
  });
  assert.equal(changed.response.status, 200, JSON.stringify(changed.error));
  assert.deepEqual(
    [changed.data.title, changed.data.title_source, changed.data.pinned, changed.data.archived],
    ["Biology", "user", true, true],
  );
  const archived = await client.GET("/v1/sessions", { params: { query: { archived: true } } });
  assert.deepEqual(
    archived.data.items.map((s) => s.id),
    [id],
  );
  const blank = await client.PATCH("/v1/sessions/{id}", { params: { path: { id } }, body: { title: "  " } });
  assert.equal(blank.response.status, 422);
  assert.equal(blank.error.code, "invalid_title");

  const found = await client.GET("/v1/sessions/search", { params: { query: { q: "PHOTOSYNTHESIS biology" } } });
  assert.equal(found.response.status, 200, JSON.stringify(found.error));
  const hit = found.data.items.find((h) => h.session_id === id);
  assert.equal(hit.title, "Biology");
  assert.match(hit.snippet, /Photosynthesis/);

  const deleted = await client.DELETE("/v1/sessions/{id}", { params: { path: { id } } });
  assert.equal(deleted.response.status, 204);
  const gone = await client.GET("/v1/sessions/{id}", { params: { path: { id } } });
  assert.equal(gone.response.status, 404);
  const after = await client.GET("/v1/sessions/search", { params: { query: { q: "photosynthesis" } } });
  assert.ok(!after.data.items.some((h) => h.session_id === id));
});

test("feedback on an answer: rated, shown, listed by admins, exported as JSONL, withdrawn", async () => {
  const id = await newSession();
  const sent = await client.POST("/v1/sessions/{id}/messages", {
    params: { path: { id } },
    body: { content: "Rate this answer" },
    headers: { Accept: "application/json" },
  });
  assert.equal(sent.response.status, 201, JSON.stringify(sent.error));
  const answer = { id, message_id: sent.data.message_id };
  const given = await client.PUT("/v1/sessions/{id}/messages/{message_id}/feedback", {
    params: { path: answer },
    body: { rating: "up", comment: " Helpful ", tags: ["clear", "clear"] },
  });
  assert.equal(given.response.status, 200, JSON.stringify(given.error));
  assert.deepEqual([given.data.rating, given.data.comment, given.data.tags], ["up", "Helpful", ["clear"]]);
  const notAnswer = await client.PUT("/v1/sessions/{id}/messages/{message_id}/feedback", {
    params: { path: { id, message_id: sent.data.parent_id } },
    body: { rating: "down" },
  });
  assert.equal(notAnswer.response.status, 422);
  assert.equal(notAnswer.error.code, "not_an_answer");

  const shown = await client.GET("/v1/sessions/{id}/messages", { params: { path: { id } } });
  const rated = shown.data.items.find((m) => m.id === sent.data.message_id);
  assert.equal(rated.feedback.rating, "up");
  assert.equal(shown.data.items.find((m) => m.id === sent.data.parent_id).feedback, undefined);

  const listed = await client.GET("/v1/admin/feedback", { params: { query: { rating: "up" } } });
  assert.equal(listed.response.status, 200, JSON.stringify(listed.error));
  const entry = listed.data.items.find((f) => f.message_id === sent.data.message_id);
  assert.equal(entry.comment, "Helpful");
  assert.equal(entry.session_id, id);
  const figures = await client.GET("/v1/admin/feedback/metrics");
  assert.ok(figures.data.by_rating.find((r) => r.rating === "up").count >= 1);

  const exported = await client.GET("/v1/admin/exports/conversations", {
    params: { query: { rating: "up" } },
    parseAs: "text",
  });
  assert.equal(exported.response.status, 200);
  assert.match(exported.response.headers.get("content-type"), /^application\/x-ndjson/);
  const lines = exported.data.trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(lines.length, 1);
  const roles = lines[0].messages.map((m) => m.role);
  assert.deepEqual(roles.slice(-2), ["user", "assistant"]);
  assert.equal(lines[0].messages.at(-2).content, "Rate this answer");

  const withdrawn = await client.DELETE("/v1/sessions/{id}/messages/{message_id}/feedback", {
    params: { path: answer },
  });
  assert.equal(withdrawn.response.status, 204);
  const again = await client.DELETE("/v1/sessions/{id}/messages/{message_id}/feedback", {
    params: { path: answer },
  });
  assert.equal(again.response.status, 404);
});

test("a budget: set by an admin with its spending shown, refuses a turn with 429 budget_exceeded", async () => {
  const tools = await client.GET("/v1/tools");
  const demo = tools.data.items.find((tool) => tool.name === "Demo tutor");
  const group = await client.POST("/v1/admin/groups", {
    body: { name: "Budgeted class", parent_id: demo.group_id, settings: {} },
  });
  assert.equal(group.response.status, 201, JSON.stringify(group.error));
  const tool = await client.POST("/v1/admin/tools", {
    body: { group_id: group.data.id, name: "Budgeted tutor", definition: { behavior: "Help." } },
  });
  assert.equal(tool.response.status, 201, JSON.stringify(tool.error));
  const created = await client.POST("/v1/admin/budgets", {
    body: { subject: "group", subject_id: group.data.id, period: "month", limit: 0 },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  assert.equal(created.response.headers.get("location"), `/v1/admin/budgets/${created.data.id}`);
  assert.deepEqual(
    [created.data.subject_name, created.data.currency, created.data.limit, created.data.spent, created.data.reserved],
    ["Budgeted class", "USD", 0, 0, 0],
  );

  const id = await newSession(tool.data.id);
  const send = () =>
    client.POST("/v1/sessions/{id}/messages", {
      params: { path: { id } },
      body: { content: "Over budget?" },
      headers: { Accept: "application/json" },
    });
  const refused = await send();
  assert.equal(refused.response.status, 429);
  assert.equal(refused.error.code, "budget_exceeded");
  assert.match(refused.error.detail, /your group's budget of 0\.00 USD per month/);
  assert.ok(Number(refused.response.headers.get("retry-after")) > 0);

  const listed = await client.GET("/v1/admin/budgets", { params: { query: { group_id: group.data.id } } });
  assert.deepEqual(listed.data.items.map((b) => b.id), [created.data.id]);
  const changed = await client.PATCH("/v1/admin/budgets/{id}", {
    params: { path: { id: created.data.id } },
    body: { limit: 5 },
  });
  assert.equal(changed.data.limit_micros, 5_000_000);
  assert.equal((await send()).response.status, 201);
  const deleted = await client.DELETE("/v1/admin/budgets/{id}", { params: { path: { id: created.data.id } } });
  assert.equal(deleted.response.status, 204);
});

test("a streamed turn yields its events in order and ends with complete", async () => {
  const sessionId = await newSession();
  const events = await collect(
    streamTurn({ baseUrl: parley.baseUrl, token: parley.adminToken, sessionId, content: "Hello!" }),
  );
  assertGapFree(events);
  const last = events.at(-1);
  assert.equal(last.type, "complete");
  assert.ok(text(events).length > 0);
  assert.equal(last.payload.message, text(events));
  assert.equal(last.model, "mock-model");
  const prompt = await client.GET("/v1/prompts/{id}", { params: { path: { id: last.prompt_id } } });
  assert.equal(prompt.data.state, "completed");
});

test("a turn with a response_format answers JSON of its schema; a schema that is none is a 422 FeedError", async () => {
  const sessionId = await newSession();
  /** @type {import("../dist/parley.js").Schemas["OutputFormat"]} */
  const format = {
    type: "json_schema",
    name: "trip",
    schema: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 2 } },
      required: ["city", "days"],
    },
  };
  const events = await collect(
    streamTurn({
      baseUrl: parley.baseUrl,
      token: parley.adminToken,
      sessionId,
      content: "[[mock reply='{\"city\": 3}']] plan a trip",
      body: { response_format: format },
    }),
  );
  const last = events.at(-1);
  assert.equal(last.type, "complete", JSON.stringify(last));
  // The misfit was taken back unseen: the reader's text is the repaired value.
  assert.deepEqual(JSON.parse(text(events)), { city: "mock", days: 2 });
  assert.equal(last.payload.message, text(events));

  const refused = streamTurn({
    baseUrl: parley.baseUrl,
    token: parley.adminToken,
    sessionId,
    content: "plan",
    body: { response_format: { ...format, schema: { type: "no-such-type" } } },
  });
  await assert.rejects(collect(refused), (err) => {
    assert.ok(err instanceof FeedError);
    assert.equal(err.status, 422);
    assert.equal(err.problem.code, "invalid_response_format");
    return true;
  });
});

test("a tool turn shows the function call and its result", async () => {
  const sessionId = await newSession();
  const events = await collect(
    streamTurn({
      baseUrl: parley.baseUrl,
      token: parley.adminToken,
      sessionId,
      content: "[[mock tool_call='getCurrentTime:{}']] what time is it?",
    }),
  );
  assertGapFree(events);
  const start = events.find((e) => e.type === "tool_start");
  const done = events.find((e) => e.type === "tool_complete");
  assert.equal(start.tool, "getCurrentTime");
  assert.equal(done.state, "success");
  assert.equal(done.tool_use_id, start.tool_use_id);
  const last = events.at(-1);
  assert.equal(last.type, "complete");
  assert.equal(last.payload.tool_history.length, 1);
  assert.equal(last.payload.tool_history[0].tool_name, "getCurrentTime");
  assert.ok(text(events).startsWith("[[tool:0]]"), text(events));
});

/** The caller's dictionary: `lookup` answers JSON of its `returns`; `define` throws. */
function dictionary(calls) {
  const word = { type: "object", properties: { word: { type: "string" } }, required: ["word"] };
  return [
    {
      name: "lookup",
      description: "Looks a word up in the caller's dictionary.",
      parameters: word,
      returns: { type: "object", properties: { meaning: { type: "string" } }, required: ["meaning"] },
      run(input) {
        calls.push(["lookup", input]);
        return { meaning: input.word === "gato" ? "cat" : "?" };
      },
    },
    {
      name: "define",
      parameters: word,
      async run(input) {
        calls.push(["define", input]);
        throw new Error("the dictionary is offline");
      },
    },
  ];
}

test("runTurn runs the caller's function when the model calls it and the model reads its result", async () => {
  const sessionId = await newSession();
  const calls = [];
  const events = await collect(
    runTurn({
      baseUrl: parley.baseUrl,
      token: parley.adminToken,
      sessionId,
      content: `[[mock tool_call='lookup:{"word": "gato"}']] what is gato?`,
      functions: dictionary(calls),
    }),
  );
  assert.deepEqual(calls, [["lookup", { word: "gato" }]]);
  const requested = events.filter((e) => e.type === "client_call_requested");
  assert.equal(requested.length >= 1, true, JSON.stringify(events.map((e) => e.type)));
  assert.equal(requested[0].tool, "lookup");
  const last = events.at(-1);
  assert.equal(last.type, "complete", JSON.stringify(last));
  const history = last.payload.tool_history;
  assert.equal(history.length, 1, JSON.stringify(history));
  assert.equal(history[0].tool_name, "lookup");
  assert.deepEqual(history[0].output, { meaning: "cat" });
  // The mock answers with the result it was given.
  assert.match(last.payload.message, /cat/);

  // The call as stored: answered by the caller, with its result.
  const { data: prompt } = await client.GET("/v1/prompts/{id}", {
    params: { path: { id: requested[0].prompt_id } },
  });
  assert.equal(prompt.state, "completed");
});

test("runTurn posts a function that throws as its error, and the model is told", async () => {
  const sessionId = await newSession();
  const calls = [];
  const events = await collect(
    runTurn({
      baseUrl: parley.baseUrl,
      token: parley.adminToken,
      sessionId,
      content: `[[mock tool_call='define:{"word": "gato"}']] define gato`,
      functions: dictionary(calls),
    }),
  );
  assert.deepEqual(calls, [["define", { word: "gato" }]]);
  const last = events.at(-1);
  assert.equal(last.type, "complete", JSON.stringify(last));
  const done = events.filter((e) => e.type === "tool_complete");
  assert.equal(done.at(-1).state, "error", JSON.stringify(done));
  assert.match(last.payload.message, /the dictionary is offline/);

  // A function that clashes with the tool's own is refused before anything runs.
  const clash = runTurn({
    baseUrl: parley.baseUrl,
    token: parley.adminToken,
    sessionId,
    content: "what time is it?",
    functions: [{ name: "getCurrentTime", run: () => "noon" }],
  });
  await assert.rejects(collect(clash), (err) => {
    assert.ok(err instanceof FeedError);
    assert.equal(err.status, 422);
    assert.equal(err.problem.code, "invalid_client_function");
    return true;
  });
});

test("cancel stops the stream with cancelled and keeps the partial answer", async () => {
  const sessionId = await newSession();
  const events = [];
  let cancelled = false;
  for await (const event of streamTurn({
    baseUrl: parley.baseUrl,
    token: parley.adminToken,
    sessionId,
    content: LONG,
  })) {
    events.push(event);
    if (event.type === "text_delta" && !cancelled) {
      cancelled = true;
      const { response } = await client.POST("/v1/prompts/{id}/cancel", {
        params: { path: { id: event.prompt_id } },
      });
      assert.equal(response.status, 202);
    }
  }
  assertGapFree(events);
  assert.equal(events.at(-1).type, "cancelled");
  assert.ok(text(events).split(" ").length < 200, "the stream stopped early");
  const prompt = await client.GET("/v1/prompts/{id}", {
    params: { path: { id: events[0].prompt_id } },
  });
  assert.equal(prompt.data.state, "canceled");
});

test("a dropped feed resumes with Last-Event-ID and a fresh feed token", async () => {
  const sessionId = await newSession();
  const accepted = await client.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: sessionId }, query: { background: true } },
    body: { content: LONG },
  });
  assert.equal(accepted.response.status, 202);
  const promptId = accepted.data.prompt_id;
  let tokens = 0;
  const feedToken = async () => {
    tokens += 1;
    const { data } = await client.POST("/v1/prompts/{id}/feed-token", {
      params: { path: { id: promptId } },
    });
    return data.token;
  };
  const seen = [];
  const events = await collect(
    followPrompt({
      baseUrl: parley.baseUrl,
      promptId,
      feedToken,
      retryDelayMs: 50,
      fetch: droppingFetch(3, seen),
    }),
  );
  assertGapFree(events);
  assert.equal(events.at(-1).type, "complete");
  assert.ok(seen.length >= 2, "it connected again");
  assert.equal(seen[0].lastEventId, null);
  assert.ok(Number(seen[1].lastEventId) > 0, "the second connection resumed after what it had");
  assert.ok(tokens >= 2, "each connection got a fresh feed token");
  assert.ok(seen.every((s) => s.url.includes("access_token=")));

  // A reader that holds the last event gets 204: nothing more to follow.
  const rest = await collect(
    followPrompt({
      baseUrl: parley.baseUrl,
      promptId,
      token: parley.adminToken,
      after: events.at(-1).seq,
    }),
  );
  assert.deepEqual(rest, []);
});

test("a turn whose POST stream drops continues through the prompt's feed", async () => {
  const sessionId = await newSession();
  const seen = [];
  const events = await collect(
    streamTurn({
      baseUrl: parley.baseUrl,
      token: parley.adminToken,
      sessionId,
      content: LONG,
      retryDelayMs: 50,
      fetch: droppingFetch(4, seen),
    }),
  );
  assertGapFree(events);
  assert.equal(events.at(-1).type, "complete");
  assert.ok(seen.some((s) => s.url.includes("/events")), "the rest came from the feed");
});

test("a feed of someone else's prompt is a FeedError with its problem", async () => {
  await assert.rejects(
    collect(
      followPrompt({
        baseUrl: parley.baseUrl,
        promptId: "01900000-0000-7000-8000-000000000000",
        token: parley.adminToken,
      }),
    ),
    (err) => err instanceof FeedError && err.status === 404 && err.problem.code === "not_found",
  );
});

/** The next event of `events` that `wanted` accepts (others skipped). */
async function until(events, wanted) {
  for (;;) {
    const { done, value } = await events.next();
    assert.ok(!done, "the user feed goes on");
    if (wanted(value)) return value;
  }
}

test("the user feed tells a session and its turn, and resumes after the last event", async () => {
  const abort = new AbortController();
  const feedToken = async () => {
    const { data, response } = await client.POST("/v1/feed/token");
    assert.equal(response.status, 200);
    return data.token;
  };
  const feed = followUserFeed({ baseUrl: parley.baseUrl, feedToken, signal: abort.signal });
  const sessionId = await newSession();
  const created = await until(feed, (e) => e.type === "session_created" && e.session_id === sessionId);
  assert.ok(created.seq > 0);
  await collect(streamTurn({ baseUrl: parley.baseUrl, token: parley.adminToken, sessionId, content: "hi" }));
  const started = await until(feed, (e) => e.type === "turn_started" && e.session_id === sessionId);
  const finished = await until(feed, (e) => e.type === "turn_finished" && e.prompt_id === started.prompt_id);
  assert.equal(finished.state, "completed");
  assert.ok(finished.seq > started.seq && started.seq > created.seq);

  // Another tab, resuming after the session's creation, gets the turn next.
  const again = followUserFeed({
    baseUrl: parley.baseUrl,
    token: parley.adminToken,
    after: created.seq,
    signal: abort.signal,
  });
  const next = (await again.next()).value;
  assert.deepEqual([next.type, next.seq], ["turn_started", started.seq]);
  abort.abort();

  // A prompt's feed token does not open the user feed.
  const { data } = await client.POST("/v1/prompts/{id}/feed-token", {
    params: { path: { id: started.prompt_id } },
  });
  await assert.rejects(
    followUserFeed({ baseUrl: parley.baseUrl, feedToken: data.token }).next(),
    (err) => err instanceof FeedError && err.status === 401,
  );
});

// Function calls that wait for approval: the approving tool's `createTodo`, asked for by
// the mock. GET /v1/todos (the caller's todos) shows whether a call ran.

const ASKS = `[[mock tool_call='createTodo:{"title": "buy milk"}']] remind me`;

async function todoTitles() {
  const { data, error, response } = await client.GET("/v1/todos", { params: { query: { limit: 100 } } });
  assert.equal(response.status, 200, JSON.stringify(error));
  return data.items.map((t) => t.title);
}

/** The calls of `promptId` that wait for the caller's approval. */
async function waitingCalls(promptId) {
  const { data, error, response } = await client.GET("/v1/approvals");
  assert.equal(response.status, 200, JSON.stringify(error));
  return data.items.filter((call) => call.prompt_id === promptId);
}

/** `approve` or `deny` a waiting call (`body`: `{ input }` or `{ reason }`). */
function decide(decision, promptId, callId, body) {
  const params = { path: { id: promptId, call_id: callId } };
  return decision === "approve"
    ? client.POST("/v1/prompts/{id}/calls/{call_id}/approve", { params, body })
    : client.POST("/v1/prompts/{id}/calls/{call_id}/deny", { params, body });
}

/**
 * Sends {@link ASKS} in the background on a session of the approving tool and follows
 * the prompt's feed up to `approval_requested`: the feed (still open), what it gave so
 * far and the request.
 */
async function untilApproval() {
  const sessionId = await newSession(approvingToolId);
  const accepted = await client.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: sessionId }, query: { background: true } },
    body: { content: ASKS },
  });
  assert.equal(accepted.response.status, 202, JSON.stringify(accepted.error));
  const promptId = accepted.data.prompt_id;
  const feed = followPrompt({ baseUrl: parley.baseUrl, promptId, token: parley.adminToken });
  const seen = [];
  for (;;) {
    const { done, value } = await feed.next();
    assert.ok(!done, `the feed ended before the request: ${JSON.stringify(seen)}`);
    seen.push(value);
    if (value.type === "approval_requested") return { sessionId, promptId, feed, seen, request: value };
  }
}

test("an approved call runs once with the edited input, and the turn completes", async () => {
  const before = await todoTitles();
  const { sessionId, promptId, feed, seen, request } = await untilApproval();
  assert.equal(request.tool, "createTodo");
  assert.deepEqual(request.input, { title: "buy milk" });
  assert.ok(!Number.isNaN(Date.parse(request.expires_at)), request.expires_at);
  assert.deepEqual(
    seen.filter((e) => e.type === "prompt_state").map((e) => e.state),
    ["in_progress", "waiting_for_tools"],
  );
  assert.ok(!seen.some((e) => e.type === "tool_complete"));

  // Suspended: nothing ran, the prompt waits, the call is listed.
  assert.deepEqual(await todoTitles(), before);
  const prompt = await client.GET("/v1/prompts/{id}", { params: { path: { id: promptId } } });
  assert.equal(prompt.data.state, "waiting_for_tools");
  const listed = await waitingCalls(promptId);
  assert.equal(listed.length, 1);
  assert.deepEqual(
    [listed[0].id, listed[0].session_id, listed[0].function, listed[0].state],
    [request.call_id, sessionId, "createTodo", "awaiting_approval"],
  );
  assert.deepEqual(listed[0].input, { title: "buy milk" });
  assert.ok(listed[0].approval_expires_at);

  const approved = await decide("approve", promptId, request.call_id, { input: { title: "buy oat milk" } });
  assert.equal(approved.response.status, 200, JSON.stringify(approved.error));
  assert.equal(approved.data.state, "approved");
  assert.deepEqual(approved.data.input, { title: "buy oat milk" });
  assert.deepEqual(approved.data.requested_input, { title: "buy milk" });
  assert.ok(approved.data.decided_at && approved.data.decided_by);
  const twice = await decide("approve", promptId, request.call_id, {});
  assert.equal(twice.response.status, 409);
  assert.equal(twice.error.code, "not_awaiting_approval");

  const rest = await collect(feed);
  assertGapFree([...seen, ...rest]);
  const retry = rest.findLastIndex((e) => e.type === "retry");
  assert.ok(retry >= 0, "the turn resumed as a new attempt");
  const resumed = rest.slice(retry + 1);
  const done = resumed.filter((e) => e.type === "tool_complete");
  assert.equal(done.length, 1, JSON.stringify(resumed));
  assert.equal(done[0].state, "success");
  const last = rest.at(-1);
  assert.equal(last.type, "complete");
  assert.deepEqual(last.payload.tool_history[0].input, { title: "buy oat milk" });
  assert.ok(text(resumed).startsWith("[[tool:0]]"), text(resumed));

  const after = await todoTitles();
  assert.deepEqual(after.filter((t) => !before.includes(t)), ["buy oat milk"], "the call ran once, as approved");
  assert.equal(after.length, before.length + 1);
  assert.deepEqual(await waitingCalls(promptId), []);
  const finished = await client.GET("/v1/prompts/{id}", { params: { path: { id: promptId } } });
  assert.equal(finished.data.state, "completed");
});

test("a denied call never runs: tool_complete says denied, and the user feed tells it", async () => {
  const before = await todoTitles();
  const abort = new AbortController();
  const userFeed = followUserFeed({ baseUrl: parley.baseUrl, token: parley.adminToken, signal: abort.signal });
  const sessionId = await newSession(approvingToolId);
  await until(userFeed, (e) => e.type === "session_created" && e.session_id === sessionId);
  const events = [];
  let denied;
  // The turn streams through the POST; the call is denied while it waits.
  for await (const event of streamTurn({
    baseUrl: parley.baseUrl,
    token: parley.adminToken,
    sessionId,
    content: ASKS,
  })) {
    events.push(event);
    if (event.type === "approval_requested") {
      const requested = await until(userFeed, (e) => e.type === "approval_requested" && e.call_id === event.call_id);
      assert.deepEqual(
        [requested.session_id, requested.prompt_id, requested.function],
        [sessionId, event.prompt_id, "createTodo"],
      );
      denied = await decide("deny", event.prompt_id, event.call_id, { reason: "I already have milk" });
      assert.equal(denied.response.status, 200, JSON.stringify(denied.error));
    }
  }
  assert.ok(denied, "the call waited for approval");
  assert.equal(denied.data.state, "denied");
  assert.equal(denied.data.decision_reason, "I already have milk");
  assert.ok(denied.data.decided_at && denied.data.decided_by);
  const resolved = await until(userFeed, (e) => e.type === "approval_resolved" && e.call_id === denied.data.id);
  abort.abort();
  assert.equal(resolved.approved, false);
  assert.ok(!resolved.expired);

  assertGapFree(events);
  assert.ok(events.some((e) => e.type === "retry"));
  const done = events.filter((e) => e.type === "tool_complete");
  assert.equal(done.length, 1, JSON.stringify(events));
  assert.equal(done[0].state, "denied");
  assert.equal(events.at(-1).type, "complete");
  assert.deepEqual(await todoTitles(), before, "a denied call never runs");
  const again = await decide("approve", denied.data.prompt_id, denied.data.id, {});
  assert.equal(again.response.status, 409);
  assert.equal(again.error.code, "not_awaiting_approval");
});

test("edited input that does not fit is a 422 problem and the call still waits", async () => {
  const before = await todoTitles();
  const { promptId, feed, request } = await untilApproval();
  const wrong = await decide("approve", promptId, request.call_id, { input: { title: 5 } });
  assert.equal(wrong.response.status, 422);
  assert.match(wrong.response.headers.get("content-type"), /^application\/problem\+json/);
  assert.equal(wrong.error.code, "invalid_approval_input");
  assert.equal(wrong.error.status, 422);
  assert.ok(wrong.error.detail);
  assert.equal((await waitingCalls(promptId))[0]?.state, "awaiting_approval");
  assert.deepEqual(await todoTitles(), before);

  // Someone else's prompt: 404, and their list of approvals is empty.
  const user = await client.POST("/v1/admin/users", {
    body: { email: `other-${Date.now()}@example.com`, name: "Other", role: "student" },
  });
  assert.equal(user.response.status, 201, JSON.stringify(user.error));
  const minted = await client.POST("/v1/admin/users/{id}/tokens", {
    params: { path: { id: user.data.id } },
    body: { name: "client test" },
  });
  assert.equal(minted.response.status, 201, JSON.stringify(minted.error));
  const other = createParley({ baseUrl: parley.baseUrl, token: minted.data.secret });
  const theirs = await other.POST("/v1/prompts/{id}/calls/{call_id}/approve", {
    params: { path: { id: promptId, call_id: request.call_id } },
    body: {},
  });
  assert.equal(theirs.response.status, 404);
  assert.equal(theirs.error.code, "not_found");
  assert.deepEqual((await other.GET("/v1/approvals")).data.items, []);

  // Approved as asked (no input): it runs with the model's arguments.
  const approved = await decide("approve", promptId, request.call_id, {});
  assert.equal(approved.response.status, 200, JSON.stringify(approved.error));
  assert.deepEqual(approved.data.input, { title: "buy milk" });
  assert.equal(approved.data.requested_input, undefined);
  const rest = await collect(feed);
  assert.equal(rest.filter((e) => e.type === "tool_complete")[0]?.state, "success");
  assert.equal(rest.at(-1).type, "complete");
  assert.equal((await todoTitles()).length, before.length + 1);
});

test("the user feed tells an approval requested and resolved; approving from it resumes the turn", async () => {
  const abort = new AbortController();
  const feedToken = async () => (await client.POST("/v1/feed/token")).data.token;
  const userFeed = followUserFeed({ baseUrl: parley.baseUrl, feedToken, signal: abort.signal });
  const sessionId = await newSession(approvingToolId);
  const created = await until(userFeed, (e) => e.type === "session_created" && e.session_id === sessionId);
  const accepted = await client.POST("/v1/sessions/{id}/messages", {
    params: { path: { id: sessionId }, query: { background: true } },
    body: { content: ASKS },
  });
  assert.equal(accepted.response.status, 202, JSON.stringify(accepted.error));
  const promptId = accepted.data.prompt_id;

  // Another device, which only follows the user feed, decides the call.
  const requested = await until(userFeed, (e) => e.type === "approval_requested" && e.session_id === sessionId);
  assert.equal(requested.prompt_id, promptId);
  assert.equal(requested.function, "createTodo");
  assert.deepEqual(requested.input, { title: "buy milk" });
  assert.ok(!Number.isNaN(Date.parse(requested.expires_at)), requested.expires_at);
  assert.ok(requested.seq > created.seq);
  const approved = await decide("approve", promptId, requested.call_id, { input: { title: "buy bread" } });
  assert.equal(approved.response.status, 200, JSON.stringify(approved.error));
  const resolved = await until(userFeed, (e) => e.type === "approval_resolved" && e.call_id === requested.call_id);
  assert.deepEqual(
    [resolved.session_id, resolved.prompt_id, resolved.approved, resolved.expired ?? false],
    [sessionId, promptId, true, false],
  );
  assert.ok(resolved.seq > requested.seq);
  const finished = await until(userFeed, (e) => e.type === "turn_finished" && e.prompt_id === promptId);
  assert.equal(finished.state, "completed");
  abort.abort();

  // The prompt's feed, read from the start, tells the same story.
  const events = await collect(followPrompt({ baseUrl: parley.baseUrl, promptId, token: parley.adminToken }));
  assertGapFree(events);
  const asked = events.find((e) => e.type === "approval_requested");
  assert.equal(asked.call_id, requested.call_id);
  assert.equal(asked.index, 0);
  assert.ok(asked.tool_use_id);
  assert.equal(events.at(-1).type, "complete");
  assert.ok((await todoTitles()).includes("buy bread"));
});

test("a teacher reads the class they teach through the teaching routes; another class is a 404 problem", async () => {
  const tools = await client.GET("/v1/tools");
  const groupId = tools.data.items.find((tool) => tool.name === "Demo tutor").group_id;
  const made = await client.POST("/v1/admin/users", {
    body: { email: `teacher-${Date.now()}@example.com`, name: "Tess", role: "teacher" },
  });
  assert.equal(made.response.status, 201, JSON.stringify(made.error));
  const minted = await client.POST("/v1/admin/users/{id}/tokens", {
    params: { path: { id: made.data.id } },
    body: { name: "client test" },
  });
  const teacher = createParley({ baseUrl: parley.baseUrl, token: minted.data.secret });
  const klass = async (name) => (await client.POST("/v1/admin/classes", { body: { group_id: groupId, name } })).data.id;
  const mine = await klass("Client Maths");
  const other = await klass("Client Art");
  await client.PUT("/v1/admin/classes/{id}/enrollments/{user_id}", {
    params: { path: { id: mine, user_id: made.data.id } },
    body: { role: "teacher" },
  });
  await client.POST("/v1/admin/assignments", { body: { class_id: mine, tool_id: toolId, title: "Fractions" } });

  const listed = await teacher.GET("/v1/teaching/classes");
  assert.equal(listed.response.status, 200, JSON.stringify(listed.error));
  assert.deepEqual(
    listed.data.items.map((c) => [c.name, c.students, c.assignments]),
    [["Client Maths", 0, 1]],
  );
  const detail = await teacher.GET("/v1/teaching/classes/{id}", { params: { path: { id: mine } } });
  assert.deepEqual(detail.data.assignments.map((a) => [a.title, a.tool_name]), [["Fractions", "Demo tutor"]]);
  assert.deepEqual(detail.data.teachers.map((t) => t.name), ["Tess"]);
  const sessions = await teacher.GET("/v1/teaching/classes/{id}/sessions", { params: { path: { id: mine } } });
  assert.deepEqual(sessions.data.items, []);

  const theirs = await teacher.GET("/v1/teaching/classes/{id}/blocks", { params: { path: { id: other } } });
  assert.equal(theirs.response.status, 404);
  assert.match(theirs.response.headers.get("content-type"), /^application\/problem\+json/);
  assert.equal(theirs.error.code, "not_found");
  // The admin is enrolled nowhere: they teach nothing here (the admin API reads all).
  assert.deepEqual((await client.GET("/v1/teaching/classes")).data.items, []);
});
