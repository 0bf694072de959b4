#!/usr/bin/env bash
# The Python client (openapi/python):
#
# * the generated package parley_client matches the OpenAPI document: it is regenerated
#   into a copy with openapi/python/generate.sh (openapi-python-client, pinned) and a
#   drift fails;
# * pytest (pinned in openapi/python/requirements-test.txt) drives it against a live
#   `parley serve` with the mock LLM (PARLEY_BIN, PARLEY_MOCK_LLM_BIN: the workspace's
#   debug builds by default);
# * installed into a fresh venv (`pip install openapi/python`), it runs a streamed turn,
#   synchronous and async, from outside the checkout.
#
#   scripts/test-python-client.sh [PYTEST-ARGS...]
#
# The venv (PARLEY_PYTHON_CLIENT_VENV, default ~/.cache/parley-python-client-venv) is
# cached between runs: openapi/python is installed into it editable, with the test
# requirements, and reinstalled when either changes. PARLEY_OPENAPI_DOC names the
# document (default: openapi/openapi.json).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[test-python-client] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

target=${CARGO_TARGET_DIR:-target}
PARLEY_BIN=$(realpath -m "${PARLEY_BIN:-$target/debug/parley}")
PARLEY_MOCK_LLM_BIN=$(realpath -m "${PARLEY_MOCK_LLM_BIN:-$target/debug/parley-mock-llm}")
export PARLEY_BIN PARLEY_MOCK_LLM_BIN
[[ -x $PARLEY_BIN && -x $PARLEY_MOCK_LLM_BIN ]] || die "build the workspace first (cargo build --workspace)"
doc=$(realpath "${PARLEY_OPENAPI_DOC:-openapi/openapi.json}")

venv=${PARLEY_PYTHON_CLIENT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/parley-python-client-venv}
stamp=$(cat openapi/python/requirements-test.txt openapi/python/pyproject.toml | sha256sum | cut -d' ' -f1)
if [[ ! -x $venv/bin/python || $(cat "$venv/.stamp" 2>/dev/null) != "$stamp" ]]; then
    log "installing openapi/python and its test requirements into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        -r openapi/python/requirements-test.txt -e openapi/python
    printf '%s' "$stamp" >"$venv/.stamp"
fi

log "parley_client matches $doc"
work=$(mktemp -d -t parley-python-client.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project"
cp -r openapi/python/parley_client "$work/project/"
PARLEY_OPENAPI_DOC=$doc openapi/python/generate.sh "$work/project" 2>"$work/generate.log" \
    || { cat "$work/generate.log" >&2; die "openapi/python/generate.sh failed"; }
if ! diff -r -x __pycache__ openapi/python/parley_client "$work/project/parley_client" >"$work/drift.diff"; then
    head -n 40 "$work/drift.diff" >&2
    die "openapi/python/parley_client is out of date: run openapi/python/generate.sh"
fi

# .gitattributes marks the generated modules generated and the hand-written ones not:
# the list there is generate.sh's HAND_WRITTEN.
log "parley_client's generated modules are marked generated (.gitattributes)"
hand_written=$(sed -n 's/^HAND_WRITTEN=(\(.*\))$/\1/p' openapi/python/generate.sh)
for file in openapi/python/parley_client/*.py; do
    name=$(basename "$file")
    expected=true
    [[ " $hand_written " == *" $name "* ]] && expected=false
    marked=$(git check-attr linguist-generated -- "$file" | sed 's/.*: //')
    [[ $marked == "$expected" ]] || die "$file: linguist-generated is $marked in .gitattributes, not $expected"
done

log "pytest (against a live parley serve)"
started=$(date +%s)
status=0
(cd openapi/python && "$venv/bin/python" -m pytest -p no:cacheprovider "$@") || status=$?
log "python client tests took $(( $(date +%s) - started )) s"

# The package as a project installs it: `pip install openapi/python` into a fresh venv
# (a copy in site-packages, not the editable checkout), its tests run from outside the
# checkout so only the installed package can be imported.
log "the package in a fresh venv: pip install openapi/python, a streamed turn (sync, async)"
started=$(date +%s)
fresh="$work/venv"
python3 -m venv "$fresh"
"$fresh/bin/pip" install --quiet --disable-pip-version-check \
    -r openapi/python/requirements-test.txt ./openapi/python
mkdir "$work/outside"
cp -r openapi/python/tests "$work/outside/"
(cd "$work/outside" && PARLEY_EXPECT_INSTALLED=1 "$fresh/bin/python" -m pytest -p no:cacheprovider \
    -q tests/test_package.py) || status=$?
log "the package check took $(( $(date +%s) - started )) s"
exit "$status"
