// The Vercel AI SDK (`ai` with `@ai-sdk/openai`) against Parley's OpenAI-compatible
// surface: its default provider, `openai(model)`, speaks the Responses API with `store`
// on, so from the second turn on it sends the earlier answers back as `item_reference`s
// to Parley's stored output items — including a turn in which Parley ran a function (an
// `mcp_call` item, a provider-executed tool call to the SDK). A five-turn conversation
// with the function turn in the middle must hold. `generateObject` with a zod schema
// asks for a structured output (`text.format`, `response_format`) and gets the checked value;
// `generateText` with a tool of its own runs the call and continues over two steps, on
// the chat model and on the Responses model (there the call is a `function_call` item,
// sent back by reference, and `streamText` reads its argument events).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { createOpenAI } from "@ai-sdk/openai";
import { generateObject, generateText, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

import { TIME_CALL, startParley } from "../test-support/harness.mjs";

let parley;

before(async () => {
  parley = await startParley();
});

after(async () => {
  await parley?.stop();
});

/** A fetch that records each request's JSON body in `sent`. */
function recording(sent) {
  return async (url, init) => {
    sent.push(JSON.parse(init.body));
    return fetch(url, init);
  };
}

/** The (role, content) of the messages of the session a response's turn ran in. */
async function historyOf(responseId) {
  const hex = responseId.replace(/^resp_/, "");
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  const prompt = await parley.native(`/v1/prompts/${id}`);
  const messages = await parley.native(`/v1/sessions/${prompt.session_id}/messages?limit=100`);
  return messages.items.map((m) => [m.role, m.content]);
}

test("the default provider holds a five-turn conversation with a function turn in the middle", async () => {
  const sent = [];
  const openai = createOpenAI({ baseURL: parley.openaiUrl, apiKey: parley.adminToken, fetch: recording(sent) });
  const model = openai("mock-model");
  const turns = ["first question", "second question", TIME_CALL, "fourth question", "fifth question"];
  const messages = [];
  let last;
  for (const [i, question] of turns.entries()) {
    messages.push({ role: "user", content: question });
    const result = await generateText({ model, messages });
    if (question === TIME_CALL) {
      const call = result.content.find((part) => part.type === "tool-call");
      assert.ok(call?.providerExecuted, `Parley's function is a provider-executed call: ${JSON.stringify(result.content)}`);
      assert.match(result.text, /Europe\/Paris/);
    } else {
      assert.equal(result.text, `Echo: ${question}`, `turn ${i + 1}`);
    }
    messages.push(...result.response.messages);
    last = result;
  }
  // From the second turn on, earlier answers went back as references to stored items.
  assert.equal(sent.length, turns.length);
  const references = sent.slice(1).map((body) => body.input.filter((item) => item.type === "item_reference").length);
  assert.ok(references.every((n, i) => n >= i + 1), `item_references per request: ${references}`);
  // The fifth turn's conversation is the whole exchange, the function turn's answer in it.
  const history = await historyOf(last.response.id);
  assert.deepEqual(
    history.filter(([role]) => role === "user").map(([, content]) => content),
    turns,
  );
  const answers = history.filter(([role]) => role === "assistant").map(([, content]) => content);
  assert.equal(answers.length, 5, JSON.stringify(history));
  assert.match(answers[2], /Europe\/Paris/);
  assert.equal(answers[4], "Echo: fifth question");
});

test("generateObject with a zod schema gets a checked value, on the Responses and the chat model", async () => {
  const trip = z.object({ city: z.string(), days: z.number().int().min(2) });
  for (const surface of ["responses", "chat"]) {
    const sent = [];
    const openai = createOpenAI({ baseURL: parley.openaiUrl, apiKey: parley.adminToken, fetch: recording(sent) });
    const model = surface === "chat" ? openai.chat("mock-model") : openai("mock-model");
    const result = await generateObject({
      model,
      schema: trip,
      schemaName: "trip",
      // The mock answers a misfit first: Parley asks again, the SDK sees only the value.
      prompt: `[[mock reply='{"city": 3}']] plan a trip`,
    });
    assert.deepEqual(result.object, { city: "mock", days: 2 }, surface);
    assert.equal(sent.length, 1, "one request: the repair round is Parley's");
    const asked = sent[0].text?.format ?? sent[0].response_format;
    assert.equal(asked.type, "json_schema", JSON.stringify(sent[0]));
  }
});

test("generateText with a tool of the caller's runs it over several steps on the chat model", async () => {
  const sent = [];
  const openai = createOpenAI({ baseURL: parley.openaiUrl, apiKey: parley.adminToken, fetch: recording(sent) });
  const runs = [];
  const result = await generateText({
    model: openai.chat("mock-model"),
    prompt: `[[mock tool_call='lookup:{"word": "gato"}']] what is gato?`,
    tools: {
      lookup: tool({
        description: "Looks a word up in the caller's dictionary.",
        inputSchema: z.object({ word: z.string() }),
        execute: async ({ word }) => {
          runs.push(word);
          return word === "gato" ? "cat" : "unknown";
        },
      }),
    },
    stopWhen: stepCountIs(3),
  });
  assert.deepEqual(runs, ["gato"], "the SDK ran the call once");
  assert.equal(result.steps.length, 2, JSON.stringify(result.steps.map((s) => s.finishReason)));
  assert.equal(result.steps[0].finishReason, "tool-calls");
  assert.equal(result.finishReason, "stop");
  assert.match(result.text, /Tool result: .*cat/);
  assert.equal(sent.length, 2);
  assert.equal(sent[1].messages.at(-1).role, "tool", JSON.stringify(sent[1].messages));
});

function lookupTool(runs) {
  return tool({
    description: "Looks a word up in the caller's dictionary.",
    inputSchema: z.object({ word: z.string() }),
    execute: async ({ word }) => {
      runs.push(word);
      return word === "gato" ? "cat" : "unknown";
    },
  });
}

test("generateText and streamText with a tool of the caller's run it over two steps on the Responses model", async () => {
  for (const run of [generateText, streamText]) {
    const sent = [];
    const openai = createOpenAI({ baseURL: parley.openaiUrl, apiKey: parley.adminToken, fetch: recording(sent) });
    const runs = [];
    const result = await run({
      model: openai("mock-model"),
      prompt: `[[mock tool_call='lookup:{"word": "gato"}']] what is gato?`,
      tools: { lookup: lookupTool(runs) },
      stopWhen: stepCountIs(3),
    });
    const steps = await result.steps;
    assert.deepEqual(runs, ["gato"], `${run.name}: the SDK ran the call once`);
    assert.equal(steps.length, 2, JSON.stringify(steps.map((s) => s.finishReason)));
    assert.equal(steps[0].finishReason, "tool-calls", run.name);
    assert.equal(await result.finishReason, "stop", run.name);
    assert.match(await result.text, /Tool result: .*cat/, run.name);
    assert.equal(sent.length, 2, run.name);
    const input = sent[1].input;
    const output = input.find((item) => item.type === "function_call_output");
    assert.ok(output, JSON.stringify(input));
    assert.equal(input.at(-1), output, "the result ends the input");
    const call = input.find((item) => item.type === "item_reference" || item.type === "function_call");
    assert.ok(call, `the call is sent back: ${JSON.stringify(input)}`);
  }
});
