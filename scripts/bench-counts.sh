#!/usr/bin/env bash
# What a turn costs at each model pace (issue #16): the per-turn counts — SQL statements,
# explicit transactions (BEGIN) and pg_stat_database's transactions, Redis commands, SSE
# events — at 0, 5 and 20 ms per token, for 50- and 200-token replies, plain and with one
# function call, counted on the servers of a distributed deployment (scripts/bench.sh
# --cost, one parley-bench run for the whole matrix), then the same in embedded mode
# (SSE events only: SQLite and the in-process event log have no server counters).
#
#   scripts/bench-counts.sh                 # distributed, then embedded; ~15 min
#   scripts/bench-counts.sh --distributed   # distributed only (~9 min)
#   scripts/bench-counts.sh --embedded      # embedded only
#
# Each case counts BENCH_COUNTS_TURNS turns (default 100) at 0 ms; a case at a real pace
# counts about BENCH_COUNTS_SECONDS (30) of them, at least 10 (20 turns of 50 tokens at
# 20 ms, 10 of 200). A function-call turn is two model calls: the mock answers N tokens
# with the call and N again after its result. Settings: BENCH_COUNTS_DELAYS (0,5,20),
# BENCH_COUNTS_TOKENS (50,200); BENCH_BIN and the rest as scripts/bench.sh. It prints the
# whole report of each case (every statement and Redis command per turn), then one table
# of every case.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

modes=(distributed embedded)
case ${1:-} in
    --distributed) modes=(distributed) ;;
    --embedded) modes=(embedded) ;;
    "") ;;
    *) echo "usage: $0 [--distributed|--embedded]" >&2; exit 2 ;;
esac
# shellcheck disable=SC2054 # the commas separate a flag's values
args=(--cost "${BENCH_COUNTS_TURNS:-100}" --cost-seconds "${BENCH_COUNTS_SECONDS:-30}"
    --cost-delays "${BENCH_COUNTS_DELAYS:-0,5,20}" --cost-tokens "${BENCH_COUNTS_TOKENS:-50,200}"
    --cost-variants plain,function-call)
# The whole matrix is one parley-bench run of ~9 minutes.
export BENCH_TIMEOUT=${BENCH_TIMEOUT:-1800}
for mode in "${modes[@]}"; do
    echo "=== counts, $mode, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    if [[ $mode == embedded ]]; then
        scripts/bench.sh --embedded "${args[@]}"
    else
        scripts/bench.sh "${args[@]}"
    fi
done
