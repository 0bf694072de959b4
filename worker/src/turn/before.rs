//! The before-hooks stage: the session's modules at `chat:before_ai` see the user's
//! message and may block it, rewrite it or add to the system prompt. A tool without
//! modules costs nothing here: no query is made. A blocked message is answered here, by
//! the module's direct response, and no model is called.

use parley_entity::{prompts, query::moderation::AuditRow};
use parley_protocol::{events::Moderation, turn::TurnInput};
use parley_service::modules::runner::{Blocked, HookOutcome};

use super::{answer::Answer, context::TurnContext, user_message};
use crate::{
    agent_loop,
    error::TurnError,
    hooks::{Modules, TurnHooks},
    sink::TurnSink,
};

/// The text a blocked user message is saved as; the original is only in `message_audit`.
pub const BLOCKED_TEXT: &str = "[blocked]";

/// The `vendor` of an answer a module gave instead of a model.
pub const MODULE_VENDOR: &str = "module";

/// What `chat:before_ai` made of the message.
pub(super) struct Before {
    /// The session's modules for the later hook points; `None` when it has none.
    pub hooks: Option<TurnHooks>,
    pub outcome: HookOutcome,
}

impl Before {
    /// The message as the model and skills see it (a module may have rewritten it).
    pub fn content(&self, input: &TurnInput) -> String {
        self.outcome
            .message
            .clone()
            .unwrap_or_else(|| input.content.clone())
    }

    /// What joins the tool's system prompt: the modules' additions, then what the client
    /// asked of this turn besides the message (an OpenAI-compatible client's system
    /// messages).
    pub fn additions(&self, input: &TurnInput) -> Vec<String> {
        self.outcome
            .additions
            .iter()
            .cloned()
            .chain(input.instructions.clone())
            .collect()
    }

    /// What to record with the user message: the hook run, when there was one.
    pub fn record(&self) -> Option<&HookOutcome> {
        self.hooks.as_ref().map(|_| &self.outcome)
    }
}

/// Runs `chat:before_ai` over the turn's message.
#[tracing::instrument(name = "before", skip_all, err)]
pub(super) async fn run(
    modules: &Modules,
    prompt: &prompts::Model,
    context: &TurnContext,
) -> Result<Before, TurnError> {
    let hooks = TurnHooks::load(modules, &context.session, prompt, &context.history).await?;
    let outcome = match &hooks {
        Some(hooks) => hooks.before_ai(&context.input.content).await,
        None => HookOutcome::default(),
    };
    Ok(Before { hooks, outcome })
}

/// A module blocked the message: it is saved as `[blocked]` (the text that reached the
/// module goes to the audit trail), and the module's direct response is the answer.
pub(super) async fn answer_blocked(
    db: &sea_orm::DatabaseConnection,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    context: TurnContext,
    mut before: Before,
    blocked: Blocked,
) -> Result<Answer, TurnError> {
    let original = before.content(&context.input);
    before.outcome.audits.push(AuditRow {
        module: blocked.module.clone(),
        original_content: original,
        reason: format!("blocked ({}): {}", blocked.category, blocked.reason),
        patterns_matched: vec![blocked.category.clone()],
    });
    let saved = user_message::Saving {
        place: context.place,
        content: BLOCKED_TEXT,
        files: &[],
        before: Some(&before.outcome),
    };
    let user_message_id = user_message::save(db, prompt, sink, saved).await?;
    let generation = agent_loop::blocks::whole_text(sink, blocked.direct_response.clone()).await?;
    let mut answer = Answer::without_model(
        context.session,
        (blocked.module.clone(), MODULE_VENDOR),
        user_message_id,
        generation,
    );
    answer.moderation = Some(Moderation {
        blocked: true,
        category: Some(blocked.category),
        module: Some(blocked.module),
        replaced: false,
    });
    Ok(answer)
}
