#!/usr/bin/env bash
# Fault drills (issue #10 item 11; not part of CI's run): Parley in distributed mode —
# PostgreSQL, Redis, the mock LLM, one `parley api` and two `parley worker`s — under 32
# users running turns back to back for DRILL_SECONDS (120), each turn calling a function
# (`createTodo`, one side effect per turn), while one fault happens:
#
#   scripts/drill.sh [worker-kill] [redis-restart] [postgres-restart] [provider-500s]
#                    [redis-failover]
#
#   worker-kill       a worker is `kill -9`ed every 10 s (the two in turn) and restarted
#   redis-restart     Redis is restarted once (no persistence: its queue and event logs
#                     are lost), 40 s in
#   postgres-restart  PostgreSQL is restarted once (fast shutdown), 40 s in
#   provider-500s     the provider answers every request with 500 for 20 s, 40 s in
#   redis-failover    Parley on a Redis Cluster (three primaries with a replica each, the
#                     queue in three partitions): 40 s in, the primary holding the
#                     queue's partition 0 is `kill -9`ed and its replica takes over (the
#                     fault ends when a surviving node names the new primary and reports
#                     the cluster ok)
#
# No argument runs all five, each on fresh servers. Each run prints, from what the users
# saw (parley-bench --drill) and what the database holds: turns accepted (a prompt
# recorded), completed, errored visibly (a terminal `error` the reader saw), lost
# (accepted, never terminal: must be 0), readers that did not reach a terminal event,
# duplicated side effects (todos created twice by one turn: must be 0), the longest time
# without a completed turn, and the time from the fault (its end, for the outage) until
# turns complete at half the rate of before it. It exits non-zero when a turn was lost or
# a side effect duplicated. Figures of a run on this machine are in docs/resilience.md.
#
# Environment: BENCH_BIN=DIR (prebuilt parley, parley-mock-llm and parley-bench),
# DRILL_SECONDS (120), DRILL_USERS (32), DRILL_SETTLE (seconds to let the last turns end
# after the load stops, 120), DRILL_KEEP=1 (keep the temp dir with every log and the
# per-turn records).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[drill.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=scripts/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/servers.sh"

SECONDS_LOAD=${DRILL_SECONDS:-120}
USERS=${DRILL_USERS:-32}
SETTLE=${DRILL_SETTLE:-120}
FAULT_AT=${DRILL_FAULT_AT:-40}
PG_BIN="" PG_PORT="" REDIS_PORT=""

# Every process a run starts, "NAME PID" per line in $TMP/pids (the fault injector runs
# in a subshell and restarts processes too): stopped, last first, at the end of the run.
track() { echo "$1 $2" >>"$TMP/pids"; }

stop_all() {
    [[ -n $TMP && -f $TMP/pids ]] || return 0
    local name pid
    while read -r name pid; do
        case $name in
        postgres) stop_pid "$pid" INT postgres ;;
        mock) stop_pid "$pid" INT parley-mock-llm ;;
        *) stop_pid "$pid" TERM "$name" ;;
        esac
    done < <(tac "$TMP/pids")
    wait 2>/dev/null || true
    rm -f "$TMP/pids"
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    stop_all
    if [[ -n $ROOT && -d $ROOT ]]; then
        if [[ ${DRILL_KEEP:-} == 1 ]]; then log "logs kept in $ROOT"; else rm -rf "$ROOT"; fi
    fi
    exit "$status"
}
ROOT=""
TMP=""
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Starts worker N (0 or 1); its PID goes to $TMP/worker$N.pid.
start_worker() {
    local n=$1
    "$BIN/parley" worker --concurrency 32 >>"$TMP/worker$n.log" 2>&1 &
    echo $! >"$TMP/worker$n.pid"
    track worker $!
    disown $! # its kill -9 is the drill, not news
}

start_pg() {
    start_postgres "$PG_BIN" "$PG_PORT"
    track postgres "$PG_PID"
}

restart_postgres() {
    # Fast shutdown (clients are cut), then the same data directory again.
    local pid
    pid=$(head -n1 "$TMP/pg/data/postmaster.pid")
    stop_pid "$pid" INT postgres
    as_postgres "$PG_BIN/postgres" -D "$TMP/pg/data" -k "$TMP/pg/sock" -p "$PG_PORT" -h 127.0.0.1 \
        -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 \
        >>"$TMP/pg/postgres.log" 2>&1 &
    for _ in $(seq 300); do
        "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres && break
        sleep 0.1
    done
    track postgres "$(head -n1 "$TMP/pg/data/postmaster.pid")"
}

restart_redis() {
    stop_pid "$(cat "$TMP/redis.pid")" TERM redis-server
    start_redis "$REDIS_PORT"
    echo "$REDIS_PID" >"$TMP/redis.pid"
    track redis "$REDIS_PID"
}

# The fault of one run, on the drill's clock (the load started at $1, epoch ms): writes
# each fault's start and end (epoch ms) to $TMP/faults.
inject() {
    local kind=$1 started=$2
    local now
    now() { date +%s%3N; }
    until_offset() { # sleeps until $1 seconds after the load started
        local wait_ms=$((started + $1 * 1000 - $(now)))
        ((wait_ms > 0)) && sleep "$(printf '%d.%03d' $((wait_ms / 1000)) $((wait_ms % 1000)))"
        return 0
    }
    case $kind in
    worker-kill)
        local n=0 offset
        for offset in $(seq 10 10 $((SECONDS_LOAD - 10))); do
            until_offset "$offset"
            local at
            at=$(now)
            kill -KILL "$(cat "$TMP/worker$n.pid")" 2>/dev/null || true
            start_worker "$n"
            echo "$at $(now) kill -9 worker $n" >>"$TMP/faults"
            n=$((1 - n))
        done
        ;;
    redis-restart)
        until_offset "$FAULT_AT"
        local at
        at=$(now)
        restart_redis
        echo "$at $(now) redis restarted" >>"$TMP/faults"
        ;;
    postgres-restart)
        until_offset "$FAULT_AT"
        local at
        at=$(now)
        restart_postgres
        echo "$at $(now) postgres restarted" >>"$TMP/faults"
        ;;
    redis-failover)
        until_offset "$FAULT_AT"
        local at slot victim survivor i
        slot=$(redis-cli -p "${CLUSTER_PORTS[0]}" cluster keyslot "{parley-generate}")
        victim=$(slot_owner "${CLUSTER_PORTS[0]}" "$slot")
        for i in "${!CLUSTER_PORTS[@]}"; do
            [[ ${CLUSTER_PORTS[$i]} == "$victim" ]] && break
        done
        for survivor in "${CLUSTER_PORTS[@]}"; do [[ $survivor != "$victim" ]] && break; done
        at=$(now)
        kill -KILL "${CLUSTER_PIDS[$i]}"
        # Promoted: a surviving node names another primary for the slot, and is ok.
        until [[ $(slot_owner "$survivor" "$slot") =~ ^[0-9]+$ && $(slot_owner "$survivor" "$slot") != "$victim" ]] &&
            redis-cli -p "$survivor" cluster info | grep -q '^cluster_state:ok'; do
            sleep 0.05
        done
        echo "$at $(now) kill -9 the primary of partition 0 (port $victim); promoted: $(slot_owner "$survivor" "$slot")" >>"$TMP/faults"
        ;;
    provider-500s)
        until_offset "$FAULT_AT"
        local at
        at=$(now)
        curl -fsS -X POST "http://127.0.0.1:$MOCK_PORT/_mock/outage" \
            -H 'content-type: application/json' -d '{"status": 500, "for_ms": 20000}' >/dev/null
        echo "$at $((at + 20000)) provider answers 500 for 20 s" >>"$TMP/faults"
        ;;
    esac
}

# The port of the primary serving hash SLOT, as the node on PORT sees the cluster (a
# primary marked failed does not count).
slot_owner() {
    local port=$1 slot=$2
    redis-cli -p "$port" cluster nodes 2>/dev/null | awk -v slot="$slot" '
        $3 ~ /master/ && $3 !~ /fail/ {
            for (i = 9; i <= NF; i++) {
                n = split($i, r, "-"); if (n == 1) r[2] = r[1]
                if (slot + 0 >= r[1] + 0 && slot + 0 <= r[2] + 0) { split($2, a, "[:@]"); print a[2]; exit }
            }
        }'
}

one_run() {
    local kind=$1
    TMP=$ROOT/$kind
    mkdir -p "$TMP"
    chmod 755 "$TMP"
    : >"$TMP/faults"
    PG_PORT=$(free_port)
    REDIS_PORT=$(free_port)
    MOCK_PORT=$(free_port)
    API_PORT=$(free_port)
    start_pg
    export PARLEY_DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
    if [[ $kind == redis-failover ]]; then
        CLUSTER_PIDS=() CLUSTER_PORTS=()
        start_redis_cluster 3
        local pid
        for pid in "${CLUSTER_PIDS[@]}"; do track redis "$pid"; done
        export PARLEY_REDIS_URL=$REDIS_CLUSTER_URL PARLEY_REDIS__QUEUE_PARTITIONS=3
    else
        start_redis "$REDIS_PORT"
        echo "$REDIS_PID" >"$TMP/redis.pid"
        track redis "$REDIS_PID"
        export PARLEY_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/"
        unset PARLEY_REDIS__QUEUE_PARTITIONS
    fi
    "$BIN/parley-mock-llm" --listen "127.0.0.1:$MOCK_PORT" >"$TMP/mock.log" 2>&1 &
    track mock $!
    wait_for_line "$TMP/mock.log" 'mock-llm listening' $! parley-mock-llm
    cat >"$TMP/parley.toml" <<EOF
[[providers]]
name = "mock"
base_url = "http://127.0.0.1:$MOCK_PORT/v1"

[[models]]
id = "mock-model"
provider = "mock"
EOF
    export PARLEY_CONFIG=$TMP/parley.toml PARLEY_LOG=warn
    PARLEY_BOOTSTRAP_ADMIN_TOKEN="drill-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    export PARLEY_BOOTSTRAP_ADMIN_TOKEN
    "$BIN/parley" migrate up >"$TMP/migrate.log" 2>&1 || { cat "$TMP/migrate.log" >&2; die "migrate up failed"; }
    "$BIN/parley" api --listen "127.0.0.1:$API_PORT" >>"$TMP/api.log" 2>&1 &
    track api $!
    wait_for_line "$TMP/api.log" 'parley listening' $! "parley api"
    start_worker 0
    start_worker 1
    wait_for_line "$TMP/worker1.log" 'parley worker running' "$(cat "$TMP/worker1.pid")" "parley worker"
    log "$kind: api on 127.0.0.1:$API_PORT, two workers, $USERS users for $SECONDS_LOAD s"

    local started
    started=$(($(date +%s%3N) + 3000)) # the fixtures take a moment; the load starts then
    echo "$started" >"$TMP/started"
    inject "$kind" "$started" &
    local injector=$!
    local status=0
    "$BIN/parley-bench" --api-url "http://127.0.0.1:$API_PORT" --mock-url "http://127.0.0.1:$MOCK_PORT/v1" \
        --admin-token "$PARLEY_BOOTSTRAP_ADMIN_TOKEN" --levels "$USERS" \
        --drill "$SECONDS_LOAD" --drill-start "$started" --drill-settle "$SETTLE" \
        --drill-out "$TMP/turns.jsonl" >"$TMP/bench.log" 2>&1 || status=$?
    wait "$injector" || true
    if ((status != 0)); then
        tail -n 30 "$TMP/bench.log" >&2
        die "$kind: parley-bench --drill failed ($status)"
    fi
    # Side effects: each turn's function call creates the todo named after it.
    local dup
    dup=$("$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -Atc \
        "SELECT COALESCE(SUM(c - 1), 0) FROM (SELECT COUNT(*) c FROM todos WHERE title LIKE 'drill-%' GROUP BY title) t")
    local states
    states=$("$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -Atc \
        "SELECT string_agg(state || '=' || n, ' ' ORDER BY state) FROM (SELECT state, COUNT(*) n FROM prompts GROUP BY state) s")
    if [[ -n ${DRILL_PAUSE_S:-} ]]; then
        log "$kind: servers up for $DRILL_PAUSE_S s (PG 127.0.0.1:$PG_PORT, Redis 127.0.0.1:$REDIS_PORT)"
        sleep "$DRILL_PAUSE_S"
    fi
    python3 scripts/lib/drill_report.py "$kind" "$TMP/turns.jsonl" "$TMP/faults" "$started" "$dup" "$states" \
        | tee -a "$ROOT/report.md"
    stop_all
}

# --- Main. ---

KINDS=("$@")
((${#KINDS[@]} > 0)) || KINDS=(worker-kill redis-restart postgres-restart provider-500s redis-failover)
for kind in "${KINDS[@]}"; do
    case $kind in
    worker-kill | redis-restart | postgres-restart | provider-500s | redis-failover) ;;
    *) die "unknown drill: $kind" ;;
    esac
done

if [[ -n ${BENCH_BIN:-} ]]; then
    BIN=$BENCH_BIN
    for b in parley parley-mock-llm parley-bench; do [[ -x $BIN/$b ]] || die "no $BIN/$b"; done
else
    BIN=${CARGO_TARGET_DIR:-target}/release
    log "cargo build --release -p parley -p parley-mock-llm -p parley-bench"
    cargo build --release -p parley -p parley-mock-llm -p parley-bench
fi
install_servers
command -v curl >/dev/null || die "curl not found"
PG_BIN=$(pg_bin_dir) || die "no PostgreSQL found under /usr/lib/postgresql/*/bin"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
ROOT=$(mktemp -d -t parley-drill.XXXXXX)
chmod 755 "$ROOT"
unset RUST_BACKTRACE RUST_LIB_BACKTRACE

{
    echo "# Fault drills — $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)"
    echo
    echo "$(nproc) × $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $USERS users, $SECONDS_LOAD s of load, 2 workers (concurrency 32 each)"
    echo
} | tee "$ROOT/report.md"
failed=0
for kind in "${KINDS[@]}"; do
    one_run "$kind" || failed=1
done
grep -q 'VERDICT: FAIL' "$ROOT/report.md" && failed=1
exit "$failed"
