// Parley's OpenAI-compatible surface (/openai/v1) through the official `openai` npm package,
// against a live `parley serve` with the mock LLM as its model: models, chat completions
// (plain, streamed, a function call, history), the Responses API (create, stream, drop and
// resume, previous_response_id, background, cancel) and errors.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import OpenAI from "openai";

import {
  CHATCMPL_ID,
  PROMPT_LOCATION,
  RESP_ID,
  TIME_CALL,
  collect,
  consecutive,
  slow,
  startParley,
  tokensText,
  waitForStatus,
  words,
} from "../test-support/harness.mjs";

const MESSAGES = [
  { role: "system", content: "Answer briefly." },
  { role: "user", content: "hello there" },
];

let parley;
let client;
let toolId;

before(async () => {
  parley = await startParley();
  client = parley.client();
  const tools = await parley.native("/v1/tools");
  toolId = tools.items.find((tool) => tool.name === "Demo tutor").id;
});

after(async () => {
  await parley?.stop();
});

/** The server's log tail, for assertion messages. */
const log = () => `\n--- parley log (tail) ---\n${parley.log().slice(-4000)}`;

// ---------------------------------------------------------------- models

test("models.list offers the tool, then the model", async () => {
  const models = await collect(client.models.list());
  const ids = models.map((m) => m.id);
  const tool = `tool:${toolId}`;
  assert.ok(ids.includes(tool), `${ids}`);
  assert.ok(ids.includes("mock-model"), `${ids}`);
  assert.ok(ids.indexOf(tool) < ids.indexOf("mock-model"), "the tools come first");
  const toolModel = models[ids.indexOf(tool)];
  assert.equal(toolModel.object, "model");
  assert.equal(toolModel.owned_by, "parley");
  assert.ok(Number.isInteger(toolModel.created) && toolModel.created > 0);
  assert.equal(toolModel.name, "Demo tutor");
  const model = models[ids.indexOf("mock-model")];
  assert.equal(model.object, "model");
  assert.equal(model.owned_by, "parley");
  assert.ok(Number.isInteger(model.created));
});

// ---------------------------------------------------------------- chat completions

test("a non-streamed chat completion", async () => {
  const { data: completion, response } = await client.chat.completions
    .create({ model: "mock-model", messages: MESSAGES })
    .withResponse();
  assert.match(response.headers.get("location") ?? "", PROMPT_LOCATION);
  assert.match(completion.id, CHATCMPL_ID);
  assert.equal(completion.object, "chat.completion");
  assert.ok(Number.isInteger(completion.created));
  assert.ok(completion.model);
  assert.equal(completion.choices.length, 1);
  const [choice] = completion.choices;
  assert.equal(choice.index, 0);
  assert.equal(choice.finish_reason, "stop");
  assert.equal(choice.message.role, "assistant");
  assert.equal(choice.message.content, "Echo: hello there");
  assert.ok(!choice.message.tool_calls?.length);
  const { usage } = completion;
  assert.equal(usage.completion_tokens, 3, "the mock's tokens: 'Echo:', ' hello', ' there'");
  assert.ok(usage.prompt_tokens > 0);
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
});

test("a tool:<uuid> model id, developer message and content parts", async () => {
  const completion = await client.chat.completions.create({
    model: `tool:${toolId}`,
    messages: [
      { role: "developer", content: [{ type: "text", text: "Answer briefly." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "hello" },
          { type: "text", text: "there" },
        ],
      },
    ],
    temperature: 0.2, // sent to the model
    user: "sdk-test",
  });
  assert.equal(completion.choices[0].message.content, "Echo: hello there");
  assert.equal(completion.choices[0].finish_reason, "stop");
});

test("a streamed chat completion matches the non-streamed one, with usage", async () => {
  const plain = await client.chat.completions.create({ model: "mock-model", messages: MESSAGES });
  const chunks = await collect(
    await client.chat.completions.create({
      model: "mock-model",
      messages: MESSAGES,
      stream: true,
      stream_options: { include_usage: true },
    }),
  );
  assert.ok(chunks.length > 0);
  const ids = new Set(chunks.map((c) => c.id));
  assert.equal(ids.size, 1);
  assert.match([...ids][0], CHATCMPL_ID);
  assert.ok(chunks.every((c) => c.object === "chat.completion.chunk"));
  assert.equal(chunks[0].choices[0].delta.role, "assistant");

  const withChoices = chunks.filter((c) => c.choices.length > 0);
  const content = withChoices.map((c) => c.choices[0].delta.content ?? "").join("");
  assert.equal(content, plain.choices[0].message.content);
  assert.equal(content, "Echo: hello there");
  assert.deepEqual(
    withChoices.map((c) => c.choices[0].finish_reason).filter(Boolean),
    ["stop"],
  );
  assert.ok(withChoices.every((c) => !c.choices[0].delta.tool_calls?.length));

  const last = chunks.at(-1);
  assert.deepEqual(last.choices, [], "include_usage: the last chunk has no choices");
  assert.ok(last.usage);
  assert.equal(last.usage.completion_tokens, plain.usage.completion_tokens);
  assert.equal(last.usage.total_tokens, last.usage.prompt_tokens + last.usage.completion_tokens);
  assert.ok(chunks.slice(0, -1).every((c) => c.usage == null));
});

test("the chat stream helper builds the final completion", async () => {
  const stream = client.chat.completions.stream({ model: "mock-model", messages: MESSAGES });
  const final = await stream.finalChatCompletion();
  assert.equal(final.choices[0].message.content, "Echo: hello there");
  assert.equal(final.choices[0].finish_reason, "stop");
});

test("without include_usage there is no usage chunk", async () => {
  const chunks = await collect(
    await client.chat.completions.create({ model: "mock-model", messages: MESSAGES, stream: true }),
  );
  assert.ok(chunks.every((c) => c.choices.length > 0));
  assert.ok(chunks.every((c) => c.usage == null));
});

test("a function call runs in Parley and the answer is text", async () => {
  const messages = [{ role: "user", content: TIME_CALL }];
  const completion = await client.chat.completions.create({ model: "mock-model", messages });
  const [choice] = completion.choices;
  assert.equal(choice.finish_reason, "stop");
  assert.ok(!choice.message.tool_calls?.length);
  assert.ok(choice.message.content.includes("Europe/Paris"), choice.message.content);

  const chunks = await collect(await client.chat.completions.create({ model: "mock-model", messages, stream: true }));
  const withChoices = chunks.filter((c) => c.choices.length > 0);
  assert.ok(withChoices.every((c) => !c.choices[0].delta.tool_calls?.length));
  assert.deepEqual(
    withChoices.map((c) => c.choices[0].finish_reason).filter(Boolean),
    ["stop"],
  );
  const content = withChoices.map((c) => c.choices[0].delta.content ?? "").join("");
  assert.ok(content.includes("Europe/Paris"), content);
});

test("earlier messages become the session's history", async () => {
  // The mock counts the words of every message it is sent as prompt tokens, so the
  // imported history shows as the difference from the same question without it.
  const fresh = await client.chat.completions.create({
    model: "mock-model",
    messages: [{ role: "user", content: "gamma delta" }],
  });
  const answer = await client.chat.completions.create({
    model: "mock-model",
    messages: [
      { role: "user", content: "alpha beta" },
      { role: "assistant", content: "Echo: alpha beta" },
      { role: "user", content: "gamma delta" },
    ],
  });
  assert.equal(answer.choices[0].message.content, "Echo: gamma delta");
  assert.equal(
    answer.usage.prompt_tokens - fresh.usage.prompt_tokens,
    words("alpha beta") + words("Echo: alpha beta"),
  );
});

test("a Parley-Conversation key keeps the server's history", async () => {
  const headers = { "Parley-Conversation": `node-${randomUUID().slice(0, 16)}` };
  const fresh = await client.chat.completions.create({
    model: "mock-model",
    messages: [{ role: "user", content: "gamma delta" }],
  });
  const first = await client.chat.completions.create(
    { model: "mock-model", messages: [{ role: "user", content: "alpha beta" }] },
    { headers },
  );
  assert.equal(first.choices[0].message.content, "Echo: alpha beta");
  // Later requests with the key send only their last user message: the made-up history
  // here is ignored, the server's is used.
  const second = await client.chat.completions.create(
    {
      model: "mock-model",
      messages: [
        { role: "user", content: "made up words that never happened" },
        { role: "assistant", content: "nor did these" },
        { role: "user", content: "gamma delta" },
      ],
    },
    { headers },
  );
  assert.equal(second.choices[0].message.content, "Echo: gamma delta");
  assert.equal(
    second.usage.prompt_tokens - fresh.usage.prompt_tokens,
    words("alpha beta") + words("Echo: alpha beta"),
  );
});

test("the last message must be the user's: 400", async () => {
  await assert.rejects(
    client.chat.completions.create({
      model: "mock-model",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
      ],
    }),
    (err) =>
      err instanceof OpenAI.BadRequestError &&
      err.status === 400 &&
      err.type === "invalid_request_error" &&
      err.code === "last_message_not_user" &&
      /does not continue a prefilled answer/.test(err.message),
  );
});

// ---------------------------------------------------------------- responses

test("responses.create waits for the answer; retrieve returns it", async () => {
  const response = await client.responses.create({
    model: "mock-model",
    input: "hello there",
    instructions: "Answer briefly.",
  });
  assert.match(response.id, RESP_ID);
  assert.equal(response.object, "response");
  assert.equal(response.status, "completed", log());
  assert.ok(response.created_at > 0);
  assert.equal(response.output_text, "Echo: hello there");
  const messages = response.output.filter((item) => item.type === "message");
  assert.equal(messages.length, 1);
  const [message] = messages;
  assert.equal(message.role, "assistant");
  assert.equal(message.status, "completed");
  assert.ok(message.id);
  assert.deepEqual(
    message.content.map((p) => p.type),
    ["output_text"],
  );
  assert.deepEqual(message.content[0].annotations, []);
  assert.equal(response.error, null);
  assert.equal(response.usage.output_tokens, 3);
  assert.ok(response.usage.input_tokens > 0);
  assert.equal(response.usage.total_tokens, response.usage.input_tokens + response.usage.output_tokens);

  const again = await client.responses.retrieve(response.id);
  assert.equal(again.id, response.id);
  assert.equal(again.status, "completed");
  assert.equal(again.output_text, response.output_text);

  const listed = await client.responses.create({
    model: "mock-model",
    input: [{ role: "user", content: [{ type: "input_text", text: "hello there" }] }],
  });
  assert.equal(listed.output_text, "Echo: hello there");
});

test("a response stream numbers its events from 0 and the helper accumulates them", async () => {
  const stream = client.responses.stream({ model: "mock-model", input: "hello there" });
  const events = await collect(stream);
  const final = await stream.finalResponse();
  assert.equal(events[0].type, "response.created");
  assert.ok(consecutive(events.map((e) => e.sequence_number), 0), `${events.map((e) => e.sequence_number)}`);
  assert.equal(events.at(-1).type, "response.completed");
  const types = events.map((e) => e.type);
  for (const expected of [
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
  ]) {
    assert.ok(types.includes(expected), `${expected} missing from ${types}`);
  }
  const text = events
    .filter((e) => e.type === "response.output_text.delta")
    .map((e) => e.delta)
    .join("");
  assert.equal(text, "Echo: hello there");
  assert.equal(final.output_text, "Echo: hello there");
  assert.equal(final.status, "completed");
});

test("a function call is an mcp_call output item", async () => {
  const response = await client.responses.create({ model: "mock-model", input: TIME_CALL });
  assert.equal(response.status, "completed", log());
  const calls = response.output.filter((item) => item.type === "mcp_call");
  assert.equal(calls.length, 1, `${response.output.map((i) => i.type)}`);
  const [call] = calls;
  assert.equal(call.server_label, "parley");
  assert.equal(call.name, "getCurrentTime");
  assert.ok(call.arguments.includes("Europe/Paris"));
  assert.ok((call.output ?? "").includes("Europe/Paris"));
  assert.ok(!call.error);
  const lastMessage = response.output.findLastIndex((item) => item.type === "message");
  assert.ok(response.output.indexOf(call) < lastMessage, "the call comes before the answer");
  assert.ok(response.output_text.includes("Europe/Paris"));

  const stream = client.responses.stream({ model: "mock-model", input: TIME_CALL });
  const events = await collect(stream);
  const final = await stream.finalResponse();
  const types = events.map((e) => e.type);
  assert.ok(types.includes("response.mcp_call.completed"), `${types}`);
  const added = events.filter((e) => e.type === "response.output_item.added");
  assert.equal(added[0].item.type, "mcp_call");
  assert.ok(consecutive(added.map((e) => e.output_index), 0));
  assert.equal(final.output.filter((item) => item.type === "mcp_call").length, 1);
  assert.equal(final.output.find((item) => item.type === "mcp_call").status, "completed");
});

test("a background stream dropped after a few events resumes with starting_after", async () => {
  const n = 40;
  const stream = await client.responses.create({
    model: "mock-model",
    input: slow(n, 50),
    background: true,
    stream: true,
  });
  const first = [];
  for await (const event of stream) {
    first.push(event);
    if (first.filter((e) => e.type === "response.output_text.delta").length >= 3) break; // drops the connection
  }
  assert.equal(first[0].type, "response.created");
  const id = first[0].response.id;
  assert.match(id, RESP_ID);
  assert.ok(consecutive(first.map((e) => e.sequence_number), 0), `${first.map((e) => e.sequence_number)}`);
  const lastSeen = first.at(-1).sequence_number;

  const rest = await collect(await client.responses.retrieve(id, { stream: true, starting_after: lastSeen }));
  assert.ok(rest.length > 0, "nothing after the drop");
  assert.ok(consecutive(rest.map((e) => e.sequence_number), lastSeen + 1), `${rest.map((e) => e.sequence_number)}`);
  assert.equal(rest.at(-1).type, "response.completed");
  assert.ok(
    rest.some((e) => e.type === "response.output_text.delta"),
    "resumed while the turn was still running",
  );

  const text = [...first, ...rest]
    .filter((e) => e.type === "response.output_text.delta")
    .map((e) => e.delta)
    .join("");
  assert.equal(text, tokensText(n));
  const final = await client.responses.retrieve(id);
  assert.equal(final.status, "completed");
  assert.equal(final.output_text, text);

  // A replay from the start is the same stream: the SDK's stream helpers depend on it.
  const key = (e) => JSON.stringify([e.sequence_number, e.type, e.delta ?? null, e.item_id ?? null]);
  const replay = await collect(await client.responses.retrieve(id, { stream: true }));
  assert.deepEqual(replay.map(key), [...first, ...rest].map(key));

  // The helper (replays from the start and filters on the client) gives the same tail.
  const helper = client.responses.stream({ response_id: id, starting_after: lastSeen });
  const tail = await collect(helper);
  const resumed = await helper.finalResponse();
  assert.deepEqual(
    tail.map((e) => e.sequence_number),
    rest.map((e) => e.sequence_number),
  );
  assert.equal(resumed.output_text, text);

  // Nothing after the last event: an empty stream, not an error (and not a 204).
  const none = await collect(
    await client.responses.retrieve(id, { stream: true, starting_after: rest.at(-1).sequence_number }),
  );
  assert.deepEqual(none, []);
});

test("previous_response_id continues the conversation", async () => {
  const fresh = await client.responses.create({ model: "mock-model", input: "gamma delta" });
  const first = await client.responses.create({ model: "mock-model", input: "alpha beta" });
  const second = await client.responses.create({
    model: "mock-model",
    input: "gamma delta",
    previous_response_id: first.id,
  });
  assert.equal(second.status, "completed");
  assert.equal(second.output_text, "Echo: gamma delta");
  assert.equal(second.previous_response_id, first.id);
  assert.notEqual(second.id, first.id);
  // The mock counts every word it is sent: the difference is the earlier exchange.
  assert.equal(
    second.usage.input_tokens - fresh.usage.input_tokens,
    words("alpha beta") + words(first.output_text),
  );
});

test("a background create returns at once and finishes later", async () => {
  const response = await client.responses.create({ model: "mock-model", input: slow(20, 50), background: true });
  assert.ok(["queued", "in_progress"].includes(response.status), response.status);
  assert.ok(Array.isArray(response.output));
  const done = await waitForStatus(client, response.id, (r) => !["queued", "in_progress"].includes(r.status));
  assert.equal(done.status, "completed");
  assert.equal(done.output_text, tokensText(20));
});

test("cancel stops a slow background response", async () => {
  const n = 400;
  const response = await client.responses.create({ model: "mock-model", input: slow(n, 25), background: true });
  assert.ok(["queued", "in_progress"].includes(response.status), response.status);
  await waitForStatus(client, response.id, (r) => r.status !== "queued", 10000);
  await new Promise((r) => setTimeout(r, 300));

  const cancelled = await client.responses.cancel(response.id);
  assert.equal(cancelled.id, response.id);
  assert.ok(["cancelled", "in_progress"].includes(cancelled.status), cancelled.status);

  const final = await waitForStatus(client, response.id, (r) => !["queued", "in_progress"].includes(r.status));
  assert.equal(final.status, "cancelled");
  assert.ok(words(final.output_text) < n, "the answer stopped early");

  const events = await collect(await client.responses.retrieve(response.id, { stream: true }));
  assert.equal(events[0].type, "response.created");
  assert.ok(consecutive(events.map((e) => e.sequence_number), 0));
  assert.ok(["response.incomplete", "response.failed"].includes(events.at(-1).type), events.at(-1).type);
  assert.equal(events.at(-1).response.status, "cancelled");

  // The helper's accumulator takes the whole cancelled stream (no unknown event types).
  const helper = client.responses.stream({ response_id: response.id });
  await collect(helper);
  assert.equal((await helper.finalResponse()).status, "cancelled");

  const again = await client.responses.cancel(response.id);
  assert.equal(again.status, "cancelled", "a second cancel returns the cancelled response");
});

// ---------------------------------------------------------------- errors

test("an unknown model is a NotFoundError with code model_not_found", async () => {
  await assert.rejects(
    client.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }),
    (err) => err instanceof OpenAI.NotFoundError && err.status === 404 && err.code === "model_not_found",
  );
  await assert.rejects(
    client.responses.create({ model: "no-such-model", input: "hi" }),
    (err) => err instanceof OpenAI.NotFoundError && err.code === "model_not_found",
  );
});

test("an unknown response id is a NotFoundError", async () => {
  await assert.rejects(
    client.responses.retrieve(`resp_${"0".repeat(32)}`),
    (err) => err instanceof OpenAI.NotFoundError && err.status === 404 && typeof err.error?.message === "string",
  );
});

test("a bad token is an AuthenticationError", async () => {
  const stranger = parley.client({ apiKey: "prl_not_a_real_token" });
  await assert.rejects(
    collect(stranger.models.list()),
    (err) =>
      err instanceof OpenAI.AuthenticationError &&
      err.status === 401 &&
      ["authentication_error", "invalid_request_error"].includes(err.type),
  );
  await assert.rejects(
    stranger.chat.completions.create({ model: "mock-model", messages: [{ role: "user", content: "hi" }] }),
    (err) => err instanceof OpenAI.AuthenticationError,
  );
});
