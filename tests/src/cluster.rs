//! [`Cluster`]: Parley in distributed mode — one `parley api` and `parley worker`
//! processes on a fresh PostgreSQL database and a Redis logical database of its own.
//!
//! The api is a [`TestApp`] (the cluster derefs to it), so every request and CLI helper
//! works on a cluster too. Workers can be killed as a crash would (SIGKILL by PID) and
//! new ones started; every child is killed when the cluster is dropped.
//!
//! Isolation: the queue backend puts every job of a deployment under one queue name
//! (`parley-generate`), and no setting changes it, so two clusters on one Redis
//! database would take each other's jobs (and fail them: the prompt is in the other
//! cluster's PostgreSQL database). Each cluster therefore gets its own Redis logical
//! database (`redis://…/N`, N = 1..=15, taken round-robin by this test process and
//! flushed before use; 0 is left to `parley serve` tests). Pub/sub channels are global
//! to a Redis server, but Parley's are either per prompt (event notifications) or name a
//! prompt (cancel signals: another cluster's workers have no listener for it).

use std::ffi::OsString;
use std::net::SocketAddr;
use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::app::{HttpRole, TestApp};
use crate::backend::{Backend, test_redis_url};
use crate::server::{Server, WORKER_RUNNING};

/// Workers a cluster starts with.
pub const CLUSTER_WORKERS: usize = 2;
/// `--concurrency` of every worker.
pub const WORKER_CONCURRENCY: usize = 4;
/// Redis logical databases the clusters of one test process take turns on (1..=15).
const REDIS_DATABASES: u32 = 15;

/// One `parley worker` process of a cluster.
struct Worker {
    /// 1-based, in start order; names its log file `worker-<number>.log`.
    number: usize,
    pid: u32,
    server: Server,
}

/// One api and its workers on shared PostgreSQL and Redis; derefs to the api's
/// [`TestApp`].
pub struct Cluster {
    api: TestApp,
    workers: Vec<Worker>,
    started: usize,
    /// More `parley api` processes ([`Cluster::start_api`]).
    more_apis: Vec<Server>,
}

impl Cluster {
    /// A cluster of one api and [`CLUSTER_WORKERS`] workers on fresh storage and a
    /// fresh Redis database; `extra_env` goes to every process and CLI command.
    pub async fn spawn(extra_env: &[(&str, &str)]) -> Self {
        let redis = fresh_redis_database()
            .await
            .unwrap_or_else(|err| panic!("preparing a Redis database: {err:#}"));
        Self::spawn_on_redis(&redis, extra_env).await
    }

    /// Like [`Cluster::spawn`] on the test Redis Cluster (`redis+cluster://`), with a job
    /// queue of its own split into three partitions (a cluster has one database, shared
    /// by the tests running at once; every other key names a prompt or a user).
    pub async fn spawn_on_redis_cluster(extra_env: &[(&str, &str)]) -> Self {
        let queue = format!("parley-test-{}", uuid::Uuid::now_v7().simple());
        let mut env = vec![
            ("PARLEY_REDIS__QUEUE", queue.as_str()),
            ("PARLEY_REDIS__QUEUE_PARTITIONS", "3"),
        ];
        env.extend_from_slice(extra_env);
        Self::spawn_on_redis(&crate::backend::test_redis_cluster_url(), &env).await
    }

    /// Like [`Cluster::spawn`] with a given `PARLEY_REDIS_URL` (e.g. a dead one).
    pub async fn spawn_on_redis(redis_url: &str, extra_env: &[(&str, &str)]) -> Self {
        let mut env = vec![("PARLEY_REDIS_URL", redis_url)];
        env.extend_from_slice(extra_env);
        let mut api = TestApp::prepare(Backend::Postgres, &env, HttpRole::Api).await;
        api.cli_ok(&["migrate", "up"]).await;
        api.start().await;
        let mut cluster = Self {
            api,
            workers: Vec::new(),
            started: 0,
            more_apis: Vec::new(),
        };
        for _ in 0..CLUSTER_WORKERS {
            cluster.start_worker().await;
        }
        cluster
    }

    /// The `PARLEY_REDIS_URL` every process of the cluster uses.
    pub fn redis_url(&self) -> String {
        self.api
            .env()
            .iter()
            .rev()
            .find(|(k, _)| k == "PARLEY_REDIS_URL")
            .map(|(_, v)| v.clone())
            .expect("a cluster has a Redis URL")
    }

    /// Starts one more `parley worker --concurrency` [`WORKER_CONCURRENCY`] and waits for
    /// its ready line; returns its PID.
    pub async fn start_worker(&mut self) -> u32 {
        self.start_worker_with(&[]).await
    }

    /// Like [`Cluster::start_worker`], with more arguments for `parley worker`.
    pub async fn start_worker_with(&mut self, more_args: &[&str]) -> u32 {
        self.started += 1;
        let number = self.started;
        let mut args: Vec<OsString> = vec![
            "worker".into(),
            "--concurrency".into(),
            WORKER_CONCURRENCY.to_string().into(),
        ];
        args.extend(more_args.iter().map(OsString::from));
        let server = Server::start(
            self.api.env(),
            &args,
            WORKER_RUNNING,
            &self.worker_log_path(number),
        )
        .await
        .unwrap_or_else(|err| panic!("worker {number}: {err:#}"));
        let pid = server.pid().expect("a running worker has a PID");
        self.workers.push(Worker {
            number,
            pid,
            server,
        });
        pid
    }

    /// Starts one more `parley api` on the cluster's database and Redis (a second
    /// replica behind a load balancer); returns its base URL. It runs until the cluster
    /// is dropped.
    pub async fn start_api(&mut self) -> String {
        let number = self.more_apis.len() + 2;
        let log = self.api.root_dir().join(format!("api-{number}.log"));
        let args: Vec<OsString> = vec!["api".into(), "--listen".into(), "127.0.0.1:0".into()];
        let server = Server::start(self.api.env(), &args, crate::server::LISTENING, &log)
            .await
            .unwrap_or_else(|err| panic!("api {number}: {err:#}"));
        let url = server.ready.clone();
        self.more_apis.push(server);
        url
    }

    /// The PIDs of the running workers, in start order.
    pub fn worker_pids(&self) -> Vec<u32> {
        self.workers.iter().map(|w| w.pid).collect()
    }

    /// Kills one worker as a crash would (SIGKILL by PID) and waits until it is gone.
    pub async fn kill_worker(&mut self, pid: u32) {
        let at = self
            .workers
            .iter()
            .position(|w| w.pid == pid)
            .unwrap_or_else(|| panic!("no running worker has PID {pid}"));
        self.workers.remove(at).server.kill().await;
    }

    /// Sends one worker SIGTERM and waits up to `within` for it to exit: its exit status,
    /// or `None` if it had not (it is killed then).
    pub async fn terminate_worker(
        &mut self,
        pid: u32,
        within: std::time::Duration,
    ) -> Option<std::process::ExitStatus> {
        let at = self
            .workers
            .iter()
            .position(|w| w.pid == pid)
            .unwrap_or_else(|| panic!("no running worker has PID {pid}"));
        self.workers.remove(at).server.terminate(within).await
    }

    /// The running workers holding an open TCP connection to `addr` (e.g. the mock LLM
    /// they stream from). Linux only: reads `/proc`.
    pub fn workers_connected_to(&self, addr: SocketAddr) -> Vec<u32> {
        let remote = proc_net_address(addr);
        let sockets = connected_socket_inodes(&remote);
        self.workers
            .iter()
            .filter(|w| {
                socket_inodes_of(w.pid)
                    .iter()
                    .any(|inode| sockets.contains(inode))
            })
            .map(|w| w.pid)
            .collect()
    }

    /// Stops every process (SIGTERM), points the cluster at another Redis, and starts
    /// the api and as many workers as were running again.
    pub async fn switch_redis(&mut self, redis_url: &str) {
        let workers = self.workers.len();
        for worker in self.workers.drain(..) {
            worker.server.stop().await;
        }
        self.api.stop().await;
        self.api.set_env("PARLEY_REDIS_URL", redis_url);
        self.api.start().await;
        for _ in 0..workers {
            self.start_worker().await;
        }
    }

    fn worker_log_path(&self, number: usize) -> PathBuf {
        self.api.root_dir().join(format!("worker-{number}.log"))
    }

    /// The last lines each worker ever started printed (whole logs are `worker-N.log`
    /// under [`TestApp::root_dir`]).
    pub fn worker_logs(&self) -> String {
        let mut out = String::new();
        for number in 1..=self.started {
            let text = std::fs::read_to_string(self.worker_log_path(number)).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let running = self
                .workers
                .iter()
                .find(|w| w.number == number)
                .map_or("gone".to_owned(), |w| format!("pid {}", w.pid));
            out.push_str(&format!("--- worker {number} ({running}) ---\n"));
            for line in &lines[lines.len().saturating_sub(60)..] {
                out.push_str(&format!("  {line}\n"));
            }
        }
        out
    }
}

impl Deref for Cluster {
    type Target = TestApp;

    fn deref(&self) -> &TestApp {
        &self.api
    }
}

impl DerefMut for Cluster {
    fn deref_mut(&mut self) -> &mut TestApp {
        &mut self.api
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("{}", self.worker_logs());
        }
        // Dropping each worker's `Server` kills it by PID; the api goes with `TestApp`.
    }
}

/// The test Redis with a logical database of its own (flushed) for one cluster.
pub async fn fresh_redis_database() -> Result<String> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let database = NEXT.fetch_add(1, Ordering::Relaxed) % REDIS_DATABASES + 1;
    let base = test_redis_url();
    let mut url = reqwest::Url::parse(&base).with_context(|| format!("parsing {base}"))?;
    url.set_path(&format!("/{database}"));
    tokio::time::timeout(Duration::from_secs(10), flush_database(&url, database))
        .await
        .with_context(|| format!("flushing Redis database {database} timed out"))??;
    Ok(url.into())
}

/// `AUTH` (when the URL has a password), `SELECT database`, `FLUSHDB`, in plain RESP.
async fn flush_database(url: &reqwest::Url, database: u32) -> Result<()> {
    let host = url.host_str().context("the Redis URL has no host")?;
    let port = url.port().unwrap_or(6379);
    let mut commands: Vec<Vec<String>> = Vec::new();
    if let Some(password) = url.password() {
        let mut auth = vec!["AUTH".to_owned()];
        if !url.username().is_empty() {
            auth.push(url.username().to_owned());
        }
        auth.push(password.to_owned());
        commands.push(auth);
    }
    commands.push(vec!["SELECT".into(), database.to_string()]);
    commands.push(vec!["FLUSHDB".into()]);
    let mut request = String::new();
    for command in &commands {
        request.push_str(&format!("*{}\r\n", command.len()));
        for arg in command {
            request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
    }
    let mut stream = TcpStream::connect((host, port))
        .await
        .with_context(|| format!("connecting to Redis at {host}:{port}"))?;
    stream.write_all(request.as_bytes()).await?;
    let mut reply = Vec::new();
    let mut buf = [0u8; 256];
    while reply.iter().filter(|b| **b == b'\n').count() < commands.len() {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        reply.extend_from_slice(&buf[..n]);
    }
    let reply = String::from_utf8_lossy(&reply);
    if reply.lines().filter(|l| *l == "+OK").count() != commands.len() {
        bail!("Redis refused to flush database {database}: {reply:?}");
    }
    Ok(())
}

/// `addr` as `/proc/net/tcp` spells it: `0100007F:1F90` for 127.0.0.1:8080.
fn proc_net_address(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(v4) => format!(
            "{:08X}:{:04X}",
            u32::from_le_bytes(v4.ip().octets()),
            v4.port()
        ),
        SocketAddr::V6(_) => panic!("only IPv4 addresses are supported: {addr}"),
    }
}

/// Inodes of the established IPv4 TCP sockets whose remote end is `remote`.
fn connected_socket_inodes(remote: &str) -> Vec<String> {
    const ESTABLISHED: &str = "01";
    let table = std::fs::read_to_string("/proc/net/tcp").expect("reading /proc/net/tcp");
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local remote st tx:rx tr:when retrnsmt uid timeout inode …
            (fields.len() > 9 && fields[2] == remote && fields[3] == ESTABLISHED)
                .then(|| fields[9].to_owned())
        })
        .collect()
}

/// Inodes of the sockets process `pid` has open.
fn socket_inodes_of(pid: u32) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter_map(|target| {
            let target = target.to_string_lossy().into_owned();
            target
                .strip_prefix("socket:[")
                .and_then(|rest| rest.strip_suffix(']'))
                .map(str::to_owned)
        })
        .collect()
}
