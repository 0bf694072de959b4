//! The finish stage: once the end is written, readers are told how the turn ended — the
//! `prompt_state` and the terminal event, built by `parley_service::turns::record` from
//! what was recorded — after the rows that point at the answer (the after-hooks' audit,
//! the function calls); the turn's tokens count against its quotas; the event log gets
//! its retention; a session's first exchange is titled by the title model, on a task of
//! its own; the owner's feed hears `turn_finished`. The session's next waiting prompt is
//! the caller's to start.

use std::{sync::Arc, time::Duration};

use parley_entity::{prompts, query};
use parley_protocol::feed::UserEventKind;
use parley_runtime::event_log::EventLog;
use parley_runtime::user_feed::Publisher;
use parley_service::{
    quota::Quotas,
    turns::record::{self, TurnRecord},
};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::persist::{Record, Written};
use crate::{agent_loop::Sink, error::TurnError, sink::TurnSink};

/// What the finish stage tells and counts with.
#[derive(Clone, Copy)]
pub(super) struct Telling<'a> {
    pub db: &'a DatabaseConnection,
    pub events: &'a Arc<dyn EventLog>,
    /// How long a finished prompt's event log stays readable.
    pub retention: Duration,
    pub quotas: &'a Quotas,
    pub catalog: &'a Arc<crate::providers::Catalog>,
    /// The title model (`[titles] model`), if any.
    pub title_model: Option<&'a str>,
    /// The per-user feed, told `turn_finished`.
    pub feed: &'a Publisher,
}

/// Tells readers how the turn ended and does what follows a recorded end. Returns the
/// session's next waiting prompt.
#[tracing::instrument(skip_all, err)]
pub(super) async fn finish(
    telling: Telling<'_>,
    sink: &mut TurnSink,
    record: Record,
    written: Written,
) -> Result<Option<Uuid>, TurnError> {
    let Written {
        prompt,
        next,
        terminal_seq,
    } = written;
    let after = record.after;
    if let Some(outcome) = &after.after_ai {
        crate::hooks::record(
            telling.db,
            after.session_id,
            prompt.assistant_message_id,
            outcome,
        )
        .await?;
    }
    let calls = if after.attach_calls {
        match prompt.assistant_message_id {
            Some(message_id) => {
                query::tool_calls::attach(telling.db, prompt.id, message_id).await?
            }
            None => query::tool_calls::of_prompt(telling.db, prompt.id).await?,
        }
    } else {
        Vec::new()
    };
    sink.event(record::state_event(&prompt)).await?;
    let ended = TurnRecord {
        prompt: &prompt,
        answer: &record.answer,
        usage: record.usage,
        tool_calls: &calls,
    };
    let terminal = record::terminal_event(ended);
    let told_end = terminal.is_some();
    if let Some(terminal) = terminal {
        sink.event(terminal).await?;
    }
    // The turn's last events go out together; then the terminal's seq is known.
    sink.settle().await?;
    if told_end {
        let seq = sink.last_event().map_or(0, |event| event.seq);
        if Some(seq) != terminal_seq {
            // Another appender came first: the ceiling must not stay below the terminal.
            let seq = i64::try_from(seq).unwrap_or(i64::MAX);
            query::prompts::raise_seq_ceiling(telling.db, prompt.id, seq).await?;
        }
    }
    if let Some((user_id, tool_id)) = after.quota {
        let tokens = record.usage.input_tokens + record.usage.output_tokens;
        charge_tokens(telling, user_id, tool_id, tokens).await;
    }
    publish_finished(telling, &prompt, after.quota.map(|(user_id, _)| user_id)).await;
    if let (Some(untitled), Some(title)) = (after.untitled, after.first_words.clone()) {
        let titled = UserEventKind::session_titled(untitled.session_id, title);
        telling.feed.publish(untitled.user_id, titled).await;
    }
    expire(telling.events, telling.retention, prompt.id).await;
    if let (Some(untitled), Some(model)) = (after.untitled, telling.title_model) {
        crate::titles::spawn(
            telling.db.clone(),
            telling.catalog.clone(),
            telling.feed.clone(),
            model.to_owned(),
            untitled,
        );
    }
    Ok(next)
}

/// Tells the owner's feed the turn ended. A turn that answered knows its user; one that
/// ended before (a failure, an interruption) reads its session's owner: one query, off
/// the plain turn's path.
async fn publish_finished(telling: Telling<'_>, prompt: &prompts::Model, user_id: Option<Uuid>) {
    let user_id = match user_id {
        Some(user_id) => user_id,
        None => match query::sessions::get(telling.db, prompt.session_id).await {
            Ok(session) => session.user_id,
            Err(err) => {
                tracing::warn!(error = %err, "cannot tell the user feed a turn ended");
                return;
            }
        },
    };
    let finished = UserEventKind::TurnFinished {
        session_id: prompt.session_id,
        prompt_id: prompt.id,
        state: prompt.state,
        assistant_message_id: prompt.assistant_message_id,
    };
    telling.feed.publish(user_id, finished).await;
}

/// Counts a turn's tokens against its user's and group's daily quotas (when any is
/// configured: else no query). A failure is logged: the turn is recorded already.
async fn charge_tokens(telling: Telling<'_>, user_id: Uuid, tool_id: Uuid, tokens: u64) {
    if !telling.quotas.is_enabled() || tokens == 0 {
        return;
    }
    match query::quotas::scope_of_tool(telling.db, tool_id).await {
        Ok(Some(scope)) => {
            let counted = telling.quotas.counted(user_id, &scope);
            telling
                .quotas
                .charge_tokens(&counted, tokens, query::now())
                .await;
        }
        Ok(None) => {}
        Err(err) => {
            tracing::warn!(error = %err, "cannot count a turn's tokens: its tool's group is unknown")
        }
    }
}

/// Sets the retention of the prompt's finished event log.
pub(super) async fn expire(events: &Arc<dyn EventLog>, retention: Duration, prompt_id: Uuid) {
    if let Err(err) = events.expire(prompt_id, retention).await {
        tracing::warn!(error = %err, "cannot set the event log's retention");
    }
}
