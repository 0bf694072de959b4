//! What one job costs the SQLite queue, in statements, counted from sqlx's own statement
//! log (its `sqlx::query` events) while a pool of consumers runs 60 jobs: one `INSERT`
//! to enqueue, one `UPDATE … RETURNING` that takes it (a fetch takes as many waiting jobs
//! as there are free slots, so fewer fetches than jobs) and one `DELETE` to acknowledge
//! it. Heartbeats are per worker, not per job, and are counted apart. A test binary of
//! its own: the counting subscriber is global, and nothing else may run beside it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use parley_protocol::jobs::PromptJob;
use parley_runtime::queue::{
    ConsumerConfig, JobFailure, JobHandler, JobQueue, QueueBackend, SqliteQueue, run_consumers,
};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::{Layer, Registry};

#[derive(Default)]
struct Counts {
    inserts: u64,
    fetches: u64,
    empty_fetches: u64,
    deletes: u64,
    other: Vec<String>,
}

struct Statements(Arc<Mutex<Counts>>);

#[derive(Default)]
struct Fields {
    text: String,
    rows_returned: u64,
}

impl Visit for Fields {
    fn record_str(&mut self, _field: &Field, value: &str) {
        self.text.push_str(value);
        self.text.push(' ');
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "rows_returned" {
            self.rows_returned = value;
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "summary" || field.name() == "db.statement" {
            self.text.push_str(&format!("{value:?} "));
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for Statements {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "sqlx::query" {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let sql = fields.text.to_lowercase();
        let mut counts = self.0.lock().expect("counts");
        if sql.contains("insert into parley_jobs ") {
            counts.inserts += 1;
        } else if sql.contains("returning id, payload") {
            counts.fetches += 1;
            if fields.rows_returned == 0 {
                counts.empty_fetches += 1;
            }
        } else if sql.contains("delete from parley_jobs where id") {
            counts.deletes += 1;
        } else {
            counts.other.push(sql.chars().take(60).collect());
        }
    }
}

struct Count(AtomicU64);

#[async_trait]
impl JobHandler for Count {
    async fn handle(&self, _job: PromptJob) -> Result<(), JobFailure> {
        tokio::time::sleep(Duration::from_millis(5)).await;
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_costs_the_sqlite_queue_three_statements() {
    const JOBS: u64 = 60;
    let counts = Arc::new(Mutex::new(Counts::default()));
    let subscriber = Registry::default().with(
        Statements(counts.clone()).with_filter(
            tracing_subscriber::filter::Targets::new()
                .with_target("sqlx::query", tracing::Level::DEBUG),
        ),
    );
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");

    let dir = tempfile::tempdir().expect("a temp dir");
    let queue = SqliteQueue::open(dir.path().join("queue.db"))
        .await
        .expect("open");
    let backend = QueueBackend::Sqlite(queue.clone());
    let handler = Arc::new(Count(AtomicU64::new(0)));
    let (stop_tx, stop) = tokio::sync::oneshot::channel::<()>();
    let config = ConsumerConfig {
        concurrency: 4,
        heartbeat: Duration::from_secs(60),
        ..ConsumerConfig::default()
    };
    let consumers = tokio::spawn({
        let handler = handler.clone();
        async move {
            run_consumers(&backend, config, handler, async {
                let _ = stop.await;
            })
            .await;
        }
    });
    // Half in a burst, half one by one.
    for i in 0..JOBS {
        queue
            .enqueue(PromptJob::turn(uuid::Uuid::now_v7()))
            .await
            .expect("enqueue");
        if i >= JOBS / 2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while handler.0.load(Ordering::SeqCst) < JOBS {
        assert!(tokio::time::Instant::now() < deadline, "all jobs ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Let the last acknowledgements land.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let _ = stop_tx.send(());
    consumers.await.expect("stopped");

    let counts = counts.lock().expect("counts");
    println!(
        "{JOBS} jobs: {} INSERT, {} fetches ({} empty), {} DELETE; {:.2} job statements per job; other (per worker): {:?}",
        counts.inserts,
        counts.fetches,
        counts.empty_fetches,
        counts.deletes,
        (counts.inserts + counts.fetches + counts.deletes) as f64 / JOBS as f64,
        counts.other
    );
    assert_eq!(counts.inserts, JOBS, "one INSERT per job");
    assert_eq!(counts.deletes, JOBS, "one DELETE per job");
    let taking = counts.fetches - counts.empty_fetches;
    assert!(
        taking <= JOBS,
        "at most one fetch per job: {taking} fetches took jobs"
    );
    assert!(
        counts.empty_fetches <= JOBS / 4,
        "an empty fetch only after a wake-up another fetch answered: {}",
        counts.empty_fetches
    );
}
