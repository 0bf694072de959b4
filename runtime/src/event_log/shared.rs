//! An event as all the readers of one process share it ([`EventLog::subscribe_shared`]).
//!
//! With thousands of SSE readers following one prompt, what each reader does per event
//! adds up: a copy of the event (its text) and its encoding for the wire, 10,000 times
//! over at 20 events a second, on a process that also has to write to 10,000 sockets. A
//! [`SharedEvent`] is one copy of an event behind an `Arc`, handed to every reader that
//! takes it from the same place (a topic's window in the Redis log), with a slot for its
//! wire form that the first reader to need it fills: the others get the same bytes, not
//! a copy. The log never looks inside the slot; the api keeps the SSE frame of the event
//! there.
//!
//! [`EventLog::subscribe_shared`]: super::EventLog::subscribe_shared

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use parley_protocol::events::StreamEvent;

/// One event, shared by the readers of a process (see the module).
#[derive(Debug)]
pub struct SharedEvent {
    event: StreamEvent,
    wire: OnceLock<Bytes>,
}

impl SharedEvent {
    /// A shared event of its own (a reader that read it from storage for itself).
    pub fn new(event: StreamEvent) -> Arc<Self> {
        Arc::new(Self {
            event,
            wire: OnceLock::new(),
        })
    }

    pub fn event(&self) -> &StreamEvent {
        &self.event
    }

    /// The event's wire form: `encode`d by the first caller, the same bytes (not a copy)
    /// for every later one. Every caller must encode the same way — a process has one
    /// wire form per event (the api: the SSE frame).
    pub fn wire(&self, encode: impl FnOnce(&StreamEvent) -> Bytes) -> Bytes {
        self.wire.get_or_init(|| encode(&self.event)).clone()
    }

    /// The event itself, without a copy when nobody else holds it.
    pub fn into_event(this: Arc<Self>) -> StreamEvent {
        match Arc::try_unwrap(this) {
            Ok(shared) => shared.event,
            Err(this) => this.event.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use parley_protocol::events::EventKind;
    use uuid::Uuid;

    use super::*;

    #[test]
    fn the_wire_form_is_encoded_once_and_shared() {
        let shared = SharedEvent::new(StreamEvent {
            seq: 3,
            prompt_id: Uuid::nil(),
            kind: EventKind::BlockStop { index: 0 },
        });
        let mut calls = 0;
        let first = shared.wire(|event| {
            calls += 1;
            Bytes::from(format!("id: {}\n", event.seq))
        });
        let second = shared.wire(|_| {
            calls += 1;
            Bytes::from_static(b"other")
        });
        assert_eq!(calls, 1, "encoded once");
        assert_eq!(first, Bytes::from_static(b"id: 3\n"));
        assert_eq!(
            first.as_ptr(),
            second.as_ptr(),
            "the same bytes, not a copy"
        );
        let other = shared.clone();
        assert_eq!(
            SharedEvent::into_event(shared).seq,
            3,
            "copied while shared"
        );
        assert_eq!(
            SharedEvent::into_event(other).seq,
            3,
            "moved out when alone"
        );
    }
}
