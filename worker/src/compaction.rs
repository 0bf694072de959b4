//! A long conversation's history window (#45 item 5): which of the history read goes to
//! the model, and — for a tool with `history.compaction = "summarize"` — the summary of
//! what fell out of it.
//!
//! A history that fits the budget goes whole and nothing is read or written here. One
//! that does not reads the session's window start (`session_summaries`): while what
//! follows the start fits, every turn sends it from there, so requests grow only at
//! their end between steps and a provider's prefix cache keeps hitting; when it no
//! longer fits, the window steps ([`prompt::window`]) and the step is recorded — with,
//! when the tool summarizes, a summary written by a model call (the tool's
//! `history.summary_model`, else the turn's model) from the summary so far and the
//! messages the step left out. The call is recorded in the usage ledger under the turn's
//! prompt, like a title's. A failed summary call fails nothing: the turn runs with the
//! stepped window and the summary so far, the step is not recorded (the next turn tries
//! again), and `parley_compactions_total{outcome="failed"}` counts it.

use std::time::Duration;

use parley_entity::{
    enums::MessageRole,
    messages, prompts,
    query::{self, session_summaries},
    sessions,
};
use sea_orm::DatabaseConnection;

use crate::{
    error::TurnError,
    history::{HistoryCache, WindowStart},
    prompt::{self, Budget, Counter, window},
    providers::{Catalog, ChatMessage, Route},
    side_call,
};

/// What the summary model is told.
pub const SUMMARY_INSTRUCTIONS: &str = "You keep the memory of a long conversation between a \
user and an assistant. Summarize the earlier summary (if any) and the messages below in one \
text that replaces them: what the user wants, the facts, names and numbers they gave, what \
was decided or explained, and the questions still open. Plain prose, at most 200 words. \
Write only the summary.";

/// The most tokens a summary may take in the window (and the room a step keeps for it).
const SUMMARY_MAX_TOKENS: usize = 600;

/// The room a summary call keeps for its answer in the summary model's window.
const ANSWER_ROOM: usize = 1024;

/// How long the summary call may take: a turn waits for it.
const SUMMARY_TIMEOUT: Duration = Duration::from_secs(60);

/// The window of a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The summary heading the history, if any.
    pub summary: Option<String>,
    /// How many of the newest history messages go in.
    pub keep: usize,
}

/// Where a summary is written from.
pub struct Sources<'a> {
    pub db: &'a DatabaseConnection,
    pub catalog: &'a Catalog,
    /// The history cache that holds the turn's history and the counter it holds it at:
    /// the window's start is kept there too, and read from the database only once.
    pub starts: Option<(&'a HistoryCache, i32)>,
}

/// Chooses the window of a turn over `history` (newest first) within `budget`, stepping
/// it (and summarizing) when it no longer fits.
pub async fn fit(
    from: Sources<'_>,
    prompt: &prompts::Model,
    session: &sessions::Model,
    route: &Route,
    budget: &Budget,
    history: &[messages::Model],
) -> Result<Fitted, TurnError> {
    // Counted newest first only as far as the budget (and, below, the start) needs.
    let (mut costs, fits) = prompt::costs(&budget.counter, history, budget.history, 0);
    if fits {
        return Ok(Fitted {
            summary: None,
            keep: history.len(),
        });
    }
    let row = window_start(&from, session.id).await?;
    // A start that is not on this branch (an edit went back past it) is no start.
    let start = row
        .as_ref()
        .and_then(|row| history.iter().position(|m| m.id == row.through_message_id));
    if let Some(start) = start.filter(|&n| n > costs.len()) {
        costs = prompt::costs(&budget.counter, history, budget.history, start).0;
    }
    let summary = row.and_then(|row| row.summary).filter(|_| start.is_some());
    let summary_cost = summary.as_deref().map_or(0, |s| {
        budget.counter.message(s) + budget.counter.count(prompt::SUMMARY_HEADING)
    });
    let summarizes = session
        .config
        .history
        .as_ref()
        .is_some_and(|h| h.summarizes());
    let reserve = if summarizes {
        SUMMARY_MAX_TOKENS.min(budget.history / 4)
    } else {
        0
    };
    let (keep, dropped_until) = match window::choose(
        &costs,
        history.len(),
        budget.history,
        start,
        summary_cost,
        reserve,
    ) {
        window::Choice::All => {
            return Ok(Fitted {
                summary: None,
                keep: history.len(),
            });
        }
        window::Choice::Keep(keep) => return Ok(Fitted { summary, keep }),
        window::Choice::Step {
            keep,
            dropped_until,
        } => (keep, dropped_until),
    };
    if dropped_until <= keep {
        // Nothing after the start, and the summary alone is over the budget.
        return Ok(Fitted {
            summary: None,
            keep,
        });
    }
    let metrics = parley_runtime::metrics::metrics();
    let mut step = session_summaries::Step {
        session_id: session.id,
        through_message_id: history[keep].id,
        summary: None,
        model: None,
    };
    if summarizes {
        let model = session
            .config
            .history
            .as_ref()
            .and_then(|h| h.summary_model.as_deref())
            .unwrap_or(&route.model);
        let dropped = &history[keep..dropped_until];
        let written = tokio::time::timeout(
            SUMMARY_TIMEOUT,
            summarize(&from, prompt, session, model, summary.as_deref(), dropped),
        )
        .await
        .unwrap_or_else(|_| Err("the summary model took too long".into()));
        match written {
            Ok((text, model)) => {
                step.summary = Some(truncate(&budget.counter, &text, reserve.max(1)));
                step.model = Some(model);
            }
            Err(err) => {
                tracing::warn!(
                    error = %err,
                    session_id = %session.id,
                    "cannot summarize what a step of the history window left out; the turn goes on without it"
                );
                metrics.compacted("failed");
                return Ok(Fitted { summary, keep });
            }
        }
    }
    let summary = step.summary.clone();
    let moved = WindowStart {
        through_message_id: step.through_message_id,
        summary: step.summary.clone(),
    };
    metrics.compacted(if summarizes { "summarized" } else { "stepped" });
    session_summaries::record_step(from.db, step, query::now()).await?;
    if let Some((cache, count)) = from.starts {
        cache.set_start(session.id, count, Some(moved));
    }
    tracing::debug!(session_id = %session.id, keep, dropped = dropped_until - keep, "the history window stepped");
    Ok(Fitted { summary, keep })
}

/// The session's window start: from the history cache when it knows it, else read (and
/// kept there).
async fn window_start(
    from: &Sources<'_>,
    session_id: uuid::Uuid,
) -> Result<Option<WindowStart>, TurnError> {
    if let Some((cache, count)) = from.starts
        && let Some(known) = cache.start(session_id, count)
    {
        return Ok(known);
    }
    let start = session_summaries::get(from.db, session_id)
        .await?
        .map(|row| WindowStart {
            through_message_id: row.through_message_id,
            summary: row.summary,
        });
    if let Some((cache, count)) = from.starts {
        cache.set_start(session_id, count, start.clone());
    }
    Ok(start)
}

/// Asks `model` for a summary of `earlier` (the summary so far) and `dropped` (newest
/// first), and records the call's usage ([`side_call`]). The summary and the model that wrote it.
async fn summarize(
    from: &Sources<'_>,
    prompt: &prompts::Model,
    session: &sessions::Model,
    model: &str,
    earlier: Option<&str>,
    dropped: &[messages::Model],
) -> Result<(String, String), Box<dyn std::error::Error + Send + Sync>> {
    let route = from
        .catalog
        .resolve(Some(model))
        .ok_or_else(|| format!("the summary model `{model}` is not served here"))?;
    let counter = Counter::of(&route.upstream);
    // What the summary model can read: its window less the instructions, the summary so
    // far and room for its answer (a summary is short, whatever the model's output limit).
    let answer = (route.max_output_tokens as usize).min(ANSWER_ROOM);
    let room = route
        .max_context
        .saturating_sub(counter.message(SUMMARY_INSTRUCTIONS))
        .saturating_sub(answer)
        .saturating_sub(earlier.map_or(0, |s| counter.message(s)));
    let mut lines = Vec::new();
    let mut used = 0;
    for message in dropped {
        let who = match message.role {
            MessageRole::User => "User",
            MessageRole::Assistant => "Assistant",
            MessageRole::System => "System",
        };
        let line = format!("{who}: {}", message.content);
        let cost = counter.count(&line) + 1;
        if used + cost > room {
            break;
        }
        used += cost;
        lines.push(line);
    }
    if lines.is_empty() {
        return Err(format!("no message fits the summary model `{model}`'s window").into());
    }
    lines.reverse();
    let mut text = String::new();
    if let Some(earlier) = earlier {
        text.push_str("Earlier summary:\n");
        text.push_str(earlier);
        text.push_str("\n\n");
    }
    text.push_str("Messages:\n");
    text.push_str(&lines.join("\n"));
    let messages = [
        ChatMessage::system(SUMMARY_INSTRUCTIONS),
        ChatMessage::user(text),
    ];
    let ledger = side_call::Ledger {
        prompt_id: prompt.id,
        session_id: session.id,
        user_id: session.user_id,
        tool_id: session.tool_id,
    };
    let answer = side_call::ask(from.db, route, &messages, ledger).await?;
    let answer = answer.trim();
    if answer.is_empty() {
        return Err("the summary model answered nothing".into());
    }
    Ok((answer.to_owned(), route.model.clone()))
}

/// `text` cut to about `tokens` tokens (at a character boundary, by the counter's ratio).
fn truncate(counter: &Counter, text: &str, tokens: usize) -> String {
    let total = counter.count(text);
    if total <= tokens {
        return text.to_owned();
    }
    let chars = text.chars().count() * tokens / total.max(1);
    let mut cut: String = text.chars().take(chars).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_summary_is_cut_to_its_room() {
        let counter = Counter::of("no-tokenizer-model");
        let text = "word ".repeat(1000);
        let cut = truncate(&counter, &text, 100);
        assert!(counter.count(&cut) <= 101, "{}", counter.count(&cut));
        assert_eq!(truncate(&counter, "short", 100), "short");
    }
}
