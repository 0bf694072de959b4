//! Submitting a turn: validate the input, record the prompt, enqueue its job.

use std::collections::HashMap;

use parley_entity::{
    prompts,
    query::{
        self,
        prompts::{self as q, NewTurn, OnActive},
    },
};
use parley_protocol::error::{Error, ErrorCode, Result};
use parley_protocol::events::PromptState;
use parley_protocol::feed::UserEventKind;
use parley_protocol::{
    jobs::PromptJob,
    turn::{Placement, TurnInput},
};
use uuid::Uuid;

use super::{TurnService, handoff};
use crate::quota;

/// A message a user sends to a session.
#[derive(Debug, Clone)]
pub struct Submission {
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub input: TurnInput,
    /// The model to answer with; `None`: the deployment's default.
    pub model: Option<String>,
    /// A repeated key returns the prompt already accepted for it.
    pub idempotency_key: Option<String>,
    pub on_active: OnActive,
    /// W3C trace context of the request, carried in the job.
    pub trace_context: HashMap<String, String>,
    /// The user message of the session this turn answers again (a regenerate: no new
    /// user message; the input is that message's). `None`: a new message.
    pub answers: Option<Uuid>,
}

impl TurnService {
    /// Validates and records a turn; when the prompt owns the session now, enqueues its
    /// job (when the queue is down the prompt is given up as `failed`/`unavailable` and
    /// the caller gets [`Error::Unavailable`]). Returns the prompt, new or replayed.
    #[tracing::instrument(skip_all, fields(session_id = %submission.session_id), err(level = "debug"))]
    pub async fn submit(&self, submission: Submission) -> Result<prompts::Model> {
        self.check_input(&submission.input)?;
        let model = self.check_model(submission.model.clone())?;
        // The session is read only for a turn that needs it (a format, client functions).
        let mut session = Session::default();
        self.check_format(&submission, model.as_deref(), &mut session)
            .await?;
        if !submission.input.client_functions.is_empty() {
            let session = session.get(self, &submission).await?;
            self.check_client_functions(&submission.input.client_functions, session)?;
        }
        self.check_attachments(submission.user_id, &submission.input)
            .await?;
        self.check_placement(&submission).await?;
        self.check_budgets(&submission).await?;
        let counted = self.check_quota(&submission, model.as_deref()).await?;
        let request_hash = submission
            .idempotency_key
            .as_ref()
            .map(|_| request_hash(&submission.input, model.as_deref(), submission.answers));
        let mut input = submission.input;
        if submission.answers.is_none() {
            // Named now, so the answer and the user's feed can name it before it exists.
            input.message_id = Some(Uuid::now_v7());
        }
        let turn = NewTurn {
            session_id: submission.session_id,
            user_id: submission.user_id,
            user_message_id: submission.answers,
            input,
            model,
            default_model: self.models.default_model().to_owned(),
            served_models: self.models.ids.clone(),
            idempotency_key: submission.idempotency_key,
            request_hash,
            on_active: submission.on_active,
        };
        let session_id = turn.session_id;
        let created = q::create_turn(&self.db, turn, query::now()).await;
        // A turn the quota counted that was not recorded (or was a replay) gives its
        // place back.
        if let Some(counted) = &counted
            && created.as_ref().map_or(true, |turn| turn.replayed)
        {
            self.quotas.refund(counted, query::now()).await;
        }
        let turn = match created {
            Ok(turn) => turn,
            Err(err) => {
                self.sessions().refused_turn(session_id, &err).await;
                return Err(err);
            }
        };
        if let Some(interrupted) = turn.interrupted {
            self.signal_cancel(interrupted).await;
        }
        if !turn.replayed {
            // Before the job goes: the worker's `turn_finished` comes after it.
            let started = UserEventKind::TurnStarted {
                session_id,
                prompt_id: turn.prompt.id,
                user_message_id: turn.prompt.user_message_id,
            };
            self.feed.publish(submission.user_id, started).await;
        }
        if turn.run_now {
            let job = PromptJob {
                trace_context: submission.trace_context,
                session: turn.session.clone().map(Into::into),
                ..PromptJob::turn(turn.prompt.id)
            };
            if let Err(err) = handoff::enqueue(&self.db, self.queue.as_ref(), job).await {
                let failed = UserEventKind::TurnFinished {
                    session_id,
                    prompt_id: turn.prompt.id,
                    state: PromptState::Failed,
                    assistant_message_id: None,
                };
                self.feed.publish(submission.user_id, failed).await;
                return Err(err);
            }
        }
        Ok(turn.prompt)
    }

    /// Counts the turn against its user's and group's quotas (nothing when none is
    /// configured); 429 `quota_exceeded` over one, unless it replays an accepted turn.
    async fn check_quota(
        &self,
        submission: &Submission,
        model: Option<&str>,
    ) -> Result<Option<quota::Counted>> {
        if !self.quotas.is_enabled() {
            return Ok(None);
        }
        let (user_id, session_id) = (submission.user_id, submission.session_id);
        // Not the user's session: the turn's own checks answer 404.
        let Some(scope) = query::quotas::scope_of_session(&self.db, user_id, session_id).await?
        else {
            return Ok(None);
        };
        let counted = self.quotas.counted(user_id, &scope);
        let now = query::now();
        let Err(refused) = self.quotas.admit(&counted, now).await else {
            return Ok(Some(counted));
        };
        if let Some(key) = &submission.idempotency_key
            && query::quotas::is_replay(&self.db, session_id, key).await?
        {
            return Ok(None);
        }
        parley_runtime::metrics::metrics()
            .rate_limited
            .get_or_create(&parley_runtime::metrics::LimitLabels {
                limit: refused.kind.as_str(),
            })
            .inc();
        let refusal = query::quotas::Refusal {
            user_id,
            tool_id: scope.tool_id,
            group_id: counted.group_id,
            model: model.unwrap_or(self.models.default_model()).to_owned(),
            limit_kind: refused.kind.as_str().to_owned(),
        };
        if let Err(err) = query::quotas::record_refusal(&self.db, refusal, now).await {
            tracing::warn!(error = %err, "cannot record a refused turn");
        }
        tracing::info!(
            limit = refused.kind.as_str(),
            retry_after_s = refused.retry_after_s,
            "a quota refused a turn"
        );
        Err(refused.error())
    }

    /// Refuses the turn (429 `budget_exceeded`) when a budget it counts against is at
    /// or over its limit; holds nothing (the worker reserves each model call). A replay
    /// of an accepted turn is no new turn.
    async fn check_budgets(&self, submission: &Submission) -> Result<()> {
        let (user_id, session_id) = (submission.user_id, submission.session_id);
        if self.budgets.catalog(&self.db).await?.is_empty() {
            return Ok(());
        }
        // Not the user's session: the turn's own checks answer 404.
        let Some(scope) = query::quotas::scope_of_session(&self.db, user_id, session_id).await?
        else {
            return Ok(());
        };
        let now = query::now();
        let turn = self.budgets.of_turn(&self.db, user_id, &scope, now).await?;
        let Err(refused) = self.budgets.check(&self.db, &turn, now).await else {
            return Ok(());
        };
        if let Some(key) = &submission.idempotency_key
            && query::quotas::is_replay(&self.db, session_id, key).await?
        {
            return Ok(());
        }
        tracing::info!(
            subject = refused.subject.kind(),
            period = refused.period.as_str(),
            retry_after_s = refused.retry_after_s,
            "a budget refused a turn"
        );
        Err(refused.error())
    }

    fn check_input(&self, input: &TurnInput) -> Result<()> {
        if input.content.trim().is_empty() {
            return Err(Error::invalid(
                ErrorCode::EmptyMessage,
                "the message is empty",
            ));
        }
        let limit = self.limits.max_message_chars;
        if input.content.chars().count() > limit {
            return Err(Error::invalid(
                ErrorCode::MessageTooLong,
                format!("the message exceeds {limit} characters"),
            ));
        }
        Ok(())
    }

    /// At most `files.max_attachments` attachments (422 `too_many_attachments`), each
    /// once, each a file of the user (another user's or a missing one: 404).
    async fn check_attachments(&self, user_id: uuid::Uuid, input: &TurnInput) -> Result<()> {
        let ids = &input.attachments;
        if ids.is_empty() {
            return Ok(());
        }
        let most = self.files.max_attachments;
        if ids.len() > most {
            return Err(Error::invalid(
                ErrorCode::TooManyAttachments,
                format!("a message may carry at most {most} attachments"),
            ));
        }
        if ids.iter().enumerate().any(|(i, id)| ids[..i].contains(id)) {
            return Err(Error::invalid(
                ErrorCode::DuplicateAttachment,
                "a file is attached twice",
            ));
        }
        query::files::owned_in_order(&self.db, user_id, ids).await?;
        Ok(())
    }

    /// An edit's parent is a message of the session (404 `message` otherwise); checked
    /// after the session is the user's, so another user's session answers 404 as itself.
    async fn check_placement(&self, submission: &Submission) -> Result<()> {
        let Some(Placement::After(parent)) = submission.input.placement else {
            return Ok(());
        };
        query::sessions::get_owned(&self.db, submission.user_id, submission.session_id).await?;
        match query::tree::message_in(&self.db, submission.session_id, parent).await {
            Err(Error::NotFound { .. }) => Err(query::tree::not_in_session()),
            other => other.map(drop),
        }
    }

    /// A `response_format` must be a usable format (422 `invalid_response_format`) the
    /// answering model can keep to (422 `format_unsupported`, naming the model). Only a
    /// turn with a format reads its session's model for it.
    async fn check_format(
        &self,
        submission: &Submission,
        model: Option<&str>,
        session: &mut Session,
    ) -> Result<()> {
        let Some(format) = &submission.input.response_format else {
            return Ok(());
        };
        if let Err(problem) = crate::structured::Checker::new(format) {
            return Err(Error::invalid(
                ErrorCode::InvalidResponseFormat,
                format!("`response_format`: {problem}"),
            ));
        }
        let answering = match model {
            Some(model) => model.to_owned(),
            None => session
                .get(self, submission)
                .await?
                .config
                .model
                .clone()
                .map(|m| m.to_string())
                .filter(|m| self.models.contains(m))
                .unwrap_or_else(|| self.models.default_model().to_owned()),
        };
        if self.models.structured_outputs(&answering) {
            return Ok(());
        }
        Err(Error::invalid(
            ErrorCode::FormatUnsupported,
            format!(
                "`response_format`: the model `{answering}` cannot answer in a structured format; leave it out or name another model"
            ),
        ))
    }

    /// The model a message asks for must be served here (422 `unknown_model`); none
    /// means the session's configured model or the default (chosen with the session).
    fn check_model(&self, asked: Option<String>) -> Result<Option<String>> {
        match asked {
            Some(model) if !self.models.contains(&model) => Err(Error::invalid(
                ErrorCode::UnknownModel,
                format!("the model `{model}` is not served here; see GET /v1/models"),
            )),
            other => Ok(other),
        }
    }
}

/// The SHA-256 (hex) of what a turn's request asks: its input (content, attachments,
/// placement), the model it names and the message it answers again. A replayed
/// `Idempotency-Key` must come with the same.
fn request_hash(input: &TurnInput, model: Option<&str>, answers: Option<Uuid>) -> String {
    use sha2::{Digest, Sha256};
    let asked = match answers {
        None => serde_json::json!({ "input": input, "model": model }),
        Some(message) => serde_json::json!({ "input": input, "model": model, "answers": message }),
    };
    hex::encode(Sha256::digest(asked.to_string().as_bytes()))
}

/// The session of a turn being accepted, read once when a check needs it.
#[derive(Default)]
struct Session(Option<parley_entity::sessions::Model>);

impl Session {
    async fn get(
        &mut self,
        turns: &TurnService,
        submission: &Submission,
    ) -> Result<&parley_entity::sessions::Model> {
        if self.0.is_none() {
            let session = turns
                .sessions()
                .owned(submission.user_id, submission.session_id)
                .await?;
            self.0 = Some(session);
        }
        Ok(self.0.as_ref().expect("just read"))
    }
}
