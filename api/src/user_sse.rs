//! The user feed (DESIGN §13) as Server-Sent Events: `GET /v1/feed`.
//!
//! A feed follows the user's [`UserFeed`](parley_runtime::user_feed::UserFeed) after a
//! seq (`Last-Event-ID`, `?after=`, or from the oldest event it holds) and never ends on
//! its own; a `ping` (not stored, no `id:`) goes out every few seconds. A reader whose
//! seq is older than what the feed still holds gets a `reset` (no `id:`) and then the
//! oldest events held: it refetches the session list. When the server shuts down the
//! feed ends with `reconnect`; when the reader's credential is revoked, it ends.

use std::{fmt::Write as _, pin::Pin};

use futures::{Stream, StreamExt, stream::BoxStream};
use parley_protocol::feed::{UserEvent, UserEventKind};
use parley_runtime::user_feed::FeedError;
use poem::{Body, IntoResponse, Response, web::sse::Event};
use poem_openapi::{
    payload::Payload,
    registry::{MetaSchemaRef, Registry},
    types::Type,
};

use crate::{
    revocations::Credential,
    routes::feed_doc::{UserEventDoc, UserSseEvent},
    state::AppState,
};

type Events = Pin<Box<dyn Stream<Item = UserEvent> + Send>>;

/// An open user feed; documented as `text/event-stream` of `UserSseEvent`s, each
/// carrying one `UserEvent` as its `data`.
pub struct UserFeedStream(Events);

impl Payload for UserFeedStream {
    const CONTENT_TYPE: &'static str = "text/event-stream";

    fn schema_ref() -> MetaSchemaRef {
        UserSseEvent::schema_ref()
    }

    fn register(registry: &mut Registry) {
        UserSseEvent::register(registry);
        UserEventDoc::register(registry);
    }
}

impl IntoResponse for UserFeedStream {
    fn into_response(self) -> Response {
        let chunks = self.0.map(|event| {
            let mut chunk = String::new();
            if let UserEventKind::Reconnect { retry_ms } = event.kind {
                let _ = write!(chunk, "{}", Event::retry(retry_ms));
            }
            let _ = write!(chunk, "{}", to_sse(&event));
            Ok::<_, std::io::Error>(chunk)
        });
        Response::builder()
            .content_type("text/event-stream")
            .header("X-Accel-Buffering", "no")
            .header("Cache-Control", "no-cache")
            .body(Body::from_bytes_stream(chunks))
    }
}

/// `id: seq` (stored events only), `event: type`, JSON `data` (with `seq` for stored
/// events).
fn to_sse(event: &UserEvent) -> Event {
    if !event.kind.is_stored() {
        let data = serde_json::to_string(&event.kind).unwrap_or_default();
        return Event::message(data).event_type(event.type_name());
    }
    let data = serde_json::to_string(event).unwrap_or_default();
    Event::message(data)
        .id(event.seq.to_string())
        .event_type(event.type_name())
}

/// How long a client told to `reconnect` waits first.
const RECONNECT_AFTER_MS: u64 = 1000;

/// The user's feed after `after`, for a reader with `credential`.
pub fn follow(state: &AppState, after: u64, credential: Credential) -> UserFeedStream {
    let events = state.turns.feed.feed().subscribe(credential.user_id, after);
    let every = state.streaming.ping_every;
    let mut pings = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let closing = state.streaming.closing.clone().map(|mut closing| {
        Box::pin(async move {
            if closing.wait_for(|closing| *closing).await.is_err() {
                std::future::pending::<()>().await;
            }
        }) as Closing
    });
    UserFeedStream(Box::pin(Pinged {
        events: Some(events),
        pings,
        closing,
        revoked: Box::pin(state.revocations.revoked(credential)),
    }))
}

type Closing = Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// The feed's events with a `ping` whenever `pings` ticks (as `crate::sse` does for a
/// prompt's feed).
struct Pinged {
    /// `None` once the events failed, the server closed or the credential was revoked.
    events: Option<BoxStream<'static, Result<UserEvent, FeedError>>>,
    pings: tokio::time::Interval,
    closing: Option<Closing>,
    revoked: Closing,
}

impl Stream for Pinged {
    type Item = UserEvent;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<UserEvent>> {
        use std::task::Poll;
        let Some(events) = self.events.as_mut() else {
            return Poll::Ready(None);
        };
        match events.poll_next_unpin(cx) {
            Poll::Ready(Some(Ok(event))) => return Poll::Ready(Some(event)),
            Poll::Ready(Some(Err(err))) => {
                tracing::warn!(error = %err, "user feed interrupted");
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
            tracing::info!("a user feed's credential was revoked: closing it");
            self.events = None;
            return Poll::Ready(None);
        }
        if let Some(closing) = self.closing.as_mut()
            && closing.as_mut().poll(cx).is_ready()
        {
            self.events = None;
            return Poll::Ready(Some(unstored(UserEventKind::Reconnect {
                retry_ms: RECONNECT_AFTER_MS,
            })));
        }
        match self.pings.poll_tick(cx) {
            Poll::Ready(_) => Poll::Ready(Some(unstored(UserEventKind::Ping {
                ts: chrono::Utc::now().timestamp_millis(),
            }))),
            Poll::Pending => Poll::Pending,
        }
    }
}

fn unstored(kind: UserEventKind) -> UserEvent {
    UserEvent { seq: 0, kind }
}
