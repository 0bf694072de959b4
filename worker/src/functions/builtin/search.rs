//! `searchPriorSessions`: full-text search over the user's own earlier messages (never
//! another user's; the current session excluded).

use async_trait::async_trait;
use parley_entity::query::search;
use parley_service::FunctionSpec;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::functions::{CallContext, Function, FunctionError, Progress};

/// How much of each message a hit quotes.
const EXCERPT_CHARS: usize = 300;

/// `searchPriorSessions`' arguments (its schema below).
#[derive(Deserialize)]
struct Args {
    query: String,
    limit: Option<u64>,
}

pub struct SearchPriorSessions {
    spec: FunctionSpec,
}

impl SearchPriorSessions {
    pub fn new() -> Self {
        Self {
            spec: FunctionSpec {
                payload_type: Some("prior_session_matches".into()),
                requires_approval: false,
                ..super::spec(
                    "searchPriorSessions",
                    "Searches the user's earlier conversations for messages with these words.",
                    json!({
                        "type": "object",
                        "properties": {
                            "query": {"type": "string", "minLength": 1, "maxLength": 200},
                            "limit": {"type": "integer", "minimum": 1, "maximum": 20}
                        },
                        "required": ["query"],
                        "additionalProperties": false
                    }),
                    &["sessions:read:self"],
                )
            },
        }
    }
}

#[async_trait]
impl Function for SearchPriorSessions {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }

    async fn call(
        &self,
        ctx: &CallContext,
        args: Value,
        progress: &Progress,
    ) -> Result<Value, FunctionError> {
        let Args { query, limit } = super::arguments(args)?;
        let query = query.as_str();
        let limit = limit.unwrap_or(5);
        progress.report(
            "searching",
            format!("Searching for \u{201c}{query}\u{201d}…"),
            0.2,
            None,
        );
        let hits =
            search::search_own_messages(&ctx.db, ctx.user_id, query, Some(ctx.session_id), limit)
                .await?;
        let results: Vec<Value> = hits
            .into_iter()
            .map(|hit| {
                json!({
                    "session_id": hit.session_id,
                    "role": hit.role,
                    "excerpt": hit.content.chars().take(EXCERPT_CHARS).collect::<String>(),
                    "created_at": hit.created_at,
                })
            })
            .collect();
        Ok(json!({"matches": results.len(), "results": results}))
    }
}
