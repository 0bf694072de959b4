//! Hold-back (a tool whose `chat:after_ai` modules must see the answer before anyone
//! else): the answer's events wait here until the after-hooks stage releases them — the
//! deltas of each block merged into one event — or drops them (the answer was replaced
//! before anyone saw it).

use parley_protocol::events::EventKind;

/// The events held back, when holding.
#[derive(Default)]
pub(super) struct Held(Option<Vec<EventKind>>);

impl Held {
    pub fn start(&mut self) {
        self.0.get_or_insert_with(Vec::new);
    }

    pub fn is_holding(&self) -> bool {
        self.0.is_some()
    }

    /// Keeps `kind` when holding and it is part of the answer (state and status events,
    /// and approval and client-call requests, still go out at once); gives it back otherwise.
    pub fn keep(&mut self, kind: EventKind) -> Option<EventKind> {
        match self.0.as_mut() {
            Some(held)
                if !matches!(
                    kind,
                    EventKind::PromptState { .. }
                        | EventKind::Status { .. }
                        | EventKind::ApprovalRequested { .. }
                        | EventKind::ClientCallRequested { .. }
                ) =>
            {
                held.push(kind);
                None
            }
            _ => Some(kind),
        }
    }

    /// Drops the held events of blocks `from` on (an answer that did not fit its format,
    /// asked again). Whether it was holding.
    pub fn retract(&mut self, from: u32) -> bool {
        let Some(held) = self.0.as_mut() else {
            return false;
        };
        held.retain(|kind| match kind {
            EventKind::BlockStart { index, .. }
            | EventKind::TextDelta { index, .. }
            | EventKind::ThinkingDelta { index, .. }
            | EventKind::BlockStop { index } => *index < from,
            _ => true,
        });
        true
    }

    /// Stops holding; returns what was held, merged (`None`: nothing was held).
    pub fn release(&mut self) -> Option<Vec<EventKind>> {
        self.0.take().map(merge_deltas)
    }
}

/// Merges each run of consecutive deltas of one block into one delta.
fn merge_deltas(events: Vec<EventKind>) -> Vec<EventKind> {
    let mut merged: Vec<EventKind> = Vec::with_capacity(events.len());
    for event in events {
        match (merged.last_mut(), event) {
            (
                Some(EventKind::TextDelta { index, text }),
                EventKind::TextDelta {
                    index: next,
                    text: more,
                },
            ) if *index == next => text.push_str(&more),
            (
                Some(EventKind::ThinkingDelta { index, text }),
                EventKind::ThinkingDelta {
                    index: next,
                    text: more,
                },
            ) if *index == next => text.push_str(&more),
            (_, event) => merged.push(event),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_deltas_of_one_block_merge() {
        let delta = |index, text: &str| EventKind::TextDelta {
            index,
            text: text.into(),
        };
        let merged = merge_deltas(vec![
            EventKind::BlockStart {
                index: 0,
                block_type: parley_protocol::events::BlockType::Text,
            },
            delta(0, "Hel"),
            delta(0, "lo"),
            EventKind::BlockStop { index: 0 },
            delta(1, "a"),
            EventKind::ThinkingDelta {
                index: 2,
                text: "b".into(),
            },
            delta(1, "c"),
        ]);
        assert_eq!(merged.len(), 6);
        assert_eq!(merged[1], delta(0, "Hello"));
        assert_eq!(merged[3], delta(1, "a"));
    }
}
