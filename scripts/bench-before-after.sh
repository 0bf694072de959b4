#!/usr/bin/env bash
# Compares two builds in one sitting, interleaved, on this machine (BENCHMARKS.md,
# "Issue #13"): the turn cost of each, the load levels twice each at 0 ms, then the same
# at a real model's pace (tokens 20 ms apart, 200-token replies).
#
#   scripts/bench-before-after.sh BEFORE-BIN-DIR AFTER-BIN-DIR
#   scripts/bench-before-after.sh --pace BEFORE-BIN-DIR AFTER-BIN-DIR
#
# --pace (issue #16) runs instead, phase by phase, each phase for one build then the
# other: the counts matrix (scripts/bench-counts.sh --distributed: 0, 5, 20 ms per token,
# plain and one function call), then scripts/bench.sh --pace distributed, then embedded
# (C = 50, 200, 500 at 20 and 5 ms per token, beside the direct mock); about 25 minutes
# a build. BENCH_PACE_* and
# BENCH_COUNTS_* settings are passed on.
#
# Each directory holds release builds of parley, parley-mock-llm and parley-bench (build
# a commit with `cargo build --release -p parley -p parley-mock-llm -p parley-bench` and
# copy the three from target/release; the parley-bench may be this tree's, beside an
# older commit's servers: the servers are what is measured). Prints what scripts/bench.sh
# prints, each run headed by `=== PHASE BUILD TIME`.
set -euo pipefail
pace=0
if [[ ${1:-} == --pace ]]; then
    pace=1
    shift
fi
(($# == 2)) || { echo "usage: $0 [--pace] BEFORE-BIN-DIR AFTER-BIN-DIR" >&2; exit 2; }
cd "$(dirname "${BASH_SOURCE[0]}")/.."
builds=("$1" "$2")
run() {
    local phase=$1 bin=$2
    shift 2
    echo "=== $phase $bin $(date -u +%H:%M:%S)"
    env BENCH_BIN="$bin" "$@"
}
if ((pace)); then
    for bin in "${builds[@]}"; do run counts "$bin" scripts/bench-counts.sh --distributed; done
    for bin in "${builds[@]}"; do run pace-distributed "$bin" scripts/bench.sh --pace; done
    for bin in "${builds[@]}"; do run pace-embedded "$bin" scripts/bench.sh --embedded --pace; done
    exit 0
fi
for bin in "${builds[@]}"; do run cost "$bin" scripts/bench.sh --cost 100; done
for round in 1 2; do
    for bin in "${builds[@]}"; do
        run "load0-$round" "$bin" scripts/bench.sh --levels 1,32 --duration 10
    done
done
for bin in "${builds[@]}"; do
    run pace20 "$bin" env BENCH_TOKEN_DELAY_MS=20 \
        scripts/bench.sh --levels 1,32 --duration 20 --tokens 200 --turn-timeout 60
done
