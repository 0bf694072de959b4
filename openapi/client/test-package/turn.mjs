// The client as a project that installed it uses it: imported by its package name (from
// a packed tarball or a path), against a live `parley serve` with the mock model
// (the harness PARLEY_HARNESS names), a streamed turn whose text is the stored answer,
// and a base URL with `/v1` refused with a hint. Run by scripts/test-client.sh.
import assert from "node:assert/strict";

import { createParley, parleyBase, streamTurn } from "@parley/client";

const { startParley } = await import(process.env.PARLEY_HARNESS);
const parley = await startParley();
try {
  const client = createParley({ baseUrl: parley.baseUrl, token: parley.adminToken });
  const tools = await client.GET("/v1/tools");
  assert.equal(tools.response.status, 200, JSON.stringify(tools.error));
  const tool = tools.data.items.find((t) => t.name === "Demo tutor");
  const session = await client.POST("/v1/sessions", { body: { tool_id: tool.id } });
  assert.equal(session.response.status, 201, JSON.stringify(session.error));
  let text = "";
  let last;
  for await (const event of streamTurn({
    baseUrl: parley.baseUrl,
    token: parley.adminToken,
    sessionId: session.data.id,
    content: "[[mock tokens=5]] hello",
  })) {
    if (event.type === "text_delta") text += event.text;
    last = event;
  }
  assert.equal(last.type, "complete");
  assert.equal(text, "t1 t2 t3 t4 t5");
  assert.equal(last.payload.message, text);
  const messages = await client.GET("/v1/sessions/{id}/messages", { params: { path: { id: session.data.id } } });
  assert.equal(messages.data.items.at(-1).content, text, "what was streamed is what is stored");

  for (const wrong of [`${parley.baseUrl}/v1`, `${parley.baseUrl}/openai/v1/`]) {
    assert.throws(() => createParley({ baseUrl: wrong }), (err) => err instanceof TypeError && err.message.includes(`use "${parley.baseUrl}"`));
  }
  assert.equal(parleyBase(`${parley.baseUrl}//`), parley.baseUrl);
  console.log(`a streamed turn through the installed client: ${JSON.stringify(text)}`);
} finally {
  await parley.stop();
}
