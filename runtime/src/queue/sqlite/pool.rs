//! A pool of consumers on the SQLite queue (the one lane of the apalis backend,
//! [`crate::queue::worker`]): a fetch takes as many waiting jobs as
//! it has free slots in one statement, its heartbeat keeps the worker's row fresh and
//! hands back the jobs of workers whose heartbeat lapsed, and each job is settled —
//! acknowledged or handed back — by id.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::SqlitePool;
use tokio::sync::watch;
use tracing::warn;

use super::super::consumer::{ConsumerPool, Next, sleep_unless_stopped, stopped};
use super::{SqliteQueue, now_ms, on_queue_thread, sqlx_error};
use crate::queue::{ConsumerConfig, QueueError};

/// One pool of consumers: what its fetches, job tasks and heartbeat share.
pub(crate) struct Pool {
    pub(super) queue: SqliteQueue,
    pub(super) name: String,
    /// The ids of the jobs taken and not yet acknowledged or handed back.
    pub(super) held: Mutex<Vec<i64>>,
    /// Jobs taken by the last fetch and not handed out yet (oldest first).
    pub(super) fetched: Mutex<VecDeque<(i64, String)>>,
    /// The last fetch found fewer jobs than it could take: the queue was empty then, and
    /// the next fetch waits for a wake-up or the poll first.
    pub(super) drained: AtomicBool,
    /// The table may show jobs as this worker's that no job of it holds (a settle
    /// failed): reconcile before the next fetch.
    pub(super) stray: AtomicBool,
}

impl Pool {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Vec<i64>> {
        self.held
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    pub(super) fn release(&self, id: i64) {
        let mut held = self.lock();
        if let Some(at) = held.iter().position(|h| *h == id) {
            held.swap_remove(at);
        }
    }

    /// What a statement of this pool needs, owned (it runs on the queue's thread).
    pub(super) fn statement_parts(&self) -> (SqlitePool, String, String) {
        (
            self.queue.pool.clone(),
            self.queue.queue.clone(),
            self.name.clone(),
        )
    }

    pub(super) fn fetched(&self) -> std::sync::MutexGuard<'_, VecDeque<(i64, String)>> {
        self.fetched
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Takes the oldest waiting jobs, at most `most`, in one statement; oldest first.
    pub(super) async fn fetch(&self, most: usize) -> Result<Vec<(i64, String)>, QueueError> {
        let (pool, queue, name) = self.statement_parts();
        let most = i64::try_from(most.max(1)).unwrap_or(i64::MAX);
        let mut jobs: Vec<(i64, String)> = on_queue_thread(async move {
            sqlx::query_as(
                "UPDATE parley_jobs SET worker = ?1 WHERE id IN \
                 (SELECT id FROM parley_jobs WHERE queue = ?2 AND worker IS NULL \
                 ORDER BY id LIMIT ?3) \
                 RETURNING id, payload",
            )
            .bind(name)
            .bind(queue)
            .bind(most)
            .fetch_all(&pool)
            .await
            .map_err(|e| sqlx_error("fetching jobs", e))
        })
        .await?;
        // `RETURNING` promises no order.
        jobs.sort_unstable_by_key(|(id, _)| *id);
        self.lock().extend(jobs.iter().map(|(id, _)| *id));
        Ok(jobs)
    }

    /// Acknowledges a finished job (deletes it), or hands back an interrupted one.
    pub(super) async fn settle(&self, id: i64, done: bool) {
        let sql = if done {
            "DELETE FROM parley_jobs WHERE id = ?1 AND worker = ?2"
        } else {
            "UPDATE parley_jobs SET worker = NULL WHERE id = ?1 AND worker = ?2"
        };
        let (pool, _, name) = self.statement_parts();
        let settled = on_queue_thread(async move {
            sqlx::query(sql)
                .bind(id)
                .bind(name)
                .execute(&pool)
                .await
                .map_err(|e| sqlx_error("settling a job", e))
        })
        .await;
        self.release(id);
        match settled {
            Ok(_) if !done => self.queue.wake_consumers(),
            Ok(_) => {}
            Err(e) => {
                // Still this worker's: the next reconcile hands it back (a finished job
                // runs again as a no-op: jobs are idempotent).
                warn!(worker = %self.name, error = %e, "could not settle a job; it will be handed back");
                self.stray.store(true, Ordering::SeqCst);
            }
        }
    }
}

impl ConsumerPool for Pool {
    type Taken = i64;
    /// Told of every enqueue and hand-back in this process, so a consumer waiting for a
    /// job wakes at once; the poll covers other processes on the same file.
    type Fetcher = watch::Receiver<u64>;

    fn worker(&self) -> &str {
        &self.name
    }

    async fn connect(&self) -> Result<watch::Receiver<u64>, QueueError> {
        Ok(self.queue.wake.subscribe())
    }

    /// Records this worker's heartbeat and hands the jobs of dead workers back, in one
    /// transaction.
    async fn heartbeat(&self, config: &ConsumerConfig) -> Result<(), QueueError> {
        let dead_after =
            config.heartbeat.max(Duration::from_secs(1)) * config.missed_heartbeats.max(1);
        let now = now_ms();
        let cutoff = now - dead_after.as_millis() as i64;
        let (pool, queue, name) = self.statement_parts();
        let reaped = on_queue_thread(async move {
            let failed = |e| sqlx_error("recording a heartbeat", e);
            let mut tx = pool.begin().await.map_err(failed)?;
            sqlx::query(
                "INSERT INTO parley_job_workers (queue, name, last_seen_ms) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (queue, name) DO UPDATE SET last_seen_ms = excluded.last_seen_ms",
            )
            .bind(&queue)
            .bind(&name)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
            // Jobs of a worker that missed its heartbeats, or that is not registered at all.
            let reaped = sqlx::query(
                "UPDATE parley_jobs SET worker = NULL WHERE queue = ?1 AND worker IS NOT NULL \
                 AND worker NOT IN \
                 (SELECT name FROM parley_job_workers WHERE queue = ?1 AND last_seen_ms >= ?2)",
            )
            .bind(&queue)
            .bind(cutoff)
            .execute(&mut *tx)
            .await
            .map_err(failed)?
            .rows_affected();
            sqlx::query("DELETE FROM parley_job_workers WHERE queue = ?1 AND last_seen_ms < ?2")
                .bind(&queue)
                .bind(cutoff)
                .execute(&mut *tx)
                .await
                .map_err(failed)?;
            tx.commit().await.map_err(failed)?;
            Ok(reaped)
        })
        .await?;
        if reaped > 0 {
            warn!(worker = %self.name, jobs = reaped, "handed back the jobs of dead job workers");
            self.queue.wake_consumers();
        }
        Ok(())
    }

    /// Deregisters the worker, handing back whatever it still holds (jobs abandoned at the
    /// shutdown deadline), in one transaction.
    async fn leave(&self) {
        let (pool, queue, name) = self.statement_parts();
        let left = on_queue_thread(async move {
            let left = async {
                let mut tx = pool.begin().await?;
                sqlx::query("UPDATE parley_jobs SET worker = NULL WHERE worker = ?1")
                    .bind(&name)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("DELETE FROM parley_job_workers WHERE queue = ?1 AND name = ?2")
                    .bind(&queue)
                    .bind(&name)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await
            };
            left.await.map_err(|e| sqlx_error("deregistering", e))
        });
        self.fetched().clear();
        if let Err(e) = left.await {
            warn!(worker = %self.name, error = %e, "could not deregister the job worker");
        }
    }

    fn mark_stray(&self) {
        self.stray.store(true, Ordering::SeqCst);
    }

    fn stray(&self) -> bool {
        self.stray.load(Ordering::SeqCst)
    }

    /// Hands back the jobs the table shows as this worker's that no job of it holds.
    async fn reconcile(&self) -> Result<(), QueueError> {
        let failed = |e| sqlx_error("reconciling taken jobs", e);
        let (pool, _, name) = self.statement_parts();
        let taken: Vec<i64> = on_queue_thread(async move {
            sqlx::query_scalar("SELECT id FROM parley_jobs WHERE worker = ?1")
                .bind(name)
                .fetch_all(&pool)
                .await
                .map_err(failed)
        })
        .await?;
        let stray: Vec<i64> = {
            let held = self.lock();
            taken.into_iter().filter(|id| !held.contains(id)).collect()
        };
        for id in stray.iter().copied() {
            let (pool, _, name) = self.statement_parts();
            on_queue_thread(async move {
                sqlx::query("UPDATE parley_jobs SET worker = NULL WHERE id = ?1 AND worker = ?2")
                    .bind(id)
                    .bind(name)
                    .execute(&pool)
                    .await
                    .map_err(failed)
            })
            .await?;
        }
        if !stray.is_empty() {
            warn!(worker = %self.name, jobs = stray.len(), "handed back jobs no consumer held");
            self.queue.wake_consumers();
        }
        self.stray.store(false, Ordering::SeqCst);
        Ok(())
    }

    async fn next(
        &self,
        wake: &mut watch::Receiver<u64>,
        config: &ConsumerConfig,
        stop: &watch::Receiver<bool>,
        room: usize,
    ) -> Next<i64> {
        if let Some((taken, payload)) = self.fetched().pop_front() {
            return Next::Job { taken, payload };
        }
        if self.drained.load(Ordering::SeqCst) {
            // The last fetch emptied the queue; an enqueue since wakes this wait at once.
            tokio::select! {
                _ = wake.changed() => {}
                () = tokio::time::sleep(config.poll_interval) => {}
                () = stopped(stop) => return Next::Stopped,
            }
        }
        // Seen before the fetch: an enqueue that lands after it wakes the wait above.
        wake.borrow_and_update();
        match self.fetch(room).await {
            Ok(jobs) => {
                self.drained.store(jobs.len() < room, Ordering::SeqCst);
                let mut jobs = jobs.into_iter();
                let Some((taken, payload)) = jobs.next() else {
                    return Next::Again;
                };
                self.fetched().extend(jobs);
                Next::Job { taken, payload }
            }
            Err(e) => {
                warn!(worker = %self.name, error = %e, "fetching a job failed");
                if sleep_unless_stopped(config.restart_delay, stop).await {
                    Next::Stopped
                } else {
                    Next::Again
                }
            }
        }
    }

    async fn settle(&self, job: &i64, done: bool) {
        Pool::settle(self, *job, done).await;
    }
}
