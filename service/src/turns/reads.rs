//! Reading a turn: one of the user's prompts, a prompt as it is now, and a session's
//! answer in progress (its active prompt and the blocks checkpointed so far).

use parley_entity::{
    blocks, prompts,
    query::{conversation, prompts as q, sessions},
};
use parley_protocol::error::Result;
use uuid::Uuid;

use super::TurnService;

/// A session's answer in progress: its active prompt and its content blocks so far.
#[derive(Debug, Clone)]
pub struct InProgress {
    pub prompt: prompts::Model,
    pub blocks: Vec<blocks::Model>,
}

impl TurnService {
    /// A prompt the user may read: of their own session, or of one of a class they
    /// teach (404 otherwise, as for a prompt that does not exist).
    pub async fn prompt(&self, user_id: Uuid, prompt_id: Uuid) -> Result<prompts::Model> {
        q::get_readable(&self.db, user_id, prompt_id).await
    }

    /// A prompt as it is now, read again after the caller's access to it was checked
    /// (e.g. after a cancel ended it).
    pub async fn prompt_now(&self, prompt_id: Uuid) -> Result<prompts::Model> {
        q::get(&self.db, prompt_id).await
    }

    /// What a session the user may read is answering now, with the blocks checkpointed
    /// so far (at most every 100 ms); `None` when it is idle. 404 for a session the user
    /// may not read.
    pub async fn in_progress(&self, user_id: Uuid, session_id: Uuid) -> Result<Option<InProgress>> {
        let session = sessions::get_readable(&self.db, user_id, session_id).await?;
        let Some(prompt_id) = session.active_prompt_id else {
            return Ok(None);
        };
        let prompt = q::get(&self.db, prompt_id).await?;
        let blocks = conversation::blocks_of(&self.db, prompt.id).await?;
        Ok(Some(InProgress { prompt, blocks }))
    }
}
