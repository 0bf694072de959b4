#!/usr/bin/env bash
# The TypeScript client (openapi/client) and the pages built on it:
#
# * the generated types match openapi/openapi.json (openapi-typescript; a drift fails);
# * the sources typecheck (tsc) and bundle (esbuild);
# * node's test runner drives the client against a live `parley serve` with the mock LLM
#   (PARLEY_BIN, PARLEY_MOCK_LLM_BIN: the workspace's debug builds by default).
#
# scripts/test.sh runs it after building the workspace.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[test-client] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

target=${CARGO_TARGET_DIR:-target}
export PARLEY_BIN=${PARLEY_BIN:-$target/debug/parley}
export PARLEY_MOCK_LLM_BIN=${PARLEY_MOCK_LLM_BIN:-$target/debug/parley-mock-llm}
[[ -x $PARLEY_BIN && -x $PARLEY_MOCK_LLM_BIN ]] || die "build the workspace first (cargo build --workspace)"

cd openapi/client
if [[ ! -f node_modules/openapi-fetch/package.json ]]; then
    log "installing openapi/client (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
fi

log "generated types match openapi/openapi.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npx --no-install openapi-typescript ../openapi.json --output "$work/schema.d.ts" >/dev/null
diff -u src/schema.d.ts "$work/schema.d.ts" >/dev/null \
    || die "openapi/client/src/schema.d.ts is out of date: run \`npm run generate\` in openapi/client"

log "typecheck and bundle"
npx --no-install tsc --noEmit
npx --no-install esbuild src/index.ts --bundle --format=esm --platform=neutral --target=es2022 \
    --outfile=dist/parley.js --log-level=warning

log "node --test (against a live parley serve)"
started=$(date +%s)
node --test test/
log "client tests took $(( $(date +%s) - started )) s"
