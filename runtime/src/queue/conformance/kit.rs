//! What the job-queue conformance checks are built from, also for other crates' tests:
//! a [`Harness`] that (re)opens a backend, a [`Recorder`] handler that counts runs,
//! [`Consumers`] to start, stop or kill a pool, and bounded waits.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::FutureExt;
use futures::future::BoxFuture;
use parley_protocol::jobs::PromptJob;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::queue::{Backoff, ConsumerConfig, JobFailure, JobHandler, QueueBackend, run_consumers};

type Open = Box<dyn Fn() -> BoxFuture<'static, QueueBackend> + Send + Sync>;

/// Opens the backend under test; every call opens the same store.
pub struct Harness {
    open: Open,
    keep: Vec<Box<dyn Send + Sync>>,
}

impl Harness {
    pub fn new<F, Fut>(open: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = QueueBackend> + Send + 'static,
    {
        Self {
            open: Box::new(move || open().boxed()),
            keep: Vec::new(),
        }
    }

    /// Keeps `guard` (a temp dir) alive as long as the harness.
    pub fn keep(mut self, guard: impl Send + Sync + 'static) -> Self {
        self.keep.push(Box::new(guard));
        self
    }

    pub async fn open(&self) -> QueueBackend {
        (self.open)().await
    }
}

/// Timings short enough for tests.
pub fn test_config() -> ConsumerConfig {
    ConsumerConfig {
        name: "conformance".into(),
        concurrency: 4,
        max_attempts: 3,
        backoff: Backoff {
            initial: Duration::from_millis(10),
            max: Duration::from_millis(50),
        },
        heartbeat: Duration::from_secs(1),
        missed_heartbeats: 5,
        poll_interval: Duration::from_millis(100),
        shutdown_timeout: Duration::from_secs(5),
        restart_delay: Duration::from_millis(100),
        job_timeout: Duration::from_secs(60),
    }
}

type Behavior = Box<dyn Fn(Uuid, u32) -> BoxFuture<'static, Result<(), JobFailure>> + Send + Sync>;

/// A [`JobHandler`] that counts runs per prompt and the peak number of runs at once, and
/// answers with `behavior(prompt_id, nth run of that prompt)`.
pub struct Recorder {
    calls: Mutex<HashMap<Uuid, u32>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    finished: AtomicUsize,
    handed_back: Mutex<Vec<Uuid>>,
    behavior: Behavior,
}

impl Recorder {
    pub fn new<F, Fut>(behavior: F) -> Arc<Self>
    where
        F: Fn(Uuid, u32) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), JobFailure>> + Send + 'static,
    {
        Arc::new(Self {
            calls: Mutex::default(),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            handed_back: Mutex::default(),
            behavior: Box::new(move |id, n| behavior(id, n).boxed()),
        })
    }

    /// Succeeds at once.
    pub fn succeeding() -> Arc<Self> {
        Self::new(|_, _| async { Ok(()) })
    }

    pub fn calls(&self, prompt_id: Uuid) -> u32 {
        self.lock().get(&prompt_id).copied().unwrap_or(0)
    }

    pub fn distinct(&self) -> usize {
        self.lock().len()
    }

    pub fn total(&self) -> u32 {
        self.lock().values().sum()
    }

    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    /// Runs that returned (rather than being dropped mid-way).
    pub fn finished(&self) -> usize {
        self.finished.load(Ordering::SeqCst)
    }

    /// The jobs the drain deadline interrupted, in order.
    pub fn handed_back(&self) -> Vec<Uuid> {
        self.handed_back.lock().expect("recorder lock").clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, u32>> {
        self.calls.lock().expect("recorder lock")
    }
}

#[async_trait]
impl JobHandler for Recorder {
    async fn handle(&self, job: PromptJob) -> Result<(), JobFailure> {
        let nth = {
            let mut calls = self.lock();
            let n = calls.entry(job.prompt_id).or_default();
            *n += 1;
            *n
        };
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let _running = Decrement(&self.in_flight);
        let result = (self.behavior)(job.prompt_id, nth).await;
        self.finished.fetch_add(1, Ordering::SeqCst);
        result
    }

    async fn hand_back(&self, job: &PromptJob) {
        self.handed_back
            .lock()
            .expect("recorder lock")
            .push(job.prompt_id);
    }
}

struct Decrement<'a>(&'a AtomicUsize);

impl Drop for Decrement<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A pool started with [`run_consumers`] on a task of its own.
pub struct Consumers {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl Consumers {
    pub fn start(
        backend: &QueueBackend,
        config: ConsumerConfig,
        handler: Arc<dyn JobHandler>,
    ) -> Self {
        let backend = backend.clone();
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            run_consumers(&backend, config, handler, shutdown).await;
        });
        Self { stop, task }
    }

    /// Signals shutdown and waits for the pool to return.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        tokio::time::timeout(Duration::from_secs(15), self.task)
            .await
            .expect("consumers stop within 15 s")
            .expect("consumers do not panic");
    }

    /// Drops the pool mid-flight, like a process that dies: no acknowledgement, no hand-back.
    pub async fn kill(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}

/// Waits (up to `timeout`) until `done` holds.
pub async fn wait_until(what: &str, timeout: Duration, done: impl Fn() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
