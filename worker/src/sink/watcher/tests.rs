//! The watcher against a fake row: a signalled cancel stops the turn at once and reads
//! nothing; a lost signal is caught at the next renewal, by the watcher or a
//! checkpoint; a listener that may have missed signals reads the row; a lost or lapsed
//! lease stops the turn; a checkpoint's renewal puts the watcher's own off.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use parley_runtime::event_log::{EventLog, MemoryEventLog, RedisEventLog};

use super::*;
use parley_entity::query::prompts::LeaseState;

/// A row in memory that counts how often it is read and renewed.
#[derive(Default)]
struct FakeRow {
    cancelled: AtomicBool,
    lost: AtomicBool,
    failing: AtomicBool,
    reads: AtomicU32,
    renewals: AtomicU32,
}

#[async_trait]
impl PromptRow for Arc<FakeRow> {
    async fn renew(&self) -> Result<LeaseState, parley_protocol::error::Error> {
        self.renewals.fetch_add(1, Ordering::SeqCst);
        if self.failing.load(Ordering::SeqCst) {
            return Err(parley_protocol::error::Error::Unavailable {
                what: "the database".into(),
            });
        }
        Ok(self.state())
    }

    async fn cancel_requested(&self) -> Result<bool, parley_protocol::error::Error> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        Ok(self.cancelled.load(Ordering::SeqCst))
    }
}

impl FakeRow {
    /// What a renewal finds (without counting it as a read: it is one statement).
    fn state(&self) -> LeaseState {
        if self.lost.load(Ordering::SeqCst) {
            LeaseState::Lost
        } else {
            LeaseState::Held {
                cancelled: self.cancelled.load(Ordering::SeqCst),
            }
        }
    }
}

const LEASE: Duration = Duration::from_secs(30);

/// Waits (in tokio time) until the watcher says why the turn stops.
async fn stopped(watcher: &Watcher, within: Duration) -> Option<Stop> {
    let mut stop = watcher.receiver();
    let ended = tokio::time::timeout(within, stop.wait_for(|s| *s != Stop::Running)).await;
    ended.ok().map(|stop| *stop.expect("the watcher reports"))
}

#[tokio::test]
async fn a_signalled_cancel_stops_the_turn_at_once_without_reading_the_row() {
    let log = MemoryEventLog::new();
    let prompt_id = Uuid::now_v7();
    let row = Arc::new(FakeRow::default());
    let watcher = Watcher::start(row.clone(), log.listen_cancel(prompt_id), LEASE);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(watcher.state(), Stop::Running);
    // As the api does: recorded, then signalled.
    row.cancelled.store(true, Ordering::SeqCst);
    log.signal_cancel(prompt_id).await.unwrap();
    let stop = stopped(&watcher, Duration::from_millis(500)).await;
    assert_eq!(stop, Some(Stop::Cancelled), "well within the lease's third");
    assert_eq!(row.reads.load(Ordering::SeqCst), 0, "no poll of the row");
    assert_eq!(row.renewals.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn a_lost_signal_is_caught_at_the_next_renewal() {
    let log = MemoryEventLog::new();
    let row = Arc::new(FakeRow::default());
    let watcher = Watcher::start(row.clone(), log.listen_cancel(Uuid::now_v7()), LEASE);
    // Recorded, but the signal never comes.
    row.cancelled.store(true, Ordering::SeqCst);
    assert_eq!(
        stopped(&watcher, LEASE / 2 - Duration::from_secs(1)).await,
        None
    );
    assert_eq!(
        stopped(&watcher, Duration::from_secs(2)).await,
        Some(Stop::Cancelled)
    );
    assert_eq!(row.renewals.load(Ordering::SeqCst), 1);
    assert_eq!(
        row.reads.load(Ordering::SeqCst),
        0,
        "the renewal read the mark"
    );
}

#[tokio::test(start_paused = true)]
async fn renewals_go_on_every_half_lease_in_one_statement_each() {
    let log = MemoryEventLog::new();
    let row = Arc::new(FakeRow::default());
    let watcher = Watcher::start(row.clone(), log.listen_cancel(Uuid::now_v7()), LEASE);
    assert_eq!(stopped(&watcher, LEASE * 2 + LEASE / 4).await, None);
    assert_eq!(row.renewals.load(Ordering::SeqCst), 4);
    assert_eq!(row.reads.load(Ordering::SeqCst), 0);
}

/// Checkpoints every sixth of the lease renew it: the watcher never does.
#[tokio::test(start_paused = true)]
async fn checkpoints_that_renew_the_lease_put_the_watchers_renewals_off() {
    let log = MemoryEventLog::new();
    let row = Arc::new(FakeRow::default());
    let watcher = Watcher::start(row.clone(), log.listen_cancel(Uuid::now_v7()), LEASE);
    let reports = watcher.reports();
    for _ in 0..12 {
        tokio::time::sleep(LEASE / 6).await;
        let state = row.state();
        reports.report(Renewed {
            at: Instant::now(),
            state,
        });
    }
    assert_eq!(stopped(&watcher, Duration::from_millis(1)).await, None);
    assert_eq!(
        row.renewals.load(Ordering::SeqCst),
        0,
        "no renewal of its own"
    );
    // Once the checkpoints stop (a turn waiting on a function), the watcher renews.
    assert_eq!(
        stopped(&watcher, LEASE / 2 + Duration::from_secs(1)).await,
        None
    );
    assert_eq!(row.renewals.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn a_checkpoint_that_finds_a_cancel_or_a_lost_lease_stops_the_turn() {
    for (state, stop) in [
        (LeaseState::Held { cancelled: true }, Stop::Cancelled),
        (LeaseState::Lost, Stop::LeaseLost),
    ] {
        let log = MemoryEventLog::new();
        let row = Arc::new(FakeRow::default());
        let watcher = Watcher::start(row.clone(), log.listen_cancel(Uuid::now_v7()), LEASE);
        tokio::time::sleep(Duration::from_secs(1)).await;
        watcher.reports().report(Renewed {
            at: Instant::now(),
            state,
        });
        assert_eq!(
            stopped(&watcher, Duration::from_millis(100)).await,
            Some(stop)
        );
        assert_eq!(row.renewals.load(Ordering::SeqCst), 0);
    }
}

#[tokio::test(start_paused = true)]
async fn a_lost_lease_stops_the_turn() {
    let log = MemoryEventLog::new();
    let row = Arc::new(FakeRow::default());
    row.lost.store(true, Ordering::SeqCst);
    let watcher = Watcher::start(row.clone(), log.listen_cancel(Uuid::now_v7()), LEASE);
    let stop = stopped(&watcher, LEASE / 2 + Duration::from_secs(1)).await;
    assert_eq!(stop, Some(Stop::LeaseLost));
}

#[tokio::test(start_paused = true)]
async fn a_lease_that_could_not_be_renewed_for_its_whole_length_stops_the_turn() {
    let log = MemoryEventLog::new();
    let row = Arc::new(FakeRow::default());
    row.failing.store(true, Ordering::SeqCst);
    let watcher = Watcher::start(row.clone(), log.listen_cancel(Uuid::now_v7()), LEASE);
    assert_eq!(
        stopped(&watcher, LEASE - Duration::from_secs(1)).await,
        None
    );
    let stop = stopped(&watcher, Duration::from_secs(2)).await;
    assert_eq!(
        stop,
        Some(Stop::LeaseLost),
        "the lease ran out by the worker's clock"
    );
    // At half the lease, then every sixth of it: four attempts.
    assert_eq!(row.renewals.load(Ordering::SeqCst), 4);
}

/// Redis tells a listener created before its subscription was confirmed that signals
/// may have been missed: the watcher reads the row then, not a renewal later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(
    clippy::disallowed_methods,
    reason = "a test reads its servers (PARLEY_TEST_*) and files from the environment"
)]
async fn a_listener_that_may_have_missed_a_signal_reads_the_row() {
    let url = std::env::var("PARLEY_TEST_REDIS_URL")
        .expect("PARLEY_TEST_REDIS_URL: run the tests through scripts/test.sh");
    let log = RedisEventLog::connect(&url).await.expect("connect");
    let row = Arc::new(FakeRow::default());
    // Recorded (and signalled) before this process listened.
    row.cancelled.store(true, Ordering::SeqCst);
    let watcher = Watcher::start(row.clone(), log.listen_cancel(Uuid::now_v7()), LEASE);
    let stop = stopped(&watcher, Duration::from_secs(5)).await;
    assert_eq!(stop, Some(Stop::Cancelled));
    assert_eq!(row.renewals.load(Ordering::SeqCst), 0, "no renewal was due");
    assert_eq!(row.reads.load(Ordering::SeqCst), 1);
}
