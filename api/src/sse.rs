//! The event feed of one prompt as Server-Sent Events (DESIGN §6).
//!
//! A feed follows the prompt's event log from any `seq` (the start, `Last-Event-ID`, or
//! `?after=`) and ends after the terminal event; a `ping` (not stored, no `id:`) goes out
//! every few seconds while it is open. Closing a feed never touches the generation.
//! After the retention window the log is gone, and the same kinds of events are rebuilt
//! from the database: the prompt's final state, each block whole, and the terminal event.

use std::{pin::Pin, time::Duration};

use futures::{Stream, StreamExt, stream};
use parley_entity::{
    enums::{BlockType as DbBlockType, PromptState as DbPromptState},
    error::{Error, Result},
    prompts,
    query::{self, prompts::UNFINISHED},
};
use parley_protocol::events::{ChatResponsePayload, ErrorCode, EventKind, StreamEvent, Usage};
use poem::web::sse::Event;
use uuid::Uuid;

use crate::{routes::events_doc::WireEvent, state::AppState};

pub type Feed = Pin<Box<dyn Stream<Item = WireEvent> + Send>>;

/// The SSE form of one event: `id: seq`, `event: type`, JSON `data`.
pub fn to_sse(event: WireEvent) -> Event {
    let event = event.0;
    if let EventKind::Ping { .. } = event.kind {
        let data = serde_json::to_string(&event.kind).unwrap_or_default();
        return Event::message(data).event_type("ping");
    }
    let data = serde_json::to_string(&event).unwrap_or_default();
    Event::message(data)
        .id(event.seq.to_string())
        .event_type(event.type_name())
}

/// The feed of `prompt` from after `after`, with keep-alives.
pub async fn feed(state: &AppState, prompt: &prompts::Model, after: u64) -> Result<Feed> {
    let finished = !UNFINISHED.contains(&prompt.state);
    let live = !finished
        || state
            .events
            .exists(prompt.id)
            .await
            .map_err(|err| Error::Unavailable {
                what: format!("event log ({err})"),
            })?;
    let events: Pin<Box<dyn Stream<Item = StreamEvent> + Send>> = if live {
        state
            .events
            .subscribe(prompt.id, after)
            .take_while(|item| {
                if let Err(err) = item {
                    tracing::warn!(error = %err, "event feed interrupted");
                }
                futures::future::ready(item.is_ok())
            })
            .filter_map(|item| futures::future::ready(item.ok()))
            .boxed()
    } else {
        let rebuilt = rebuild(state, prompt).await?;
        stream::iter(rebuilt.into_iter().filter(move |e| e.seq > after)).boxed()
    };
    Ok(with_pings(events, prompt.id, state.streaming.ping_every))
}

/// Interleaves `ping`s every `every` until `events` ends.
fn with_pings(
    events: Pin<Box<dyn Stream<Item = StreamEvent> + Send>>,
    prompt_id: Uuid,
    every: Duration,
) -> Feed {
    let start = tokio::time::Instant::now() + every;
    let pings = stream::unfold(
        tokio::time::interval_at(start, every),
        |mut interval| async move {
            interval.tick().await;
            Some((None, interval))
        },
    );
    let events = events
        .map(Some)
        .chain(stream::once(async { Option::<StreamEvent>::None }));
    // `select` alternates fairly; a `None` from the event side (its end) ends the feed.
    let merged = stream::select(
        events.map(|e| e.map_or(Tick::End, |e| Tick::Event(Box::new(e)))),
        pings.map(|_: Option<()>| Tick::Ping),
    );
    merged
        .take_while(|tick| futures::future::ready(!matches!(tick, Tick::End)))
        .map(move |tick| match tick {
            Tick::Event(event) => WireEvent(*event),
            _ => WireEvent(StreamEvent {
                seq: 0,
                prompt_id,
                kind: EventKind::Ping {
                    ts: chrono::Utc::now().timestamp_millis(),
                },
            }),
        })
        .boxed()
}

enum Tick {
    Event(Box<StreamEvent>),
    Ping,
    End,
}

/// Rebuilds a finished prompt's events from the database.
pub async fn rebuild(state: &AppState, prompt: &prompts::Model) -> Result<Vec<StreamEvent>> {
    let blocks = query::conversation::blocks_of(&state.db, prompt.id).await?;
    let usage = query::conversation::usage_of(&state.db, prompt.id).await?;
    let mut kinds = vec![EventKind::PromptState {
        state: prompt.state.into(),
        attempt: prompt.attempt.max(0) as u32,
    }];
    for block in &blocks {
        let index = block.index.max(0) as u32;
        kinds.push(EventKind::BlockStart {
            index,
            block_type: block.r#type.into(),
        });
        kinds.push(match block.r#type {
            DbBlockType::Thinking => EventKind::ThinkingDelta {
                index,
                text: block.content.clone(),
            },
            _ => EventKind::TextDelta {
                index,
                text: block.content.clone(),
            },
        });
        kinds.push(EventKind::BlockStop { index });
    }
    kinds.push(match prompt.state {
        DbPromptState::Completed => {
            let message = match prompt.assistant_message_id {
                Some(id) => {
                    query::conversation::get_message(&state.db, id)
                        .await?
                        .content
                }
                None => String::new(),
            };
            EventKind::Complete {
                message_id: prompt.assistant_message_id.unwrap_or_default(),
                payload: ChatResponsePayload {
                    message,
                    ..Default::default()
                },
                usage: Usage {
                    input_tokens: usage.iter().map(|u| u.input_tokens.max(0) as u64).sum(),
                    output_tokens: usage.iter().map(|u| u.output_tokens.max(0) as u64).sum(),
                },
                model: prompt.model.clone().unwrap_or_default(),
                vendor: prompt.vendor.clone().unwrap_or_default(),
                latency_ms: match (prompt.started_at, prompt.completed_at) {
                    (Some(start), Some(end)) => (end - start).num_milliseconds().max(0) as u64,
                    _ => 0,
                },
                blocked: false,
                replaced: false,
            }
        }
        DbPromptState::Canceled => EventKind::Cancelled,
        _ => EventKind::Error {
            code: ErrorCode::from_name(prompt.error_code.as_deref().unwrap_or_default()),
            message: prompt.error.clone().unwrap_or_default(),
            retryable: matches!(prompt.state, DbPromptState::Failed | DbPromptState::Error),
        },
    });
    Ok(kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| StreamEvent {
            seq: i as u64 + 1,
            prompt_id: prompt.id,
            kind,
        })
        .collect())
}
