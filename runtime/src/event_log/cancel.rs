//! Cancel signals (DESIGN §4): the api records a cancel on the prompt's row, then
//! [signals](super::EventLog::signal_cancel) it; the worker running the prompt
//! [listens](super::EventLog::listen_cancel) for it instead of reading the row over and
//! over.
//!
//! The row stays the truth. A signal is a hint that can be lost (Redis pub/sub delivers
//! at most once, to whoever is subscribed at that moment), so a listener is also told
//! when signals *may* have been lost — [`CancelHeard::MaybeMissed`]: the backend was not
//! listening yet, or its connection dropped — and then looks at the row itself. A worker
//! also looks at the row now and then whatever it heard (its lease renewal), which
//! catches a signal lost in a way no backend can notice.
//!
//! Both backends keep their listeners in a [`Registry`]: one entry per prompt with a
//! listener in this process, holding a [`watch`] channel its listeners wait on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::watch;
use uuid::Uuid;

/// What a [`CancelListener`] heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelHeard {
    /// A cancel of the prompt was signalled (so it is recorded on the prompt's row).
    Cancelled,
    /// Signals may have been lost since the listener was created or last heard this:
    /// look at the prompt's row.
    MaybeMissed,
}

/// What one prompt's listeners have been told so far.
#[derive(Debug, Default, Clone, Copy)]
struct Heard {
    cancelled: bool,
    /// How many times signals may have been lost.
    lapses: u64,
}

/// Hears the cancel signals of one prompt sent after it was created, until dropped.
pub struct CancelListener {
    heard: watch::Receiver<Heard>,
    lapses_seen: u64,
    _membership: Membership,
}

impl CancelListener {
    /// Waits for the next thing to hear. Once a cancel has been heard, answers
    /// [`CancelHeard::Cancelled`] at once, every time.
    pub async fn heard(&mut self) -> CancelHeard {
        loop {
            let now = *self.heard.borrow_and_update();
            if now.cancelled {
                return CancelHeard::Cancelled;
            }
            if now.lapses != self.lapses_seen {
                self.lapses_seen = now.lapses;
                return CancelHeard::MaybeMissed;
            }
            // The sender lives in the registry as long as this listener does.
            if self.heard.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

struct Entry {
    heard: watch::Sender<Heard>,
    members: usize,
}

/// The listeners of one process, by prompt. Cheap to clone; clones share the entries.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    entries: Arc<Mutex<HashMap<Uuid, Entry>>>,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, HashMap<Uuid, Entry>> {
        // Every update under the lock is one map or counter operation.
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A listener of the prompt's signals from now on.
    pub(crate) fn listen(&self, prompt_id: Uuid) -> CancelListener {
        let mut entries = self.lock();
        let entry = entries.entry(prompt_id).or_insert_with(|| Entry {
            heard: watch::Sender::new(Heard::default()),
            members: 0,
        });
        entry.members += 1;
        let heard = entry.heard.subscribe();
        let lapses_seen = heard.borrow().lapses;
        CancelListener {
            heard,
            lapses_seen,
            _membership: Membership {
                registry: self.clone(),
                prompt_id,
            },
        }
    }

    /// Tells the prompt's listeners (if any in this process) that it was cancelled.
    pub(crate) fn deliver(&self, prompt_id: Uuid) {
        if let Some(entry) = self.lock().get(&prompt_id) {
            entry.heard.send_modify(|heard| heard.cancelled = true);
        }
    }

    /// Tells every listener that signals may have been lost.
    pub(crate) fn lapse_all(&self) {
        for entry in self.lock().values() {
            entry.heard.send_modify(|heard| heard.lapses += 1);
        }
    }

    /// How many listeners the prompt has in this process.
    pub(crate) fn listeners(&self, prompt_id: Uuid) -> usize {
        self.lock().get(&prompt_id).map_or(0, |entry| entry.members)
    }
}

/// A listener's place in the registry; the prompt's entry goes with its last listener.
struct Membership {
    registry: Registry,
    prompt_id: Uuid,
}

impl Drop for Membership {
    fn drop(&mut self) {
        let mut entries = self.registry.lock();
        if let Some(entry) = entries.get_mut(&self.prompt_id) {
            entry.members -= 1;
            if entry.members == 0 {
                entries.remove(&self.prompt_id);
            }
        }
    }
}
