// Starts what the client tests talk to: the mock LLM (`parley-mock-llm`) and a
// `parley serve` whose provider it is, each on a free loopback port, in a temp dir.
// PARLEY_BIN and PARLEY_MOCK_LLM_BIN name the binaries (scripts/test.sh sets them; the
// defaults are the workspace's debug builds). Both are stopped by PID.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../../../..");
const targetDir = process.env.CARGO_TARGET_DIR ?? join(root, "target");
const parleyBin = process.env.PARLEY_BIN ?? join(targetDir, "debug/parley");
const mockBin = process.env.PARLEY_MOCK_LLM_BIN ?? join(targetDir, "debug/parley-mock-llm");

/** Spawns `bin args` and resolves with what follows `marker` on its first line with it. */
function start(bin, args, marker, env) {
  const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-20000);
  });
  return new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`${bin} did not start:\n${log}`)), 30000);
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.includes(marker));
      if (line) {
        clearTimeout(timer);
        resolveReady({ child, ready: line.slice(line.indexOf(marker) + marker.length).trim(), log: () => log });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${bin} exited with ${code}:\n${log}`));
    });
  });
}

function stop(child) {
  if (child.exitCode === null && child.pid) {
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * A running Parley with the mock as its model; `stop()` ends both and removes the dir.
 * `options.env`: more environment variables for `parley serve` (settings such as
 * `PARLEY_HTTP__CORS_ORIGINS`); they win over the harness's own. `options.models`: the
 * model ids the mock serves and Parley offers, the first the default (`mock-model`).
 */
export async function startParley(options = {}) {
  const dir = mkdtempSync(join(tmpdir(), "parley-client-test-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const models = options.models ?? ["mock-model"];
  const mock = await start(
    mockBin,
    ["--listen", "127.0.0.1:0", ...models.flatMap((m) => ["--model", m])],
    "mock-llm listening on ",
    env,
  );
  const config = join(dir, "parley.toml");
  writeFileSync(
    config,
    `[[providers]]\nname = "mock"\nbase_url = "${mock.ready}"\nfirst_token_timeout_ms = 60000\n\n` +
      models.map((m) => `[[models]]\nid = "${m}"\nprovider = "mock"\n${options.modelSettings ?? ""}\n`).join("\n"),
  );
  const adminToken = `prl_client_test_${process.pid}_${Date.now()}`;
  let parley;
  try {
    parley = await start(
      parleyBin,
      ["serve", "--listen", "127.0.0.1:0", "--data-dir", join(dir, "data")],
      "parley listening on ",
      { ...env, PARLEY_CONFIG: config, PARLEY_BOOTSTRAP_ADMIN_TOKEN: adminToken, PARLEY_LOG: "warn", ...options.env },
    );
  } catch (err) {
    stop(mock.child);
    throw err;
  }
  return {
    baseUrl: parley.ready,
    adminToken,
    log: parley.log,
    async stop() {
      stop(parley.child);
      stop(mock.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
