// A Parley quota refusal through the official `openai` npm package: a deployment whose
// users may start one turn per minute answers the next turns 429 with Retry-After, which
// the SDK raises as RateLimitError (retries off: the SDK would otherwise wait and retry).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import OpenAI from "openai";

import { startParley } from "../test-support/harness.mjs";

const TRIES = 3; // turns_per_minute = 1: of 3 quick turns at least one is refused, minute edge or not

let parley;

before(async () => {
  parley = await startParley({ extraConfig: "\n[quotas.user]\nturns_per_minute = 1\n" });
});

after(async () => {
  await parley?.stop();
});

async function refused(call) {
  for (let i = 0; i < TRIES; i += 1) {
    try {
      await call();
    } catch (err) {
      if (err instanceof OpenAI.RateLimitError) return err;
      throw err;
    }
  }
  assert.fail(`${TRIES} turns within a minute were all accepted`);
}

test("a quota refusal is a RateLimitError with Retry-After", async () => {
  const client = parley.client();
  let err = await refused(() =>
    client.chat.completions.create({ model: "mock-model", messages: [{ role: "user", content: "hi" }] }),
  );
  assert.equal(err.status, 429);
  assert.equal(err.code, "rate_limit_exceeded");
  const retryAfter = err.headers.get("retry-after");
  assert.match(retryAfter ?? "", /^\d+$/);
  assert.ok(Number(retryAfter) > 0 && Number(retryAfter) <= 60, retryAfter);

  err = await refused(() => client.responses.create({ model: "mock-model", input: "hi" }));
  assert.equal(err.code, "rate_limit_exceeded");
});
