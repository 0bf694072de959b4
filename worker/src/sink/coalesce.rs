//! Delta coalescing (DESIGN §6 allows it): consecutive `text_delta` / `thinking_delta`
//! events of one block are merged so that a fast stream costs one event-log append per
//! window, not one per token.
//!
//! The rule is a rate limit with the leading edge first, on windows every turn of the
//! process shares: time is cut into windows of `window` from one moment (the process's
//! first coalescer), and a delta that arrives in a later window than the last delta
//! sent goes out at once (so the first delta of a turn is never held, and a stream
//! slower than the window is not delayed at all); deltas that arrive in the same window
//! are merged and go out when it ends (the agent loop wakes for [`Coalescer::due`]),
//! when they reach `max_bytes`, or before any other event (a block's stop, a tool call,
//! the end). Readers see the same text in the same order, in fewer events, and never
//! wait longer than a window for it.
//!
//! The windows are shared so that the turns' batches go out together: the flush timers
//! of all the process's streaming turns fire at one moment, their appends leave in one
//! write to Redis (the connection pipelines what is queued), Redis answers them and
//! publishes them to the api processes in one pass, and each api process reads them in
//! one go — where windows of their own, each turn's starting at its last delta, woke
//! every one of those processes once per turn per window.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use parley_protocol::events::EventKind;

/// Where the process's windows are counted from.
static EPOCH: LazyLock<Instant> = LazyLock::new(Instant::now);

/// Merges consecutive deltas of one block.
#[derive(Debug)]
pub struct Coalescer {
    window: Duration,
    /// The windows are `window` long from here.
    epoch: Instant,
    max_bytes: usize,
    /// The end of the window the last delta went out in (worked out once per send, not
    /// per delta).
    sent_until: Option<Instant>,
    /// Deltas waiting, merged into one.
    pending: Option<EventKind>,
}

/// What to append now, in order (at most two events).
pub type Ready = [Option<EventKind>; 2];

impl Coalescer {
    /// `window` zero turns coalescing off.
    pub fn new(window: Duration, max_bytes: usize) -> Self {
        Self::from_epoch(*EPOCH, window, max_bytes)
    }

    /// With the windows counted from `epoch`.
    fn from_epoch(epoch: Instant, window: Duration, max_bytes: usize) -> Self {
        Self {
            window,
            epoch,
            max_bytes: max_bytes.max(1),
            sent_until: None,
            pending: None,
        }
    }

    /// Takes one event arriving at `now`; returns what goes out now.
    pub fn push(&mut self, kind: EventKind, now: Instant) -> Ready {
        if !is_delta(&kind) {
            return [self.pending.take(), Some(kind)];
        }
        if self.window.is_zero() {
            return [None, Some(kind)];
        }
        let recent = self.sent_until.is_some_and(|end| now < end);
        let merged = match self.pending.as_mut() {
            Some(pending) => merge(pending, &kind),
            None => false,
        };
        if !recent {
            // Leading edge: whatever waited goes first, then this one, at once.
            self.sent(now);
            let pending = self.pending.take();
            return if merged {
                [pending, None]
            } else {
                [pending, Some(kind)]
            };
        }
        // Within the window: wait. A delta of another block sends the waiting one on.
        let earlier = if merged {
            None
        } else {
            self.pending.replace(kind)
        };
        if self
            .pending
            .as_ref()
            .is_some_and(|p| text_len(p) >= self.max_bytes)
        {
            self.sent(now);
            return [earlier, self.pending.take()];
        }
        [earlier, None]
    }

    /// When the waiting deltas are due, if any wait.
    pub fn due(&self) -> Option<Instant> {
        self.pending.as_ref()?;
        Some(self.sent_until.unwrap_or_else(Instant::now))
    }

    /// Notes that deltas went out at `now`: until the end of `now`'s window (a moment on
    /// a window's edge starts the next), the next ones wait.
    fn sent(&mut self, now: Instant) {
        let window = self.window.as_nanos().max(1);
        let windows = now.saturating_duration_since(self.epoch).as_nanos() / window + 1;
        let end = u64::try_from(windows * window).unwrap_or(u64::MAX);
        self.sent_until = Some(self.epoch + Duration::from_nanos(end));
    }

    /// The waiting deltas, merged, now (the window passed, or the turn goes on to
    /// something else).
    pub fn take(&mut self, now: Instant) -> Option<EventKind> {
        let pending = self.pending.take()?;
        self.sent(now);
        Some(pending)
    }
}

fn is_delta(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::TextDelta { .. } | EventKind::ThinkingDelta { .. }
    )
}

fn text_len(kind: &EventKind) -> usize {
    match kind {
        EventKind::TextDelta { text, .. } | EventKind::ThinkingDelta { text, .. } => text.len(),
        _ => 0,
    }
}

/// Appends `next`'s text to `pending` when both are deltas of one kind and block.
fn merge(pending: &mut EventKind, next: &EventKind) -> bool {
    match (pending, next) {
        (
            EventKind::TextDelta { index, text },
            EventKind::TextDelta {
                index: other,
                text: more,
            },
        )
        | (
            EventKind::ThinkingDelta { index, text },
            EventKind::ThinkingDelta {
                index: other,
                text: more,
            },
        ) if *index == *other => {
            text.push_str(more);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(index: u32, text: &str) -> EventKind {
        EventKind::TextDelta {
            index,
            text: text.into(),
        }
    }

    fn sent(ready: Ready) -> Vec<EventKind> {
        ready.into_iter().flatten().collect()
    }

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_first_delta_goes_at_once_and_a_burst_is_merged_until_due() {
        let t0 = Instant::now();
        let mut c = Coalescer::from_epoch(t0, 30 * MS, 1024);
        assert_eq!(sent(c.push(text(0, "a"), t0)), [text(0, "a")]);
        assert_eq!(c.due(), None);
        for (i, piece) in ["b", "c", "d"].into_iter().enumerate() {
            assert!(sent(c.push(text(0, piece), t0 + (i as u32 + 1) * MS)).is_empty());
        }
        assert_eq!(c.due(), Some(t0 + 30 * MS));
        assert_eq!(c.take(t0 + 30 * MS), Some(text(0, "bcd")));
        assert_eq!(c.due(), None);
        // The next delta within the window of that one waits again.
        assert!(sent(c.push(text(0, "e"), t0 + 31 * MS)).is_empty());
        assert_eq!(c.due(), Some(t0 + 60 * MS));
    }

    #[test]
    fn the_windows_are_the_same_for_every_turn() {
        let t0 = Instant::now();
        let mut one = Coalescer::from_epoch(t0, 100 * MS, 1024);
        let mut other = Coalescer::from_epoch(t0, 100 * MS, 1024);
        // Two turns whose first deltas went out at different moments of a window...
        one.push(text(0, "a"), t0 + 7 * MS);
        other.push(text(0, "x"), t0 + 64 * MS);
        // ...hold what follows until that window's end, the same moment for both.
        assert!(sent(one.push(text(0, "b"), t0 + 70 * MS)).is_empty());
        assert!(sent(other.push(text(0, "y"), t0 + 80 * MS)).is_empty());
        assert_eq!(one.due(), Some(t0 + 100 * MS));
        assert_eq!(other.due(), Some(t0 + 100 * MS));
        // A flush a little late still ends the next window on the next edge.
        assert_eq!(one.take(t0 + 101 * MS), Some(text(0, "b")));
        assert!(sent(one.push(text(0, "c"), t0 + 120 * MS)).is_empty());
        assert_eq!(one.due(), Some(t0 + 200 * MS));
        // A delta in a later window than the last one sent goes at once.
        let mut late = Coalescer::from_epoch(t0, 100 * MS, 1024);
        late.push(text(0, "a"), t0 + 95 * MS);
        assert_eq!(sent(late.push(text(0, "b"), t0 + 105 * MS)), [text(0, "b")]);
    }

    #[test]
    fn a_stream_slower_than_the_window_is_not_delayed() {
        let t0 = Instant::now();
        let mut c = Coalescer::from_epoch(t0, 30 * MS, 1024);
        for i in 0..5u32 {
            let out = sent(c.push(text(0, "x"), t0 + i * 50 * MS));
            assert_eq!(out, [text(0, "x")], "delta {i} went out at once");
            assert_eq!(c.due(), None);
        }
    }

    #[test]
    fn other_events_flush_first_and_blocks_are_not_mixed() {
        let t0 = Instant::now();
        let mut c = Coalescer::from_epoch(t0, 30 * MS, 1024);
        c.push(text(0, "a"), t0);
        assert!(sent(c.push(text(0, "b"), t0 + MS)).is_empty());
        // A delta of another block sends the waiting one on and waits in its place.
        assert_eq!(sent(c.push(text(1, "c"), t0 + 2 * MS)), [text(0, "b")]);
        let stop = EventKind::BlockStop { index: 1 };
        assert_eq!(
            sent(c.push(stop.clone(), t0 + 3 * MS)),
            [text(1, "c"), stop]
        );
        assert_eq!(c.due(), None);
    }

    #[test]
    fn the_size_cap_sends_early_and_a_zero_window_is_off() {
        let t0 = Instant::now();
        let mut c = Coalescer::from_epoch(t0, 30 * MS, 4);
        c.push(text(0, "a"), t0);
        assert!(sent(c.push(text(0, "bb"), t0 + MS)).is_empty());
        assert_eq!(sent(c.push(text(0, "cc"), t0 + 2 * MS)), [text(0, "bbcc")]);
        let mut off = Coalescer::new(Duration::ZERO, 4);
        assert_eq!(sent(off.push(text(0, "a"), t0)), [text(0, "a")]);
        assert_eq!(sent(off.push(text(0, "b"), t0)), [text(0, "b")]);
    }
}
