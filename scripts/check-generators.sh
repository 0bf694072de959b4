#!/usr/bin/env bash
# Mainstream OpenAPI generators read the document whole:
#
#   scripts/check-generators.sh [DOCUMENT]     (default: openapi/openapi.json)
#
# Generates, into a temp dir, with pinned generators installed on first use into a cached
# venv (PARLEY_GENERATORS_VENV, default ~/.cache/parley-generators-venv):
#
# * openapi-python-client (what openapi/python is generated with, with its
#   content_type_overrides from openapi/python/config.yaml: it reads JSON, text and bytes
#   only, and is told to read the export's `application/x-ndjson` as text);
# * openapi-generator, targets `typescript-fetch` and `python` (the jar bundled by PyPI's
#   `openapi-generator-cli`; needs Java, installed from Debian when missing);
#
# and fails, printing the offending lines, on any warning about the document: a schema
# dropped, an operation or a response skipped, a reference not resolved, a discriminator
# that does not fit, an undefined map type, a spec validation message. Only these are let
# through, each for a reason that is not the document's:
#
# * openapi-generator renaming a name that is a keyword or a built-in type of the target
#   language (`File` → `ModelFile` in TypeScript, `class`/`from` in Python);
# * openapi-generator python's "Failed to get the schema name: null", which it prints for
#   any document (a one-schema document too).
#
# Then it checks that the output is usable: both Python packages import (every module of
# them), and the typescript-fetch output typechecks (`tsc --noEmit --strict`; the
# TypeScript of openapi/client when installed there, else a pinned one in a cache dir).
# progenitor, the third generator, runs in the Rust build (tests/build.rs).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[check-generators] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=scripts/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/servers.sh"   # as_root

OPENAPI_PYTHON_CLIENT=0.29.1
OPENAPI_GENERATOR_CLI=7.26.0
TYPESCRIPT=5.9.3
# What the generated packages need to import (openapi-python-client: httpx, attrs,
# python-dateutil; openapi-generator python: pydantic, urllib3, python-dateutil,
# typing-extensions).
RUNTIME_DEPS=(httpx==0.28.1 attrs==26.1.0 python-dateutil==4.0.0 pydantic==2.14.4 urllib3==2.8.0 typing-extensions==4.16.0)

doc=${1:-openapi/openapi.json}
[[ -f $doc ]] || die "no document at $doc"
doc=$(realpath "$doc")

cache=${XDG_CACHE_HOME:-$HOME/.cache}
venv=${PARLEY_GENERATORS_VENV:-$cache/parley-generators-venv}
pins="openapi-python-client==$OPENAPI_PYTHON_CLIENT openapi-generator-cli==$OPENAPI_GENERATOR_CLI ${RUNTIME_DEPS[*]}"
if [[ ! -x $venv/bin/python || $(cat "$venv/.pins" 2>/dev/null) != "$pins" ]]; then
    log "installing the generators into $venv"
    python3 -m venv "$venv"
    # shellcheck disable=SC2086
    "$venv/bin/pip" install --quiet --disable-pip-version-check $pins
    printf '%s' "$pins" >"$venv/.pins"
fi
# openapi-python-client runs ruff (its dependency, in the venv) on what it writes.
export PATH="$venv/bin:$PATH"

if ! command -v java >/dev/null; then
    log "installing Java (default-jre-headless) for openapi-generator"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends default-jre-headless
fi

if [[ -x openapi/client/node_modules/.bin/tsc ]]; then
    tsc=$(realpath openapi/client/node_modules/.bin/tsc)
else
    node_dir=$cache/parley-generators-node
    if [[ ! -x $node_dir/node_modules/.bin/tsc || $("$node_dir/node_modules/.bin/tsc" --version) != "Version $TYPESCRIPT" ]]; then
        command -v npm >/dev/null || die "npm is missing (apt-get install nodejs npm)"
        log "installing typescript@$TYPESCRIPT into $node_dir"
        mkdir -p "$node_dir"
        npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error "typescript@$TYPESCRIPT" >/dev/null
    fi
    tsc=$node_dir/node_modules/.bin/tsc
fi

work=$(mktemp -d -t parley-generators.XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0
# Prints the lines of a log that are not let through; fails the check when there are any.
offending() {
    local name=$1 log=$2 allowed=$3 lines
    lines=$(grep -Ev "$allowed" "$log" || true)
    if [[ -n $lines ]]; then
        log "$name: warnings about the document:"
        printf '%s\n' "$lines" | sed 's/^/    /' >&2
        failed=1
    fi
}

log "openapi-python-client $OPENAPI_PYTHON_CLIENT"
# With the settings parley_client is generated with (openapi/python/config.yaml) but its
# names: they say how to read media types it does not know (the export's JSONL as text).
grep -Ev '^(project|package)_name_override:' openapi/python/config.yaml >"$work/opc-config.yaml"
status=0
(cd "$work" && openapi-python-client generate --path "$doc" --meta none \
    --config "$work/opc-config.yaml" \
    --output-path "$work/opc/parley_opc_check" >"$work/opc.log" 2>&1) || status=$?
[[ $status -eq 0 ]] || { cat "$work/opc.log" >&2; die "openapi-python-client failed ($status)"; }
# It prints only `Generating …` when it has nothing to say.
offending openapi-python-client "$work/opc.log" '^Generating |^$'

oag() {
    local generator=$1 out=$2
    shift 2
    local status=0
    openapi-generator-cli generate --generator-name "$generator" --input-spec "$doc" \
        --output "$out" "$@" >"$work/$generator.log" 2>&1 || status=$?
    [[ $status -eq 0 ]] || { cat "$work/$generator.log" >&2; die "openapi-generator $generator failed ($status)"; }
    grep -E '\b(WARN|ERROR)\b|Exception|^Errors:|^ *- attribute ' "$work/$generator.log" >"$work/$generator.warnings" || true
    offending "openapi-generator $generator" "$work/$generator.warnings" \
        '\(reserved word\) cannot be used as (a )?model name|\(model name matches existing language type\) cannot be used as (a )?model name|ModelUtils - Failed to get the schema name: null$'
}
log "openapi-generator $OPENAPI_GENERATOR_CLI: typescript-fetch"
oag typescript-fetch "$work/ts"
log "openapi-generator $OPENAPI_GENERATOR_CLI: python"
oag python "$work/oag-python" --additional-properties=packageName=parley_oag_check,projectName=parley-oag-check

log "the generated Python packages import"
python - "$work/opc" parley_opc_check "$work/oag-python" parley_oag_check <<'EOF' || { log "the generated Python packages do not import"; failed=1; }
import importlib, pkgutil, sys

args = sys.argv[1:]
for root, name in zip(args[::2], args[1::2]):
    sys.path.insert(0, root)
    package = importlib.import_module(name)
    count = 1
    for module in pkgutil.walk_packages(package.__path__, name + "."):
        importlib.import_module(module.name)
        count += 1
    print(f"[check-generators]   {name}: {count} modules import", file=sys.stderr)
EOF

log "the typescript-fetch output typechecks ($("$tsc" --version))"
"$tsc" --noEmit --strict --target es2022 --module esnext --moduleResolution bundler \
    --lib es2022,dom,dom.iterable "$work/ts/index.ts" || { log "typescript-fetch: tsc failed"; failed=1; }

[[ $failed -eq 0 ]] || die "generators warned about $doc, or their output is not usable (see above)"
log "ok: openapi-python-client, openapi-generator typescript-fetch and python read $doc whole"
