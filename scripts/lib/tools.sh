# shellcheck shell=bash
# Tools the tests use besides the servers, installed on first use into a cache directory
# that survives between runs (PARLEY_TOOLS_DIR, default ~/.cache/parley-tools), and put
# on PATH. Sourced by scripts/test.sh and scripts/check-deploy.sh; needs `log`.

tools_dir() { printf '%s' "${PARLEY_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/parley-tools}"; }

# promtool, from Debian's `prometheus` package: only the binary is unpacked (installing
# the package would also install and try to start a Prometheus server).
install_promtool() {
    if command -v promtool >/dev/null; then
        return
    fi
    local bin
    bin=$(tools_dir)/bin
    if [[ ! -x $bin/promtool ]]; then
        log "installing promtool (Debian's prometheus package, unpacked)"
        local work
        work=$(mktemp -d)
        as_root apt-get update -qq
        # apt's sandbox user cannot write to a root-owned temp dir; that is fine here.
        (cd "$work" && apt-get download prometheus 2>&1 >/dev/null | grep -v "unsandboxed" >&2 || true)
        dpkg-deb -x "$work"/prometheus_*.deb "$work/root"
        mkdir -p "$bin"
        install -m 0755 "$work/root/usr/bin/promtool" "$bin/promtool"
        rm -rf "$work"
    fi
    export PATH="$bin:$PATH"
}
