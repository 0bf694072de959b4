//! What every SSE feed (a prompt's, a user's) interleaves with its events: a `ping` every
//! `streaming.ping_every`, a `reconnect` when the server closes its feeds, and its end
//! when the events end or fail or the reader's credential is revoked. One small struct
//! rather than a chain of stream combinators: every open feed holds one, and with
//! thousands open the combinators' buffered items added up.

use std::{fmt::Display, pin::Pin};

use futures::{Stream, StreamExt, stream::BoxStream};

use crate::{revocations::Credential, state::AppState};

/// How long a client told to `reconnect` waits first.
pub const RECONNECT_AFTER_MS: u64 = 1000;

/// Resolves when the server closes its feeds, or when a credential is revoked.
type Closing = Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// How a feed says `ping` and `reconnect` (neither is stored), and what logs call it.
pub trait Beats: Send + Unpin + 'static {
    type Item;
    fn ping(&self, ts: i64) -> Self::Item;
    fn reconnect(&self, retry_ms: u64) -> Self::Item;
    /// The feed, for logs (`prompt <id>`, `user feed`).
    fn name(&self) -> String;
}

/// A feed's events with its keep-alives (see the module).
pub struct Pinged<B: Beats, E> {
    /// `None` once the events ended or failed, the server closed, or the credential
    /// was revoked: the feed ends.
    events: Option<BoxStream<'static, Result<B::Item, E>>>,
    pings: tokio::time::Interval,
    closing: Option<Closing>,
    revoked: Closing,
    beats: B,
}

/// `events` for a reader with `credential`, with the keep-alives of `state`'s settings.
pub fn pinged<B: Beats, E>(
    events: BoxStream<'static, Result<B::Item, E>>,
    beats: B,
    state: &AppState,
    credential: Credential,
) -> Pinged<B, E> {
    let streaming = &state.streaming;
    let every = streaming.ping_every;
    let mut pings = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let closing = streaming.closing.clone().map(|mut closing| {
        Box::pin(async move {
            // A server that is not closing may drop its switch: that is no close.
            if closing.wait_for(|closing| *closing).await.is_err() {
                std::future::pending::<()>().await;
            }
        }) as Closing
    });
    Pinged {
        events: Some(events),
        pings,
        closing,
        revoked: Box::pin(state.revocations.revoked(credential)),
        beats,
    }
}

impl<B: Beats, E: Display> Stream for Pinged<B, E> {
    type Item = B::Item;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<B::Item>> {
        use std::task::Poll;
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
        if self.revoked.as_mut().poll(cx).is_ready() {
            tracing::info!(feed = %self.beats.name(), "a feed's credential was revoked: closing it");
            self.events = None;
            return Poll::Ready(None);
        }
        if let Some(closing) = self.closing.as_mut()
            && closing.as_mut().poll(cx).is_ready()
        {
            self.events = None;
            return Poll::Ready(Some(self.beats.reconnect(RECONNECT_AFTER_MS)));
        }
        match self.pings.poll_tick(cx) {
            Poll::Ready(_) => {
                Poll::Ready(Some(self.beats.ping(chrono::Utc::now().timestamp_millis())))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
