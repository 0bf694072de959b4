#!/usr/bin/env bash
# Where the CPU goes at a real model's pace (issue #16): starts everything as
# scripts/bench.sh does, runs C = 200 users of 200-token replies at 20 ms per token, and
# records the api and the worker with `perf record -F 499 -g` for 15 s of the steady
# state; then prints each process's samples grouped by scripts/perf-stages.py.
#
#   scripts/bench-profile.sh            # BENCH_BIN=DIR to profile prebuilt binaries
#
# Needs `perf` (Debian's linux-perf) and a release build with debug info (the
# workspace's release profile keeps it). The data stays in $PROFILE_DIR (default a temp
# dir, printed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v perf >/dev/null || { echo "perf not found (apt-get install linux-perf)" >&2; exit 1; }
PROFILE_DIR=${PROFILE_DIR:-$(mktemp -d -t parley-profile.XXXXXX)}
export PROFILE_DIR
# shellcheck disable=SC2016 # expanded by the shell bench.sh starts
BENCH_WORKER_CONCURRENCY=${BENCH_WORKER_CONCURRENCY:-300} BENCH_CMD='
"$BIN/parley-bench" --levels 200 --tokens 200 --token-delay-ms 20 --ramp 4 --warmup 9 \
    --duration 30 --turn-timeout 120 --no-direct --proc "api=$BENCH_API_PID" \
    --proc "worker=$BENCH_WORKER_PID" --proc "postgres=$BENCH_PG_PID+" \
    --proc "redis=$BENCH_REDIS_PID" --proc "mock=$BENCH_MOCK_PID" \
    --clk-tck "$(getconf CLK_TCK)" > "$PROFILE_DIR/bench.txt" 2>&1 &
bench=$!
sleep 18
perf record -F 499 -g -p "$BENCH_API_PID" -o "$PROFILE_DIR/api.data" -- sleep 15 >/dev/null 2>&1 &
api=$!
perf record -F 499 -g -p "$BENCH_WORKER_PID" -o "$PROFILE_DIR/worker.data" -- sleep 15 >/dev/null 2>&1 &
worker=$!
wait "$api" "$worker" "$bench"
' scripts/bench.sh
tail -n 5 "$PROFILE_DIR/bench.txt"
for who in worker api; do
    perf report -i "$PROFILE_DIR/$who.data" --no-children --no-inline -g none --percent-limit 0 \
        --stdio --sort sym 2>/dev/null | grep -v '^#' >"$PROFILE_DIR/$who.txt"
    echo "== $who"
    scripts/perf-stages.py "$PROFILE_DIR/$who.txt"
done
echo "profiles in $PROFILE_DIR"
