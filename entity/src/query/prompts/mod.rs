//! The prompt (one generation) and its state machine (DESIGN §4).
//!
//! Every transition is a guarded `UPDATE … WHERE state IN (…)`, so two workers can never
//! both own a prompt: a worker *claims* a prompt (`created` → `in_progress`) together with
//! a lease it renews while it runs; a job redelivered after its worker died may claim the
//! prompt again once that lease has lapsed. A cancel is durable before it is a signal:
//! `cancel_requested_at` is written first, and a claim honours it.
//!
//! One prompt per session runs at a time. The session's `active_prompt_id` names it;
//! prompts accepted while another is active wait in `created` (policy `enqueue`, or
//! `interrupt` after cancelling the active one) and are started in order by
//! [`finish()`], which hands the session to the next waiting prompt.
//!
//! * [`turn`] — recording a new turn under the session's active-prompt policy;
//! * [`lease`] — claim, lease renewal, cancel requests, stranded prompts;
//! * [`mod@checkpoint`] — a streaming turn's partial blocks and user message;
//! * [`mod@finish`] — ending an attempt, with [`handover`] of the session to the next prompt;
//! * [`restart`] — resume and abandon.

mod checkpoint;
mod finish;
mod handover;
mod lease;
mod restart;
mod turn;

pub use checkpoint::{UserRow, checkpoint};
pub use finish::{Finished, Outcome, TurnWrites, finish};
pub use handover::hand_over_after_cancel;
pub use lease::{
    CANCEL_EVENTS, Claim, LeaseRenewal, LeaseState, SEQ_BLOCK, SessionAt, cancel_requested, claim,
    raise_seq_ceiling, release_lease, renew_lease, request_cancel, set_state, stranded,
};
pub use restart::{abandon, resume};
pub use turn::{NewTurn, OnActive, Turn, create_turn, save_user_message, set_user_message};

use parley_protocol::error::{Error, Result};
use sea_orm::{ConnectionTrait, EntityTrait};
use uuid::Uuid;

use crate::{enums::PromptState, error::Context, prompts};

/// States in which a prompt still has work ahead.
pub const UNFINISHED: [PromptState; 3] = [
    PromptState::Created,
    PromptState::InProgress,
    PromptState::WaitingForTools,
];

pub async fn find<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<Option<prompts::Model>> {
    prompts::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a prompt")
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<prompts::Model> {
    find(db, id).await?.ok_or(Error::not_found("prompt"))
}

/// The session's newest completed prompt (its last answer), if it has any.
pub async fn last_answer_of_session<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
) -> Result<Option<prompts::Model>> {
    use sea_orm::{ColumnTrait, QueryFilter, QueryOrder, QuerySelect};
    prompts::Entity::find()
        .filter(prompts::Column::SessionId.eq(session_id))
        .filter(prompts::Column::State.eq(PromptState::Completed))
        .order_by_desc(prompts::Column::CreatedAt)
        .order_by_desc(prompts::Column::Id)
        .limit(1)
        .one(db)
        .await
        .context("reading a session's last answer")
}

/// A prompt of a session this user may read ([`super::sessions::get_readable`]: their
/// own, or a student's of a class they teach); anything else answers as missing.
pub async fn get_readable<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    id: Uuid,
) -> Result<prompts::Model> {
    let prompt = get(db, id).await?;
    super::sessions::get_readable(db, user_id, prompt.session_id)
        .await
        .map_err(|_| Error::not_found("prompt"))?;
    Ok(prompt)
}

/// A prompt of one of this user's sessions (another user's answers as missing).
pub async fn get_owned<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    id: Uuid,
) -> Result<prompts::Model> {
    let prompt = get(db, id).await?;
    super::sessions::get_owned(db, user_id, prompt.session_id)
        .await
        .map_err(|_| Error::not_found("prompt"))?;
    Ok(prompt)
}

#[cfg(test)]
pub(crate) use finish::finish_in_two_batches;
#[cfg(test)]
pub(crate) use turn::take_idle_session_sqlite;
