/**
 * The base URL every helper of the client starts from: where Parley serves
 * (`https://chat.example.com`), trailing slashes trimmed. Operations' paths start with
 * `/v1`, so a base URL that ends with it (or with the OpenAI surface's `/openai/v1`) would
 * answer 404 to every request: it is refused here, saying why.
 */
export function parleyBase(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  if (/\/v1$/.test(base)) {
    throw new TypeError(
      `Parley's base URL is where it serves, without \`/v1\` (the operations' paths start with it): use ${JSON.stringify(base.replace(/(\/openai)?\/v1$/, ""))}, not ${JSON.stringify(baseUrl)}`,
    );
  }
  return base;
}
