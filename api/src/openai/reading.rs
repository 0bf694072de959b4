//! Reading a prompt as the OpenAI-compatible surface shows it: its events from the
//! start (live, or rebuilt from the database after the log's retention), folded until
//! the terminal one, and a response's facts from the prompt's row. The operations
//! ([`super::routes`]) and the input items that refer to stored responses
//! ([`super::items`]) read prompts the same way.

use std::time::Duration;

use futures::StreamExt;
use parley_entity::prompts;

use super::response_events::{ResponseMeta, ResponsesTranslator};
use super::segment::Segment;
use crate::{error::Problem, identity::Caller, sse, state::AppState};

/// The events of `prompt` from its start, as a stream (live, or rebuilt after the log's
/// retention), closed when the reader's credential is revoked.
pub async fn events_of(
    state: &AppState,
    prompt: &prompts::Model,
    caller: &Caller,
) -> Result<sse::Events, Box<Problem>> {
    Ok(sse::from_start(state, prompt, caller.credential())
        .await?
        .into_events())
}

/// Feeds `translate` with the prompt's events until the terminal one, or until it says
/// it has finished (returns true), or the wait ends. True when it ended in time.
pub async fn fold_until_end<F: FnMut(&parley_protocol::events::StreamEvent) -> bool>(
    mut events: sse::Events,
    wait: Duration,
    mut translate: F,
) -> bool {
    let folded = async {
        while let Some(event) = events.next().await {
            if translate(&event) || event.kind.is_terminal() {
                return true;
            }
        }
        false
    };
    tokio::time::timeout(wait, folded).await.unwrap_or(false)
}

/// A response's facts, from its prompt.
pub fn meta_of(prompt: &prompts::Model, instructions: Option<String>) -> ResponseMeta {
    let surface = prompt
        .input
        .as_ref()
        .and_then(|input| input.surface.clone());
    ResponseMeta {
        hex: prompt.id.simple().to_string(),
        created_at: prompt.created_at.timestamp(),
        model: surface
            .as_ref()
            .map(|s| s.model.clone())
            .or_else(|| prompt.model.clone())
            .unwrap_or_default(),
        background: surface.as_ref().is_some_and(|s| s.background),
        previous_response_id: surface.and_then(|s| {
            s.previous_response_id
                .or_else(|| s.previous.map(|id| format!("resp_{}", id.simple())))
        }),
        instructions: instructions
            .or_else(|| prompt.input.as_ref().and_then(|i| i.instructions.clone())),
        sampling: prompt
            .input
            .as_ref()
            .map(|i| i.sampling.clone())
            .unwrap_or_default(),
        format: prompt
            .input
            .as_ref()
            .and_then(|i| i.response_format.clone()),
        client_functions: prompt
            .input
            .as_ref()
            .map(|i| i.client_functions.clone())
            .unwrap_or_default(),
        call_policy: prompt
            .input
            .as_ref()
            .map(|i| i.call_policy.clone())
            .unwrap_or_default(),
    }
}

impl ResponsesTranslator {
    /// The translator of the response `segment` of `prompt` names.
    pub fn of(prompt: &prompts::Model, segment: Segment) -> Self {
        let translator = Self::new(meta_of(prompt, None));
        match segment.from {
            Some(from) => translator.continuing(from),
            None => translator,
        }
    }
}
