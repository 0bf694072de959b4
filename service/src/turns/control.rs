//! Acting on a running or finished turn: cancel and resume.

use std::collections::HashMap;

use parley_entity::{
    prompts,
    query::{self, prompts as q, sessions},
};
use parley_protocol::error::{Error, ErrorCode, Result};
use parley_protocol::{
    events::{EventKind, PromptState},
    jobs::PromptJob,
};
use uuid::Uuid;

use super::{TurnService, handoff};

impl TurnService {
    /// Records a cancel on one of the user's prompts (durable before the worker sees
    /// it, so a cancel that arrives before any worker took the prompt still wins), then
    /// signals it to the worker running it. 404 for someone else's prompt, 409
    /// `prompt_finished` when it already ended.
    #[tracing::instrument(skip(self), err(level = "debug"))]
    pub async fn cancel(&self, user_id: Uuid, prompt_id: Uuid) -> Result<prompts::Model> {
        q::get_owned(&self.db, user_id, prompt_id).await?;
        let prompt = q::request_cancel(&self.db, prompt_id, query::now()).await?;
        self.signal_cancel(prompt.id).await;
        self.wake_if_suspended(&prompt).await?;
        Ok(prompt)
    }

    /// An admin's cancel of any prompt: as [`Self::cancel`] without the owner check
    /// (404 for an unknown prompt, 409 `prompt_finished` when it already ended).
    #[tracing::instrument(skip(self), err(level = "debug"))]
    pub async fn cancel_any(&self, prompt_id: Uuid) -> Result<prompts::Model> {
        q::get(&self.db, prompt_id).await?;
        let prompt = q::request_cancel(&self.db, prompt_id, query::now()).await?;
        self.signal_cancel(prompt.id).await;
        self.wake_if_suspended(&prompt).await?;
        Ok(prompt)
    }

    /// A prompt suspended for an approval has no worker to hear the cancel: it is woken
    /// and its job enqueued, whose claim ends it `canceled` (its waiting calls never
    /// run). A lost enqueue is left to the reaper (the woken prompt's lease lapsed).
    async fn wake_if_suspended(&self, prompt: &prompts::Model) -> Result<()> {
        let suspended =
            prompt.state == PromptState::WaitingForTools && prompt.lease_owner.is_none();
        if suspended
            && query::approvals::wake(&self.db, prompt.id).await?
            && let Err(err) = self.queue.enqueue(PromptJob::turn(prompt.id)).await
        {
            tracing::error!(error = %err, prompt_id = %prompt.id, "cannot enqueue a suspended prompt's cancel; the reaper will");
        }
        Ok(())
    }

    /// Tells the worker running the prompt that a cancel is recorded on its row. A lost
    /// signal only delays the cancel: the worker also reads the row at its next lease
    /// renewal.
    pub(super) async fn signal_cancel(&self, prompt_id: Uuid) {
        if let Err(err) = self.events.signal_cancel(prompt_id).await {
            tracing::warn!(error = %err, %prompt_id, "cannot signal a cancel; the worker finds it on the row");
        }
    }

    /// Cancels whatever the user's session is answering; 409 `nothing_to_cancel` when it
    /// is idle.
    #[tracing::instrument(skip(self), err(level = "debug"))]
    pub async fn cancel_active(&self, user_id: Uuid, session_id: Uuid) -> Result<prompts::Model> {
        let idle = || {
            Error::conflict(
                ErrorCode::NothingToCancel,
                "the session is not answering anything",
            )
        };
        let session = sessions::get_owned(&self.db, user_id, session_id).await?;
        let prompt_id = session.active_prompt_id.ok_or_else(idle)?;
        let prompt = q::request_cancel(&self.db, prompt_id, query::now())
            .await
            .map_err(|err| match err {
                Error::Conflict { .. } => idle(),
                other => other,
            })?;
        self.signal_cancel(prompt.id).await;
        self.wake_if_suspended(&prompt).await?;
        Ok(prompt)
    }

    /// Runs a `failed` or `error` prompt of the user's again (409 otherwise). The
    /// transition is on the event log before the job runs, so a reader that joins now
    /// follows the new attempt instead of stopping at the old terminal event.
    #[tracing::instrument(skip(self, trace_context), err(level = "debug"))]
    pub async fn resume(
        &self,
        user_id: Uuid,
        prompt_id: Uuid,
        trace_context: HashMap<String, String>,
    ) -> Result<prompts::Model> {
        q::get_owned(&self.db, user_id, prompt_id).await?;
        let prompt = q::resume(&self.db, prompt_id, query::now()).await?;
        let created = EventKind::state(
            PromptState::Created,
            u32::try_from(prompt.attempt).unwrap_or(0),
        );
        // The resume raised the ceiling a block: a log that is gone starts just below it,
        // above a rebuilt feed's numbers.
        let floor = u64::try_from(prompt.seq_ceiling - 1).unwrap_or(0);
        self.events
            .append_above(prompt.id, floor, created)
            .await
            .map_err(|err| {
                tracing::warn!(error = %err, "cannot record the resume on the event log");
                Error::Unavailable {
                    what: "the event log".into(),
                }
            })?;
        let job = PromptJob {
            trace_context,
            ..PromptJob::turn(prompt_id)
        };
        handoff::enqueue(&self.db, self.queue.as_ref(), job).await?;
        Ok(prompt)
    }
}
