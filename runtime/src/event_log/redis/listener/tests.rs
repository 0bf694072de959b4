use parley_protocol::events::{EventKind, StreamEvent};

use super::*;

#[test]
fn notifications_parse_back_into_events() {
    let id = Uuid::now_v7();
    assert_eq!(prompt_of(&keys::notify(id)), Some(id));
    assert_eq!(prompt_of(&keys::events(id)), None);
    let event = wire::parse_notification(id, br#"7:{"type":"block_stop","index":2}"#);
    assert_eq!(
        event,
        Some(vec![StreamEvent {
            seq: 7,
            prompt_id: id,
            kind: EventKind::BlockStop { index: 2 },
        }])
    );
    assert_eq!(wire::parse_notification(id, b"7"), None);
    assert_eq!(
        wire::parse_notification(id, br#"x:{"type":"cancelled"}"#),
        None
    );
}

#[test]
fn the_window_keeps_the_latest_contiguous_events() {
    let id = Uuid::now_v7();
    let event = |seq| {
        SharedEvent::new(StreamEvent {
            seq,
            prompt_id: id,
            kind: EventKind::BlockStop { index: 0 },
        })
    };
    let seqs = |events: Option<Vec<Arc<SharedEvent>>>| {
        events.map(|events| events.iter().map(|e| e.event().seq).collect::<Vec<_>>())
    };
    let shared = TopicState::new();
    let mut wakes = shared.wakes.subscribe();
    assert_eq!(
        seqs(shared.events_from(1)),
        None,
        "an empty window covers nothing"
    );
    for seq in 3..=5 {
        shared.push(event(seq));
    }
    assert!(wakes.has_changed().unwrap());
    wakes.borrow_and_update();
    assert_eq!(
        seqs(shared.events_from(2)),
        None,
        "before the window: read the stream"
    );
    assert_eq!(seqs(shared.events_from(4)), Some(vec![4, 5]));
    assert_eq!(seqs(shared.events_from(6)), Some(vec![]), "up to date");
    assert_eq!(
        seqs(shared.events_from(7)),
        Some(vec![]),
        "ahead of the notifications: wait for them"
    );
    shared.push(event(5));
    assert_eq!(
        seqs(shared.events_from(3)),
        Some(vec![3, 4, 5]),
        "a repeat is ignored"
    );
    shared.push(event(8));
    assert_eq!(
        seqs(shared.events_from(6)),
        None,
        "a gap starts a new window: 6 and 7 come from the stream"
    );
    assert_eq!(seqs(shared.events_from(8)), Some(vec![8]));
    let (one, two) = (
        shared.events_from(8).unwrap(),
        shared.events_from(8).unwrap(),
    );
    assert!(
        Arc::ptr_eq(&one[0], &two[0]),
        "every member gets the window's copy"
    );
    for seq in 9..9 + WINDOW as u64 {
        shared.push(event(seq));
    }
    assert_eq!(seqs(shared.events_from(8)), None, "the window is bounded");
    assert_eq!(shared.events_from(10).map(|e| e.len()), Some(WINDOW - 1));
    wakes.borrow_and_update();
    shared.resync();
    assert!(wakes.has_changed().unwrap(), "a resync wakes the members");
    assert_eq!(seqs(shared.events_from(9 + WINDOW as u64)), None);
}
