//! What the stages before the persistence stage hand it: the turn's answer, whoever gave
//! it — a model through the agent loop, a skill, or a module that blocked the message —
//! with what the persistence and finish stages record about it.

use parley_entity::sessions;
use parley_protocol::{events::Moderation, route::RouteDecision};
use parley_service::modules::runner::HookOutcome;
use uuid::Uuid;

use crate::agent_loop::{Generation, LoopEnd};

/// What the model (or its fallback) produced.
pub(super) struct Generated {
    pub generation: Generation,
    pub end: LoopEnd,
    /// The model and vendor that answered.
    pub model: String,
    pub vendor: String,
    /// The system prompt sent.
    pub system: String,
    /// The turn's end is reported to the user's breaker.
    pub user_breaker: bool,
}

/// What the modules did to the answer, and what `chat:after_ai` found (recorded with it).
pub(super) struct Settled {
    pub moderation: Option<Moderation>,
    pub after_ai: Option<HookOutcome>,
}

/// What the stages up to `chat:after_ai` produced.
pub(super) enum Produced {
    /// The prompt names a model this deployment does not serve: nothing ran.
    UnknownModel,
    /// The turn was answered, or its generation ended some other way.
    Answered(Box<Answer>),
    /// A function call waits for the user's approval: the turn suspends.
    Suspended(Box<Suspended>),
}

/// A turn whose generation stopped for an approval.
pub(super) struct Suspended {
    pub session: sessions::Model,
    pub generated: Generated,
}

pub(super) struct Answer {
    pub session: sessions::Model,
    /// Who answered: the model and vendor, the skill (`vendor: skill`), or the module that
    /// blocked (`vendor: module`).
    pub model: String,
    pub vendor: String,
    /// The turn's end is reported to the user's breaker (a model was called with it
    /// closed, or as its probe).
    pub user_breaker: bool,
    pub user_message_id: Uuid,
    /// The system prompt sent (recorded on the prompt); none when no model was called.
    pub system: Option<String>,
    pub generation: Generation,
    pub end: LoopEnd,
    /// What modules did to the answer.
    pub moderation: Option<Moderation>,
    /// What `chat:after_ai` found, recorded with the assistant message.
    pub after_ai: Option<HookOutcome>,
    /// The skill router's decision (recorded on the prompt); none with skills off.
    pub decision: Option<RouteDecision>,
}

impl Answer {
    /// An answer no model gave (a skill's, or a module's instead of the model's): whole,
    /// with no system prompt, no usage and nothing for the user's breaker.
    pub fn without_model(
        session: sessions::Model,
        (model, vendor): (String, &str),
        user_message_id: Uuid,
        generation: Generation,
    ) -> Self {
        Self {
            session,
            model,
            vendor: vendor.to_owned(),
            user_breaker: false,
            user_message_id,
            system: None,
            generation,
            end: LoopEnd::Completed,
            moderation: None,
            after_ai: None,
            decision: None,
        }
    }

    /// The answer of a model (or its fallback), as the after-hooks left it.
    pub fn from_model(
        session: sessions::Model,
        generated: Generated,
        settled: Settled,
        user_message_id: Uuid,
    ) -> Self {
        Self {
            session,
            model: generated.model,
            vendor: generated.vendor,
            user_breaker: generated.user_breaker,
            user_message_id,
            system: Some(generated.system),
            generation: generated.generation,
            end: generated.end,
            moderation: settled.moderation,
            after_ai: settled.after_ai,
            decision: None,
        }
    }
}
