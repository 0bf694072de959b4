//! The event feed of one prompt as Server-Sent Events (DESIGN §6).
//!
//! A feed follows the prompt's event log from any `seq` (the start, `Last-Event-ID`, or
//! `?after=`) and ends after the terminal event; a `ping` (not stored, no `id:`) goes out
//! every few seconds while it is open. Closing a feed never touches the generation.
//! After the retention window the log is gone, and the events are rebuilt from the
//! database (`parley_service::turns::record::rebuild`): a `reset`, then the prompt's
//! state, blocks and terminal event, numbered on after the prompt's `seq_ceiling` (the
//! seq of its terminal event), so a reader that held part of the original feed starts
//! over and one that holds part of the rebuilt feed gets the rest.
//!
//! A reader that already holds a finished prompt's terminal event gets no feed but
//! `204 No Content`, which tells a WHATWG `EventSource` to stop reconnecting.
//!
//! When the server shuts down ([`Streaming::closing`](crate::state::Streaming)), every
//! open feed ends with a `reconnect` event (not stored): the turn goes on, and the
//! client resumes with `Last-Event-ID` wherever it reconnects. A feed whose credential
//! is revoked (its API token, or its user disabled: `crate::revocations`) ends within
//! seconds, without a terminal event; the client's reconnection is refused.
//!
//! Events that are ready together (a backlog read at once, a burst of notifications) go
//! to the connection as one chunk — one write, not one per event. A live event that comes
//! alone goes out as the SSE frame every reader of the prompt in this process shares
//! ([`SharedEvent::wire`]): with thousands of readers of one turn, one encoding and one
//! copy of it per event, not one per reader.

use std::{fmt::Write as _, pin::Pin, sync::Arc};

use bytes::Bytes;
use futures::{Stream, StreamExt, stream};
use parley_entity::{prompts, query::prompts::UNFINISHED};
use parley_protocol::error::{Error, Result};
use parley_protocol::events::{EventKind, StreamEvent};
use parley_runtime::event_log::{EventLogError, SharedEvent};
use parley_service::turns::record;
use poem::{Body, IntoResponse, Response, web::sse::Event};
use poem_openapi::{
    payload::Payload,
    registry::{MetaSchemaRef, Registry},
    types::Type,
};
use uuid::Uuid;

use crate::{
    events_doc::{SseEvent, StreamEventDoc},
    identity::Credential,
    keepalive,
    state::AppState,
};

pub type Events = Pin<Box<dyn Stream<Item = StreamEvent> + Send>>;

/// A feed's events as the log shares them among the readers of this process.
type SharedEvents = Pin<Box<dyn Stream<Item = Arc<SharedEvent>> + Send>>;

/// An open SSE feed; documented as `text/event-stream` of `SseEvent`s, each carrying
/// one `StreamEvent` as its `data`.
pub struct Feed(SharedEvents);

impl Feed {
    /// The feed's events (with its `ping`s, and a `reconnect` when the server closes),
    /// for a surface that frames them its own way (`crate::openai`).
    pub fn into_events(self) -> Events {
        Box::pin(self.0.map(SharedEvent::into_event))
    }
}

impl Payload for Feed {
    const CONTENT_TYPE: &'static str = "text/event-stream";

    fn schema_ref() -> MetaSchemaRef {
        SseEvent::schema_ref()
    }

    fn register(registry: &mut Registry) {
        SseEvent::register(registry);
        StreamEventDoc::register(registry);
    }
}

/// The most events written to a connection in one chunk.
const MAX_BATCH: usize = 64;

impl IntoResponse for Feed {
    fn into_response(self) -> Response {
        // poem's `SSE` writes each event on its own; the headers are the same.
        let chunks = Chunks(self.0.fuse()).map(Ok::<_, std::io::Error>);
        Response::builder()
            .content_type("text/event-stream")
            .header("X-Accel-Buffering", "no")
            .header("Cache-Control", "no-cache")
            .body(Body::from_bytes_stream(chunks))
    }
}

/// The events that are ready, written as one chunk of SSE text. Unlike `ready_chunks`,
/// it keeps no buffer between chunks: an idle feed holds only its source stream, which
/// matters with thousands of them open.
struct Chunks(stream::Fuse<SharedEvents>);

impl Stream for Chunks {
    type Item = Bytes;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Bytes>> {
        use std::task::Poll;
        let first = match self.0.poll_next_unpin(cx) {
            Poll::Ready(Some(event)) => event,
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => return Poll::Pending,
        };
        let second = match self.0.poll_next_unpin(cx) {
            Poll::Ready(Some(event)) => event,
            // Alone: the shared frame as it is. The end (or the wait) is seen on the
            // next poll.
            Poll::Ready(None) | Poll::Pending => return Poll::Ready(Some(frame(&first))),
        };
        // Several ready together: one chunk of this reader's own.
        let mut chunk = Vec::new();
        chunk.extend_from_slice(&frame(&first));
        chunk.extend_from_slice(&frame(&second));
        for _ in 2..MAX_BATCH {
            match self.0.poll_next_unpin(cx) {
                Poll::Ready(Some(event)) => chunk.extend_from_slice(&frame(&event)),
                Poll::Ready(None) | Poll::Pending => break,
            }
        }
        Poll::Ready(Some(Bytes::from(chunk)))
    }
}

/// The SSE frame of one event: a stored event's is encoded once and shared by every
/// reader that got the event from the same place; a `ping` or `reconnect` is made for
/// its reader alone.
fn frame(event: &SharedEvent) -> Bytes {
    match event.event().kind {
        EventKind::Ping { .. } | EventKind::Reconnect { .. } => sse_text(event.event()).into(),
        _ => event.wire(|event| sse_text(event).into()),
    }
}

/// The SSE text of one event (see [`to_sse`]); a `reconnect` carries the client's
/// reconnection delay in a field of its own first.
fn sse_text(event: &StreamEvent) -> String {
    let mut text = String::new();
    if let EventKind::Reconnect { retry_ms } = event.kind {
        let _ = write!(text, "{}", Event::retry(retry_ms));
    }
    let _ = write!(text, "{}", to_sse(event));
    text
}

/// The SSE form of one event: `id: seq`, `event: type`, JSON `data`. The events that
/// are never stored (`ping`, `reconnect`) have no `id:` and carry the bare event.
fn to_sse(event: &StreamEvent) -> Event {
    if let EventKind::Ping { .. } | EventKind::Reconnect { .. } = event.kind {
        let data = serde_json::to_string(&event.kind).unwrap_or_default();
        return Event::message(data).event_type(event.type_name());
    }
    let data = serde_json::to_string(event).unwrap_or_default();
    Event::message(data)
        .id(event.seq.to_string())
        .event_type(event.type_name())
}

/// What a reader joining a prompt's events gets.
pub enum Joined {
    Feed(Feed),
    /// The prompt is finished and the reader already has its terminal event.
    UpToDate,
}

fn unavailable(err: EventLogError) -> Error {
    tracing::warn!(error = %err, "the event log failed");
    Error::Unavailable {
        what: "the event log".into(),
    }
}

/// Joins `prompt`'s events after `after`, for a reader with `credential`.
pub async fn join(
    state: &AppState,
    prompt: &prompts::Model,
    after: u64,
    credential: Credential,
) -> Result<Joined> {
    let events = &state.turns.events;
    let finished = !UNFINISHED.contains(&prompt.state);
    if !finished {
        return Ok(Joined::Feed(live(state, prompt.id, after, credential)));
    }
    if events.exists(prompt.id).await.map_err(unavailable)? {
        // The last event the reader holds, and whatever follows it.
        let from = after.saturating_sub(1);
        let seen = events.read(prompt.id, from, 2).await.map_err(unavailable)?;
        let holds_terminal =
            after > 0 && seen.len() == 1 && seen[0].seq == after && seen[0].kind.is_terminal();
        return Ok(if holds_terminal {
            Joined::UpToDate
        } else {
            Joined::Feed(live(state, prompt.id, after, credential))
        });
    }
    // The log is gone: the rebuilt feed is numbered after the prompt's ceiling, which is
    // its terminal event's seq (or a bound above it when the worker could not tell).
    let ceiling = u64::try_from(prompt.seq_ceiling).unwrap_or(0);
    if ceiling > 0 && after == ceiling {
        return Ok(Joined::UpToDate);
    }
    // A reader below the ceiling gets all of it, `reset` first; one that holds part of a
    // rebuilt feed gets the rest.
    let rebuilt = rebuild(state, prompt).await?;
    let rest: Vec<StreamEvent> = rebuilt.into_iter().filter(|e| e.seq > after).collect();
    Ok(if rest.is_empty() {
        Joined::UpToDate
    } else {
        let events = stream::iter(rest.into_iter().map(|e| Ok(SharedEvent::new(e)))).boxed();
        Joined::Feed(with_pings(events, prompt.id, state, credential))
    })
}

/// The prompt's events from the start (the feed of `POST …/messages`; a replayed
/// prompt may have finished, even past retention).
pub async fn from_start(
    state: &AppState,
    prompt: &prompts::Model,
    credential: Credential,
) -> Result<Feed> {
    match join(state, prompt, 0, credential).await? {
        Joined::Feed(feed) => Ok(feed),
        Joined::UpToDate => Err(Error::internal(
            "opening a feed from the start",
            "a finished prompt without events",
        )),
    }
}

/// The most events a prompt's log is read at once for a snapshot.
const SNAPSHOT_LIMIT: usize = 100_000;

/// The prompt's events so far, without waiting: its log as it stands, or the feed
/// rebuilt from the database once the log is gone (none for a prompt no worker started).
pub async fn so_far(state: &AppState, prompt: &prompts::Model) -> Result<Vec<StreamEvent>> {
    let events = &state.turns.events;
    if events.exists(prompt.id).await.map_err(unavailable)? {
        return events
            .read(prompt.id, 0, SNAPSHOT_LIMIT)
            .await
            .map_err(unavailable);
    }
    if UNFINISHED.contains(&prompt.state) {
        return Ok(Vec::new());
    }
    rebuild(state, prompt).await
}

/// A finished prompt's feed rebuilt from the database: from the read replica once it
/// holds the prompt's end (the same state and ceiling as the primary's row, written in
/// the transaction that finalized the answer), else from the primary, since a replica a
/// moment behind would rebuild a shorter answer. Without a replica both are the primary.
async fn rebuild(state: &AppState, prompt: &prompts::Model) -> Result<Vec<StreamEvent>> {
    use sea_orm::EntityTrait;
    let replica = prompts::Entity::find_by_id(prompt.id)
        .one(&state.read_db)
        .await
        .ok()
        .flatten();
    let caught_up =
        replica.is_some_and(|r| r.state == prompt.state && r.seq_ceiling == prompt.seq_ceiling);
    let db = if caught_up { &state.read_db } else { &state.db };
    record::rebuild(db, prompt).await
}

/// The live feed of the prompt's log.
pub fn live(state: &AppState, prompt_id: Uuid, after: u64, credential: Credential) -> Feed {
    let events = state.turns.events.subscribe_shared(prompt_id, after);
    with_pings(events, prompt_id, state, credential)
}

/// Interleaves `ping`s every `streaming.ping_every` until `events` ends or fails, the
/// server closes its feeds, or the reader's credential is revoked ([`keepalive`]).
fn with_pings(
    events: futures::stream::BoxStream<'static, Result<Arc<SharedEvent>, EventLogError>>,
    prompt_id: Uuid,
    state: &AppState,
    credential: Credential,
) -> Feed {
    Feed(Box::pin(keepalive::pinged(
        events,
        PromptBeats(prompt_id),
        state.feed_signals(),
        credential,
    )))
}

/// A prompt's `ping` and `reconnect`.
struct PromptBeats(Uuid);

impl keepalive::Beats for PromptBeats {
    type Item = Arc<SharedEvent>;

    fn ping(&self, ts: i64) -> Arc<SharedEvent> {
        SharedEvent::new(self.event(EventKind::Ping { ts }))
    }

    fn reconnect(&self, retry_ms: u64) -> Arc<SharedEvent> {
        SharedEvent::new(self.event(EventKind::Reconnect { retry_ms }))
    }

    fn name(&self) -> String {
        format!("prompt {}", self.0)
    }
}

impl PromptBeats {
    fn event(&self, kind: EventKind) -> StreamEvent {
        StreamEvent {
            seq: 0,
            prompt_id: self.0,
            kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64) -> StreamEvent {
        StreamEvent {
            seq,
            prompt_id: Uuid::nil(),
            kind: EventKind::BlockStop { index: 0 },
        }
    }

    #[tokio::test]
    async fn events_ready_together_are_written_in_one_chunk() {
        let (tx, rx) = futures::channel::mpsc::unbounded();
        for seq in 1..=3 {
            tx.unbounded_send(SharedEvent::new(event(seq))).unwrap();
        }
        let response = Feed(rx.boxed()).into_response();
        assert_eq!(
            response.content_type(),
            Some("text/event-stream"),
            "{:?}",
            response.headers()
        );
        let mut chunks = response.into_body().into_bytes_stream();
        let first = chunks.next().await.unwrap().unwrap();
        let first = std::str::from_utf8(&first).unwrap().to_owned();
        let expected: String = (1..=3).map(|seq| to_sse(&event(seq)).to_string()).collect();
        assert_eq!(first, expected, "three ready events, one chunk");
        assert!(
            first.starts_with("id: 1\nevent: block_stop\ndata: {"),
            "{first}"
        );
        // A later event is a chunk of its own; the feed ends with its stream.
        tx.unbounded_send(SharedEvent::new(event(4))).unwrap();
        let second = chunks.next().await.unwrap().unwrap();
        assert_eq!(&second[..], to_sse(&event(4)).to_string().as_bytes());
        drop(tx);
        assert!(chunks.next().await.is_none());
    }

    #[tokio::test]
    async fn readers_of_one_event_write_the_same_frame() {
        let shared = SharedEvent::new(event(7));
        let (one, two) = (
            futures::channel::mpsc::unbounded(),
            futures::channel::mpsc::unbounded(),
        );
        one.0.unbounded_send(shared.clone()).unwrap();
        two.0.unbounded_send(shared).unwrap();
        let mut frames = Vec::new();
        for rx in [one.1, two.1] {
            let mut chunks = Feed(rx.boxed())
                .into_response()
                .into_body()
                .into_bytes_stream();
            frames.push(chunks.next().await.unwrap().unwrap());
        }
        assert_eq!(&frames[0][..], to_sse(&event(7)).to_string().as_bytes());
        assert_eq!(frames[0], frames[1]);
        assert_eq!(
            frames[0].as_ptr(),
            frames[1].as_ptr(),
            "one encoding for both readers"
        );
        // A ping is its reader's own, without an id.
        let ping = SharedEvent::new(StreamEvent {
            seq: 0,
            prompt_id: Uuid::nil(),
            kind: EventKind::Ping { ts: 5 },
        });
        assert_eq!(frame(&ping), frame(&ping));
        assert!(!std::str::from_utf8(&frame(&ping)).unwrap().contains("id:"));
    }
}
