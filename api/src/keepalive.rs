//! What every SSE feed (a prompt's, a user's) interleaves with its events: a `ping` every
//! `streaming.ping_every`, a `reconnect` when the server closes its feeds, and its end
//! when the events end or fail or the reader's credential is revoked. One small struct
//! rather than a chain of stream combinators: every open feed holds one, and with
//! thousands open the combinators' buffered items added up.
//!
//! The three signals are one [`Pulse`] for the whole process: a task ticks every
//! `ping_every` and notes the server closing and the revocations changing, in one watch
//! channel. A feed holds one receiver and one wait on it — not a timer, a close watch and
//! a revocation watch of its own — and looks, when woken, at what changed: a tick is a
//! `ping`, a close a `reconnect`, a revocation a look at whether its credential is now
//! revoked. Every feed pings on the same tick, so a new feed's first ping comes within
//! `ping_every` rather than exactly after it.

use std::{
    fmt::Display,
    future::Future,
    pin::Pin,
    sync::{Arc, OnceLock},
    task::{Context, Poll, ready},
    time::Duration,
};

use futures::{Stream, StreamExt, stream::BoxStream};
use tokio::sync::watch;

use crate::{identity::Credential, revocations::Revocations};

/// How long a client told to `reconnect` waits first.
pub const RECONNECT_AFTER_MS: u64 = 1000;

/// How a feed says `ping` and `reconnect` (neither is stored), and what logs call it.
pub trait Beats: Send + Unpin + 'static {
    type Item;
    fn ping(&self, ts: i64) -> Self::Item;
    fn reconnect(&self, retry_ms: u64) -> Self::Item;
    /// The feed, for logs (`prompt <id>`, `user feed`).
    fn name(&self) -> String;
}

/// What the pulse says: how many pings are due since it started, whether the server is
/// closing, and how many times the revocations changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Beat {
    ticks: u64,
    closing: bool,
    revocations: u64,
}

/// The process's one pulse for all its feeds (see the module); its task starts with the
/// first feed and ends when the state and every feed are gone.
#[derive(Clone, Default)]
pub struct Pulse(Arc<OnceLock<watch::Receiver<Beat>>>);

impl std::fmt::Debug for Pulse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Pulse")
            .field(&self.0.get().is_some())
            .finish()
    }
}

impl Pulse {
    fn receiver(&self, signals: &FeedSignals<'_>) -> watch::Receiver<Beat> {
        self.0.get_or_init(|| start(signals)).clone()
    }
}

/// What the keep-alives of a feed follow, from the state (`AppState::feed_signals`):
/// the process's pulse, what its task ticks and watches when it starts — the ping
/// interval and the server's close switch — and the revocations.
#[derive(Clone, Copy)]
pub struct FeedSignals<'a> {
    pub pulse: &'a Pulse,
    /// `streaming.ping_every`.
    pub ping_every: Duration,
    /// Turns true when the server shuts down; `None`: feeds end only with their events.
    pub closing: Option<&'a watch::Receiver<bool>>,
    pub revocations: &'a Arc<Revocations>,
}

/// Spawns the pulse's task.
fn start(signals: &FeedSignals<'_>) -> watch::Receiver<Beat> {
    let every = signals.ping_every;
    let mut closing = signals.closing.cloned();
    let (pulse, receiver) = watch::channel(Beat {
        closing: closing
            .as_mut()
            .is_some_and(|closing| *closing.borrow_and_update()),
        ..Beat::default()
    });
    let mut revocations = Some(signals.revocations.changes());
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = pulse.closed() => return,
                _ = ticks.tick() => pulse.send_modify(|beat| beat.ticks += 1),
                changed = changed(&mut closing) => match changed {
                    // A server that is not closing may drop its switch: that is no close.
                    Err(_) => closing = None,
                    Ok(now) => {
                        pulse.send_if_modified(|beat| std::mem::replace(&mut beat.closing, now) != now);
                    }
                },
                changed = changed(&mut revocations) => match changed {
                    Err(_) => revocations = None,
                    Ok(_) => pulse.send_modify(|beat| beat.revocations += 1),
                },
            }
        }
    });
    receiver
}

/// The next value of a watch that may be absent (then never).
async fn changed<T: Copy>(
    watch: &mut Option<watch::Receiver<T>>,
) -> Result<T, watch::error::RecvError> {
    match watch {
        Some(watch) => {
            watch.changed().await?;
            Ok(*watch.borrow_and_update())
        }
        None => std::future::pending().await,
    }
}

/// Resolves when the pulse changes (never, once its task is gone).
type Wake = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A feed's events with its keep-alives (see the module).
pub struct Pinged<B: Beats, E> {
    /// `None` once the events ended or failed, the server closed, or the credential
    /// was revoked: the feed ends.
    events: Option<BoxStream<'static, Result<B::Item, E>>>,
    pulse: watch::Receiver<Beat>,
    /// The pulse as this feed last looked at it.
    seen: Beat,
    /// `None`: look at the pulse now (a new feed, or one just woken).
    wake: Option<Wake>,
    revocations: Arc<Revocations>,
    credential: Credential,
    beats: B,
}

/// `events` for a reader with `credential`, with the keep-alives `signals` drive.
pub fn pinged<B: Beats, E>(
    events: BoxStream<'static, Result<B::Item, E>>,
    beats: B,
    signals: FeedSignals<'_>,
    credential: Credential,
) -> Pinged<B, E> {
    let pulse = signals.pulse.receiver(&signals);
    let now = *pulse.borrow();
    Pinged {
        events: Some(events),
        pulse,
        // The first look sees a server that is already closing, and checks the
        // credential once whatever the revocations did before.
        seen: Beat {
            closing: false,
            revocations: now.revocations.wrapping_sub(1),
            ..now
        },
        wake: None,
        revocations: signals.revocations.clone(),
        credential,
        beats,
    }
}

/// What the pulse asks of one feed.
enum Signal {
    Ping,
    Close,
    Revoked,
}

impl<B: Beats, E> Pinged<B, E> {
    fn poll_signal(&mut self, cx: &mut Context<'_>) -> Poll<Signal> {
        loop {
            if let Some(wake) = self.wake.as_mut() {
                ready!(wake.as_mut().poll(cx));
            }
            // Marked seen before the next wait starts, so no change falls in between.
            let now = *self.pulse.borrow_and_update();
            let mut next = self.pulse.clone();
            self.wake = Some(Box::pin(async move {
                if next.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }));
            let seen = std::mem::replace(&mut self.seen, now);
            let credential = self.credential;
            if now.revocations != seen.revocations
                && self
                    .revocations
                    .is_revoked(credential.token_id, credential.user_id)
            {
                return Poll::Ready(Signal::Revoked);
            }
            if now.closing && !seen.closing {
                return Poll::Ready(Signal::Close);
            }
            if now.ticks != seen.ticks {
                return Poll::Ready(Signal::Ping);
            }
        }
    }
}

impl<B: Beats, E: Display> Stream for Pinged<B, E> {
    type Item = B::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<B::Item>> {
        let Some(events) = self.events.as_mut() else {
            return Poll::Ready(None);
        };
        match events.poll_next_unpin(cx) {
            Poll::Ready(Some(Ok(event))) => return Poll::Ready(Some(event)),
            Poll::Ready(Some(Err(err))) => {
                tracing::warn!(error = %err, feed = %self.beats.name(), "a feed was interrupted");
                self.events = None;
                return Poll::Ready(None);
            }
            Poll::Ready(None) => {
                self.events = None;
                return Poll::Ready(None);
            }
            Poll::Pending => {}
        }
        match self.poll_signal(cx) {
            Poll::Ready(Signal::Revoked) => {
                tracing::info!(feed = %self.beats.name(), "a feed's credential was revoked: closing it");
                self.events = None;
                Poll::Ready(None)
            }
            Poll::Ready(Signal::Close) => {
                self.events = None;
                Poll::Ready(Some(self.beats.reconnect(RECONNECT_AFTER_MS)))
            }
            Poll::Ready(Signal::Ping) => {
                Poll::Ready(Some(self.beats.ping(chrono::Utc::now().timestamp_millis())))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
