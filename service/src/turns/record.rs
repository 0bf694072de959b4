//! The one rule that turns a finished turn into its events.
//!
//! A reader learns how a turn ended from its terminal event (`complete`, `error`,
//! `cancelled`) and the `prompt_state` before it. The worker emits them live right after
//! it recorded the end; after the event log's retention the API rebuilds them from the
//! database. Both build them here, from the same recorded facts ([`TurnRecord`]: the
//! prompt row as `finish` left it, the answer's text, the summed usage rows, the
//! function calls), so a client cannot tell a live `complete` from a rebuilt one.

use parley_entity::{
    ai_usage, blocks,
    enums::BlockType,
    prompts,
    query::{self, prompts::UNFINISHED},
    tool_calls,
};
use parley_protocol::error::{ErrorCode, Result};
use parley_protocol::events::{
    ChatResponsePayload, EventKind, PromptState, StreamEvent, ToolCallState, ToolHistoryEntry,
    Usage,
};
use sea_orm::ConnectionTrait;
use serde_json::Value;

/// What a finished turn recorded.
#[derive(Debug, Clone, Copy)]
pub struct TurnRecord<'a> {
    /// The prompt row in its terminal state.
    pub prompt: &'a prompts::Model,
    /// The assistant message's text (empty when the turn produced none).
    pub answer: &'a str,
    /// Token counts summed over the turn's LLM calls ([`total_usage`]).
    pub usage: Usage,
    /// The turn's function calls, in `[[tool:N]]` order (`tool_calls::of_prompt`).
    pub tool_calls: &'a [tool_calls::Model],
}

/// `tool_history` of a turn: one entry per call, entry N for marker N.
pub fn tool_history(calls: &[tool_calls::Model]) -> Option<Vec<ToolHistoryEntry>> {
    (!calls.is_empty()).then(|| {
        calls
            .iter()
            .map(|call| ToolHistoryEntry {
                tool_name: call.tool_name.clone(),
                input: call.tool_args.clone(),
                output: call.tool_result.clone().unwrap_or(Value::Null),
                status: call.state,
                duration_ms: call.duration_ms.unwrap_or(0).max(0) as u64,
            })
            .collect()
    })
}

/// The attempt number as readers see it.
pub fn attempt(prompt: &prompts::Model) -> u32 {
    u32::try_from(prompt.attempt).unwrap_or(0)
}

/// The `prompt_state` event of the prompt as it is.
pub fn state_event(prompt: &prompts::Model) -> EventKind {
    EventKind::state(prompt.state, attempt(prompt))
}

/// Token counts of a turn: the sum over its LLM calls' (one `ai_usage` row each).
pub fn total_usage(calls: impl IntoIterator<Item = Usage>) -> Usage {
    calls
        .into_iter()
        .fold(Usage::default(), |total, call| total + call)
}

fn usage_of_rows(rows: &[ai_usage::Model]) -> Usage {
    total_usage(rows.iter().map(ai_usage::Model::tokens))
}

/// The terminal event of a finished turn; `None` while the prompt is unfinished.
pub fn terminal_event(record: TurnRecord<'_>) -> Option<EventKind> {
    let prompt = record.prompt;
    let moderation = prompt
        .response
        .as_ref()
        .and_then(|extras| extras.moderation.as_ref());
    let fallback = prompt
        .response
        .as_ref()
        .and_then(|extras| extras.fallback.as_ref());
    Some(match prompt.state {
        PromptState::Created | PromptState::InProgress | PromptState::WaitingForTools => {
            return None;
        }
        PromptState::Completed => EventKind::Complete {
            message_id: prompt.assistant_message_id.unwrap_or_default(),
            parent_id: prompt.user_message_id,
            payload: {
                let extras = prompt.response.clone().unwrap_or_default();
                ChatResponsePayload {
                    message: record.answer.to_owned(),
                    custom_payload: extras.custom_payload,
                    suggested_values: extras.suggested_values,
                    suggested_actions: extras.suggested_actions,
                    tool_history: tool_history(record.tool_calls),
                }
            },
            usage: record.usage,
            model: prompt.model.clone().unwrap_or_default(),
            vendor: prompt.vendor.clone().unwrap_or_default(),
            latency_ms: match (prompt.started_at, prompt.completed_at) {
                (Some(start), Some(end)) => (end - start).num_milliseconds().max(0) as u64,
                _ => 0,
            },
            blocked: moderation.is_some_and(|m| m.blocked),
            block_category: moderation.and_then(|m| m.category.clone()),
            replaced: moderation.is_some_and(|m| m.replaced),
            fallback_from: fallback.map(|f| f.from.clone()),
            fallback_reason: fallback.map(|f| f.reason),
            stop_reason: prompt.response.as_ref().and_then(|e| e.stop_reason),
        },
        PromptState::Canceled => EventKind::Cancelled,
        PromptState::Failed | PromptState::Error => {
            let code = prompt.error_code.unwrap_or(ErrorCode::InternalError);
            EventKind::Error {
                code,
                message: prompt
                    .error
                    .clone()
                    .unwrap_or_else(|| code.message().to_owned()),
                retryable: code.may_succeed_later(),
            }
        }
    })
}

/// The recorded facts of a finished prompt, read back from the database: the answer,
/// the usage, the function calls.
pub async fn load<C: ConnectionTrait>(
    db: &C,
    prompt: &prompts::Model,
) -> Result<(String, Usage, Vec<tool_calls::Model>)> {
    let answer = match prompt.assistant_message_id {
        Some(id) => query::conversation::get_message(db, id).await?.content,
        None => String::new(),
    };
    let usage = usage_of_rows(&query::conversation::usage_of(db, prompt.id).await?);
    let calls = query::tool_calls::of_prompt(db, prompt.id).await?;
    Ok((answer, usage, calls))
}

/// The event a turn sends when it queues an asynchronous call (its `tool_complete`
/// comes when the call's own job is done).
pub fn queued_event(index: u32, tool: &str) -> EventKind {
    EventKind::ToolProgress {
        index,
        tool: tool.to_owned(),
        stage: "queued".into(),
        message: "runs in the background".into(),
        progress: 0.0,
        data: None,
    }
}

/// The events that show a `tool_call` block again, from what its draft recorded (its
/// payload too: the worker keeps it in the block's metadata). An asynchronous call the
/// turn left running shows as queued, and complete once its row is finished.
fn tool_call_events(
    index: u32,
    block: &blocks::Model,
    calls: &[tool_calls::Model],
) -> Vec<EventKind> {
    let meta = block.meta().tool_call().cloned().unwrap_or_default();
    let (n, tool, tool_use_id) = (meta.n, meta.tool, meta.tool_use_id);
    let state = meta.state.unwrap_or(ToolCallState::Canceled);
    let mut events = vec![EventKind::ToolStart {
        index: n,
        block_index: index,
        tool: tool.clone(),
        tool_use_id: tool_use_id.clone(),
        input: meta.input,
    }];
    if state == ToolCallState::Running {
        events.push(queued_event(n, &tool));
        let row = calls.iter().find(|c| c.api_tool_call_id == tool_use_id);
        if let Some(row) =
            row.filter(|r| !matches!(r.state, ToolCallState::Created | ToolCallState::Running))
        {
            events.push(EventKind::ToolComplete {
                index: n,
                tool,
                tool_use_id,
                state: row.state,
                output: row.tool_result.clone().unwrap_or(Value::Null),
                payload: None,
                duration_ms: row.duration_ms.unwrap_or(0).max(0) as u64,
            });
        }
        return events;
    }
    events.push(EventKind::ToolComplete {
        index: n,
        tool,
        tool_use_id,
        state,
        output: serde_json::from_str(&block.content).unwrap_or(Value::Null),
        payload: meta.payload,
        duration_ms: meta.duration_ms.unwrap_or(0),
    });
    events
}

/// Rebuilds a finished prompt's events from the database (after the event log's
/// retention): a `reset` (what follows replaces whatever a reader holds), its final
/// `prompt_state`, each block whole (one delta per block), and the terminal event —
/// numbered on from the prompt's `seq_ceiling`, above every seq its log gave out.
pub async fn rebuild<C: ConnectionTrait>(
    db: &C,
    prompt: &prompts::Model,
) -> Result<Vec<StreamEvent>> {
    let mut kinds = vec![EventKind::Reset, state_event(prompt)];
    let calls = query::tool_calls::of_prompt(db, prompt.id).await?;
    for block in query::conversation::blocks_of(db, prompt.id).await? {
        let index = block.index.max(0) as u32;
        kinds.push(EventKind::BlockStart {
            index,
            block_type: block.r#type,
        });
        match block.r#type {
            BlockType::ToolCall => kinds.extend(tool_call_events(index, &block, &calls)),
            BlockType::Thinking => kinds.push(EventKind::ThinkingDelta {
                index,
                text: block.content,
            }),
            _ => kinds.push(EventKind::TextDelta {
                index,
                text: block.content,
            }),
        }
        kinds.push(EventKind::BlockStop { index });
    }
    if !UNFINISHED.contains(&prompt.state) {
        let (answer, usage, calls) = load(db, prompt).await?;
        kinds.extend(terminal_event(TurnRecord {
            prompt,
            answer: &answer,
            usage,
            tool_calls: &calls,
        }));
    }
    let first = u64::try_from(prompt.seq_ceiling).unwrap_or(0) + 1;
    Ok(kinds
        .into_iter()
        .zip(first..)
        .map(|(kind, seq)| StreamEvent {
            seq,
            prompt_id: prompt.id,
            kind,
        })
        .collect())
}

#[cfg(test)]
mod tests;
