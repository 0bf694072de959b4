// Starts what the SDK tests talk to: the mock LLM (`parley-mock-llm`) and a `parley serve`
// whose provider it is, each on a free loopback port, in a temp dir (as
// openapi/client/test-support/harness.mjs does). PARLEY_BIN and PARLEY_MOCK_LLM_BIN name the
// binaries (default: $CARGO_TARGET_DIR/debug/…, else the workspace's target/debug/…). Both
// are stopped by PID.
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import OpenAI from "openai";

const root = resolve(fileURLToPath(import.meta.url), "../../../../..");
const targetDir = process.env.CARGO_TARGET_DIR || join(root, "target");
const parleyBin = process.env.PARLEY_BIN || join(targetDir, "debug/parley");
const mockBin = process.env.PARLEY_MOCK_LLM_BIN || join(targetDir, "debug/parley-mock-llm");

/** Spawns `bin args` and resolves with what follows `marker` on its first stdout line with it. */
function start(bin, args, marker, env) {
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    return Promise.reject(new Error(`${bin} is missing: build the workspace (cargo build --workspace)`));
  }
  const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-20000);
  });
  return new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => {
      stop(child);
      reject(new Error(`${bin} did not start:\n${log}`));
    }, 30000);
    let out = "";
    let ready = false;
    child.stdout.on("data", (chunk) => {
      if (ready) return; // keep draining
      out += chunk;
      const line = out.split("\n").find((l) => l.includes(marker));
      if (line) {
        ready = true;
        clearTimeout(timer);
        resolveReady({ child, ready: line.slice(line.indexOf(marker) + marker.length).trim(), log: () => log });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`${bin} exited with ${code}:\n${log}`));
    });
  });
}

function stop(child) {
  if (child.exitCode === null && child.signalCode === null && child.pid) {
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * A running Parley with the mock as its model. `extraConfig` is appended to its
 * parley.toml (e.g. a `[quotas.user]` table). `stop()` ends both and removes the dir.
 */
export async function startParley({ extraConfig = "" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "parley-openai-sdk-node-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  let mock;
  let parley;
  try {
    mock = await start(mockBin, ["--listen", "127.0.0.1:0"], "mock-llm listening on ", env);
    const config = join(dir, "parley.toml");
    writeFileSync(
      config,
      `[[providers]]\nname = "mock"\nbase_url = "${mock.ready}"\nfirst_token_timeout_ms = 60000\n\n` +
        `[[models]]\nid = "mock-model"\nprovider = "mock"\n` +
        extraConfig,
    );
    const adminToken = `prl_sdk_node_${process.pid}_${Date.now()}`;
    parley = await start(
      parleyBin,
      ["serve", "--listen", "127.0.0.1:0", "--data-dir", join(dir, "data")],
      "parley listening on ",
      { ...env, PARLEY_CONFIG: config, PARLEY_BOOTSTRAP_ADMIN_TOKEN: adminToken, PARLEY_LOG: "warn" },
    );
    const baseUrl = parley.ready.replace(/\/$/, "");
    return {
      baseUrl,
      openaiUrl: `${baseUrl}/openai/v1`,
      adminToken,
      log: parley.log,
      /** An SDK client with the admin token; no hidden retries, so a 409/429/5xx shows. */
      client(options = {}) {
        return new OpenAI({ baseURL: `${baseUrl}/openai/v1`, apiKey: adminToken, maxRetries: 0, timeout: 60000, ...options });
      },
      /** GET on Parley's own API (not the OpenAI surface), as the admin. */
      async native(path) {
        const response = await fetch(baseUrl + path, { headers: { Authorization: `Bearer ${adminToken}` } });
        if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
        return response.json();
      },
      async stop() {
        stop(parley.child);
        stop(mock.child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (parley) stop(parley.child);
    if (mock) stop(mock.child);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

// Shared by the tests: the mock's directives and small checks.

export const CHATCMPL_ID = /^chatcmpl-[0-9a-f]{32}$/;
export const RESP_ID = /^resp_[0-9a-f]{32}$/;
export const PROMPT_LOCATION = /^\/v1\/prompts\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The mock calls getCurrentTime (offered by the "Demo tutor" tool); Parley runs it and the
 * mock answers "Tool result: <the result's JSON words>". */
export const TIME_CALL = `[[mock tool_call='getCurrentTime:{"time_zone":"Europe/Paris"}']] what time is it?`;

/** A slow answer: `tokens` tokens "t1 t2 … tN", one every `delayMs`. */
export const slow = (tokens, delayMs) => `[[mock tokens=${tokens} token_delay_ms=${delayMs}]] tell me a long story`;

export const tokensText = (n) => Array.from({ length: n }, (_, i) => `t${i + 1}`).join(" ");

/** What the mock counts as prompt tokens: whitespace-separated words. */
export const words = (text) => text.split(/\s+/).filter(Boolean).length;

export const consecutive = (numbers, first) => numbers.every((n, i) => n === first + i);

export async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Polls responses.retrieve until `done(response)` (or the deadline); returns it. */
export async function waitForStatus(client, id, done, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.responses.retrieve(id);
    if (done(response) || Date.now() > deadline) return response;
    await new Promise((r) => setTimeout(r, 100));
  }
}
