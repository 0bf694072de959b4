//! The blocks of an answer: drafts checkpointed while it streams (upserted by prompt and
//! index), finalized onto the assistant message at the end, and a user message's
//! attachments.

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QueryTrait, Set,
    prelude::DateTimeUtc,
    sea_query::{Expr, InsertStatement, OnConflict},
};
use uuid::Uuid;

use super::execute_if_any;
use crate::{
    block_meta::{AttachmentMeta, BlockMeta},
    blocks,
    enums::BlockType,
    error::Context,
};

/// The current content of one block of a streaming answer.
#[derive(Debug, Clone)]
pub struct BlockDraft {
    pub index: i32,
    pub content: String,
    /// What the block records beside its content; its variant is the block's kind.
    pub meta: BlockMeta,
}

impl BlockDraft {
    /// An empty block of `meta`'s kind at `index`.
    pub fn new(index: i32, meta: BlockMeta) -> Self {
        Self {
            index,
            content: String::new(),
            meta,
        }
    }

    pub fn kind(&self) -> BlockType {
        self.meta.kind()
    }
}

/// Writes the current content of the given blocks (insert or update by prompt and index).
pub async fn checkpoint_blocks<C: ConnectionTrait>(
    db: &C,
    prompt_id: Uuid,
    drafts: &[BlockDraft],
    now: DateTimeUtc,
) -> Result<()> {
    upsert_blocks(db, prompt_id, drafts, None, now).await
}

/// Writes the final content of the given blocks, finalized onto the answer `message_id`
/// (one statement whether or not a checkpoint wrote them before).
pub async fn write_final_blocks<C: ConnectionTrait>(
    db: &C,
    prompt_id: Uuid,
    message_id: Uuid,
    drafts: &[BlockDraft],
    now: DateTimeUtc,
) -> Result<()> {
    upsert_blocks(db, prompt_id, drafts, Some(message_id), now).await
}

async fn upsert_blocks<C: ConnectionTrait>(
    db: &C,
    prompt_id: Uuid,
    drafts: &[BlockDraft],
    message_id: Option<Uuid>,
    now: DateTimeUtc,
) -> Result<()> {
    let upsert = blocks_upsert(prompt_id, drafts, message_id, now);
    execute_if_any(db, upsert, "writing blocks").await
}

/// The upsert (by prompt and index) of `drafts`, finalized onto `message_id` when given;
/// none for no drafts.
pub(crate) fn blocks_upsert(
    prompt_id: Uuid,
    drafts: &[BlockDraft],
    message_id: Option<Uuid>,
    now: DateTimeUtc,
) -> Option<InsertStatement> {
    if drafts.is_empty() {
        return None;
    }
    let rows = drafts.iter().map(|d| blocks::ActiveModel {
        id: Set(Uuid::now_v7()),
        message_id: Set(message_id),
        prompt_id: Set(prompt_id),
        index: Set(d.index),
        r#type: Set(d.kind()),
        content: Set(d.content.clone()),
        metadata: Set(d.meta.to_value()),
        is_finalized: Set(message_id.is_some()),
        created_at: Set(now),
        updated_at: Set(now),
    });
    let mut columns = vec![
        blocks::Column::Content,
        blocks::Column::Metadata,
        blocks::Column::UpdatedAt,
    ];
    if message_id.is_some() {
        columns.extend([blocks::Column::MessageId, blocks::Column::IsFinalized]);
    }
    Some(
        blocks::Entity::insert_many(rows)
            .on_conflict(
                OnConflict::columns([blocks::Column::PromptId, blocks::Column::Index])
                    .update_columns(columns)
                    .to_owned(),
            )
            .into_query(),
    )
}

/// Drops a prompt's unfinalized blocks (a new attempt starts over).
pub async fn discard_blocks<C: ConnectionTrait>(db: &C, prompt_id: Uuid) -> Result<()> {
    blocks::Entity::delete_many()
        .filter(blocks::Column::PromptId.eq(prompt_id))
        .filter(blocks::Column::IsFinalized.eq(false))
        .exec(db)
        .await
        .context("discarding partial blocks")?;
    Ok(())
}

/// Records a user message's attachments as `attachment` blocks of the message (indexes
/// −1, −2, … in order, so they never meet the answer's blocks of the same prompt),
/// finalized at once, in order.
pub async fn attach_files<C: ConnectionTrait>(
    db: &C,
    prompt_id: Uuid,
    message_id: Uuid,
    attachments: &[AttachmentMeta],
    now: DateTimeUtc,
) -> Result<()> {
    if attachments.is_empty() {
        return Ok(());
    }
    let rows = attachments
        .iter()
        .enumerate()
        .map(|(i, meta)| blocks::ActiveModel {
            id: Set(Uuid::now_v7()),
            message_id: Set(Some(message_id)),
            prompt_id: Set(prompt_id),
            index: Set(-1 - i as i32),
            r#type: Set(BlockType::Attachment),
            content: Set(meta.name.clone()),
            metadata: Set(BlockMeta::Attachment(meta.clone()).to_value()),
            is_finalized: Set(true),
            created_at: Set(now),
            updated_at: Set(now),
        });
    blocks::Entity::insert_many(rows)
        .on_conflict(
            OnConflict::columns([blocks::Column::PromptId, blocks::Column::Index])
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context("recording attachments")?;
    Ok(())
}

/// The attachment blocks of these messages, by message, in order.
pub async fn attachments_of<C: ConnectionTrait>(
    db: &C,
    message_ids: &[Uuid],
) -> Result<Vec<blocks::Model>> {
    if message_ids.is_empty() {
        return Ok(Vec::new());
    }
    blocks::Entity::find()
        .filter(blocks::Column::MessageId.is_in(message_ids.iter().copied()))
        .filter(blocks::Column::Type.eq(BlockType::Attachment))
        .order_by_desc(blocks::Column::Index)
        .all(db)
        .await
        .context("reading attachments")
}

/// The `UPDATE` that finalizes onto `message_id` a prompt's answer blocks other than
/// those at `except` (which the same write upserts finalized: blocks a checkpointed
/// turn's final answer no longer has); all of them for none.
pub(crate) fn finalize_other_blocks(
    prompt_id: Uuid,
    message_id: Uuid,
    except: impl IntoIterator<Item = i32>,
) -> sea_orm::sea_query::UpdateStatement {
    let except: Vec<i32> = except.into_iter().collect();
    let mut update = blocks::Entity::update_many()
        .col_expr(blocks::Column::MessageId, Expr::value(message_id))
        .col_expr(blocks::Column::IsFinalized, Expr::value(true))
        .filter(blocks::Column::PromptId.eq(prompt_id))
        .filter(blocks::Column::Type.ne(BlockType::Attachment));
    if !except.is_empty() {
        update = update.filter(blocks::Column::Index.is_not_in(except));
    }
    update.into_query()
}

/// Attaches a prompt's blocks to its assistant message (the user message's attachment
/// blocks stay where they are).
pub async fn finalize_blocks<C: ConnectionTrait>(
    db: &C,
    prompt_id: Uuid,
    message_id: Uuid,
) -> Result<()> {
    let update = finalize_other_blocks(prompt_id, message_id, []);
    db.execute_raw(db.get_database_backend().build(&update))
        .await
        .context("finalizing blocks")?;
    Ok(())
}

/// A prompt's answer blocks in order (not the attachments of its user message).
pub async fn blocks_of<C: ConnectionTrait>(db: &C, prompt_id: Uuid) -> Result<Vec<blocks::Model>> {
    blocks::Entity::find()
        .filter(blocks::Column::PromptId.eq(prompt_id))
        .filter(blocks::Column::Type.ne(BlockType::Attachment))
        .order_by_asc(blocks::Column::Index)
        .all(db)
        .await
        .context("reading blocks")
}
