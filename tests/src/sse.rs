//! Reading Server-Sent Events the way a browser does: a real SSE parser
//! (`eventsource-stream`) over the response body, with a time limit per event.

use std::{pin::Pin, time::Duration};

use eventsource_stream::Eventsource;
use futures::{Stream, StreamExt};
use serde_json::Value;

/// One event as received.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    /// The `id:` line (empty for `ping`).
    pub id: String,
    /// The `event:` line.
    pub event: String,
    /// The `data:` line as JSON.
    pub data: Value,
}

impl SseEvent {
    pub fn seq(&self) -> u64 {
        self.data["seq"].as_u64().unwrap_or(0)
    }

    pub fn is_terminal(&self) -> bool {
        matches!(self.event.as_str(), "complete" | "error" | "cancelled")
    }
}

type Events = Pin<Box<dyn Stream<Item = Result<eventsource_stream::Event, String>> + Send>>;

/// An open SSE response.
pub struct SseReader {
    events: Events,
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> Self {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let events = response
            .bytes_stream()
            .eventsource()
            .map(|e| e.map_err(|err| err.to_string()))
            .boxed();
        Self {
            events,
            status,
            headers,
        }
    }

    /// The next event other than `ping`, or None when the stream ended. Panics after
    /// `within` without one.
    pub async fn next(&mut self, within: Duration) -> Option<SseEvent> {
        loop {
            let item = tokio::time::timeout(within, self.events.next())
                .await
                .unwrap_or_else(|_| panic!("no SSE event within {within:?}"))?;
            let event = item.unwrap_or_else(|err| panic!("unreadable SSE stream: {err}"));
            if event.event == "ping" {
                continue;
            }
            let data = serde_json::from_str(&event.data)
                .unwrap_or_else(|err| panic!("SSE data is not JSON ({err}): {}", event.data));
            return Some(SseEvent {
                id: event.id,
                event: event.event,
                data,
            });
        }
    }

    /// Every remaining event up to and including the terminal one (or the stream's end).
    pub async fn until_terminal(&mut self, within: Duration) -> Vec<SseEvent> {
        let mut events = Vec::new();
        while let Some(event) = self.next(within).await {
            let terminal = event.is_terminal();
            events.push(event);
            if terminal {
                break;
            }
        }
        events
    }
}
