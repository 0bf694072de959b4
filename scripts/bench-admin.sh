#!/usr/bin/env bash
# The admin metrics at scale (issue #15 item 4): seeds a throwaway PostgreSQL with
# BENCH_USAGE_ROWS (1,000,000) `ai_usage` rows over 60 days (500 users, 30 tools in 10
# groups, 8 models; 500,000 prompts, two calls each) and BENCH_EVENTS (100,000)
# `module_events`, times the rollup pass catching up with them and its steady-state
# cost, then measures with real HTTP (curl) the p50/p95 latency of each admin route over
# a 30-day window, BENCH_REQUESTS (50) requests each, and prints a table.
#
#   scripts/bench-admin.sh            # seed, roll up, measure
#   BENCH_NO_ROLLUP=1 scripts/bench-admin.sh   # measure before any pass (every row is
#                                     # read from ai_usage: the reads' worst case)
#   BENCH_BEFORE_BIN=DIR scripts/bench-admin.sh  # then the same seed with DIR/parley
#                                     # (a build from before the rollups;
#                                     # BENCH_BEFORE_REQUESTS requests per route, 10)
#
# Builds `parley` (debug unless BENCH_PROFILE=release; BENCH_BIN=DIR uses a prebuilt one),
# starts PostgreSQL and Redis on free loopback ports (scripts/lib/servers.sh), runs
# `parley migrate up`, seeds in SQL (INSERT … SELECT generate_series), starts one
# `parley api` and one `parley worker` (worker.rollup_every_s = 1) and stops everything
# by PID on exit. BENCH_KEEP=1 keeps the temp dir.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[bench-admin.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=scripts/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/servers.sh"

USAGE_ROWS=${BENCH_USAGE_ROWS:-1000000}
EVENTS=${BENCH_EVENTS:-100000}
REQUESTS=${BENCH_REQUESTS:-50}
PROMPTS=$((USAGE_ROWS / 2))
API_PID=""
WORKER_PID=""

TMP=$(mktemp -d /tmp/parley-bench-admin.XXXXXX)
chmod 755 "$TMP"
cleanup() {
    stop_pid "$WORKER_PID" TERM worker
    stop_pid "$API_PID" TERM api
    stop_servers
    if [[ -z ${BENCH_KEEP:-} ]]; then rm -rf "$TMP"; else log "kept $TMP"; fi
}
trap cleanup EXIT

if [[ -n ${BENCH_BIN:-} ]]; then
    BIN=$BENCH_BIN
else
    profile=${BENCH_PROFILE:-debug}
    flags=()
    [[ $profile == release ]] && flags=(--release)
    log "building parley ($profile)"
    cargo build -q "${flags[@]}" -p parley --bin parley
    BIN=${CARGO_TARGET_DIR:-target}/$profile
fi

install_servers
PG_BIN=$(pg_bin_dir) || die "no PostgreSQL found under /usr/lib/postgresql/*/bin"
pg_port=$(free_port)
redis_port=$(free_port)
# Statements slower than 100 ms are logged ($TMP/pg/postgres.log; BENCH_KEEP=1 keeps it).
PG_EXTRA_OPTS=(-c log_min_duration_statement=100)
start_postgres "$PG_BIN" "$pg_port"
start_redis "$redis_port"
export PARLEY_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres"
export PARLEY_REDIS_URL="redis://127.0.0.1:$redis_port/"
export PARLEY_LOG=warn PARLEY_WORKER__ROLLUP_EVERY_S=1
PARLEY_BOOTSTRAP_ADMIN_TOKEN="bench-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export PARLEY_BOOTSTRAP_ADMIN_TOKEN
PSQL=("$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$PARLEY_DATABASE_URL")

"$BIN/parley" migrate up >"$TMP/migrate.log" 2>&1 || { cat "$TMP/migrate.log" >&2; die "migrate up failed"; }

# The api first: on the empty database it makes the admin whose token is the bootstrap one.
start_api() {
    local bin=$1
    API_PORT=$(free_port)
    "$bin/parley" api --listen "127.0.0.1:$API_PORT" >>"$TMP/api.log" 2>&1 &
    API_PID=$!
    wait_for_line "$TMP/api.log" 'parley listening' "$API_PID" "parley api"
}
start_api "$BIN"

log "seeding $USAGE_ROWS usage rows, $PROMPTS prompts, $EVENTS module events"
seed_start=$(date +%s)
"${PSQL[@]}" <<SQL
SELECT setseed(0.15);
INSERT INTO groups (id, name, path, settings, created_at, updated_at)
SELECT gen_random_uuid(), 'Group ' || i, 'bench-' || i, '{}', now(), now() FROM generate_series(0, 9) i;
CREATE TEMP TABLE g AS SELECT id, row_number() OVER (ORDER BY name) - 1 AS n FROM groups WHERE path LIKE 'bench-%';
INSERT INTO tools (id, group_id, name, type, definition, created_at, updated_at)
SELECT gen_random_uuid(), g.id, 'Tool ' || i, 'chat', '{}', now(), now()
FROM generate_series(0, 29) i JOIN g ON g.n = i % 10;
CREATE TEMP TABLE t AS SELECT id, row_number() OVER (ORDER BY name) - 1 AS n FROM tools;
INSERT INTO users (id, email, name, role, permissions, created_at, updated_at)
SELECT gen_random_uuid(), 'user' || i || '@bench.example', 'User ' || i, 'student', '[]', now(), now()
FROM generate_series(0, 499) i;
CREATE TEMP TABLE u AS SELECT id, row_number() OVER (ORDER BY email) - 1 AS n FROM users WHERE email LIKE '%@bench.example';
-- 20,000 sessions: each user works with two tools.
INSERT INTO sessions (id, user_id, tool_id, state, started_at, last_activity_at, message_count, config)
SELECT gen_random_uuid(), u.id, t.id, 'completed', now() - interval '60 days', now(), 0, '{}'
FROM generate_series(0, 19999) i JOIN u ON u.n = i % 500 JOIN t ON t.n = ((i % 500) * 7 + (i / 500) % 2) % 30;
CREATE TEMP TABLE s AS SELECT s.id, s.user_id, s.tool_id, t.n AS tool_n, row_number() OVER (ORDER BY s.id) - 1 AS n
FROM sessions s JOIN t ON t.id = s.tool_id;
CREATE INDEX ON s (n);
-- Prompts over 60 days, almost all finished; the newest few hundred in flight.
INSERT INTO prompts (id, session_id, state, attempt, created_at, seq_ceiling)
SELECT gen_random_uuid(), s.id,
       CASE WHEN i >= $PROMPTS - 300 THEN 'in_progress' WHEN i % 50 = 0 THEN 'failed' WHEN i % 97 = 0 THEN 'canceled' ELSE 'completed' END,
       1, now() - interval '60 days' * (1 - i::float / $PROMPTS), 0
FROM generate_series(0, $PROMPTS - 1) i JOIN s ON s.n = i % 20000;
-- Two calls per prompt (a function-calling round and the answer).
INSERT INTO ai_usage (id, prompt_id, session_id, user_id, tool_id, model, vendor, input_tokens, output_tokens,
                      cost_usd, latency_ms, ttft_ms, created_at)
SELECT gen_random_uuid(), p.id, p.session_id, s.user_id, s.tool_id, 'model-' || (s.tool_n % 8), 'bench',
       tok.i, tok.o, (tok.i * 2.0 + tok.o * 10.0) / 1e6, lat.ms, (lat.ms * 0.3)::bigint, p.created_at + k * interval '2 seconds'
FROM prompts p JOIN s ON s.id = p.session_id CROSS JOIN generate_series(0, 1) k
CROSS JOIN LATERAL (SELECT (200 + random() * 3000)::bigint AS i, (20 + random() * 800)::bigint AS o) tok
CROSS JOIN LATERAL (SELECT (150 + random() * random() * 12000)::bigint AS ms) lat;
INSERT INTO module_events (id, prompt_id, module, hook, outcome, duration_ms, created_at, category)
SELECT gen_random_uuid(), p.id, (ARRAY['pii', 'safety', 'topic', 'profanity', 'length'])[1 + x.m], 'input',
       x.outcome, (1 + random() * random() * 400)::bigint, p.created_at,
       CASE WHEN x.outcome IN ('block', 'modify') THEN (ARRAY['email', 'phone', 'self_harm', 'off_topic', 'insult', NULL])[1 + (x.r * 6)::int % 6] END
FROM (SELECT id, created_at FROM prompts ORDER BY id LIMIT $EVENTS) p
CROSS JOIN LATERAL (SELECT (random() * 5)::int % 5 AS m, random() AS r,
       (ARRAY['block', 'modify', 'modify', 'error', 'timeout', 'continue'])[1 + (random() * 6)::int % 6] AS outcome) x;
VACUUM ANALYZE;
SQL
log "seeded in $(($(date +%s) - seed_start)) s"
"${PSQL[@]}" -At -c "SELECT 'rows: ai_usage ' || (SELECT count(*) FROM ai_usage) || ', prompts ' || (SELECT count(*) FROM prompts) || ', module_events ' || (SELECT count(*) FROM module_events)"

if [[ -z ${BENCH_NO_ROLLUP:-} ]]; then
    "$BIN/parley" worker >>"$TMP/worker.log" 2>&1 &
    WORKER_PID=$!
    wait_for_line "$TMP/worker.log" 'parley worker running' "$WORKER_PID" "parley worker"
    roll_start=$(date +%s.%N)
    while [[ $("${PSQL[@]}" -At -c "SELECT EXISTS (SELECT 1 FROM ai_usage WHERE rolled_up = FALSE) OR EXISTS (SELECT 1 FROM module_events WHERE rolled_up = FALSE)") == t ]]; do
        sleep 0.5
    done
    roll_s=$(echo "$(date +%s.%N) - $roll_start" | bc)
    printf 'rollup catch-up: %.1f s for %s usage rows and %s module events (polled every 0.5 s)\n' "$roll_s" "$USAGE_ROWS" "$EVENTS"
    "${PSQL[@]}" -At -c "SELECT 'rollup rows: usage ' || (SELECT count(*) FROM usage_rollup) || ', module events ' || (SELECT count(*) FROM module_event_rollup)"
    # As autovacuum would after the pass's updates (the visibility map, dead rows).
    "${PSQL[@]}" -c "VACUUM ANALYZE"
    sleep 3
    echo "steady state (last passes): $("${PSQL[@]}" -At -c "SELECT last_outcome FROM scheduled_tasks WHERE name = 'rollup_metrics'")"
fi

FROM=$(date -u -d '30 days ago' +%Y-%m-%dT%H:%M:%SZ)
DAY=$(date -u -d '10 days ago' +%Y-%m-%d)
read -r USER_ID TOOL_ID GROUP_ID < <("${PSQL[@]}" -At -F ' ' -c "SELECT u.id, t.id, t.group_id FROM users u, tools t WHERE u.email = 'user7@bench.example' AND t.name = 'Tool 19'")
routes=(
    "usage?group_by=day&limit=100&from=$FROM"
    "usage?group_by=model&limit=100&from=$FROM"
    "usage?group_by=user&limit=100&from=$FROM"
    "usage?group_by=tool&limit=100&from=$FROM"
    "usage?group_by=group&limit=100&from=$FROM"
    "usage?group_by=day&user_id=$USER_ID&from=$FROM"
    "usage/calls?limit=50&from=$FROM"
    "usage/calls?limit=50&day=$DAY&tool_id=$TOOL_ID"
    "usage/calls?limit=50&group_id=$GROUP_ID&from=$FROM"
    "blocks?group_by=module&from=$FROM"
    "blocks?group_by=day&from=$FROM"
    "blocks/events?limit=50&module=safety&outcome=block&from=$FROM"
    "prompts/stats?from=$FROM"
    "prompts/stats"
    "feedback/metrics?from=$FROM"
)
# Measures every route: p50 and p95 of $REQUESTS requests each, after one warm-up.
measure() {
    local base="http://127.0.0.1:$API_PORT/v1/admin" route out status times p50 p95 label
    printf '\n%-60s %8s %8s %8s\n' "$1 (30 days; $REQUESTS requests each)" "p50 ms" "p95 ms" "status"
    for route in "${routes[@]}"; do
        curl -s -o /dev/null -H "Authorization: Bearer $PARLEY_BOOTSTRAP_ADMIN_TOKEN" "$base/$route"
        times=()
        status=""
        for _ in $(seq "$REQUESTS"); do
            out=$(curl -s -o /dev/null --max-time 300 -w '%{http_code} %{time_total}' -H "Authorization: Bearer $PARLEY_BOOTSTRAP_ADMIN_TOKEN" "$base/$route")
            status=${out%% *}
            times+=("${out##* }")
        done
        read -r p50 p95 < <(printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR]=$1} END {i50=int((NR*50+99)/100); i95=int((NR*95+99)/100); printf "%.1f %.1f\n", v[i50]*1000, v[i95]*1000}')
        label=${route//$FROM/30d}
        label=${label//$USER_ID/U}
        label=${label//$TOOL_ID/T}
        label=${label//$GROUP_ID/G}
        printf '%-60s %8s %8s %8s\n' "$label" "$p50" "$p95" "$status"
    done
}
measure "after: $BIN"

# Before: the same seed read by another build (today's Rust aggregation), without the
# rollup's migration recorded (its columns and tables are left; that build ignores them).
if [[ -n ${BENCH_BEFORE_BIN:-} ]]; then
    stop_pid "$WORKER_PID" TERM worker
    stop_pid "$API_PID" TERM api
    unset PARLEY_WORKER__ROLLUP_EVERY_S
    "${PSQL[@]}" -c "DELETE FROM seaql_migrations WHERE version = 'm20261126_000026_create_metric_rollups'"
    "$BENCH_BEFORE_BIN/parley" migrate up >>"$TMP/migrate.log" 2>&1 || { cat "$TMP/migrate.log" >&2; die "migrate up (before) failed"; }
    start_api "$BENCH_BEFORE_BIN"
    REQUESTS=${BENCH_BEFORE_REQUESTS:-10}
    measure "before: $BENCH_BEFORE_BIN"
fi
grep -iE 'error|panic' "$TMP/api.log" "$TMP/worker.log" 2>/dev/null | tail -n 10 >&2 || true
