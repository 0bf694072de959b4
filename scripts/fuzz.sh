#!/usr/bin/env bash
# Fuzzes the HTTP API of a real `parley serve` with schemathesis, driven by the OpenAPI
# document the server itself publishes at /openapi.json.
#
#   scripts/fuzz.sh [--max-time SECONDS] [--update-baseline]
#
# Two runs, each against a fresh `parley serve` (embedded SQLite in a temp dir, a free
# loopback port, a random bootstrap admin token): one authenticated as the admin, one as
# a student. Before each run the script seeds data through the API with curl: a student
# with a token, made a member of the "Demo tutor" tool's group, with a session and one
# finished turn in it. The seeded ids are also given to schemathesis as dictionaries, so
# about half the generated ids of the matching operations name resources that exist.
#
# schemathesis (pinned to $SCHEMATHESIS_VERSION below, installed into a venv cached across
# runs) runs every check (schemathesis's default; not `--checks all`, which as a
# command-line option would override the per-operation switches of
# scripts/fuzz-accepted.toml) and the phases examples, coverage, fuzzing and
# stateful for at most --max-time seconds per run (default 90; env FUZZ_MAX_TIME; the
# flag wins). Its report (JSON) gives, per run, the number of generated test cases, the
# operations tested and the failures; the script prints them in a summary at the end.
# After each run it also checks that the server is still up and that the run's token
# still authenticates (a fuzzer that revoked its own token only sees 401s afterwards,
# which schemathesis does not count as failures).
#
# Exits 0 only when both runs had no failure and no error. When scripts/fuzz-baseline.json
# exists, the failures it lists are accepted (`schemathesis --baseline`);
# --update-baseline merges this run's failures into it (creating it), for a human to
# review and commit.
#
# Uses the debug binary scripts/test.sh builds, ${CARGO_TARGET_DIR:-target}/debug/parley
# (PARLEY_BIN overrides), and never builds it. Other environment:
#   FUZZ_SEED=N        the schemathesis seed (default: random, printed); the same seed
#                      gives similar, not identical, runs (timing and server state vary)
#   FUZZ_WORKERS=N     schemathesis workers (default 1: with 2, hypothesis once failed
#                      inside CPython 3.11's `ast` module, not thread-safe there, with
#                      "AST constructor recursion depth mismatch", a spurious error)
#   FUZZ_KEEP=1        keep the temp dir (server logs, schemathesis output and reports)
#   PARLEY_FUZZ_VENV   the venv (default ${XDG_CACHE_HOME:-~/.cache}/parley-fuzz-venv)
# The server is stopped by PID and the temp dir removed on exit, whatever happens.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

SCHEMATHESIS_VERSION=4.32.5
BASELINE=scripts/fuzz-baseline.json

log() { printf '[fuzz.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d; s/^# \{0,1\}//; p}' "${BASH_SOURCE[0]}"; }

# shellcheck source=scripts/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/servers.sh"   # free_port, stop_pid; sets TMP=""

MAX_TIME=${FUZZ_MAX_TIME:-90}
UPDATE_BASELINE=0
while (($#)); do
    case $1 in
        --max-time) (($# >= 2)) || die "--max-time needs a value"; MAX_TIME=$2; shift 2 ;;
        --max-time=*) MAX_TIME=${1#*=}; shift ;;
        --update-baseline) UPDATE_BASELINE=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done
[[ $MAX_TIME =~ ^[1-9][0-9]*$ ]] || die "--max-time must be a positive number of seconds, not '$MAX_TIME'"
WORKERS=${FUZZ_WORKERS:-1}
SEED=${FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')}

BIN=${PARLEY_BIN:-${CARGO_TARGET_DIR:-target}/debug/parley}
[[ $BIN == /* ]] || BIN=$PWD/$BIN   # the server runs in its own directory
[[ -x $BIN ]] || die "no parley binary at $BIN (run scripts/test.sh or cargo build first, or set PARLEY_BIN)"
command -v curl >/dev/null || die "curl not found"
command -v python3 >/dev/null || die "python3 not found"

SERVER_PID=""
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    stop_server
    if [[ -n $TMP && -d $TMP ]]; then
        if [[ ${FUZZ_KEEP:-} == 1 ]]; then log "kept $TMP"; else rm -rf "$TMP"; fi
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# schemathesis lives in its own venv (beside scripts/test.sh's), reinstalled only when the
# pinned version is not the one installed there.
install_schemathesis() {
    local venv=${PARLEY_FUZZ_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/parley-fuzz-venv} have=""
    if [[ -x $venv/bin/python ]]; then
        have=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' \
            2>/dev/null) || have=""
    fi
    if [[ $have != "$SCHEMATHESIS_VERSION" || ! -x $venv/bin/schemathesis ]]; then
        log "installing schemathesis==$SCHEMATHESIS_VERSION into $venv${have:+ (had $have)}"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
    fi
    SCHEMATHESIS=$venv/bin/schemathesis
}

# Starts `parley serve` for one run in $RUN_DIR: fresh data dir, free port, and none of
# the caller's PARLEY_* variables or parley.toml (it runs in $RUN_DIR), so it is the
# embedded SQLite setup whatever the environment.
start_server() {
    local port unset=() name
    port=$(free_port)
    BASE=http://127.0.0.1:$port
    ADMIN_TOKEN=prl_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    for name in $(compgen -e); do [[ $name == PARLEY_* ]] && unset+=(-u "$name"); done
    # The fuzzer presents wrong tokens on purpose (its authentication checks), which the
    # throttle of failed authentications would soon answer 429 for every token,
    # the run's own included: it is off here (tests/tests/it/edge.rs tests it).
    (cd "$RUN_DIR" && exec env "${unset[@]}" PARLEY_BOOTSTRAP_ADMIN_TOKEN="$ADMIN_TOKEN" PARLEY_LOG=warn \
        PARLEY_HTTP__AUTH_FAILURES_PER_MINUTE=0 \
        "$BIN" serve --listen "127.0.0.1:$port" --data-dir "$RUN_DIR/data") >"$RUN_DIR/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 300); do
        if curl -fsS -o /dev/null --max-time 2 "$BASE/healthz" 2>/dev/null; then
            log "parley serve ready on $BASE (pid $SERVER_PID)"
            return 0
        fi
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$RUN_DIR/server.log" >&2
    die "parley serve did not become ready on $BASE"
}

stop_server() {
    [[ -n $SERVER_PID ]] || return 0
    stop_pid "$SERVER_PID" TERM "parley serve"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# api METHOD PATH TOKEN [JSON-BODY] [CURL-ARGS...]: prints the response body; dies (and
# shows the body) unless the status is 2xx.
api() {
    local method=$1 path=$2 token=$3 body=${4:-} status
    shift $(($# < 4 ? $# : 4))
    local args=(-sS -X "$method" -H "Authorization: Bearer $token" -o "$RUN_DIR/response"
        -w '%{http_code}' --max-time 60)
    [[ -n $body ]] && args+=(-H 'Content-Type: application/json' --data "$body")
    status=$(curl "${args[@]}" "$@" "$BASE$path") || die "$method $path: curl failed"
    [[ $status == 2?? ]] || die "seeding: $method $path answered $status: $(cat "$RUN_DIR/response")"
    cat "$RUN_DIR/response"
}

# json EXPR: evaluates a Python expression over the JSON document on stdin, bound to `d`;
# prints a string as is, anything else as JSON.
json() {
    python3 -c 'import json, sys; d = json.load(sys.stdin); v = eval(sys.argv[1])
print(v if isinstance(v, str) else json.dumps(v))' "$1"
}

# Seeds the data the fuzzer should find (shapes: api/src/routes/), through the admin API.
seed() {
    local user token tool session turn
    ADMIN_ID=$(api GET '/v1/admin/users?limit=100' "$ADMIN_TOKEN" |
        json '[u["id"] for u in d["items"] if u["role"] == "admin"][0]')
    user=$(api POST /v1/admin/users "$ADMIN_TOKEN" \
        '{"email":"student@fuzz.example","name":"Fuzz Student","role":"student"}')
    STUDENT_ID=$(json 'd["id"]' <<<"$user")
    token=$(api POST "/v1/admin/users/$STUDENT_ID/tokens" "$ADMIN_TOKEN" '{"name":"fuzz"}')
    STUDENT_TOKEN=$(json 'd["secret"]' <<<"$token")
    STUDENT_TOKEN_ID=$(json 'd["token"]["id"]' <<<"$token")
    # The demo tool of a fresh deployment; its group gives access to it.
    tool=$(api GET '/v1/admin/tools?limit=100' "$ADMIN_TOKEN" |
        json '[t for t in d["items"] if t["name"] == "Demo tutor"][0]') ||
        die "seeding: no \"Demo tutor\" tool in GET /v1/admin/tools"
    TOOL_ID=$(json 'd["id"]' <<<"$tool")
    GROUP_ID=$(json 'd["group_id"]' <<<"$tool")
    api PUT "/v1/admin/groups/$GROUP_ID/members/$STUDENT_ID" "$ADMIN_TOKEN" '{"role":"member"}' >/dev/null
    # As the student: a session with one finished turn (the offline demo model answers).
    session=$(api POST /v1/sessions "$STUDENT_TOKEN" "{\"tool_id\":\"$TOOL_ID\"}")
    SESSION_ID=$(json 'd["id"]' <<<"$session")
    turn=$(api POST "/v1/sessions/$SESSION_ID/messages" "$STUDENT_TOKEN" '{"content":"hello"}' \
        -H 'Accept: application/json')
    PROMPT_ID=$(json 'd["prompt_id"]' <<<"$turn")
    log "seeded: student $STUDENT_ID, group $GROUP_ID, tool $TOOL_ID, session $SESSION_ID, prompt $PROMPT_ID"
}

# The run's schemathesis.toml: the seeded ids as dictionaries, bound (probability 0.5) to
# the parameters that name such resources, so part of the cases reach existing data.
write_config() {
    cat >"$RUN_DIR/schemathesis.toml" <<EOF
# Written by scripts/fuzz.sh for one run: the ids seeded on this run's server.
[dictionaries]
users = { values = ["$STUDENT_ID", "$ADMIN_ID"] }
tokens = { values = ["$STUDENT_TOKEN_ID"] }
groups = { values = ["$GROUP_ID"] }
tools = { values = ["$TOOL_ID"] }
sessions = { values = ["$SESSION_ID"] }
prompts = { values = ["$PROMPT_ID"] }

[[operations]]
include-path-regex = '^/v1/sessions/\{id\}'
parameters = { "path.id" = { dictionary = "sessions", probability = 0.5 } }

[[operations]]
include-path-regex = '^/v1/prompts/\{id\}'
parameters = { "path.id" = { dictionary = "prompts", probability = 0.5 } }

[[operations]]
include-path-regex = '^/v1/admin/sessions/\{id\}'
parameters = { "path.id" = { dictionary = "sessions", probability = 0.5 } }

[[operations]]
include-operation-id = ["admin_usage"]
parameters = { "query.user_id" = { dictionary = "users", probability = 0.5 }, "query.tool_id" = { dictionary = "tools", probability = 0.5 } }

[[operations]]
include-operation-id = ["create_session", "list_sessions", "ask"]
parameters = { "body.tool_id" = { dictionary = "tools", probability = 0.5 }, "query.tool_id" = { dictionary = "tools", probability = 0.5 } }

[[operations]]
include-path-regex = '^/v1/admin/users/\{id\}'
parameters = { "path.id" = { dictionary = "users", probability = 0.5 } }

[[operations]]
include-path-regex = '^/v1/admin/tokens/\{id\}'
parameters = { "path.id" = { dictionary = "tokens", probability = 0.5 } }

[[operations]]
include-path-regex = '^/v1/admin/groups/\{id\}'
parameters = { "path.id" = { dictionary = "groups", probability = 0.5 }, "path.user_id" = { dictionary = "users", probability = 0.5 } }

[[operations]]
include-path-regex = '^/v1/admin/classes/\{id\}/enrollments/\{user_id\}'
parameters = { "path.user_id" = { dictionary = "users", probability = 0.5 } }

[[operations]]
include-path-regex = '^/v1/admin/tools/\{id\}'
parameters = { "path.id" = { dictionary = "tools", probability = 0.5 } }

EOF
    cat scripts/fuzz-accepted.toml >>"$RUN_DIR/schemathesis.toml"
}

# fuzz_run NAME: one run as NAME (admin or student) on its own server; leaves the
# schemathesis report in $TMP/NAME/report.json and the run's verdicts in $TMP/NAME/*.
fuzz_run() {
    local name=$1 token status=0 args=()
    RUN_DIR=$TMP/$name
    mkdir -p "$RUN_DIR"
    start_server
    seed
    write_config
    if [[ $name == admin ]]; then token=$ADMIN_TOKEN; else token=$STUDENT_TOKEN; fi
    if ((UPDATE_BASELINE)); then
        args+=(--baseline "$PWD/$BASELINE" --baseline-update)
    elif [[ -f $BASELINE ]]; then
        args+=(--baseline "$PWD/$BASELINE")
    fi

    log "schemathesis as $name: --max-time $MAX_TIME --seed $SEED --workers $WORKERS${args:+ ${args[*]}}"
    # Run in $RUN_DIR: schemathesis and hypothesis keep their example databases and caches
    # (.hypothesis/, .schemathesis/) in the working directory.
    (cd "$RUN_DIR" && "$SCHEMATHESIS" --config-file "$RUN_DIR/schemathesis.toml" run "$BASE/openapi.json" \
        -H "Authorization: Bearer $token" \
        --phases examples,coverage,fuzzing,stateful \
        --max-time "$MAX_TIME" --seed "$SEED" --workers "$WORKERS" \
        --report json --report-json-path "$RUN_DIR/report.json" \
        "${args[@]}") 2>&1 | tee "$RUN_DIR/schemathesis.log" || status=$?
    echo "$status" >"$RUN_DIR/exit_code"

    # What schemathesis cannot see: a crashed server, or a token the run revoked (or whose
    # user it deleted), after which every request is a 401 it does not count as a failure.
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        echo ok >"$RUN_DIR/server"
    else
        echo exited >"$RUN_DIR/server"
        log "parley serve exited during the $name run; the end of its log:"
        tail -n 30 "$RUN_DIR/server.log" >&2
    fi
    curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $token" \
        "$BASE/v1/tools" >"$RUN_DIR/auth" 2>/dev/null || echo unreachable >"$RUN_DIR/auth"
    stop_server
}

# Prints the summary table from the runs' reports; exits 1 when a run failed.
summarize() {
    python3 - "$TMP" "$SEED" "$MAX_TIME" "$SCHEMATHESIS_VERSION" admin student <<'EOF'
import json, os, sys

tmp, seed, max_time, version, *runs = sys.argv[1:]
rows, notes, ok = [], [], True
for run in runs:
    d = os.path.join(tmp, run)
    read = lambda name: open(os.path.join(d, name)).read().strip()
    try:
        report = json.load(open(os.path.join(d, "report.json")))
    except (OSError, ValueError) as err:
        report = None
        notes.append(f"{run}: no schemathesis report ({err})")
    exit_code, server, auth = int(read("exit_code")), read("server"), read("auth")
    if report:
        ops = report["operations"]
        cases = report["test_cases"]["generated"]
        failures = sum(f["count"] for f in report["failures"])
        errors = max(sum(e["count"] for e in report["errors"]), ops["errored"], report["test_cases"]["errored"])
        tested = f'{ops["tested"]}/{ops["selected"]}'
        for f in report["failures"]:
            notes.append(f'{run}: {f["code"]} {f["title"]}: {f["count"]}')
        for e in report["errors"]:
            notes.append(f'{run}: error: {e["title"]}: {e["count"]}')
        if report.get("baseline"):
            notes.append(f'{run}: baseline: {report["baseline"].get("known", 0)} known failures accepted')
        if report.get("stop_reason") not in (None, "max_time", "completed"):
            notes.append(f'{run}: schemathesis stopped early: {report["stop_reason"]}')
    else:
        cases, tested, failures, errors = "?", "?", "?", "?"
    auth_ok = auth == "200"
    if not auth_ok:
        notes.append(f"{run}: the {run}'s token no longer authenticates after the run "
                     f"(GET /v1/tools answered {auth}): revoked, or its user deleted, by the fuzzer?")
    if server != "ok":
        notes.append(f"{run}: parley serve exited during the run")
    passed = report is not None and exit_code == 0 and failures == 0 and errors == 0 and auth_ok and server == "ok"
    ok &= passed
    rows.append((run, cases, tested, failures, errors, "ok" if auth_ok else f"LOST ({auth})",
                 server, exit_code, "pass" if passed else "FAIL"))

print(f"\n== fuzz summary: schemathesis {version}, seed {seed}, --max-time {max_time} s per run ==")
head = ("run", "test cases", "operations tested/selected", "failures", "errors", "auth after", "server",
        "st exit", "result")
widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
for r in [head, *rows]:
    print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip())
for note in notes:
    print(f"  - {note}")
sys.exit(0 if ok else 1)
EOF
}

install_schemathesis
TMP=$(mktemp -d -t parley-fuzz.XXXXXX)
log "binary $BIN; seed $SEED; --max-time $MAX_TIME s per run; temp dir $TMP"
fuzz_run admin
fuzz_run student
summarize
