//! A model call beside a conversation's turns (a session's title, a summary of its
//! history): streamed to its end, its text gathered and its usage recorded in the ledger
//! under the turn's prompt, with no message (it is not part of the conversation).

use std::time::Instant;

use futures::StreamExt;
use parley_entity::query::{self, conversation::UsageRow};
use parley_protocol::events::Usage;
use parley_protocol::sampling::Sampling;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::providers::{ChatMessage, Delta, Route};

/// Whose ledger a side call is recorded in.
#[derive(Debug, Clone, Copy)]
pub struct Ledger {
    pub prompt_id: Uuid,
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub tool_id: Uuid,
}

/// Sends `messages` to `route` (no functions), records the call's usage and returns its
/// text as answered.
pub async fn ask(
    db: &DatabaseConnection,
    route: &Route,
    messages: &[ChatMessage],
    ledger: Ledger,
) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let started = Instant::now();
    let mut stream = route
        .stream(
            messages,
            &[],
            None,
            &Sampling::default(),
            None,
            &Default::default(),
        )
        .await?;
    let (mut answer, mut tokens) = (String::new(), Usage::default());
    while let Some(delta) = stream.next().await {
        match delta? {
            Delta::Text(piece) => answer.push_str(&piece),
            Delta::Usage(reported) => tokens = reported,
            _ => {}
        }
    }
    let usage = UsageRow {
        prompt_id: ledger.prompt_id,
        message_id: None,
        session_id: ledger.session_id,
        user_id: ledger.user_id,
        tool_id: ledger.tool_id,
        model: route.model.clone(),
        vendor: route.vendor.clone(),
        tokens,
        cost_usd: route.price.cost_usd(&tokens),
        latency_ms: started.elapsed().as_millis() as i64,
        ttft_ms: None,
        error: None,
    };
    query::conversation::record_usage(db, vec![usage], query::now()).await?;
    Ok(answer)
}
