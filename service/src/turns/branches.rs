//! Reading and steering a session's message tree (DESIGN §13): the messages of a branch
//! with their siblings (and the reader's own feedback on its answers), and the switch of
//! the branch a session continues.

use std::collections::HashMap;

use parley_entity::{
    blocks, message_feedback, messages,
    query::{
        self,
        page::{Page, PageRequest},
    },
    sessions,
};
use parley_protocol::error::{Error, Result};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::TurnService;

/// A page of a branch's messages, with what a client shows beside them.
#[derive(Debug)]
pub struct Shown {
    pub page: Page<messages::Model, i32>,
    /// Each shown message's siblings (itself included), by parent, in creation order.
    pub siblings: HashMap<Option<Uuid>, Vec<Uuid>>,
    /// The attachment blocks of the shown messages.
    pub attachments: Vec<blocks::Model>,
    /// The reader's own feedback on the shown messages, by message id.
    pub feedback: HashMap<Uuid, message_feedback::Model>,
}

impl Shown {
    /// The siblings of `message`, itself included (just itself when it has none).
    pub fn siblings_of(&self, message: &messages::Model) -> Vec<Uuid> {
        self.siblings
            .get(&message.parent_id)
            .cloned()
            .unwrap_or_else(|| vec![message.id])
    }
}

impl TurnService {
    /// A page of the branch through `through` (default: the session's active branch) of
    /// a session `reader` may read, in conversation order: the branch's messages from
    /// the first down to its leaf, each with its siblings and the reader's feedback (one
    /// statement for the page). A message of another session: 404.
    pub async fn branch(
        &self,
        reader: Uuid,
        session_id: Uuid,
        through: Option<Uuid>,
        page: PageRequest<i32>,
    ) -> Result<Shown> {
        // The replica (when there is one) may not hold a session or message written a
        // moment ago: what it cannot find, the primary is asked for.
        match self
            .branch_on(&self.read_db, reader, session_id, through, page.clone())
            .await
        {
            Err(Error::NotFound { .. }) => {
                self.branch_on(&self.db, reader, session_id, through, page)
                    .await
            }
            shown => shown,
        }
    }

    async fn branch_on(
        &self,
        db: &DatabaseConnection,
        reader: Uuid,
        session_id: Uuid,
        through: Option<Uuid>,
        page: PageRequest<i32>,
    ) -> Result<Shown> {
        let session = query::sessions::get_readable(db, reader, session_id).await?;
        let branch = match through.or(session.active_leaf_id) {
            Some(id) => query::tree::branch(db, session.id, id).await?,
            None => Vec::new(),
        };
        if let Some(asked) = through
            && branch.is_empty()
        {
            // The walk down starts only from a message of the session.
            query::tree::message_in(db, session.id, asked).await?;
        }
        let after = page.after;
        let rows = branch
            .into_iter()
            .filter(|m| after.is_none_or(|after| m.seq > after))
            .take(page.limit as usize + 1)
            .collect();
        let page = Page::from_overfetch(rows, page.limit, |m: &messages::Model| m.seq);
        let siblings = query::tree::siblings(db, session.id, &page.items).await?;
        let ids: Vec<Uuid> = page.items.iter().map(|m| m.id).collect();
        let attachments = query::conversation::attachments_of(db, &ids).await?;
        let feedback = query::feedback::of_messages(db, reader, &ids).await?;
        Ok(Shown {
            page,
            siblings,
            attachments,
            feedback,
        })
    }

    /// Makes the branch through `message_id` the one `user_id`'s session shows and
    /// continues (its active leaf: the leaf below that message). 409 `prompt_active`
    /// while a turn of the session runs.
    pub async fn switch_branch(
        &self,
        user_id: Uuid,
        session_id: Uuid,
        message_id: Uuid,
    ) -> Result<sessions::Model> {
        query::sessions::get_owned(&self.db, user_id, session_id).await?;
        query::tree::switch(&self.db, session_id, message_id, query::now()).await
    }
}
