//! The events of a turn that are ready but not yet appended, so that what the turn
//! produces together goes to the event log as one batch — one round trip, one Redis
//! `XADD` and `PUBLISH` — instead of one each: the first words with their `block_start`,
//! the last words with `block_stop`, `prompt_state` and the terminal event.
//!
//! Which events wait is decided by what follows them. The content of a block (its start,
//! deltas and stop, a function's result) and the end of the turn wait — except the
//! attempt's first text, which goes at once with its `block_start`: the agent loop
//! sends them as soon as the model has nothing more ready ([`Sink::due`]), and the end
//! of the turn settles the log before anything else. An event after which the turn may
//! wait a long time — for a model's first token, a function, an approval — or that
//! readers want at once (`prompt_state` while the turn runs, `status`, `tool_start`,
//! `tool_progress`, `fallback`, `retry`, `approval_requested`, `client_call_requested`)
//! goes at once, taking
//! whatever waits with it. Nothing waits longer than [`MAX_WAIT`] in a loop that keeps
//! producing.
//!
//! [`Sink::due`]: crate::agent_loop::Sink::due

use std::time::{Duration, Instant};

use parley_protocol::events::EventKind;

/// The longest an event waits for others to join its batch while the turn is busy.
pub const MAX_WAIT: Duration = Duration::from_millis(5);

/// The most events one batch carries.
const MAX_EVENTS: usize = 64;

/// Events ready to append, in order.
#[derive(Debug, Default)]
pub(super) struct Outbox {
    events: Vec<EventKind>,
    /// When the oldest of them became ready.
    since: Option<Instant>,
    /// Whether the attempt's first text went out (it goes at once: the first token
    /// never waits for a burst to end).
    first_text_sent: bool,
}

impl Outbox {
    /// Adds `kind`; returns whether the batch should go now (`kind` goes at once, or the
    /// batch is full or has waited long enough).
    pub fn push(&mut self, kind: EventKind, now: Instant) -> bool {
        let first_text = !self.first_text_sent
            && matches!(
                kind,
                EventKind::TextDelta { .. } | EventKind::ThinkingDelta { .. }
            );
        self.first_text_sent |= first_text;
        let at_once = first_text || goes_at_once(&kind);
        self.events.push(kind);
        let since = *self.since.get_or_insert(now);
        at_once || self.events.len() >= MAX_EVENTS || now.duration_since(since) >= MAX_WAIT
    }

    /// When the waiting events are due: at once (the caller sends them when it has
    /// nothing else ready).
    pub fn due(&self) -> Option<Instant> {
        self.since
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// The waiting events, to append now.
    pub fn take(&mut self) -> Option<Vec<EventKind>> {
        self.since = None;
        (!self.events.is_empty()).then(|| std::mem::take(&mut self.events))
    }
}

/// Events the turn may wait a long time after, or that readers want at once.
fn goes_at_once(kind: &EventKind) -> bool {
    match kind {
        EventKind::PromptState { state, .. } => !state.is_terminal(),
        EventKind::BlockStart { .. }
        | EventKind::TextDelta { .. }
        | EventKind::ThinkingDelta { .. }
        | EventKind::BlockStop { .. }
        | EventKind::ToolComplete { .. }
        | EventKind::Complete { .. }
        | EventKind::Error { .. }
        | EventKind::Cancelled => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use parley_protocol::events::{BlockType, PromptState};

    use super::*;

    #[test]
    fn content_and_the_end_wait_what_precedes_a_wait_goes_at_once() {
        let mut outbox = Outbox::default();
        let t0 = Instant::now();
        assert_eq!(outbox.due(), None);
        let start = EventKind::BlockStart {
            index: 0,
            block_type: BlockType::Text,
        };
        assert!(!outbox.push(start, t0));
        assert_eq!(outbox.due(), Some(t0));
        let delta = EventKind::TextDelta {
            index: 0,
            text: "hi".into(),
        };
        assert!(
            outbox.push(delta.clone(), t0),
            "the first text goes at once"
        );
        assert!(!outbox.push(delta.clone(), t0), "later text waits");
        assert!(!outbox.push(EventKind::BlockStop { index: 0 }, t0));
        assert!(!outbox.push(EventKind::state(PromptState::Completed, 1), t0));
        assert_eq!(outbox.len(), 5);
        assert_eq!(outbox.take().map(|b| b.len()), Some(5));
        assert_eq!((outbox.take(), outbox.due()), (None, None));

        let status = EventKind::Status {
            message: "Thinking…".into(),
        };
        assert!(outbox.push(status, t0), "status goes at once");
        outbox.take();
        assert!(outbox.push(EventKind::state(PromptState::InProgress, 1), t0));
        outbox.take();
        // A busy loop's events go once the first has waited long enough.
        assert!(!outbox.push(delta.clone(), t0));
        assert!(outbox.push(delta, t0 + MAX_WAIT));
    }
}
