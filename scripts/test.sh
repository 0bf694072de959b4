#!/usr/bin/env bash
# Runs the whole workspace test suite against throwaway PostgreSQL and Redis servers.
#
#   scripts/test.sh [TEST-FILTER-AND-HARNESS-ARGS...]
#
# Installs postgresql and redis-server with apt-get when they are missing, starts a
# private PostgreSQL cluster and Redis on free loopback ports inside a temp dir, exports
# PARLEY_TEST_PG_URL / PARLEY_TEST_REDIS_URL for the parley-tests harness, builds every
# target (after validating deploy/, scripts/check-deploy.sh, and the PDF corpus,
# tests/fixtures/pdf/make_corpus.py --check), then runs
# `cargo test --workspace -- "$@"`, the TypeScript client's and the pages' tests
# (scripts/test-client.sh), the client generators' check (scripts/check-generators.sh),
# the Python client's tests (scripts/test-python-client.sh), the OpenAI-compatible
# surface through the official SDKs (scripts/test-openai-sdk.sh), then the schema fuzzer
# against a real `parley serve` (scripts/fuzz.sh; PARLEY_TEST_FUZZ=0 skips it). Both servers are stopped
# (by PID) and the temp dir removed on exit, whatever happens. Exits with cargo test's
# status, or the fuzzer's when the tests passed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[test.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=scripts/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/servers.sh"
# shellcheck source=scripts/lib/tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tools.sh"

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    stop_servers
    [[ -n $TMP && -d $TMP ]] && rm -rf "$TMP"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

install_servers
# The metrics tests check each scrape with `promtool check metrics`.
install_promtool
PG_BIN=$(pg_bin_dir) || die "no PostgreSQL found under /usr/lib/postgresql/*/bin"
command -v redis-server >/dev/null || die "redis-server not found"

TMP=$(mktemp -d -t parley-test.XXXXXX)
chmod 755 "$TMP"   # the postgres user must be able to reach its subdirectory

pg_port=$(free_port)
redis_port=$(free_port)
# pg_stat_statements (in Debian's postgresql package): the per-turn cost test counts the
# statements a turn runs (tests/tests/it/distributed.rs).
PG_EXTRA_OPTS=(-c shared_preload_libraries=pg_stat_statements)
start_postgres "$PG_BIN" "$pg_port"
# A streaming replica of it, for `database.read_url` (#17).
replica_port=$(free_port)
start_postgres_replica "$PG_BIN" "$pg_port" "$replica_port"
start_redis "$redis_port"
# Three primaries with a replica each: the Redis seams' suites and the distributed
# black-box tests run against it as well as against the standalone one (#17).
start_redis_cluster 3

export PARLEY_TEST_PG_URL="postgres://postgres@127.0.0.1:$pg_port/postgres"
export PARLEY_TEST_PG_REPLICA_URL="postgres://postgres@127.0.0.1:$replica_port/postgres"
export PARLEY_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/"
export PARLEY_TEST_REDIS_CLUSTER_URL=$REDIS_CLUSTER_URL

if [[ ${PARLEY_TEST_SERVERS_ONLY:-} == 1 ]]; then
    # Debug aid: keep the servers up for a command given in PARLEY_TEST_CMD (default: none).
    log "servers only: PARLEY_TEST_PG_URL=$PARLEY_TEST_PG_URL PARLEY_TEST_REDIS_URL=$PARLEY_TEST_REDIS_URL PARLEY_TEST_REDIS_CLUSTER_URL=$PARLEY_TEST_REDIS_CLUSTER_URL"
    status=0
    [[ -n ${PARLEY_TEST_CMD:-} ]] && { bash -c "$PARLEY_TEST_CMD" || status=$?; }
    exit "$status"
fi

# The committed OpenAPI document must be valid OpenAPI 3 (the drift test in parley-api
# checks that it matches the code). The validator lives in a venv cached across runs.
validate_openapi() {
    local venv=${PARLEY_TEST_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/parley-test-venv}
    if [[ ! -x $venv/bin/openapi-spec-validator ]]; then
        log "installing openapi-spec-validator into $venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check 'openapi-spec-validator>=0.7,<0.8'
    fi
    log "validating openapi/openapi.json"
    "$venv/bin/openapi-spec-validator" openapi/openapi.json
}
validate_openapi

# The feed tests drive an off-the-shelf SSE client, the `eventsource` npm package
# (tests/sse-client, pinned in its package-lock.json), with Node.js (>= 18).
install_sse_client() {
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        log "installing nodejs and npm"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
    fi
    if [[ ! -f tests/sse-client/node_modules/eventsource/package.json ]]; then
        log "installing tests/sse-client (npm ci)"
        npm ci --prefix tests/sse-client --no-audit --no-fund --loglevel=error
    fi
}
install_sse_client

# The pages' browser tests drive Debian's chromium (no browser downloads).
if ! command -v chromium >/dev/null; then
    log "installing chromium"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
fi

# deploy/: manifests, compose file, Dockerfile, alert rules and their tests, the dashboard.
scripts/check-deploy.sh

# The crafted PDFs the upload tests send (tests/fixtures/pdf) are what their generator
# writes: the corpus cannot drift from the script that documents it.
log "tests/fixtures/pdf/make_corpus.py --check"
python3 tests/fixtures/pdf/make_corpus.py --check

log "cargo build --workspace --all-targets"
cargo build --workspace --all-targets

log "cargo test --workspace -- $*"
status=0
cargo test --workspace --no-fail-fast -- "$@" || status=$?

# The TypeScript client and the pages, against the binaries built above.
log "scripts/test-client.sh"
client_status=0
scripts/test-client.sh || client_status=$?
[[ $status -ne 0 ]] || status=$client_status

# Every mainstream generator reads the document whole (openapi-python-client,
# openapi-generator typescript-fetch and python; progenitor runs in the build).
log "scripts/check-generators.sh"
generators_status=0
scripts/check-generators.sh || generators_status=$?
[[ $status -ne 0 ]] || status=$generators_status

# The Python client (openapi/python), against the binaries built above.
log "scripts/test-python-client.sh"
python_status=0
scripts/test-python-client.sh || python_status=$?
[[ $status -ne 0 ]] || status=$python_status

# The OpenAI-compatible surface through the official `openai` packages (PyPI and npm).
log "scripts/test-openai-sdk.sh"
openai_status=0
scripts/test-openai-sdk.sh || openai_status=$?
[[ $status -ne 0 ]] || status=$openai_status

# schemathesis against a real `parley serve` built above (its own server, not the ones here).
if [[ ${PARLEY_TEST_FUZZ:-1} == 0 ]]; then
    log "PARLEY_TEST_FUZZ=0: skipping scripts/fuzz.sh"
else
    log "scripts/fuzz.sh"
    fuzz_status=0
    scripts/fuzz.sh || fuzz_status=$?
    [[ $status -ne 0 ]] || status=$fuzz_status
fi
exit "$status"
