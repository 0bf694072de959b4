// The installed client's types, as a consumer's compiler reads them (tsconfig.nodenext.json,
// tsconfig.bundler.json): operations, schemas and the feed helpers are typed.
import { type Schemas, type StreamEvent, createParley, streamTurn } from "@parley/client";

export async function lastMessage(baseUrl: string, token: string, sessionId: string): Promise<string | undefined> {
  const client = createParley({ baseUrl, token });
  const { data } = await client.GET("/v1/sessions/{id}/messages", { params: { path: { id: sessionId } } });
  const last: Schemas["Message"] | undefined = data?.items.at(-1);
  return last?.content;
}

export async function answer(baseUrl: string, token: string, sessionId: string): Promise<string> {
  let text = "";
  for await (const event of streamTurn({ baseUrl, token, sessionId, content: "hi" })) {
    const typed: StreamEvent = event;
    if (typed.type === "text_delta") text += typed.text;
  }
  return text;
}
