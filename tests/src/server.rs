//! The `parley` child processes: finding the binary, running a server role (`serve`,
//! `api`, `worker`), reading its output.
//!
//! Children start with a cleared environment (only `PATH`, `HOME` and the variables the
//! harness chooses), so a developer's own `PARLEY_*` settings never leak into a test.
//! Everything a server prints goes to its log file in the test's temp root (`server.log`
//! for the HTTP process, `worker-N.log` for a cluster's workers) and into an
//! in-memory tail that start-up failures and failing tests print.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

/// How long a server role may take to start and print its ready line.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one CLI command may run.
pub const CLI_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a stopped server gets to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(10);
const TAIL_LINES: usize = 200;

/// The binary under test: `PARLEY_BIN`, else `parley` in the test executable's target dir
/// (`<target>/debug/deps/<test>-<hash>` → `<target>/debug/parley`).
pub fn parley_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("PARLEY_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().expect("the test executable's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test executable lives in <target>/<profile>/deps");
    let bin = profile_dir.join(format!("parley{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} does not exist: build it first (scripts/test.sh does), or set PARLEY_BIN",
        bin.display()
    );
    bin
}

/// The test MCP server (`tests/mcp-server`): `PARLEY_MCP_TEST_BIN`, else
/// `parley-mcp-test` beside the `parley` binary (`cargo build --workspace` builds both).
pub fn mcp_test_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("PARLEY_MCP_TEST_BIN") {
        return PathBuf::from(bin);
    }
    let bin =
        parley_bin().with_file_name(format!("parley-mcp-test{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} does not exist: build the workspace first (scripts/test.sh does), or set PARLEY_MCP_TEST_BIN",
        bin.display()
    );
    bin
}

/// A `parley` command with a cleared environment plus `env` (later pairs win).
pub(crate) fn command(env: &[(String, String)]) -> Command {
    let mut cmd = Command::new(parley_bin());
    cmd.env_clear();
    for key in ["PATH", "HOME"] {
        if let Some(value) = std::env::var_os(key) {
            cmd.env(key, value);
        }
    }
    cmd.envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    cmd
}

/// Runs one CLI command to completion and returns what it printed.
pub(crate) async fn run_cli(env: &[(String, String)], args: &[&str]) -> Output {
    let output = command(env).args(args).output();
    match tokio::time::timeout(CLI_TIMEOUT, output).await {
        Ok(result) => result.unwrap_or_else(|err| panic!("running `parley {args:?}`: {err}")),
        Err(_) => panic!("`parley {args:?}` did not finish within {CLI_TIMEOUT:?}"),
    }
}

/// The last lines a server printed, also appended to its log file.
#[derive(Clone)]
pub(crate) struct LogTail(Arc<Mutex<(VecDeque<String>, Option<File>)>>);

impl LogTail {
    fn open(path: &Path) -> Self {
        let file = File::options().create(true).append(true).open(path).ok();
        Self(Arc::new(Mutex::new((VecDeque::new(), file))))
    }

    fn push(&self, stream: &str, line: String) {
        let mut guard = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (tail, file) = &mut *guard;
        if let Some(file) = file {
            let _ = writeln!(file, "[{stream}] {line}");
        }
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(format!("[{stream}] {line}"));
    }

    pub(crate) fn text(&self) -> String {
        let guard = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.0.iter().map(|line| format!("  {line}\n")).collect()
    }
}

/// What `parley serve` and `parley api` print once they listen, followed by their base URL.
pub(crate) const LISTENING: &str = "parley listening on ";
/// What `parley worker` prints once its consumers run.
pub(crate) const WORKER_RUNNING: &str = "parley worker running";

/// A running `parley` server role (`serve`, `api` or `worker`); dropping it kills the
/// process (SIGKILL by PID).
pub(crate) struct Server {
    child: Child,
    /// What the ready line said after its marker (the base URL for HTTP roles).
    pub(crate) ready: String,
}

impl Server {
    /// Starts `parley <args>` and waits until it prints a line containing `marker`.
    pub(crate) async fn start(
        env: &[(String, String)],
        args: &[OsString],
        marker: &'static str,
        log_path: &Path,
    ) -> Result<Self> {
        let role = args
            .first()
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut child = command(env)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {} {role}", parley_bin().display()))?;
        let log = LogTail::open(log_path);
        let (ready_tx, ready_rx) = oneshot::channel();
        let stdout = child.stdout.take().context("the child's stdout")?;
        let stderr = child.stderr.take().context("the child's stderr")?;
        tokio::spawn(pump(
            stdout,
            "stdout",
            log.clone(),
            Some((marker, ready_tx)),
        ));
        let stderr_done = tokio::spawn(pump(stderr, "stderr", log.clone(), None));

        match tokio::time::timeout(STARTUP_TIMEOUT, ready_rx).await {
            Ok(Ok(ready)) => Ok(Self { child, ready }),
            Ok(Err(_closed)) => {
                let status = match tokio::time::timeout(Duration::from_secs(5), child.wait()).await
                {
                    Ok(Ok(status)) => status.to_string(),
                    _ => "still running with stdout closed".to_owned(),
                };
                let _ = tokio::time::timeout(Duration::from_secs(2), stderr_done).await;
                bail!(
                    "parley {role} ended before printing {marker:?} ({status}); its output:\n{}",
                    log.text()
                )
            }
            Err(_elapsed) => {
                let _ = child.kill().await;
                bail!(
                    "parley {role} did not print {marker:?} within {STARTUP_TIMEOUT:?}; \
                     its output:\n{}",
                    log.text()
                )
            }
        }
    }

    /// The process id (`None` once it has been reaped).
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Stops the server: SIGTERM by PID, then SIGKILL if it has not exited in time.
    pub(crate) async fn stop(mut self) {
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
            if tokio::time::timeout(STOP_GRACE, self.child.wait())
                .await
                .is_ok()
            {
                return;
            }
        }
        let _ = self.child.kill().await;
    }

    /// Sends SIGTERM by PID and waits up to `within` for the process to exit; its exit
    /// status, or `None` if it was still running (then it is killed).
    pub(crate) async fn terminate(self, within: Duration) -> Option<std::process::ExitStatus> {
        self.signal("TERM", within).await
    }

    /// Like [`Server::terminate`] with another signal (`"INT"`, …).
    pub(crate) async fn signal(
        mut self,
        signal: &str,
        within: Duration,
    ) -> Option<std::process::ExitStatus> {
        let pid = self.child.id()?;
        let _ = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status();
        match tokio::time::timeout(within, self.child.wait()).await {
            Ok(status) => status.ok(),
            Err(_) => {
                let _ = self.child.kill().await;
                None
            }
        }
    }

    /// Kills the server as a crash would (SIGKILL by PID, no shutdown) and waits until
    /// it is gone.
    pub(crate) async fn kill(mut self) {
        // `Child::kill` sends SIGKILL to the child's PID, then reaps it.
        if let Err(err) = self.child.kill().await {
            panic!("killing parley (pid {:?}): {err}", self.child.id());
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Sends SIGKILL to the child's PID; tokio reaps it in the background.
        let _ = self.child.start_kill();
    }
}

/// Copies a child stream into the log line by line until it closes. With `ready`, it
/// also reports what follows the marker on the first line that contains it, and keeps
/// draining after that so the pipe never fills.
async fn pump(
    stream: impl AsyncRead + Unpin,
    name: &'static str,
    log: LogTail,
    mut ready: Option<(&'static str, oneshot::Sender<String>)>,
) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some((marker, _)) = &ready
            && let Some(at) = line.find(marker)
            && let Some((marker, tx)) = ready.take()
        {
            let rest = line[at + marker.len()..].trim().trim_end_matches('/');
            let _ = tx.send(rest.to_owned());
        }
        log.push(name, line);
    }
}
