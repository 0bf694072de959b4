/** What both pages share: the API token kept in the browser, a typed client, DOM helpers. */
import { createParley, type ParleyClient } from "../src/index";

const TOKEN_KEY = "parley.token";

export const baseUrl = window.location.origin;

export function storedToken(): string | null {
  return window.localStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token) window.localStorage.setItem(TOKEN_KEY, token);
  else window.localStorage.removeItem(TOKEN_KEY);
}

export function clientFor(token: string): ParleyClient {
  return createParley({ baseUrl, token });
}

/** Creates an element with attributes and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from the page`);
  return node as T;
}

/** The `detail` of a problem+json error, or a generic message. */
export function problemText(error: unknown, status?: number): string {
  if (error && typeof error === "object" && "detail" in error) {
    return String((error as { detail: unknown }).detail);
  }
  return status ? `request failed (${status})` : "request failed";
}

/**
 * The sign-in form: keeps the token, checks it with `check`, and calls `onSignedIn`
 * (again after a reload when a token is stored).
 */
export function signIn(
  check: (client: ParleyClient) => Promise<string | null>,
  onSignedIn: (client: ParleyClient, token: string) => void,
): void {
  const form = byId<HTMLFormElement>("signin");
  const input = byId<HTMLInputElement>("token");
  const status = byId("signin-status");
  const attempt = async (token: string) => {
    const client = clientFor(token);
    const problem = await check(client);
    if (problem) {
      status.textContent = problem;
      storeToken(null);
      document.body.dataset.signedIn = "false";
      return;
    }
    storeToken(token);
    status.textContent = "";
    document.body.dataset.signedIn = "true";
    onSignedIn(client, token);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token) void attempt(token);
  });
  byId("signout").addEventListener("click", () => {
    storeToken(null);
    window.location.hash = "";
    window.location.reload();
  });
  const stored = storedToken();
  if (stored) void attempt(stored);
  else document.body.dataset.signedIn = "false";
}
