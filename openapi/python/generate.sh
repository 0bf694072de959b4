#!/usr/bin/env bash
# Regenerates the package parley_client (openapi/python/parley_client) from the OpenAPI
# document with openapi-python-client (pinned, with the ruff it formats with, in
# requirements-generate.txt; installed on first use into a cached venv,
# PARLEY_PYTHON_GEN_VENV, default ~/.cache/parley-python-gen-venv). Run it after an API
# change; scripts/test-python-client.sh fails on drift.
#
#   openapi/python/generate.sh [PROJECT_DIR]
#
# PARLEY_OPENAPI_DOC names the document (default: openapi/openapi.json); PROJECT_DIR is
# where parley_client/ is replaced (default: openapi/python). The package is generated
# whole into a temp dir, then the hand-written modules of the package (HAND_WRITTEN) are
# copied into it from PROJECT_DIR, and it replaces PROJECT_DIR/parley_client. Everything
# else in openapi/python (pyproject.toml, README.md, tests/) is hand-written and left alone.
# A warning of the generator (a schema or an operation it could not read) fails the run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

log() { printf '[generate] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Modules of parley_client that are not generated.
HAND_WRITTEN=(feed.py feed_async.py problem.py export.py client_functions.py)

doc=${PARLEY_OPENAPI_DOC:-$root/openapi/openapi.json}
[[ -f $doc ]] || die "no document at $doc"
doc=$(realpath "$doc")
project=$(realpath "${1:-$here}")
for file in "${HAND_WRITTEN[@]}"; do
    [[ -f $project/parley_client/$file ]] || die "$project/parley_client/$file is missing (hand-written, not generated)"
done

venv=${PARLEY_PYTHON_GEN_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/parley-python-gen-venv}
pins=$(grep -Ev '^\s*(#|$)' "$here/requirements-generate.txt")
if [[ ! -x $venv/bin/openapi-python-client || $(cat "$venv/.pins" 2>/dev/null) != "$pins" ]]; then
    log "installing $(tr '\n' ' ' <<<"$pins")into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements-generate.txt"
    printf '%s' "$pins" >"$venv/.pins"
fi

work=$(mktemp -d -t parley-python-gen.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Generated in an empty dir: ruff (run by the generator) finds no configuration but its own.
(cd "$work" && PATH="$venv/bin:$PATH" openapi-python-client generate --path "$doc" \
    --config "$here/config.yaml" --meta none --output-path "$work/parley_client" \
    --fail-on-warning >"$work/generate.log" 2>&1) || { cat "$work/generate.log" >&2; die "openapi-python-client failed on $doc"; }
rm -rf "$work/parley_client/.ruff_cache"
for file in "${HAND_WRITTEN[@]}"; do
    [[ ! -e $work/parley_client/$file ]] || die "the generator now writes parley_client/$file: rename the hand-written one"
    cp "$project/parley_client/$file" "$work/parley_client/$file"
done
rm -rf "$project/parley_client"
mv "$work/parley_client" "$project/parley_client"
log "generated $project/parley_client from $doc"
