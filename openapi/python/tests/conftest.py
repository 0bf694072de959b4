"""What the Python client's tests talk to: the mock LLM (`parley-mock-llm`) and a
`parley serve` whose provider it is, each on a free loopback port, in a temp dir (as
openapi/client/test-support/harness.mjs does for the TypeScript client). PARLEY_BIN and
PARLEY_MOCK_LLM_BIN name the binaries (default: the workspace's debug builds under
$CARGO_TARGET_DIR, else target/). Both are stopped by PID; a failing test's report
carries the tail of Parley's log.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from parley_client import AuthenticatedClient
from parley_client.api.catalog import list_tools
from parley_client.api.sessions import create_session
from parley_client.models import CreateSession
from parley_client.problem import expect

ROOT = Path(__file__).resolve().parents[3]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
PARLEY_BIN = os.environ.get("PARLEY_BIN") or str(TARGET / "debug" / "parley")
MOCK_LLM_BIN = os.environ.get("PARLEY_MOCK_LLM_BIN") or str(TARGET / "debug" / "parley-mock-llm")


@dataclass
class Process:
    """A child process, the value after its ready marker, and the tail of its output."""

    popen: subprocess.Popen[str]
    ready: str = ""
    lines: list[str] = field(default_factory=list)

    def log(self) -> str:
        return "".join(self.lines[-200:])

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()  # by PID: Popen.kill signals its own child
        self.popen.wait(timeout=10)


def start(args: list[str], marker: str, env: dict[str, str], timeout: float = 30) -> Process:
    """Spawns `args` and waits for the first line of its output with `marker`."""
    popen = subprocess.Popen(
        args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    process = Process(popen)
    found = threading.Event()

    def pump() -> None:
        assert popen.stdout is not None
        for line in popen.stdout:
            process.lines.append(line)
            del process.lines[:-1000]
            if not found.is_set() and marker in line:
                process.ready = line[line.index(marker) + len(marker) :].strip()
                found.set()

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not found.wait(0.05):
        if popen.poll() is not None or time.monotonic() > deadline:
            process.stop()
            raise RuntimeError(f"{args[0]} did not start (exit {popen.returncode}):\n{process.log()}")
    return process


@dataclass
class Parley:
    base_url: str
    admin_token: str
    server: Process
    mock: Process


@pytest.fixture(scope="session")
def parley() -> Iterator[Parley]:
    for binary in (PARLEY_BIN, MOCK_LLM_BIN):
        if not os.access(binary, os.X_OK):
            pytest.exit(f"{binary} is missing: build the workspace (or set PARLEY_BIN / PARLEY_MOCK_LLM_BIN)", 2)
    directory = Path(tempfile.mkdtemp(prefix="parley-python-client-test-"))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    mock = start([MOCK_LLM_BIN, "--listen", "127.0.0.1:0"], "mock-llm listening on ", env)
    config = directory / "parley.toml"
    config.write_text(
        f'[[providers]]\nname = "mock"\nbase_url = "{mock.ready}"\nfirst_token_timeout_ms = 60000\n\n'
        '[[models]]\nid = "mock-model"\nprovider = "mock"\n'
    )
    admin_token = f"prl_python_client_test_{os.getpid()}_{int(time.time())}"
    try:
        server = start(
            [PARLEY_BIN, "serve", "--listen", "127.0.0.1:0", "--data-dir", str(directory / "data")],
            "parley listening on ",
            {**env, "PARLEY_CONFIG": str(config), "PARLEY_BOOTSTRAP_ADMIN_TOKEN": admin_token, "PARLEY_LOG": "warn"},
        )
    except BaseException:
        mock.stop()
        raise
    running = Parley(base_url=server.ready, admin_token=admin_token, server=server, mock=mock)
    _running.append(running)
    try:
        yield running
    finally:
        server.stop()
        mock.stop()
        shutil.rmtree(directory, ignore_errors=True)


_running: list[Parley] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    if report.failed and _running:
        report.sections.append(("parley's log (tail)", _running[-1].server.log()[-8000:]))
    return report


@pytest.fixture
def client(parley: Parley) -> Iterator[AuthenticatedClient]:
    """The generated client as the bootstrap admin (no `Accept` header of its own)."""
    with AuthenticatedClient(base_url=parley.base_url, token=parley.admin_token) as client:
        yield client


@pytest.fixture
def json_client(parley: Parley) -> Iterator[AuthenticatedClient]:
    """The generated client asking for JSON answers (`Accept: application/json`)."""
    with AuthenticatedClient(
        base_url=parley.base_url, token=parley.admin_token, headers={"Accept": "application/json"}
    ) as client:
        yield client


@pytest.fixture(scope="session")
def tool_id(parley: Parley) -> uuid.UUID:
    """The demo tutor's id, read from `GET /v1/tools` before any session is opened."""
    with AuthenticatedClient(base_url=parley.base_url, token=parley.admin_token) as client:
        tools = expect(list_tools.sync_detailed(client=client, limit=100))
    return next(tool.id for tool in tools.items if tool.name == "Demo tutor")


@pytest.fixture(scope="session")
def approving_tool_id(parley: Parley) -> uuid.UUID:
    """A tool in the demo tutor's group whose `createTodo` calls wait for approval
    (`approval_required`), created once through the generated admin operation."""
    from parley_client.api.admin import admin_create_tool
    from parley_client.models import CreateTool, ToolDefinition

    with AuthenticatedClient(base_url=parley.base_url, token=parley.admin_token) as client:
        tools = expect(list_tools.sync_detailed(client=client, limit=100))
        demo = next(tool for tool in tools.items if tool.name == "Demo tutor")
        definition = ToolDefinition(
            behavior="Keep track of things.",
            functions=["createTodo", "getCurrentTime"],
            approval_required=["createTodo"],
        )
        response = admin_create_tool.sync_detailed(
            client=client, body=CreateTool(group_id=demo.group_id, name="Approving tutor", definition=definition)
        )
        assert response.status_code == 201, response.content
        tool = expect(response)
    assert tool.definition.approval_required == ["createTodo"]
    return tool.id


@pytest.fixture
def new_session(client: AuthenticatedClient, tool_id: uuid.UUID):  # type: ignore[no-untyped-def]
    """Opens a session with the demo tutor (or the tool given) and returns its id."""

    def open_one(tool: uuid.UUID | None = None) -> uuid.UUID:
        response = create_session.sync_detailed(client=client, body=CreateSession(tool_id=tool or tool_id))
        assert response.status_code == 201, response.content
        return expect(response).id

    return open_one
