//! The models `GET /openai/v1/models` lists and `GET /openai/v1/models/{id}` reads.

use parley_entity::query::page::PageRequest;

use super::types::OpenAiModel;
use crate::{auth::BearerAuth, error::Problem, routes::sessions::opener, state::AppState};

/// The most chat tools `GET /models` lists.
const MOST_TOOLS: u64 = 1000;

/// The chat tools the caller may use (`tool:<id>`), then the deployment's models.
pub async fn listed(state: &AppState, auth: &BearerAuth) -> Result<Vec<OpenAiModel>, Box<Problem>> {
    let page = PageRequest {
        limit: MOST_TOOLS,
        after: None,
    };
    let tools = state.sessions().usable_tools(opener(&auth.0), page).await?;
    let models = state.turns.models.ids.iter().map(|id| OpenAiModel {
        id: id.clone(),
        object: "model".into(),
        created: 0,
        owned_by: "parley".into(),
        name: id.clone(),
    });
    Ok(tools
        .items
        .into_iter()
        .map(|tool| OpenAiModel {
            id: format!("tool:{}", tool.id),
            object: "model".into(),
            created: tool.created_at.timestamp(),
            owned_by: "parley".into(),
            name: tool.name,
        })
        .chain(models)
        .collect())
}
