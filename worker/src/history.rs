//! The recent messages of sessions this worker ran, so the next turn of a conversation
//! does not read its history again: every turn read 58 rows (500 for a model with a
//! tokenizer) and decoded them, the largest read of a plain turn (BENCHMARKS.md, #9).
//!
//! An entry holds the newest messages of a session's active branch (DESIGN §13: the
//! ancestry of its active leaf) as of its message counter (`sessions.message_count`:
//! every append raises it in the transaction that inserts). It answers a turn only when
//! the claim found the counter and the active leaf where the entry has them, and it is
//! extended at the end of a turn only when that turn's finish left the counter exactly
//! the turn's own messages further and they continue the entry's branch — so a message
//! appended anywhere else (another worker, an interrupted turn finishing late), a
//! switch of branches or an edit makes the entry go, never go stale. Complete messages never change; an incomplete
//! one (a cancelled or broken answer) is rewritten in place when its turn is resumed,
//! without moving the counter, so a session whose recent messages include one is not
//! kept. Nor is anything of a repeated attempt.
//!
//! An entry also keeps its session's history window start (`session_summaries`, #45),
//! once a turn read or moved it: the window steps only inside a turn, so the counter
//! that proves the messages current proves the start current too, and a long
//! conversation's turn reads nothing for it.
//!
//! Bounded by the bytes of the content it holds (`worker.history_cache_mb`), least
//! recently used first out; an entry unused for [`IDLE`] is dropped when next seen.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use hashlink::LruCache;
use parley_entity::messages;
use uuid::Uuid;

/// An entry unused this long is read again (and the memory of conversations that ended
/// goes back to the pool before the byte budget forces it).
pub const IDLE: Duration = Duration::from_secs(600);
/// What a message costs the budget besides its content.
const PER_MESSAGE: usize = std::mem::size_of::<messages::Model>();

/// Cheap to clone; one per process. [`HistoryCache::disabled`] keeps nothing.
#[derive(Clone)]
pub struct HistoryCache {
    inner: Option<Arc<Mutex<Inner>>>,
}

struct Inner {
    entries: LruCache<Uuid, Entry>,
    /// The bytes all entries hold.
    bytes: usize,
    budget: usize,
    /// The most messages one entry keeps (the largest read a turn makes).
    depth: usize,
}

/// Where a session's history window starts, as `session_summaries` holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowStart {
    /// The newest message the window leaves out.
    pub through_message_id: Uuid,
    /// The summary of what it leaves out (none: not summarized).
    pub summary: Option<String>,
}

struct Entry {
    /// The session's message counter the entry is valid at.
    count: i32,
    /// The window's start once read or moved (`Some(None)`: it never stepped).
    start: Option<Option<WindowStart>>,
    /// The newest messages of its branch, newest first (each the parent of the one
    /// before): the whole branch when the last one has no parent, else the newest
    /// `depth`.
    newest_first: VecDeque<messages::Model>,
    bytes: usize,
    used: Instant,
}

impl std::fmt::Debug for HistoryCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (entries, bytes) = self.usage();
        f.debug_struct("HistoryCache")
            .field("entries", &entries)
            .field("bytes", &bytes)
            .finish()
    }
}

impl HistoryCache {
    /// A cache holding at most `budget` bytes of messages, at most `depth` a session.
    pub fn new(budget: usize, depth: usize) -> Self {
        if budget == 0 || depth == 0 {
            return Self::disabled();
        }
        Self {
            inner: Some(Arc::new(Mutex::new(Inner {
                entries: LruCache::new_unbounded(),
                bytes: 0,
                budget,
                depth,
            }))),
        }
    }

    /// Keeps nothing: every turn reads its history.
    pub fn disabled() -> Self {
        Self { inner: None }
    }

    /// Whether it keeps anything (so callers can skip preparing what it would keep).
    pub fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// The newest `want` messages of the branch ending at `leaf` of `session` (newest
    /// first) when the entry is at the counter `count` and that leaf and holds that many
    /// (or the whole branch).
    pub fn get(
        &self,
        session: Uuid,
        count: i32,
        leaf: Option<Uuid>,
        want: usize,
    ) -> Option<Vec<messages::Model>> {
        let mut inner = self.lock()?;
        let now = Instant::now();
        if let Some(entry) = inner.entries.get_mut(&session)
            && entry.count == count
            && entry.newest_id() == leaf
            && now.duration_since(entry.used) < IDLE
            && (entry.newest_first.len() >= want || entry.is_whole())
        {
            entry.used = now;
            return Some(entry.newest_first.iter().take(want).cloned().collect());
        }
        inner.remove(session);
        None
    }

    /// Keeps what a read of the active branch of `session` at counter `count` returned
    /// (newest first, from the active leaf; it asked for `asked`), if it is the branch's
    /// newest messages, each the parent of the one before, as many as asked or all.
    pub fn keep(&self, session: Uuid, count: i32, newest_first: &[messages::Model], asked: usize) {
        let Some(mut inner) = self.lock() else {
            return;
        };
        inner.remove(session);
        let whole = newest_first.len() >= asked
            || newest_first
                .last()
                .is_none_or(|oldest| oldest.parent_id.is_none());
        let linked = newest_first
            .windows(2)
            .all(|pair| pair[0].parent_id == Some(pair[1].id));
        if !(whole && linked) || newest_first.iter().any(|m| !m.is_complete) {
            return;
        }
        let depth = inner.depth;
        let mut entry = Entry {
            count,
            start: None,
            newest_first: VecDeque::new(),
            bytes: 0,
            used: Instant::now(),
        };
        for message in newest_first.iter().take(depth).rev() {
            entry.push(message.clone(), depth);
        }
        inner.insert(session, entry);
    }

    /// A turn of `session` that started at counter `from` ended with the counter at
    /// `to` (`None`: the finish counted nothing, or is not known), having written `own`
    /// (in order, with their seqs). Extends the entry when nothing else was appended
    /// meanwhile and `own` continues the entry's branch (not an edit's or a
    /// regenerate's new branch); drops it otherwise.
    pub fn extend(&self, session: Uuid, from: i32, to: Option<i32>, own: Vec<messages::Model>) {
        let Some(mut inner) = self.lock() else {
            return;
        };
        let depth = inner.depth;
        let fits = to == Some(from + own.len() as i32)
            && own.iter().enumerate().all(|(i, m)| {
                m.is_complete && m.session_id == session && m.seq == from + 1 + i as i32
            });
        let Some(mut entry) = inner.take(session) else {
            return;
        };
        let mut parent = entry.newest_id();
        let continues = own.iter().all(|m| {
            let follows = m.parent_id == parent;
            parent = Some(m.id);
            follows
        });
        if !fits || !continues || entry.count != from {
            return;
        }
        for message in own {
            entry.push(message, depth);
        }
        entry.count = to.unwrap_or(from);
        entry.used = Instant::now();
        inner.insert(session, entry);
    }

    /// The window start of `session`, when its entry is at the counter `count` and knows
    /// it (`Some(None)`: the window never stepped).
    pub fn start(&self, session: Uuid, count: i32) -> Option<Option<WindowStart>> {
        let inner = self.lock()?;
        let entry = inner.entries.peek(&session)?;
        if entry.count != count {
            return None;
        }
        entry.start.clone()
    }

    /// Keeps the window start of `session` (read, or moved by this turn) with its entry,
    /// when that is at the counter `count`.
    pub fn set_start(&self, session: Uuid, count: i32, start: Option<WindowStart>) {
        let Some(mut inner) = self.lock() else {
            return;
        };
        let Some(mut entry) = inner.take(session) else {
            return;
        };
        if entry.count != count {
            return;
        }
        let size = |start: &Option<Option<WindowStart>>| {
            start
                .as_ref()
                .and_then(|s| s.as_ref())
                .map_or(0, |s| s.summary.as_ref().map_or(0, String::len))
        };
        entry.bytes -= size(&entry.start);
        entry.start = Some(start);
        entry.bytes += size(&entry.start);
        inner.insert(session, entry);
    }

    /// Drops what is kept of `session`.
    pub fn forget(&self, session: Uuid) {
        if let Some(mut inner) = self.lock() {
            inner.remove(session);
        }
    }

    /// How many sessions and bytes are kept.
    pub fn usage(&self) -> (usize, usize) {
        self.lock()
            .map(|inner| (inner.entries.len(), inner.bytes))
            .unwrap_or_default()
    }

    fn lock(&self) -> Option<std::sync::MutexGuard<'_, Inner>> {
        let inner = self.inner.as_ref()?;
        Some(inner.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Inner {
    fn take(&mut self, session: Uuid) -> Option<Entry> {
        let entry = self.entries.remove(&session)?;
        self.bytes -= entry.bytes;
        Some(entry)
    }

    fn remove(&mut self, session: Uuid) {
        self.take(session);
    }

    /// Inserts `entry` as the most recently used, then evicts the least recently used
    /// until the budget holds (an entry larger than the whole budget is not kept).
    fn insert(&mut self, session: Uuid, entry: Entry) {
        if entry.bytes > self.budget {
            return;
        }
        self.bytes += entry.bytes;
        self.entries.insert(session, entry);
        while self.bytes > self.budget {
            let Some((_, evicted)) = self.entries.remove_lru() else {
                break;
            };
            self.bytes -= evicted.bytes;
        }
    }
}

impl Entry {
    /// Whether it holds its whole branch (down from a first message).
    fn is_whole(&self) -> bool {
        self.newest_first
            .back()
            .is_none_or(|oldest| oldest.parent_id.is_none())
    }

    /// The branch's leaf (none for an empty session).
    fn newest_id(&self) -> Option<Uuid> {
        self.newest_first.front().map(|m| m.id)
    }

    /// Adds the newest message, keeping at most `depth`.
    fn push(&mut self, message: messages::Model, depth: usize) {
        self.bytes += cost(&message);
        self.newest_first.push_front(message);
        while self.newest_first.len() > depth {
            if let Some(oldest) = self.newest_first.pop_back() {
                self.bytes -= cost(&oldest);
            }
        }
    }
}

fn cost(message: &messages::Model) -> usize {
    PER_MESSAGE + message.content.len()
}

#[cfg(test)]
mod tests;
