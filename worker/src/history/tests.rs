use parley_entity::enums::MessageRole;

use super::*;

const SESSION: Uuid = Uuid::from_u128(7);

fn message(seq: i32, content: &str) -> messages::Model {
    messages::Model {
        id: Uuid::from_u128(seq as u128),
        session_id: SESSION,
        seq,
        role: if seq % 2 == 1 {
            MessageRole::User
        } else {
            MessageRole::Assistant
        },
        content: content.to_owned(),
        is_complete: true,
        prompt_id: None,
        created_at: chrono::Utc::now(),
        parent_id: (seq > 1).then(|| Uuid::from_u128(seq as u128 - 1)),
    }
}

fn leaf(seq: i32) -> Option<Uuid> {
    (seq > 0).then(|| Uuid::from_u128(seq as u128))
}

/// Messages `from..=to`, newest first (as a read returns them).
fn read(from: i32, to: i32) -> Vec<messages::Model> {
    (from..=to).rev().map(|seq| message(seq, "hi")).collect()
}

fn seqs(messages: &[messages::Model]) -> Vec<i32> {
    messages.iter().map(|m| m.seq).collect()
}

#[test]
fn a_kept_read_answers_at_its_counter_only() {
    let cache = HistoryCache::new(1 << 20, 10);
    assert!(
        cache.get(SESSION, 4, leaf(4), 10).is_none(),
        "nothing kept yet"
    );
    cache.keep(SESSION, 4, &read(1, 4), 10);
    assert_eq!(
        seqs(&cache.get(SESSION, 4, leaf(4), 10).unwrap()),
        [4, 3, 2, 1]
    );
    assert_eq!(seqs(&cache.get(SESSION, 4, leaf(4), 2).unwrap()), [4, 3]);
    // Another counter: something was appended elsewhere; the entry goes.
    assert!(cache.get(SESSION, 6, leaf(6), 10).is_none());
    assert!(
        cache.get(SESSION, 4, leaf(4), 10).is_none(),
        "dropped on the miss"
    );
}

#[test]
fn a_partial_read_answers_only_as_deep_as_it_went() {
    let cache = HistoryCache::new(1 << 20, 10);
    // The session has 20 messages; the read asked for 5.
    cache.keep(SESSION, 20, &read(16, 20), 5);
    assert_eq!(
        seqs(&cache.get(SESSION, 20, leaf(20), 5).unwrap()),
        [20, 19, 18, 17, 16]
    );
    assert!(
        cache.get(SESSION, 20, leaf(20), 6).is_none(),
        "deeper than kept"
    );
}

#[test]
fn reads_that_are_not_the_history_at_the_counter_are_not_kept() {
    let cache = HistoryCache::new(1 << 20, 10);
    cache.keep(SESSION, 5, &read(1, 4), 10);
    assert!(
        cache.get(SESSION, 5, leaf(5), 10).is_none(),
        "its newest is not the active leaf"
    );
    let mut gap = read(1, 5);
    gap.remove(2);
    cache.keep(SESSION, 5, &gap, 10);
    assert!(cache.get(SESSION, 5, leaf(5), 10).is_none(), "a gap");
    let mut partial = read(1, 4);
    partial[1].is_complete = false;
    cache.keep(SESSION, 4, &partial, 10);
    assert!(
        cache.get(SESSION, 4, leaf(4), 10).is_none(),
        "an incomplete message"
    );
    cache.keep(SESSION, 0, &[], 10);
    assert_eq!(
        cache.get(SESSION, 0, leaf(0), 10).unwrap(),
        [],
        "an empty session"
    );
}

#[test]
fn the_window_start_lives_and_goes_with_its_entry() {
    let cache = HistoryCache::new(1 << 20, 10);
    let start = WindowStart {
        through_message_id: Uuid::from_u128(2),
        summary: Some("earlier".into()),
    };
    cache.set_start(SESSION, 4, None);
    assert_eq!(cache.start(SESSION, 4), None, "no entry, nothing kept");
    cache.keep(SESSION, 4, &read(1, 4), 10);
    assert_eq!(cache.start(SESSION, 4), None, "not read yet");
    cache.set_start(SESSION, 4, Some(start.clone()));
    assert_eq!(cache.start(SESSION, 4), Some(Some(start.clone())));
    let (_, bytes) = cache.usage();
    assert!(bytes >= 4 * PER_MESSAGE + "earlier".len());
    // The turn's own messages extend the entry, and the start stays known.
    cache.extend(SESSION, 4, Some(6), vec![message(5, "q"), message(6, "a")]);
    assert_eq!(cache.start(SESSION, 6), Some(Some(start.clone())));
    assert_eq!(cache.start(SESSION, 4), None, "at another counter");
    // A step moves it; `Some(None)` says it is known never to have stepped.
    cache.set_start(SESSION, 6, None);
    assert_eq!(cache.start(SESSION, 6), Some(None));
    // Something appended elsewhere: the entry goes, and its start with it.
    assert!(cache.get(SESSION, 8, leaf(8), 10).is_none());
    assert_eq!(cache.start(SESSION, 6), None);
    cache.keep(SESSION, 8, &read(1, 8), 10);
    assert_eq!(cache.start(SESSION, 8), None, "a new entry reads it again");
}

#[test]
fn a_turn_extends_the_entry_only_by_exactly_its_own_messages() {
    let cache = HistoryCache::new(1 << 20, 5);
    cache.keep(SESSION, 4, &read(1, 4), 10);
    cache.extend(SESSION, 4, Some(6), vec![message(5, "q"), message(6, "a")]);
    assert_eq!(
        seqs(&cache.get(SESSION, 6, leaf(6), 5).unwrap()),
        [6, 5, 4, 3, 2],
        "extended, at most `depth` kept"
    );
    assert!(
        cache.get(SESSION, 6, leaf(6), 6).is_none(),
        "seq 1 was let go"
    );

    // Another message was counted meanwhile: the entry goes.
    cache.keep(SESSION, 4, &read(1, 4), 10);
    cache.extend(SESSION, 4, Some(7), vec![message(5, "q"), message(6, "a")]);
    assert!(cache.get(SESSION, 7, leaf(7), 1).is_none());
    assert!(cache.get(SESSION, 6, leaf(6), 1).is_none());

    // The finish's counter is unknown, or the turn started elsewhere.
    cache.keep(SESSION, 4, &read(1, 4), 10);
    cache.extend(SESSION, 4, None, vec![message(5, "q")]);
    assert!(cache.get(SESSION, 4, leaf(4), 1).is_none());
    cache.keep(SESSION, 4, &read(1, 4), 10);
    cache.extend(SESSION, 3, Some(5), vec![message(4, "q"), message(5, "a")]);
    assert!(cache.get(SESSION, 5, leaf(5), 1).is_none());

    // A cancelled answer (incomplete) ends what is kept.
    cache.keep(SESSION, 4, &read(1, 4), 10);
    let mut cut = message(6, "a");
    cut.is_complete = false;
    cache.extend(SESSION, 4, Some(6), vec![message(5, "q"), cut]);
    assert!(cache.get(SESSION, 6, leaf(6), 1).is_none());
}

#[test]
fn another_branch_misses_and_an_edit_does_not_extend() {
    let cache = HistoryCache::new(1 << 20, 10);
    cache.keep(SESSION, 4, &read(1, 4), 10);
    // The same counter with another active leaf: a switch of branches.
    assert!(cache.get(SESSION, 4, leaf(2), 10).is_none());
    // An edit of message 3: the new user message follows 2, not the leaf 4.
    cache.keep(SESSION, 4, &read(1, 4), 10);
    let mut edit = message(5, "q'");
    edit.parent_id = leaf(2);
    let mut answer = message(6, "a'");
    answer.parent_id = Some(edit.id);
    cache.extend(SESSION, 4, Some(6), vec![edit, answer]);
    assert!(cache.get(SESSION, 6, leaf(6), 1).is_none());
    // A regenerated answer follows the user message 3, not the answer 4.
    cache.keep(SESSION, 4, &read(1, 4), 10);
    let mut again = message(5, "a''");
    again.parent_id = leaf(3);
    cache.extend(SESSION, 4, Some(5), vec![again]);
    assert!(cache.get(SESSION, 5, leaf(5), 1).is_none());
}

#[test]
fn the_byte_budget_evicts_the_least_recently_used() {
    let one = cost(&message(1, "hi"));
    let cache = HistoryCache::new(one * 6, 10);
    let (a, b, c) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
    let of = |session: Uuid| -> Vec<messages::Model> {
        read(1, 2)
            .into_iter()
            .map(|m| messages::Model {
                session_id: session,
                ..m
            })
            .collect()
    };
    cache.keep(a, 2, &of(a), 10);
    cache.keep(b, 2, &of(b), 10);
    cache.keep(c, 2, &of(c), 10);
    assert_eq!(cache.usage(), (3, one * 6));
    assert!(
        cache.get(a, 2, leaf(2), 2).is_some(),
        "a is now the most recently used"
    );
    let d = Uuid::from_u128(4);
    cache.keep(d, 2, &of(d), 10);
    assert_eq!(cache.usage(), (3, one * 6));
    assert!(
        cache.get(b, 2, leaf(2), 2).is_none(),
        "b was the least recently used"
    );
    assert!(cache.get(a, 2, leaf(2), 2).is_some());
    assert!(cache.get(c, 2, leaf(2), 2).is_some());
    assert!(cache.get(d, 2, leaf(2), 2).is_some());
    // Too big for the whole budget: not kept, nothing else evicted for it.
    let big: Vec<_> = (1..=7).rev().map(|seq| message(seq, "hi")).collect();
    cache.keep(SESSION, 7, &big, 10);
    assert!(cache.get(SESSION, 7, leaf(7), 1).is_none());
    assert_eq!(cache.usage().0, 3);
}

#[test]
fn a_disabled_cache_keeps_nothing() {
    assert!(HistoryCache::new(1 << 20, 10).is_enabled());
    assert!(
        !HistoryCache::new(0, 10).is_enabled(),
        "`history_cache_mb = 0`"
    );
    let cache = HistoryCache::disabled();
    assert!(!cache.is_enabled());
    cache.keep(SESSION, 4, &read(1, 4), 10);
    assert!(cache.get(SESSION, 4, leaf(4), 10).is_none());
    assert_eq!(cache.usage(), (0, 0));
}
