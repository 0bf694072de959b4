#!/usr/bin/env bash
# Runs Parley's load benchmark (tests/bench) on this machine, in distributed mode (one
# `parley api`, one `parley worker`, PostgreSQL, Redis) or in embedded mode (`parley
# serve` alone: SQLite, the SQLite job queue and the in-process event log).
#
#   scripts/bench.sh                  # distributed, every phase: the load levels, C = 32
#                                     # with one function call per turn, with the PII
#                                     # module, with a new session per turn, the turn-cost
#                                     # report, then 10,000 SSE readers
#   scripts/bench.sh --embedded       # embedded, every phase: the load levels, a new
#                                     # session per turn, the turn-cost report (SSE events
#                                     # only), RSS after 500 and 5,000 turns, SSE readers
#   scripts/bench.sh [--embedded] BENCH-ARGS...  # one run of parley-bench with these
#                                     # arguments, e.g. --levels 1,8,32 --duration 10,
#                                     # --readers 1000, --cost 100, --growth 500,5000
#   scripts/bench.sh [--embedded] --pace [BENCH-ARGS...]  # at a real model's pace
#                                     # (issue #16): 200-token replies at 20 ms, then at
#                                     # 5 ms per token, closed loop at C = 50, 200, 500,
#                                     # each level beside the direct mock; ~7 min
#   scripts/bench-counts.sh           # the per-turn counts at 0, 5 and 20 ms per token,
#                                     # plain and with a function call (its header)
#
# The pace mode asks the mock for the pace per request (`[[mock token_delay_ms=D]]`, the
# direct baseline's requests alike), spreads each level's users' first turns over one
# turn's length (so 500 turns of equal length do not start and end together), warms up
# for that ramp plus one turn, then measures BENCH_PACE_DURATION s. Per level it prints
# turns/s ended in the window beside the direct mock's and their ratio, TTFT and the
# added TTFT (Parley's p50/p99 less the direct's of the same run), the p50/p99/max gap
# between the events a reader sees from its first text to `complete` (pings left out)
# beside the mock's gap between chunks, and CPU ms per 1,000 tokens streamed in the window
# of each process (api, worker, postgres with its backends, redis; serve embedded) and of
# the servers together — and, for the direct run, the mock's and the benchmark client's
# (a bare reader of the model's stream: the floor under the worker's reading) — then one
# Markdown table of the levels. Its settings:
# BENCH_PACE_LEVELS (default 50,200,500), BENCH_PACE_DELAYS (ms, default "20 5"),
# BENCH_PACE_TOKENS (200), BENCH_PACE_DURATION (measured s per level, 20); the worker's
# concurrency is raised to the largest level + 64 (BENCH_WORKER_CONCURRENCY overrides),
# so no turn waits for a slot; BENCH-ARGS are added to every run (e.g. --no-direct).
#
# Builds the release binaries (parley, parley-mock-llm, parley-bench; CARGO_TARGET_DIR is
# respected) and starts parley-mock-llm (0 ms delays) as its own process. Distributed:
# throwaway PostgreSQL (with pg_stat_statements loaded, for the turn-cost report) and
# Redis on free loopback ports, as scripts/test.sh does, `parley migrate up`, then one
# `parley api` and one `parley worker`. Embedded: one `parley serve` on a temp data dir,
# the mock as its provider. PARLEY_LOG=warn. It runs parley-bench against them and stops
# everything by PID on exit. With no arguments the servers are restarted before the
# readers phase (and, embedded, before the RSS phase), so those start from fresh
# processes.
#
# Scaling (docs/scaling.md): BENCH_WORKERS=N and BENCH_APIS=N start N worker and N api
# processes (the users' turns spread over the apis; each role's CPU summed), and
# BENCH_REDIS_CLUSTER=1 runs on a Redis Cluster of three primaries with a replica each
# (the queue in three partitions) instead of one Redis.
#
# Environment: BENCH_PROVIDER (openai, the default, or anthropic: the provider kind Parley
# reaches the mock with), BENCH_BIN=DIR (use the prebuilt parley, parley-mock-llm and parley-bench
# in DIR instead of building, to compare two commits in one session),
# BENCH_TOKEN_DELAY_MS (the mock's pause between tokens, default 0; 20 is a real model's
# pace), BENCH_WORKER_CONCURRENCY (default 64), BENCH_TIMEOUT (seconds for one parley-bench
# run, default 900), BENCH_READERS (readers of the readers phase, default 10000),
# BENCH_READERS_WAIT_MS (their turn's first-token delay, while they connect; 45000),
# BENCH_NOFILE (fd limit, default the hard limit), BENCH_API_MMAP_THRESHOLD (glibc's
# MALLOC_MMAP_THRESHOLD_ for `parley api`, default 8192 as #9 recommended for builds on
# glibc's malloc, before #16; jemalloc builds ignore it; empty for glibc's default),
# BENCH_GROWTH_RETENTION_S (the RSS phase's worker.memory_event_retention_s, default 1), BENCH_WRAP (a command prefix for
# the server processes, e.g. valgrind; see scripts/bench-instructions.sh) and
# BENCH_START_TRIES (tenths of a second to wait for each to start, default 300); PARLEY_*
# settings (e.g. PARLEY_DATABASE__MAX_CONNECTIONS) are passed on to the servers. Logs are
# printed if a process fails to start; BENCH_KEEP=1 keeps the temp dir with every log.
# Debug aid: BENCH_CMD='…' runs that shell command instead of parley-bench, with
# everything up and PARLEY_BENCH_API_URL, PARLEY_BENCH_MOCK_URL, PARLEY_BENCH_ADMIN_TOKEN,
# BENCH_API_PID (`parley serve` in embedded mode), BENCH_WORKER_PID, BENCH_PG_PID,
# BENCH_REDIS_PID and BENCH_MOCK_PID exported (e.g. to attach perf).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[bench.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- Throwaway PostgreSQL and Redis: the same steps as scripts/test.sh. ---

# shellcheck source=scripts/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/servers.sh"

MODE=distributed
MOCK_PID=""
API_PID=""
WORKER_PID=""
MORE_PIDS=()      # the api and worker processes after the first of each (BENCH_APIS, BENCH_WORKERS)
MORE_API_URLS=()
PROCS=()
stop_roles() {
    stop_pid "$API_PID" TERM "parley $([[ $MODE == embedded ]] && echo serve || echo api)"
    stop_pid "$WORKER_PID" TERM "parley worker"
    local pid
    for pid in "${MORE_PIDS[@]}"; do stop_pid "$pid" TERM "parley"; done
    for pid in $API_PID $WORKER_PID "${MORE_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    API_PID="" WORKER_PID="" MORE_PIDS=() MORE_API_URLS=()
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    stop_roles
    stop_pid "$MOCK_PID" INT parley-mock-llm
    wait "$MOCK_PID" 2>/dev/null || true
    stop_servers
    if [[ -n $TMP && -d $TMP ]]; then
        if [[ ${BENCH_KEEP:-} == 1 ]]; then log "logs kept in $TMP"; else rm -rf "$TMP"; fi
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_mock() {
    local port=$1
    "$BIN/parley-mock-llm" --listen "127.0.0.1:$port" --first-token-delay-ms 0 \
        --token-delay-ms "${BENCH_TOKEN_DELAY_MS:-0}" >"$TMP/mock.log" 2>&1 &
    MOCK_PID=$!
    wait_for_line "$TMP/mock.log" 'mock-llm listening' "$MOCK_PID" parley-mock-llm
    log "mock-llm on 127.0.0.1:$port (pid $MOCK_PID)"
}

start_roles() {
    if [[ $MODE == embedded ]]; then
        # shellcheck disable=SC2086 # BENCH_WRAP is a command prefix, split into words
        ${BENCH_WRAP:-} "$BIN/parley" serve --listen "127.0.0.1:$API_PORT" --data-dir "$TMP/data" \
            >>"$TMP/serve.log" 2>&1 &
        API_PID=$!
        wait_for_line "$TMP/serve.log" 'parley listening' "$API_PID" "parley serve"
        log "parley serve on 127.0.0.1:$API_PORT (pid $API_PID), data dir $TMP/data, worker.concurrency $WORKER_CONCURRENCY"
        PROCS=(--proc "serve=$API_PID" --proc "mock=$MOCK_PID")
        return
    fi
    # As #9 recommended for api processes on glibc's malloc (fewer resident pages per
    # open SSE connection), for builds before #16's jemalloc, which ignores it;
    # BENCH_API_MMAP_THRESHOLD= (empty) keeps glibc's default.
    local api_env=()
    if [[ -n ${BENCH_API_MMAP_THRESHOLD-8192} ]]; then
        api_env=("MALLOC_MMAP_THRESHOLD_=${BENCH_API_MMAP_THRESHOLD-8192}")
    fi
    # shellcheck disable=SC2086
    env "${api_env[@]}" ${BENCH_WRAP:-} "$BIN/parley" api --listen "127.0.0.1:$API_PORT" >>"$TMP/api.log" 2>&1 &
    API_PID=$!
    wait_for_line "$TMP/api.log" 'parley listening' "$API_PID" "parley api"
    # shellcheck disable=SC2086
    ${BENCH_WRAP:-} "$BIN/parley" worker --concurrency "$WORKER_CONCURRENCY" >>"$TMP/worker.log" 2>&1 &
    WORKER_PID=$!
    wait_for_line "$TMP/worker.log" 'parley worker running' "$WORKER_PID" "parley worker"
    log "parley api on 127.0.0.1:$API_PORT (pid $API_PID), worker --concurrency $WORKER_CONCURRENCY (pid $WORKER_PID)"
    PROCS=(--proc "api=$API_PID" --proc "worker=$WORKER_PID" --proc "postgres=$PG_PID+"
        --proc "mock=$MOCK_PID")
    local pid n port
    if [[ ${BENCH_REDIS_CLUSTER:-} == 1 ]]; then
        for pid in "${CLUSTER_PIDS[@]}"; do PROCS+=(--proc "redis=$pid"); done
    else
        PROCS+=(--proc "redis=$REDIS_PID")
    fi
    # More processes of each role (the scaling runs, docs/scaling.md): each counted under
    # its role's name; the users' turns are spread over every api.
    for n in $(seq 2 "${BENCH_APIS:-1}"); do
        port=$(free_port)
        # shellcheck disable=SC2086
        env "${api_env[@]}" ${BENCH_WRAP:-} "$BIN/parley" api --listen "127.0.0.1:$port" >>"$TMP/api$n.log" 2>&1 &
        pid=$!
        wait_for_line "$TMP/api$n.log" 'parley listening' "$pid" "parley api $n"
        MORE_PIDS+=("$pid")
        MORE_API_URLS+=(--more-api-url "http://127.0.0.1:$port")
        PROCS+=(--proc "api=$pid")
        log "parley api $n on 127.0.0.1:$port (pid $pid)"
    done
    for n in $(seq 2 "${BENCH_WORKERS:-1}"); do
        # shellcheck disable=SC2086
        ${BENCH_WRAP:-} "$BIN/parley" worker --concurrency "$WORKER_CONCURRENCY" >>"$TMP/worker$n.log" 2>&1 &
        pid=$!
        wait_for_line "$TMP/worker$n.log" 'parley worker running' "$pid" "parley worker $n"
        MORE_PIDS+=("$pid")
        PROCS+=(--proc "worker=$pid")
        log "parley worker $n --concurrency $WORKER_CONCURRENCY (pid $pid)"
    done
}

run_bench() {
    local status=0
    timeout --signal=INT "${BENCH_TIMEOUT:-900}" "$BIN/parley-bench" \
        --api-url "http://127.0.0.1:$API_PORT" \
        --mock-url "http://127.0.0.1:$MOCK_PORT/v1" "${PROCS[@]}" "${MORE_API_URLS[@]}" \
        --clk-tck "$(getconf CLK_TCK)" "$@" || status=$?
    for name in api worker serve; do
        if [[ -f $TMP/$name.log ]] && grep -qiE 'error|panic' "$TMP/$name.log"; then
            log "$name log (errors):"
            grep -iE 'error|panic' "$TMP/$name.log" | tail -n 20 >&2
        fi
    done
    return "$status"
}

machine_info() {
    echo "== machine"
    echo "date:   $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu:    $(nproc) × $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "memory: $(free -m | awk '/^Mem:/ {print $2 " MiB"}')"
    echo "kernel: $(uname -r); $(rustc --version 2>/dev/null || echo rustc ?)"
    if [[ $MODE == distributed ]]; then
        echo "servers: $("$PG_BIN/postgres" --version); $(redis-server --version | cut -d' ' -f1-3)"
    fi
    echo "mode:   $MODE; fd limit $(ulimit -n); commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)"
    echo "uptime: $(uptime)"
    echo "busiest processes now (other work skews the figures):"
    top -b -n 2 -d 1 -o %CPU 2>/dev/null | awk '/^top -/ {n++} n == 2' | sed -n '7,14p' || true
}

# --- Main. ---

PACE=0
while [[ ${1:-} == --embedded || ${1:-} == --pace ]]; do
    if [[ $1 == --embedded ]]; then MODE=embedded; else PACE=1; fi
    shift
done
PACE_LEVELS=${BENCH_PACE_LEVELS:-50,200,500}
PACE_DELAYS=${BENCH_PACE_DELAYS:-20 5}
PACE_TOKENS=${BENCH_PACE_TOKENS:-200}
PACE_DURATION=${BENCH_PACE_DURATION:-20}
if ((PACE)); then
    # Every turn in flight needs a worker slot: 500 users at 4 s a turn are 500 turns.
    max_level=$(tr ',' '\n' <<<"$PACE_LEVELS" | sort -n | tail -n 1)
    WORKER_CONCURRENCY=${BENCH_WORKER_CONCURRENCY:-$((max_level + 64))}
else
    WORKER_CONCURRENCY=${BENCH_WORKER_CONCURRENCY:-64}
fi
# 10,000 SSE readers are 10,000 sockets in the api and in the bench; both inherit this.
hard=$(ulimit -Hn)
want=${BENCH_NOFILE:-$hard}
if [[ $hard != unlimited && $want != unlimited ]] && ((want > hard)); then want=$hard; fi
ulimit -n "$want" 2>/dev/null || ulimit -n 8192 2>/dev/null || true

if [[ -n ${BENCH_BIN:-} ]]; then
    # Prebuilt binaries (e.g. of another commit, for a before/after in one session).
    BIN=$BENCH_BIN
    for b in parley parley-mock-llm parley-bench; do [[ -x $BIN/$b ]] || die "no $BIN/$b"; done
    log "using the binaries in $BIN"
else
    BIN=${CARGO_TARGET_DIR:-target}/release
    log "cargo build --release -p parley -p parley-mock-llm -p parley-bench"
    cargo build --release -p parley -p parley-mock-llm -p parley-bench
fi

TMP=$(mktemp -d -t parley-bench.XXXXXX)
chmod 755 "$TMP"
MOCK_PORT=$(free_port)
API_PORT=$(free_port)

if [[ $MODE == distributed ]]; then
    install_servers
    PG_BIN=$(pg_bin_dir) || die "no PostgreSQL found under /usr/lib/postgresql/*/bin"
    command -v redis-server >/dev/null || die "redis-server not found"
    pg_port=$(free_port)
    redis_port=$(free_port)
    # The turn-cost report counts statements with pg_stat_statements (Debian's
    # postgresql package ships it); it must be loaded when the server starts.
    PG_EXTRA_OPTS=(-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=10000)
    start_postgres "$PG_BIN" "$pg_port"
    export PARLEY_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres"
    if [[ ${BENCH_REDIS_CLUSTER:-} == 1 ]]; then
        # A Redis Cluster of three primaries with a replica each, the queue in three
        # partitions (#17); its six nodes count as `redis`.
        start_redis_cluster 3
        export PARLEY_REDIS_URL=$REDIS_CLUSTER_URL PARLEY_REDIS__QUEUE_PARTITIONS=3
    else
        start_redis "$redis_port"
        export PARLEY_REDIS_URL="redis://127.0.0.1:$redis_port/"
    fi
    export PARLEY_BENCH_PG_URL=$PARLEY_DATABASE_URL
    # The turn-cost report counts one Redis's commands (not a cluster's nodes).
    [[ ${BENCH_REDIS_CLUSTER:-} == 1 ]] || export PARLEY_BENCH_REDIS_URL=$PARLEY_REDIS_URL
else
    # Embedded: SQLite and its job queue in the data dir, the event log in the process.
    unset PARLEY_DATABASE_URL PARLEY_REDIS_URL PARLEY_BENCH_PG_URL PARLEY_BENCH_REDIS_URL
    export PARLEY_WORKER__CONCURRENCY=$WORKER_CONCURRENCY
fi
start_mock "$MOCK_PORT"

# BENCH_PROVIDER=anthropic: Parley reaches the mock through its native Anthropic provider
# (the mock's Messages endpoint) instead of the OpenAI-compatible one; the direct baseline
# still reads the mock's chat completions.
case ${BENCH_PROVIDER:-openai} in
    openai) provider_lines="base_url = \"http://127.0.0.1:$MOCK_PORT/v1\"" ;;
    anthropic)
        provider_lines="kind = \"anthropic\"
base_url = \"http://127.0.0.1:$MOCK_PORT\"
api_key = \"sk-ant-bench\""
        ;;
    *) die "BENCH_PROVIDER is openai or anthropic, not ${BENCH_PROVIDER}" ;;
esac
log "provider: ${BENCH_PROVIDER:-openai}"

cat >"$TMP/parley.toml" <<EOF
[[providers]]
name = "mock"
$provider_lines
# The readers phase's turn starts after BENCH_READERS_WAIT_MS, on purpose.
first_token_timeout_ms = 600000

[[models]]
id = "mock-model"
provider = "mock"
EOF
export PARLEY_CONFIG=$TMP/parley.toml
export PARLEY_LOG=warn
# As in production: with RUST_BACKTRACE set, every anyhow error captures a backtrace, and
# the worker makes some on its happy path (see BENCHMARKS.md).
unset RUST_BACKTRACE RUST_LIB_BACKTRACE
PARLEY_BOOTSTRAP_ADMIN_TOKEN="bench-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export PARLEY_BOOTSTRAP_ADMIN_TOKEN
export PARLEY_BENCH_ADMIN_TOKEN=$PARLEY_BOOTSTRAP_ADMIN_TOKEN

if [[ $MODE == distributed ]]; then
    "$BIN/parley" migrate up >"$TMP/migrate.log" 2>&1 || { cat "$TMP/migrate.log" >&2; die "migrate up failed"; }
fi
start_roles

machine_info
READERS=${BENCH_READERS:-10000}
# The readers' turn: its first token waits until they are all connected (the stall
# timeout is raised for it), then ~20 events/s flow to every reader.
READERS_TURN="first_token_delay_ms=${BENCH_READERS_WAIT_MS:-45000} tokens=2000 token_delay_ms=50"
RETENTION=${BENCH_GROWTH_RETENTION_S:-1}
if [[ -n ${BENCH_CMD:-} ]]; then
    export PARLEY_BENCH_API_URL="http://127.0.0.1:$API_PORT" PARLEY_BENCH_MOCK_URL="http://127.0.0.1:$MOCK_PORT/v1"
    export BENCH_API_PID=$API_PID BENCH_WORKER_PID=$WORKER_PID BENCH_PG_PID=$PG_PID
    export BENCH_REDIS_PID=$REDIS_PID BENCH_MOCK_PID=$MOCK_PID BIN
    bash -c "$BENCH_CMD"
elif ((PACE)); then
    echo
    echo "== pace: ${PACE_TOKENS}-token replies at ${PACE_DELAYS// /, } ms per token, C = $PACE_LEVELS, $MODE"
    echo "settings raised for the bench: worker concurrency $WORKER_CONCURRENCY (the largest level + 64); the rest as configured (PARLEY_* passed through: $(env | grep -o '^PARLEY_[A-Z_]*' | grep -vE 'ADMIN_TOKEN|BENCH|CONFIG|_URL$' | sort | tr '\n' ' '))"
    for delay in $PACE_DELAYS; do
        # One turn's length (the model's time alone), in seconds: the users' first turns
        # are spread over it, and the warm-up lasts it twice and a second more, so the
        # measured window sees the loop's steady state.
        turn_s=$(awk -v t="$PACE_TOKENS" -v d="$delay" 'BEGIN { printf "%.3f", t * d / 1000 }')
        warmup=$(awk -v s="$turn_s" 'BEGIN { printf "%.3f", 2 * s + 1 }')
        echo
        echo "== pace: $delay ms per token ($PACE_TOKENS tokens, ${turn_s} s a turn), uptime: $(uptime)"
        run_bench --levels "$PACE_LEVELS" --tokens "$PACE_TOKENS" --token-delay-ms "$delay" \
            --ramp "$turn_s" --warmup "$warmup" --duration "$PACE_DURATION" --turn-timeout 120 "$@"
    done
elif (($# > 0)); then
    run_bench "$@"
elif [[ $MODE == distributed ]]; then
    echo
    echo "== phase 1: load levels"
    run_bench
    echo
    echo "== phase 1b: one function call per turn (getCurrentTime, two model calls)"
    run_bench --levels 32 --function-call --no-direct
    echo
    echo "== phase 1c: modules — the PII redactor redacts every message, skills on (compare with C = 32 of phase 1)"
    run_bench --levels 32 --modules --no-direct
    echo
    echo "== phase 1d: a new session per turn (POST /v1/sessions, then the message)"
    run_bench --levels 32 --session-per-turn
    echo
    echo "== phase 1e: what a turn costs, counted on the servers"
    run_bench --cost 100
    run_bench --cost 50 --session-per-turn
    log "restarting the api and worker for the readers phase"
    stop_roles
    PARLEY_WORKER__STALL_TIMEOUT_MS=300000 start_roles
    echo
    echo "== phase 2: SSE readers"
    run_bench --readers "$READERS" --slow-turn "$READERS_TURN"
else
    echo
    echo "== phase 1: load levels (embedded)"
    run_bench
    echo
    echo "== phase 1d: a new session per turn (embedded)"
    run_bench --levels 32 --session-per-turn
    echo
    echo "== phase 1e: what a turn costs (embedded: SSE events; SQLite has no server counters)"
    run_bench --cost 100
    log "restarting parley serve for the RSS phase (worker.memory_event_retention_s = $RETENTION)"
    stop_roles
    PARLEY_WORKER__MEMORY_EVENT_RETENTION_S=$RETENTION start_roles
    echo
    echo "== phase 3: RSS after 500 and 5,000 turns (embedded, finished turns' events kept $RETENTION s)"
    # Each reading waits out the retention and the log's 10-s sweep, then runs a turn.
    run_bench --growth 500,5000 --levels 8 --growth-settle-s $((RETENTION + 11))
    log "restarting parley serve for the readers phase"
    stop_roles
    PARLEY_WORKER__STALL_TIMEOUT_MS=300000 start_roles
    echo
    echo "== phase 2: SSE readers (embedded)"
    run_bench --readers "$READERS" --slow-turn "$READERS_TURN"
fi
echo
echo "uptime after: $(uptime)"
