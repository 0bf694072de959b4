//! How events sit in a prompt's stream and travel on its channel.
//!
//! An *entry* holds one event — field `k`, its kind as JSON — or a *batch* of consecutive
//! events appended together — field `b`, a JSON array of kinds — and its id is
//! `<seq of its last event>-0`. So the stream's last id is still the log's last seq, an
//! `XADD` of the next entry is refused exactly when another appender moved the tail, and
//! a read from seq `s` is `XRANGE <s>-0 +`: the first entry it returns may start before
//! `s`, and its earlier events are dropped. A batch costs one `XADD` and one `PUBLISH`
//! however many events it carries — the worker appends what a turn produced together
//! (the last words, `block_stop`, `prompt_state` and `complete`) as one.
//!
//! A notification is `<seq of the first event>:<the entry's JSON>`; the JSON is an
//! object for one event and an array for a batch.

use std::collections::HashMap;

use parley_protocol::events::{EventKind, StreamEvent};
use uuid::Uuid;

use crate::event_log::{EventLogError, Result, refuse_ping};

/// The field of an entry with one event.
pub(super) const ONE: &str = "k";
/// The field of an entry with a batch.
pub(super) const BATCH: &str = "b";

/// What one append stores: the field and its JSON, and how many events it holds.
pub(super) struct Payload {
    pub field: &'static str,
    pub json: String,
    pub count: u64,
}

impl Payload {
    /// The entry for `kinds` (at least one; none of them a keep-alive).
    pub fn of(kinds: &[EventKind]) -> Result<Self> {
        for kind in kinds {
            refuse_ping(kind)?;
        }
        let (field, json) = match kinds {
            [] => return Err(EventLogError::Internal("appending no events".into())),
            [one] => (ONE, serde_json::to_string(one)),
            many => (BATCH, serde_json::to_string(many)),
        };
        let json = json
            .map_err(|error| EventLogError::Internal(format!("serializing an event: {error}")))?;
        Ok(Self {
            field,
            json,
            count: kinds.len() as u64,
        })
    }

    /// The notification of this entry stored with its first event at `first`.
    pub fn notification(&self, first: u64) -> String {
        format!("{first}:{}", self.json)
    }
}

/// The events of one entry (`id`, `fields`) of the prompt's stream, in order.
pub(super) fn decode_entry(
    prompt_id: Uuid,
    id: &str,
    fields: &HashMap<String, String>,
) -> Result<Vec<StreamEvent>> {
    let corrupt = |what: &str| EventLogError::Internal(format!("event log entry {id}: {what}"));
    let last: u64 = id
        .split_once('-')
        .and_then(|(seq, _)| seq.parse().ok())
        .ok_or_else(|| corrupt("the id is not <seq>-0"))?;
    let kinds: Vec<EventKind> = match (fields.get(ONE), fields.get(BATCH)) {
        (Some(one), _) => vec![serde_json::from_str(one).map_err(|e| corrupt(&e.to_string()))?],
        (None, Some(batch)) => {
            serde_json::from_str(batch).map_err(|error| corrupt(&error.to_string()))?
        }
        (None, None) => return Err(corrupt("neither a `k` nor a `b` field")),
    };
    // Seqs start at 1: a batch holds at most `last` events.
    let first = (last + 1)
        .checked_sub(kinds.len() as u64)
        .filter(|first| *first >= 1 && !kinds.is_empty())
        .ok_or_else(|| corrupt("its batch does not fit below its id"))?;
    Ok(numbered(prompt_id, first, kinds))
}

/// The events of a `<first seq>:<JSON>` notification; `None` when it is not one.
pub(super) fn parse_notification(prompt_id: Uuid, payload: &[u8]) -> Option<Vec<StreamEvent>> {
    let text = std::str::from_utf8(payload).ok()?;
    let (first, json) = text.split_once(':')?;
    let first: u64 = first.parse().ok()?;
    let kinds: Vec<EventKind> = if json.starts_with('[') {
        serde_json::from_str(json).ok()?
    } else {
        vec![serde_json::from_str(json).ok()?]
    };
    (!kinds.is_empty()).then(|| numbered(prompt_id, first, kinds))
}

fn numbered(prompt_id: Uuid, first: u64, kinds: Vec<EventKind>) -> Vec<StreamEvent> {
    kinds
        .into_iter()
        .zip(first..)
        .map(|(kind, seq)| StreamEvent {
            seq,
            prompt_id,
            kind,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use parley_protocol::events::BlockType;

    use super::*;

    fn kinds() -> Vec<EventKind> {
        vec![
            EventKind::TextDelta {
                index: 0,
                text: "end".into(),
            },
            EventKind::BlockStop { index: 0 },
            EventKind::BlockStart {
                index: 1,
                block_type: BlockType::Text,
            },
        ]
    }

    #[test]
    fn a_batch_is_one_entry_numbered_up_to_its_id() {
        let prompt_id = Uuid::now_v7();
        let payload = Payload::of(&kinds()).unwrap();
        assert_eq!((payload.field, payload.count), (BATCH, 3));
        let fields = HashMap::from([(payload.field.to_owned(), payload.json.clone())]);
        let events = decode_entry(prompt_id, "7-0", &fields).unwrap();
        let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [5, 6, 7]);
        assert_eq!(
            events.into_iter().map(|e| e.kind).collect::<Vec<_>>(),
            kinds()
        );
        let heard = parse_notification(prompt_id, payload.notification(5).as_bytes()).unwrap();
        assert_eq!(heard.iter().map(|e| e.seq).collect::<Vec<_>>(), [5, 6, 7]);
        // A batch longer than its id allows is corrupt, not numbered from zero.
        assert!(decode_entry(prompt_id, "2-0", &fields).is_err());
    }

    #[test]
    fn one_event_keeps_the_single_event_form() {
        let prompt_id = Uuid::now_v7();
        let one = &kinds()[..1];
        let payload = Payload::of(one).unwrap();
        assert_eq!(payload.field, ONE);
        assert!(payload.json.starts_with('{'), "{}", payload.json);
        let fields = HashMap::from([(ONE.to_owned(), payload.json.clone())]);
        let events = decode_entry(prompt_id, "3-0", &fields).unwrap();
        assert_eq!((events.len(), events[0].seq), (1, 3));
        let heard = parse_notification(prompt_id, payload.notification(3).as_bytes()).unwrap();
        assert_eq!((heard.len(), heard[0].seq), (1, 3));
        assert!(parse_notification(prompt_id, b"x:{}").is_none());
        assert!(Payload::of(&[]).is_err());
        assert!(Payload::of(&[EventKind::Ping { ts: 0 }]).is_err());
    }
}
