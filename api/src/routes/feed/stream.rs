//! The user feed (DESIGN §13) as Server-Sent Events: the stream `GET /v1/feed`
//! (`super`) answers with.
//!
//! A feed follows the user's [`UserFeed`](parley_runtime::user_feed::UserFeed) after a
//! seq (`Last-Event-ID`, `?after=`, or from the oldest event it holds) and never ends on
//! its own; a `ping` (not stored, no `id:`) goes out every few seconds. A reader whose
//! seq is older than what the feed still holds gets a `reset` (no `id:`) and then the
//! oldest events held: it refetches the session list. When the server shuts down the
//! feed ends with `reconnect`; when the reader's credential is revoked, it ends.

use std::{fmt::Write as _, pin::Pin};

use futures::{Stream, StreamExt};
use parley_protocol::feed::{UserEvent, UserEventKind};
use poem::{Body, IntoResponse, Response, web::sse::Event};
use poem_openapi::{
    payload::Payload,
    registry::{MetaSchemaRef, Registry},
    types::Type,
};

use crate::{
    identity::Credential,
    keepalive,
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

/// The user's feed after `after`, for a reader with `credential`.
pub fn follow(state: &AppState, after: u64, credential: Credential) -> UserFeedStream {
    let events = state.turns.feed.feed().subscribe(credential.user_id, after);
    UserFeedStream(Box::pin(keepalive::pinged(
        events,
        UserBeats,
        state.feed_signals(),
        credential,
    )))
}

/// The user feed's `ping` and `reconnect`.
struct UserBeats;

impl keepalive::Beats for UserBeats {
    type Item = UserEvent;

    fn ping(&self, ts: i64) -> UserEvent {
        unstored(UserEventKind::Ping { ts })
    }

    fn reconnect(&self, retry_ms: u64) -> UserEvent {
        unstored(UserEventKind::Reconnect { retry_ms })
    }

    fn name(&self) -> String {
        "user feed".to_owned()
    }
}

fn unstored(kind: UserEventKind) -> UserEvent {
    UserEvent { seq: 0, kind }
}
