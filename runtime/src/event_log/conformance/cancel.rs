//! Checks of cancel signals: a signal reaches every listener of its prompt and no other,
//! promptly; a listener hears only what is signalled after it was created; once heard, a
//! cancel stays heard; dropping listeners releases them.
//!
//! A backend may tell a new listener that signals may have been missed before it was
//! really listening (Redis, until its subscription is confirmed); the checks first
//! [`settle`] the backend the way a worker would, by looking at a "row" then.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use uuid::Uuid;

use super::Backend;
use super::kit::{PATIENCE, eventually, within};
use crate::event_log::{CancelHeard, CancelListener, EventLog};

/// How long a signal may take to arrive when everything is up.
const PROMPTLY: Duration = Duration::from_secs(2);
/// How long a listener must stay quiet to count as having heard nothing.
const QUIET: Duration = Duration::from_millis(300);

/// Cancels a prompt as the api does — recorded first (`row`), then signalled — and
/// waits for `listener` to notice it as a worker does: from the signal, or from the row
/// when signals may have been missed. Returns whether the signal itself was heard.
async fn cancel_and_notice(
    log: &dyn EventLog,
    prompt_id: Uuid,
    row: &AtomicBool,
    listener: &mut CancelListener,
) -> bool {
    row.store(true, Ordering::SeqCst);
    log.signal_cancel(prompt_id).await.expect("signal");
    within("the cancel to be noticed", PATIENCE, async {
        loop {
            match listener.heard().await {
                CancelHeard::Cancelled => return true,
                CancelHeard::MaybeMissed if row.load(Ordering::SeqCst) => return false,
                CancelHeard::MaybeMissed => {}
            }
        }
    })
    .await
}

/// Brings the backend to where it listens for signals (one cancel, noticed either way).
async fn settle(log: &dyn EventLog) {
    let prompt_id = Uuid::now_v7();
    let mut listener = log.listen_cancel(prompt_id);
    cancel_and_notice(log, prompt_id, &AtomicBool::new(false), &mut listener).await;
}

/// Nothing heard for [`QUIET`].
async fn hears_nothing(listener: &mut CancelListener) -> bool {
    tokio::time::timeout(QUIET, listener.heard()).await.is_err()
}

pub async fn a_cancel_reaches_every_listener_of_its_prompt_and_no_other(backend: &Backend) {
    let log = &*backend.log;
    settle(log).await;
    let (prompt_id, other) = (Uuid::now_v7(), Uuid::now_v7());
    let mut first = log.listen_cancel(prompt_id);
    let mut second = log.listen_cancel(prompt_id);
    let mut bystander = log.listen_cancel(other);
    log.signal_cancel(prompt_id).await.expect("signal");
    for listener in [&mut first, &mut second] {
        let heard = within("the signal", PROMPTLY, listener.heard()).await;
        assert_eq!(heard, CancelHeard::Cancelled);
        // Heard once, heard for good.
        assert_eq!(listener.heard().await, CancelHeard::Cancelled);
    }
    assert!(
        hears_nothing(&mut bystander).await,
        "another prompt's signal"
    );
    // Signalling a prompt nobody listens to is no error.
    log.signal_cancel(Uuid::now_v7()).await.expect("signal");
}

pub async fn a_listener_hears_only_later_signals(backend: &Backend) {
    let log = &*backend.log;
    settle(log).await;
    let prompt_id = Uuid::now_v7();
    log.signal_cancel(prompt_id).await.expect("signal");
    // Give an early signal every chance to arrive before the listener exists.
    tokio::time::sleep(QUIET).await;
    let mut late = log.listen_cancel(prompt_id);
    assert!(
        hears_nothing(&mut late).await,
        "a signal sent before it listened"
    );
    log.signal_cancel(prompt_id).await.expect("signal");
    let heard = within("the later signal", PROMPTLY, late.heard()).await;
    assert_eq!(heard, CancelHeard::Cancelled);
}

pub async fn dropped_cancel_listeners_are_released(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let listeners: Vec<_> = (0..3).map(|_| log.listen_cancel(prompt_id)).collect();
    let held = |id| (backend.cancel_listeners)(id);
    assert_eq!(held(prompt_id), 3);
    drop(listeners);
    eventually("the listeners to be released", || held(prompt_id) == 0).await;
    // A signal for a prompt whose listeners left is no error either.
    log.signal_cancel(prompt_id).await.expect("signal");
}

/// What a worker relies on: whatever happens to signals, a cancel recorded on the row
/// while a listener listens is noticed — and, once the backend listens, by its signal.
pub async fn a_cancel_is_noticed_from_the_signal_or_the_row(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let row = AtomicBool::new(false);
    let mut listener = log.listen_cancel(prompt_id);
    cancel_and_notice(log, prompt_id, &row, &mut listener).await;
    settle(log).await;
    let again = Uuid::now_v7();
    let mut listener = log.listen_cancel(again);
    let signalled = cancel_and_notice(log, again, &AtomicBool::new(false), &mut listener).await;
    assert!(signalled, "a listening backend delivers the signal itself");
}
