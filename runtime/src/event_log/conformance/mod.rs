//! The conformance suite every [`EventLog`] backend must pass (DESIGN §1).
//!
//! Each check is a plain `async fn` over a [`Backend`] so the same bodies run against the
//! in-process and the Redis log; [`conformance_suite!`] turns them into one `#[tokio::test]`
//! each for a backend constructor. Every check uses fresh random prompt ids, so the
//! checks run in parallel against one Redis, and bounds every wait, so a stuck stream
//! fails the check instead of hanging the suite. Compiled for this crate's tests and,
//! with the `conformance` feature, for other crates'.
//!
//! The checks come in three groups: `storage` (what a log stores: seqs, reads, expiry,
//! the worker's writer), `subscribers` (following a log) and `cancel` (the cancel
//! signal), re-exported here; `kit` holds what they are built from.

use std::sync::Arc;

use uuid::Uuid;

use super::EventLog;

mod cancel;
mod kit;
mod storage;
mod subscribers;

pub use self::cancel::{
    a_cancel_is_noticed_from_the_signal_or_the_row,
    a_cancel_reaches_every_listener_of_its_prompt_and_no_other,
    a_listener_hears_only_later_signals, dropped_cancel_listeners_are_released,
};
pub use self::kit::{complete, delta};
pub use self::storage::{
    a_writer_appends_batches_readers_take_apart,
    a_writer_appends_gap_free_alongside_other_appenders, an_empty_log_starts_above_its_floor,
    concurrent_appenders_get_gap_free_seqs, expired_log_is_gone, ping_is_refused,
    read_returns_the_events_after_an_offset, seq_is_gap_free_from_one,
};
pub use self::subscribers::{
    a_resumed_log_goes_on_after_its_terminal_event, concurrent_subscribers_see_identical_sequences,
    dropped_subscriber_leaves_others_intact_and_is_released, expiry_ends_a_waiting_subscriber,
    long_backlog_is_delivered_in_order, shared_subscribers_see_what_subscribers_see,
    subscriber_after_the_end_gets_the_remainder_and_ends,
    subscriber_from_start_gets_every_event_then_ends,
    subscriber_joining_mid_way_gets_exactly_the_rest,
    subscribers_follow_a_writer_among_other_appenders,
};

/// A backend under test.
pub struct Backend {
    pub log: Arc<dyn EventLog>,
    /// How many local resources (subscriptions, pub/sub channels) the backend still holds
    /// for a prompt; must drop to 0 once its subscribers are gone.
    pub held_for: Box<dyn Fn(Uuid) -> usize + Send + Sync>,
    /// How many cancel listeners the backend holds for a prompt.
    pub cancel_listeners: Box<dyn Fn(Uuid) -> usize + Send + Sync>,
}

/// Generates one `#[tokio::test]` per check for `$backend`, an `async fn() -> Backend`
/// (for this crate's tests; other crates call the checks themselves).
#[cfg(test)]
macro_rules! conformance_suite {
    ($backend:path) => {
        $crate::event_log::conformance::conformance_suite!(@each $backend;
            seq_is_gap_free_from_one,
            read_returns_the_events_after_an_offset,
            subscriber_from_start_gets_every_event_then_ends,
            subscriber_joining_mid_way_gets_exactly_the_rest,
            concurrent_subscribers_see_identical_sequences,
            concurrent_appenders_get_gap_free_seqs,
            subscriber_after_the_end_gets_the_remainder_and_ends,
            a_resumed_log_goes_on_after_its_terminal_event,
            long_backlog_is_delivered_in_order,
            expired_log_is_gone,
            expiry_ends_a_waiting_subscriber,
            ping_is_refused,
            dropped_subscriber_leaves_others_intact_and_is_released,
            a_writer_appends_gap_free_alongside_other_appenders,
            a_writer_appends_batches_readers_take_apart,
            an_empty_log_starts_above_its_floor,
            subscribers_follow_a_writer_among_other_appenders,
            shared_subscribers_see_what_subscribers_see,
            a_cancel_reaches_every_listener_of_its_prompt_and_no_other,
            a_listener_hears_only_later_signals,
            dropped_cancel_listeners_are_released,
            a_cancel_is_noticed_from_the_signal_or_the_row,
        );
    };
    (@each $backend:path; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $check() {
                let backend = $backend().await;
                $crate::event_log::conformance::$check(&backend).await;
            }
        )*
    };
}
#[cfg(test)]
pub(crate) use conformance_suite;
