#!/usr/bin/env bash
# Machine-independent cost of one turn: instructions executed by `parley api` and
# `parley worker` (valgrind's callgrind counts them: the same figure on a busy or a quiet
# machine), PostgreSQL transactions and rows, Redis commands and SSE events, per plain
# 50-token turn, over N turns run one after the other in distributed mode.
#
#   scripts/bench-instructions.sh [N]          # default N = 50
#   BENCH_BIN=DIR scripts/bench-instructions.sh # prebuilt binaries (e.g. another commit)
#   BENCH_MODULES=1 scripts/bench-instructions.sh # the tool runs the PII redactor, and
#                                                 # every message has an address to redact
#
# It reuses scripts/bench.sh (throwaway PostgreSQL and Redis, the mock LLM, release
# binaries) with the api and worker started under `valgrind --tool=callgrind` with
# instrumentation off; after a warm-up of 5 turns it switches instrumentation on in both,
# runs N turns, switches it off, and reads the totals. Turns under valgrind are slow
# (about 50x); the counts do not depend on that.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

N=${1:-50}
command -v valgrind >/dev/null || {
    echo "[bench-instructions.sh] installing valgrind" >&2
    if [[ $EUID -eq 0 ]]; then apt-get update -qq && apt-get install -y -qq valgrind >/dev/null
    else sudo apt-get update -qq && sudo apt-get install -y -qq valgrind >/dev/null; fi
}

OUT=$(mktemp -d -t parley-instructions.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

export N OUT
export BENCH_WRAP="valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=$OUT/callgrind.%p"
export BENCH_START_TRIES=3000
export BENCH_WORKER_CONCURRENCY=4
if [[ ${BENCH_MODULES:-0} == 1 ]]; then
    export BENCH_TOOL_EXTRA=',"modules":[{"name":"pii_redactor"}]' BENCH_MESSAGE='hi, write to kim@example.net'
else
    export BENCH_TOOL_EXTRA='' BENCH_MESSAGE='hi'
fi
# The measurement itself, run by bench.sh with everything up.
export BENCH_CMD='
set -euo pipefail
A="Authorization: Bearer $PARLEY_BENCH_ADMIN_TOKEN"; U=$PARLEY_BENCH_API_URL
j() { python3 -c "import sys, json; d = json.load(sys.stdin); print($1)"; }
post() { curl -sS --max-time 120 -H "$A" -H "content-type: application/json" -d "$2" "$U$1"; }
G=$(post /v1/admin/groups "{\"name\":\"instructions\"}" | j "d[\"id\"]")
T=$(post /v1/admin/tools "{\"group_id\":\"$G\",\"name\":\"t\",\"definition\":{\"behavior\":\"b\"$BENCH_TOOL_EXTRA}}" | j "d[\"id\"]")
S=$(post /v1/sessions "{\"tool_id\":\"$T\"}" | j "d[\"id\"]")
turn() {
    curl -sS -N --max-time 120 -H "$A" -H "content-type: application/json" \
        -H "accept: text/event-stream" -d "{\"content\":\"[[mock tokens=50]] $BENCH_MESSAGE\"}" \
        "$U/v1/sessions/$S/messages" | grep -c "^event: [a-z_]*$" || true
}
pg() { psql -qtA "$PARLEY_DATABASE_URL" -c "select sum(xact_commit + xact_rollback), sum(tup_returned), sum(tup_fetched), sum(tup_inserted), sum(tup_updated) from pg_stat_database"; }
rc() { redis-cli -u "$PARLEY_REDIS_URL" info commandstats | awk -F "[=,:]" "/^cmdstat/ {s += \$3} END {print s}"; }
for _ in 1 2 3 4 5; do turn >/dev/null; done
callgrind_control -i on "$BENCH_API_PID" >/dev/null
callgrind_control -i on "$BENCH_WORKER_PID" >/dev/null
sleep 1
P0=$(pg); R0=$(rc); EVENTS=0
for _ in $(seq "$N"); do EVENTS=$((EVENTS + $(turn))); done
sleep 2
P1=$(pg); R1=$(rc)
callgrind_control -i off "$BENCH_API_PID" >/dev/null
callgrind_control -i off "$BENCH_WORKER_PID" >/dev/null
callgrind_control -d "$BENCH_API_PID" >/dev/null
callgrind_control -d "$BENCH_WORKER_PID" >/dev/null
sleep 1
python3 - "$P0" "$P1" "$R0" "$R1" "$EVENTS" "$BENCH_API_PID" "$BENCH_WORKER_PID" <<"PY"
import glob, os, sys
p0, p1, r0, r1, events, api, worker = sys.argv[1:]
n = int(os.environ["N"])
def instructions(pid):
    total = 0
    for path in glob.glob(os.path.join(os.environ["OUT"], f"callgrind.{pid}*")):
        for line in open(path, errors="replace"):
            if line.startswith("totals:"):
                total += int(line.split()[1])
    return total
pg = [int(b) - int(a) for a, b in zip(p0.split("|"), p1.split("|"))]
print(f"per plain 50-token turn, over {n} turns:")
print(f"  instructions: api {instructions(api) / n / 1e6:.2f} M, worker {instructions(worker) / n / 1e6:.2f} M")
print(f"  PostgreSQL: {pg[0] / n:.1f} transactions, {pg[1] / n:.1f} rows returned, {pg[3] / n:.1f} inserted, {pg[4] / n:.1f} updated")
print(f"  Redis: {(int(r1) - int(r0)) / n:.1f} commands; SSE events: {int(events) / n:.1f}")
PY
'
scripts/bench.sh
