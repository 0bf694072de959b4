//! Deciding function calls that wait for approval (#14): the owner approves (optionally
//! with edited arguments) or denies from any device; a call no one decides is denied
//! when it expires (the workers' expiry pass, `parley_worker::approvals`). Both go
//! through [`settle`]: the decision is recorded on the call's row (who, when, what
//! input, why), the prompt woken and its job enqueued once no call of it waits, and
//! the owner's feed told.

use parley_entity::{
    query::{
        self,
        approvals::{self, Verdict},
        prompts as q,
    },
    tool_calls,
};
use parley_protocol::error::{Error, ErrorCode, Result};
use parley_protocol::{feed::UserEventKind, jobs::PromptJob};
use parley_runtime::{queue::JobQueue, user_feed::Publisher};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::TurnService;

impl TurnService {
    /// Records the user's `verdict` on call `call_id` of their prompt `prompt_id`. 404
    /// for another user's prompt or a call it does not have; 409 `not_awaiting_approval`
    /// when the call does not wait (decided, expired, cancelled); 422
    /// `invalid_approval_input` for edited arguments that do not fit the function.
    #[tracing::instrument(skip(self, verdict), err(level = "debug"))]
    pub async fn decide_call(
        &self,
        user_id: Uuid,
        prompt_id: Uuid,
        call_id: Uuid,
        verdict: Verdict,
    ) -> Result<tool_calls::Model> {
        let prompt = q::get_owned(&self.db, user_id, prompt_id).await?;
        if let Verdict::Approve { input: Some(input) } = &verdict {
            let call = query::tool_calls::get(&self.db, call_id).await?;
            if call.prompt_id != prompt.id {
                return Err(Error::not_found("tool call"));
            }
            self.check_approved_input(&call.tool_name, input)?;
        }
        let decision = Decision {
            prompt_id: prompt.id,
            session_id: prompt.session_id,
            owner: user_id,
            call_id,
            verdict,
            by: Some(user_id),
        };
        settle(&self.db, self.queue.as_ref(), &self.feed, decision).await
    }

    /// The calls waiting for the user's approval, across their sessions, oldest first.
    pub async fn waiting_approvals(&self, user_id: Uuid) -> Result<Vec<tool_calls::Model>> {
        approvals::waiting_for(&self.db, user_id).await
    }

    /// Edited arguments must be an object that fits the function's schema.
    fn check_approved_input(&self, function: &str, input: &serde_json::Value) -> Result<()> {
        let invalid = |why: String| Error::invalid(ErrorCode::InvalidApprovalInput, why);
        if !input.is_object() {
            return Err(invalid("the input must be a JSON object".into()));
        }
        let catalog = self.functions.load();
        let Some(spec) = catalog.get(function) else {
            return Ok(());
        };
        let validator = jsonschema::validator_for(&spec.parameters)
            .map_err(|err| Error::internal("checking approved input", err.to_string()))?;
        match crate::payloads::schema_problems(&validator, input) {
            None => Ok(()),
            Some(problems) => Err(invalid(format!(
                "the input does not fit `{function}`'s parameters: {problems}"
            ))),
        }
    }
}

/// One decision on one waiting call.
#[derive(Debug, Clone)]
pub struct Decision {
    pub prompt_id: Uuid,
    pub session_id: Uuid,
    /// The session's owner (whose feed is told).
    pub owner: Uuid,
    pub call_id: Uuid,
    pub verdict: Verdict,
    /// Who decided; none: it expired.
    pub by: Option<Uuid>,
}

/// Records `decision`; when it was the prompt's last waiting call, enqueues the job that
/// resumes the turn (a lost enqueue is left to the reaper: the woken prompt's lease has
/// lapsed). Tells the owner's feed. Returns the call as it is now.
pub async fn settle(
    db: &DatabaseConnection,
    queue: &dyn JobQueue,
    feed: &Publisher,
    decision: Decision,
) -> Result<tool_calls::Model> {
    let approved = decision.verdict.approved();
    let expired = decision.verdict == Verdict::Expire;
    let decided = approvals::decide(
        db,
        decision.prompt_id,
        decision.call_id,
        decision.verdict,
        decision.by,
        query::now(),
    )
    .await?;
    tracing::info!(
        prompt_id = %decision.prompt_id,
        call_id = %decision.call_id,
        approved,
        expired,
        resume = decided.resume,
        "a function call's approval was decided"
    );
    if decided.resume
        && let Err(err) = queue.enqueue(PromptJob::turn(decision.prompt_id)).await
    {
        tracing::error!(error = %err, prompt_id = %decision.prompt_id, "cannot enqueue the resumed turn; the reaper will");
    }
    let resolved = UserEventKind::ApprovalResolved {
        session_id: decision.session_id,
        prompt_id: decision.prompt_id,
        call_id: decision.call_id,
        approved,
        expired,
    };
    feed.publish(decision.owner, resolved).await;
    Ok(decided.call)
}
