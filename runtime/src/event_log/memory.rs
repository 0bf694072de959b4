//! The in-process event log of embedded mode (`parley serve` without Redis).
//!
//! Each prompt's log is a `Vec` of events inside a [`tokio::sync::watch`] channel: an
//! append pushes under the channel's lock and wakes every receiver, and a subscriber is
//! nothing more than a watch receiver and a cursor, so thousands of them cost a few
//! hundred bytes each. `seq` is the log's base (the floor its first append gave; 0 for a
//! log that starts at 1) plus the position in the `Vec` plus one, assigned under the
//! registry lock, so concurrent appenders cannot leave a gap.
//!
//! Expiry is lazy: every lookup treats a log past its deadline as gone, and a sweep run
//! at most every [`SWEEP_EVERY`] by `append`/`expire` drops dead logs (and logs that a
//! subscriber created while waiting, once nobody waits any more); the schedule also
//! [prunes](EventLog::prune) every minute, so an idle process frees them too. A
//! subscriber whose log expires under it ends its stream. A log nobody expires goes
//! after [`MAX_AGE`](super::MAX_AGE) (the worker expires every finished log). A log built
//! [with a limit](MemoryEventLog::with_finished_limit) also keeps at most that many
//! finished logs: past it the oldest one nobody reads goes early, so memory follows the
//! turns in flight however high the traffic. The log is not durable: a restart
//! loses it, and the api then synthesizes the events from the database as it does after
//! retention; a prompt that runs again after the restart starts a log above the ceiling
//! the database kept for it, so its readers' `Last-Event-ID`s stay below the new seqs.
//!
//! Cancel signals go straight to the listeners of the process (the api and the workers of
//! `parley serve` share one log), so none is ever lost.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::{self, BoxStream};
use parley_protocol::events::{EventKind, StreamEvent};
use tokio::sync::watch;
use tokio::time::Instant;
use uuid::Uuid;

use super::cancel::{CancelListener, Registry as CancelRegistry};
use super::{EventLog, EventLogError, EventWriter, READ_BATCH, Result, refuse_ping};

/// How often, at most, `append`/`expire` scan the registry for dead logs.
pub const SWEEP_EVERY: Duration = Duration::from_secs(10);

/// The in-process [`EventLog`]. Cheap to clone; clones share the logs.
#[derive(Clone, Default)]
pub struct MemoryEventLog {
    registry: Arc<Mutex<Registry>>,
    cancels: CancelRegistry,
}

#[derive(Default)]
struct Registry {
    logs: HashMap<Uuid, Arc<watch::Sender<LogState>>>,
    last_sweep: Option<Instant>,
    /// Finished logs in the order they were expired, oldest first (a log expired twice
    /// is listed twice; its first entry is then skipped).
    finished: VecDeque<(Uuid, Instant)>,
    /// The most finished logs kept before their retention ends (`None`: no limit).
    finished_limit: Option<usize>,
}

#[derive(Default)]
struct LogState {
    /// The seq before the first event's.
    base: u64,
    events: Vec<StreamEvent>,
    expires_at: Option<Instant>,
    /// Set when the log is dropped from the registry, so waiting subscribers end.
    gone: bool,
}

impl LogState {
    fn is_expired(&self, now: Instant) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }

    /// The seq of the last event (the base when there is none).
    fn last_seq(&self) -> u64 {
        self.base + self.events.len() as u64
    }
}

impl MemoryEventLog {
    /// Stores `kinds` as the prompt's next events, together (no other append comes
    /// between them), above `floor` when the log is empty.
    fn append_all_above(
        &self,
        prompt_id: Uuid,
        floor: u64,
        kinds: Vec<EventKind>,
    ) -> Result<Vec<StreamEvent>> {
        for kind in &kinds {
            refuse_ping(kind)?;
        }
        let now = Instant::now();
        let mut registry = self.lock();
        registry.maybe_sweep(now);
        let log = registry.live_or_new(prompt_id, now);
        let mut stored = Vec::with_capacity(kinds.len());
        // Under the registry lock: the sweep cannot retire the log between the lookup and
        // the push, and the seq is the log's length, so appends are serialized per prompt.
        log.send_modify(|state| {
            if state.events.is_empty() {
                state.base = floor;
            }
            for kind in kinds {
                let event = StreamEvent {
                    seq: state.last_seq() + 1,
                    prompt_id,
                    kind,
                };
                state.events.push(event.clone());
                stored.push(event);
            }
        });
        drop(registry);
        Ok(stored)
    }

    pub fn new() -> Self {
        Self::default()
    }

    /// A log that keeps at most `limit` finished logs: past it, the oldest finished log
    /// nobody is reading goes before its retention ends (its feed is then rebuilt from
    /// the database), so memory follows the turns in flight, not the traffic.
    pub fn with_finished_limit(limit: usize) -> Self {
        let log = Self::default();
        log.lock().finished_limit = Some(limit);
        log
    }

    /// How many subscription streams currently follow this prompt (for tests and
    /// metrics).
    pub fn subscriber_count(&self, prompt_id: Uuid) -> usize {
        self.lock()
            .logs
            .get(&prompt_id)
            .map_or(0, |log| log.receiver_count())
    }

    /// How many cancel listeners the prompt has (for tests).
    pub fn cancel_listeners(&self, prompt_id: Uuid) -> usize {
        self.cancels.listeners(prompt_id)
    }

    /// How many logs the registry holds, live or waiting to be swept.
    pub fn log_count(&self) -> usize {
        self.lock().logs.len()
    }

    fn lock(&self) -> MutexGuard<'_, Registry> {
        // A panic while holding the lock cannot leave a log half-written (every update
        // is one push or one field store), so a poisoned lock is still usable.
        self.registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Registry {
    /// The live log of a prompt; an expired one is dropped on the way.
    fn live(&mut self, prompt_id: Uuid, now: Instant) -> Option<&Arc<watch::Sender<LogState>>> {
        let expired = self
            .logs
            .get(&prompt_id)
            .is_some_and(|log| log.borrow().is_expired(now));
        if let Some(log) = expired.then(|| self.logs.remove(&prompt_id)).flatten() {
            retire(&log);
        }
        self.logs.get(&prompt_id)
    }

    fn live_or_new(&mut self, prompt_id: Uuid, now: Instant) -> Arc<watch::Sender<LogState>> {
        if let Some(log) = self.live(prompt_id, now) {
            return log.clone();
        }
        let log = Arc::new(watch::Sender::new(LogState {
            expires_at: Some(now + super::MAX_AGE),
            ..LogState::default()
        }));
        self.logs.insert(prompt_id, log.clone());
        log
    }

    /// Records that `prompt_id`'s log finished with this deadline, and drops the oldest
    /// finished logs beyond the limit.
    fn finished(&mut self, prompt_id: Uuid, deadline: Instant) {
        let Some(limit) = self.finished_limit else {
            return;
        };
        self.finished.push_back((prompt_id, deadline));
        while self.finished.len() > limit {
            let Some((oldest, listed)) = self.finished.pop_front() else {
                break;
            };
            let Some(log) = self.logs.get(&oldest) else {
                continue;
            };
            // A log that was expired again since is listed again; one that is read keeps
            // its readers until its retention ends.
            let evict = log.borrow().expires_at == Some(listed) && log.receiver_count() == 0;
            if evict && let Some(log) = self.logs.remove(&oldest) {
                retire(&log);
            }
        }
    }

    /// Drops expired logs and empty logs nobody waits on, at most every [`SWEEP_EVERY`].
    fn maybe_sweep(&mut self, now: Instant) {
        if self
            .last_sweep
            .is_some_and(|last| now.duration_since(last) < SWEEP_EVERY)
        {
            return;
        }
        self.sweep(now);
    }

    /// Drops expired logs and empty logs nobody waits on; returns how many.
    fn sweep(&mut self, now: Instant) -> usize {
        self.last_sweep = Some(now);
        let before = self.logs.len();
        self.logs.retain(|_, log| {
            let state = log.borrow();
            let dead =
                state.is_expired(now) || (state.events.is_empty() && log.receiver_count() == 0);
            drop(state);
            if dead {
                retire(log);
            }
            !dead
        });
        before - self.logs.len()
    }
}

/// Marks a log dropped from the registry and wakes its subscribers so they end.
fn retire(log: &watch::Sender<LogState>) {
    log.send_modify(|state| {
        state.gone = true;
        state.events = Vec::new();
    });
}

#[async_trait]
impl EventLog for MemoryEventLog {
    async fn append_above(
        &self,
        prompt_id: Uuid,
        floor: u64,
        kind: EventKind,
    ) -> Result<StreamEvent> {
        self.append_all_above(prompt_id, floor, vec![kind])?
            .pop()
            .ok_or_else(|| EventLogError::Internal("the append did not run".into()))
    }

    fn writer(&self, prompt_id: Uuid, _last_seq: Option<u64>, floor: u64) -> Box<dyn EventWriter> {
        // Appending is already one step under a lock: a writer keeps only its floor.
        Box::new(Writer {
            log: self.clone(),
            prompt_id,
            floor,
            next: None,
        })
    }

    async fn read(&self, prompt_id: Uuid, after: u64, limit: usize) -> Result<Vec<StreamEvent>> {
        let mut registry = self.lock();
        let Some(log) = registry.live(prompt_id, Instant::now()) else {
            return Ok(Vec::new());
        };
        Ok(slice_after(&log.borrow(), after, limit))
    }

    fn subscribe(&self, prompt_id: Uuid, after: u64) -> BoxStream<'static, Result<StreamEvent>> {
        let receiver = self
            .lock()
            .live_or_new(prompt_id, Instant::now())
            .subscribe();
        let reader = Reader {
            receiver,
            next: after.saturating_add(1),
            buffer: VecDeque::new(),
            done: false,
        };
        stream::unfold(reader, |mut reader| async move {
            let event = reader.next_event().await?;
            Some((Ok(event), reader))
        })
        .boxed()
    }

    async fn expire(&self, prompt_id: Uuid, retention: Duration) -> Result<()> {
        let now = Instant::now();
        let mut registry = self.lock();
        registry.maybe_sweep(now);
        let deadline = now + retention;
        if let Some(log) = registry.live(prompt_id, now) {
            log.send_modify(|state| state.expires_at = Some(deadline));
            registry.finished(prompt_id, deadline);
        }
        Ok(())
    }

    async fn exists(&self, prompt_id: Uuid) -> Result<bool> {
        let mut registry = self.lock();
        Ok(registry
            .live(prompt_id, Instant::now())
            .is_some_and(|log| !log.borrow().events.is_empty()))
    }

    async fn last(&self, prompt_id: Uuid) -> Result<Option<StreamEvent>> {
        let mut registry = self.lock();
        Ok(registry
            .live(prompt_id, Instant::now())
            .and_then(|log| log.borrow().events.last().cloned()))
    }

    async fn ready(&self) -> Result<()> {
        Ok(())
    }

    async fn prune(&self) -> Result<usize> {
        Ok(self.lock().sweep(Instant::now()))
    }

    async fn signal_cancel(&self, prompt_id: Uuid) -> Result<()> {
        self.cancels.deliver(prompt_id);
        Ok(())
    }

    fn listen_cancel(&self, prompt_id: Uuid) -> CancelListener {
        self.cancels.listen(prompt_id)
    }
}

struct Writer {
    log: MemoryEventLog,
    prompt_id: Uuid,
    /// Above the writer's floor and every seq it appended.
    floor: u64,
    next: Option<u64>,
}

#[async_trait]
impl EventWriter for Writer {
    async fn append(&mut self, kind: EventKind) -> Result<StreamEvent> {
        let event = self
            .log
            .append_above(self.prompt_id, self.floor, kind)
            .await?;
        self.floor = self.floor.max(event.seq);
        self.next = Some(event.seq + 1);
        Ok(event)
    }

    async fn append_all(&mut self, kinds: Vec<EventKind>) -> Result<Vec<StreamEvent>> {
        let events = self
            .log
            .append_all_above(self.prompt_id, self.floor, kinds)?;
        if let Some(last) = events.last() {
            self.floor = self.floor.max(last.seq);
            self.next = Some(last.seq + 1);
        }
        Ok(events)
    }

    fn next_seq(&self) -> Option<u64> {
        self.next
    }
}

fn slice_after(state: &LogState, after: u64, limit: usize) -> Vec<StreamEvent> {
    let start = usize::try_from(after.saturating_sub(state.base))
        .unwrap_or(usize::MAX)
        .min(state.events.len());
    let end = start.saturating_add(limit).min(state.events.len());
    state.events[start..end].to_vec()
}

/// One subscription: a watch receiver and a cursor.
struct Reader {
    receiver: watch::Receiver<LogState>,
    next: u64,
    buffer: VecDeque<StreamEvent>,
    done: bool,
}

impl Reader {
    async fn next_event(&mut self) -> Option<StreamEvent> {
        loop {
            if self.done {
                return None;
            }
            if let Some(event) = self.buffer.pop_front() {
                self.next = event.seq + 1;
                // A terminal event ends the stream unless the log goes on after it (the
                // prompt was resumed: a new attempt follows).
                if event.kind.is_terminal() && self.buffer.is_empty() {
                    let later = self
                        .receiver
                        .borrow()
                        .events
                        .last()
                        .is_some_and(|last| last.seq > event.seq);
                    self.done = !later;
                }
                return Some(event);
            }
            // Marking the value seen before copying from it means an append that lands
            // after the copy wakes `changed` below: no event can slip between the two.
            let deadline = {
                let state = self.receiver.borrow_and_update();
                if state.gone {
                    return None;
                }
                self.buffer
                    .extend(slice_after(&state, self.next - 1, READ_BATCH));
                // Joined after the log's terminal event: nothing more is coming.
                let over = state
                    .events
                    .last()
                    .is_some_and(|last| last.kind.is_terminal() && last.seq < self.next);
                if self.buffer.is_empty() && over {
                    return None;
                }
                state.expires_at
            };
            if !self.buffer.is_empty() {
                continue;
            }
            let expired = async {
                match deadline {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                changed = self.receiver.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                }
                () = expired => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests;
