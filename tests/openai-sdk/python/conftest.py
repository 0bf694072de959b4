"""Starts what the SDK tests talk to: the mock LLM (`parley-mock-llm`) and a `parley serve`
whose provider it is, each on a free loopback port, in a temporary directory; a second
`parley serve` with a user quota for the quota test. PARLEY_BIN and PARLEY_MOCK_LLM_BIN name
the binaries (default: $CARGO_TARGET_DIR/debug/…, else the workspace's target/debug/…).
Every process is stopped by its PID.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from openai import OpenAI

ROOT = Path(__file__).resolve().parents[3]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
PARLEY_BIN = os.environ.get("PARLEY_BIN") or str(TARGET / "debug" / "parley")
MOCK_BIN = os.environ.get("PARLEY_MOCK_LLM_BIN") or str(TARGET / "debug" / "parley-mock-llm")

START_TIMEOUT_S = 30


@dataclass
class Process:
    popen: subprocess.Popen
    log_path: Path
    ready: str

    def log_tail(self, chars: int = 6000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()  # SIGKILL to this PID only
            self.popen.wait(timeout=10)


def start(bin_path: str, args: list[str], marker: str, env: dict[str, str], log_path: Path) -> Process:
    """Spawns `bin args`, returns once a stdout line contains `marker` (what follows it is
    `ready`). Stderr goes to `log_path`; stdout keeps being drained by a thread."""
    if not os.access(bin_path, os.X_OK):
        raise RuntimeError(f"{bin_path} is missing: build the workspace (cargo build --workspace)")
    log = open(log_path, "wb")
    popen = subprocess.Popen(
        [bin_path, *args], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log
    )
    log.close()
    lines: queue.Queue[str | None] = queue.Queue()

    def drain() -> None:
        assert popen.stdout is not None
        for raw in popen.stdout:
            lines.put(raw.decode(errors="replace"))
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        remaining = deadline - time.monotonic()
        try:
            line = lines.get(timeout=max(remaining, 0.01))
        except queue.Empty:
            line = ""
        if line and marker in line:
            return Process(popen, log_path, line[line.index(marker) + len(marker) :].strip())
        if line is None or remaining <= 0:
            if popen.poll() is None:
                popen.kill()
            popen.wait(timeout=10)
            raise RuntimeError(
                f"{bin_path} did not start (exit {popen.returncode}):\n"
                + log_path.read_text(errors="replace")[-6000:]
            )


@dataclass
class Parley:
    base_url: str
    admin_token: str
    process: Process
    mock: Process
    dir: Path
    _tool_id: str | None = field(default=None)

    @property
    def openai_url(self) -> str:
        return f"{self.base_url}/openai/v1"

    def client(self, **kwargs) -> OpenAI:
        """An SDK client with the admin token; no hidden retries, so a 409/429/5xx shows."""
        kwargs.setdefault("api_key", self.admin_token)
        kwargs.setdefault("max_retries", 0)
        kwargs.setdefault("timeout", 60)
        return OpenAI(base_url=self.openai_url, **kwargs)

    def native(self, path: str):
        """GET on Parley's own API (not the OpenAI surface), as the admin."""
        request = urllib.request.Request(
            self.base_url + path, headers={"Authorization": f"Bearer {self.admin_token}"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    @property
    def demo_tool_id(self) -> str:
        if self._tool_id is None:
            tools = self.native("/v1/tools")["items"]
            self._tool_id = next(t["id"] for t in tools if t["name"] == "Demo tutor")
        return self._tool_id


def _base_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def start_parley(mock: Process, root: Path, name: str, extra_config: str = "") -> Parley:
    workdir = root / name
    workdir.mkdir()
    config = workdir / "parley.toml"
    config.write_text(
        "[[providers]]\n"
        'name = "mock"\n'
        f'base_url = "{mock.ready}"\n'
        "first_token_timeout_ms = 60000\n\n"
        "[[models]]\n"
        'id = "mock-model"\n'
        'provider = "mock"\n' + extra_config
    )
    token = f"prl_sdk_py_{name}_{os.getpid()}_{int(time.time() * 1000)}"
    env = {
        **_base_env(),
        "PARLEY_CONFIG": str(config),
        "PARLEY_BOOTSTRAP_ADMIN_TOKEN": token,
        "PARLEY_LOG": "warn",
    }
    process = start(
        PARLEY_BIN,
        ["serve", "--listen", "127.0.0.1:0", "--data-dir", str(workdir / "data")],
        "parley listening on ",
        env,
        workdir / "parley.log",
    )
    return Parley(base_url=process.ready.rstrip("/"), admin_token=token, process=process, mock=mock, dir=workdir)


@pytest.fixture(scope="session")
def workdir():
    path = Path(tempfile.mkdtemp(prefix="parley-openai-sdk-py-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def mock(workdir):
    process = start(MOCK_BIN, ["--listen", "127.0.0.1:0"], "mock-llm listening on ", _base_env(), workdir / "mock.log")
    yield process
    process.stop()


@pytest.fixture(scope="session")
def parley(mock, workdir):
    server = start_parley(mock, workdir, "main")
    yield server
    server.process.stop()


@pytest.fixture(scope="session")
def quota_parley(mock, workdir):
    """A second deployment whose users may start one turn per minute."""
    server = start_parley(mock, workdir, "quota", "\n[quotas.user]\nturns_per_minute = 1\n")
    yield server
    server.process.stop()


@pytest.fixture
def client(parley) -> OpenAI:
    return parley.client()


@pytest.fixture(scope="session")
def demo_tool_id(parley) -> str:
    return parley.demo_tool_id


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failure, the tail of the servers' logs goes into the report."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when == "call":
        for name in ("parley", "quota_parley"):
            server = item.funcargs.get(name)
            if server is not None:
                report.sections.append((f"{name} log (tail)", server.process.log_tail()))
