#!/usr/bin/env bash
# Parley's OpenAI-compatible surface (/openai/v1) through the official SDKs:
#
# * tests/openai-sdk/python: pytest with the `openai` package from PyPI (pinned with its
#   dependencies in requirements.txt), in a venv cached across runs
#   ($PARLEY_TOOLS_DIR/openai-sdk-venv, default ~/.cache/parley-tools/openai-sdk-venv),
#   rebuilt when requirements.txt changes;
# * tests/openai-sdk/node: node's test runner with the `openai` npm package (pinned in
#   package-lock.json, installed with `npm ci` when missing or changed).
#
# Each suite starts its own `parley-mock-llm` and `parley serve` on free loopback ports
# (PARLEY_BIN, PARLEY_MOCK_LLM_BIN: the workspace's debug builds by default) and stops
# them by PID. What the SDKs expect on the wire: tests/openai-sdk/SHAPES.md.
#
#   scripts/test-openai-sdk.sh [python|node [-- extra args for pytest / node --test]]
#
# Runs both suites (or the one named) and exits non-zero when either failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[test-openai-sdk] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=scripts/lib/tools.sh
source scripts/lib/tools.sh

which=all
if [[ $# -gt 0 && $1 != -- ]]; then
    which=$1
    shift
fi
[[ ${1:-} == -- ]] && shift
case $which in
    all | python | node) ;;
    *) die "usage: scripts/test-openai-sdk.sh [python|node] [-- args]" ;;
esac
if [[ $which == all && $# -gt 0 ]]; then die "extra arguments need a suite: python or node"; fi

target=${CARGO_TARGET_DIR:-target}
export PARLEY_BIN=${PARLEY_BIN:-$target/debug/parley}
export PARLEY_MOCK_LLM_BIN=${PARLEY_MOCK_LLM_BIN:-$target/debug/parley-mock-llm}
[[ -x $PARLEY_BIN && -x $PARLEY_MOCK_LLM_BIN ]] || die "build the workspace first (cargo build --workspace)"
# The suites resolve relative paths from their own directories.
PARLEY_BIN=$(realpath "$PARLEY_BIN")
PARLEY_MOCK_LLM_BIN=$(realpath "$PARLEY_MOCK_LLM_BIN")

python_suite() {
    local venv requirements want have
    venv=$(tools_dir)/openai-sdk-venv
    requirements=tests/openai-sdk/python/requirements.txt
    want=$(sha256sum "$requirements" | cut -d' ' -f1)
    have=$(cat "$venv/.requirements.sha256" 2>/dev/null || true)
    if [[ $want != "$have" || ! -x $venv/bin/python ]]; then
        log "installing the Python SDK tests' requirements into $venv"
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
        printf '%s\n' "$want" >"$venv/.requirements.sha256"
    fi
    log "python: openai $("$venv/bin/python" -c 'import openai; print(openai.__version__)') (pytest)"
    (cd tests/openai-sdk/python && "$venv/bin/python" -m pytest "$@")
}

node_suite() {
    local dir=tests/openai-sdk/node
    if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.package-lock.json.installed" 2>/dev/null \
        || [[ ! -f $dir/node_modules/openai/package.json ]]; then
        log "installing $dir (npm ci)"
        npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
        cp "$dir/package-lock.json" "$dir/node_modules/.package-lock.json.installed"
    fi
    log "node: openai $(node -p "require('./$dir/node_modules/openai/package.json').version") ($(node --version), node --test)"
    (cd "$dir" && node --test "$@" test/)
}

python_status=skipped
node_status=skipped
if [[ $which == all || $which == python ]]; then
    started=$(date +%s)
    python_status=0
    python_suite "$@" || python_status=$?
    log "python suite: exit $python_status in $(( $(date +%s) - started )) s"
fi
if [[ $which == all || $which == node ]]; then
    started=$(date +%s)
    node_status=0
    node_suite "$@" || node_status=$?
    log "node suite: exit $node_status in $(( $(date +%s) - started )) s"
fi

[[ $python_status == 0 || $python_status == skipped ]] || die "the Python SDK tests failed"
[[ $node_status == 0 || $node_status == skipped ]] || die "the Node SDK tests failed"
log "ok"
