//! Waiting for the end of a turn (`Accept: application/json`).

use std::time::Duration;

use futures::StreamExt;
use parley_protocol::error::{Error, Result};
use parley_protocol::events::EventKind;
use uuid::Uuid;

use super::TurnService;

/// How a wait for a turn ended.
#[derive(Debug, Clone)]
pub enum Ending {
    /// The turn's terminal event: `complete`, `error` or `cancelled`.
    Ended(Box<EventKind>),
    /// The turn still runs after the wait; follow its events.
    StillRunning,
}

impl TurnService {
    /// Follows the prompt's event log until its terminal event, for at most `timeout`.
    #[tracing::instrument(skip(self), err(level = "debug"))]
    pub async fn wait_for_end(&self, prompt_id: Uuid, timeout: Duration) -> Result<Ending> {
        let mut events = self.events.subscribe(prompt_id, 0);
        let terminal = async {
            while let Some(event) = events.next().await {
                let event = event.map_err(|err| {
                    tracing::warn!(error = %err, "the event log failed while waiting for a turn");
                    Error::Unavailable {
                        what: "the event log".into(),
                    }
                })?;
                if event.kind.is_terminal() {
                    return Ok(event.kind);
                }
            }
            Err(Error::internal(
                "waiting for a turn",
                "the event log ended without a terminal event",
            ))
        };
        match tokio::time::timeout(timeout, terminal).await {
            Ok(kind) => kind.map(|kind| Ending::Ended(Box::new(kind))),
            Err(_) => Ok(Ending::StillRunning),
        }
    }
}
