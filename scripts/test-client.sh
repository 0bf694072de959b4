#!/usr/bin/env bash
# The TypeScript client (openapi/client) and the pages built on it:
#
# * the generated types match openapi/openapi.json (openapi-typescript; a drift fails);
# * the sources typecheck (tsc) and bundle (esbuild);
# * the client installs as a package (npm pack into a fresh project, and from a path):
#   it imports by name, its types resolve under moduleResolution nodenext and bundler,
#   and it runs a streamed turn;
# * the chat and admin pages' committed bundles (api/assets) match their sources;
# * node's test runner drives the client against a live `parley serve` with the mock LLM
#   (PARLEY_BIN, PARLEY_MOCK_LLM_BIN: the workspace's debug builds by default), then the
#   pages in headless Chromium (Debian's `chromium`, CHROMIUM), with screenshots under
#   target/screenshots/.
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
if [[ ! -f node_modules/openapi-fetch/package.json || ! -f node_modules/puppeteer-core/package.json || ! -f node_modules/marked/package.json ]]; then
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

log "the pages' bundles in api/assets match their sources"
npx --no-install esbuild pages/chat.ts pages/admin.ts pages/teacher.ts --bundle --format=esm --platform=browser \
    --target=es2022 --minify --legal-comments=none --outdir="$work/pages" --log-level=warning
for page in chat admin teacher; do
    cmp -s "$work/pages/$page.js" "../../api/assets/$page.js" \
        || die "api/assets/$page.js is out of date: run \`npm run build:pages\` in openapi/client (then rebuild parley)"
done

log "node --test (against a live parley serve)"
started=$(date +%s)
node --test test/
log "client tests took $(( $(date +%s) - started )) s"

log "the client as a package: npm pack, a fresh project, its types (nodenext, bundler), a streamed turn"
started=$(date +%s)
npm pack --pack-destination "$work" --loglevel=error >/dev/null
client_dir=$PWD
project="$work/project"
mkdir "$project"
cp test-package/* "$project/"
(
    cd "$project"
    npm init -y >/dev/null
    npm pkg set type=module
    npm install --no-audit --no-fund --loglevel=error "$work"/parley-client-*.tgz
    for mode in nodenext bundler; do
        node "$client_dir/node_modules/typescript/bin/tsc" -p "tsconfig.$mode.json" \
            || die "the installed client's types fail under moduleResolution $mode"
    done
    PARLEY_HARNESS="$client_dir/test-support/harness.mjs" node turn.mjs
)
# From a path: npm links the checkout, whose dist/ the pack above built.
linked="$work/linked"
mkdir "$linked"
cp test-package/turn.mjs "$linked/"
(
    cd "$linked"
    npm init -y >/dev/null
    npm pkg set type=module
    npm install --no-audit --no-fund --loglevel=error "$client_dir"
    PARLEY_HARNESS="$client_dir/test-support/harness.mjs" node turn.mjs
)
log "the package checks took $(( $(date +%s) - started )) s"

log "the pages in headless Chromium (screenshots: ${PARLEY_SCREENSHOTS:-target/screenshots})"
export CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
[[ -n $CHROMIUM ]] || die "chromium is not installed (scripts/test.sh installs it)"
started=$(date +%s)
node --test test-pages/
log "browser tests took $(( $(date +%s) - started )) s"
