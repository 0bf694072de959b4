//! The sessions a conversation surface finds and opens (`/v1/ask`, the OpenAI-compatible
//! surface): a session by its conversation key (`rid`) or by id, a conversation's
//! replay, the chat tools a user may open sessions with, and the history an opened
//! conversation brings.

use parley_entity::{
    enums::MessageRole,
    messages,
    query::{
        self, catalog, conversation,
        page::{Page, PageRequest},
        sessions::{self as q, Opener},
    },
    sessions, tools,
};
use parley_protocol::error::Result;
use uuid::Uuid;

use super::SessionService;

/// A conversation and its messages, oldest first.
#[derive(Debug, Clone)]
pub struct Replay {
    pub session: sessions::Model,
    pub messages: Vec<messages::Model>,
}

impl SessionService {
    /// The user's session of conversation `rid` (404 for anyone else's, or none).
    pub async fn by_rid(&self, user_id: Uuid, rid: &str) -> Result<sessions::Model> {
        q::by_rid(&self.db, user_id, rid).await
    }

    /// One of the user's own sessions (404 for anyone else's).
    pub async fn owned(&self, user_id: Uuid, id: Uuid) -> Result<sessions::Model> {
        q::get_owned(&self.db, user_id, id).await
    }

    /// The user's conversation `rid` with its first `limit` messages, oldest first.
    pub async fn replay(&self, user_id: Uuid, rid: &str, limit: u64) -> Result<Replay> {
        let session = q::by_rid(&self.db, user_id, rid).await?;
        let page = PageRequest { limit, after: None };
        let messages = q::messages(&self.db, session.id, page).await?.items;
        Ok(Replay { session, messages })
    }

    /// The chat tools `who` may open sessions with (those of their groups and of those
    /// groups' ancestors; every tool for an administrator), by id.
    pub async fn usable_tools(
        &self,
        who: Opener,
        page: PageRequest<Uuid>,
    ) -> Result<Page<tools::Model, Uuid>> {
        catalog::usable_tools(&self.db, who, page).await
    }

    /// The first chat tool `who` may use (by id), if there is one.
    pub async fn first_usable_tool(&self, who: Opener) -> Result<Option<Uuid>> {
        let first = PageRequest {
            limit: 1,
            after: None,
        };
        let tools = catalog::usable_tools(&self.db, who, first).await?;
        Ok(tools.items.first().map(|tool| tool.id))
    }

    /// Writes the history a new conversation brings as the session's first messages.
    pub async fn import_history(
        &self,
        session_id: Uuid,
        history: Vec<(MessageRole, String)>,
    ) -> Result<()> {
        conversation::import_history(&self.db, session_id, history, query::now()).await
    }
}
