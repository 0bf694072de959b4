//! The skill-routing stage: the message (as the before-hooks left it) goes to the skill
//! router (`crate::skills`), and a skill that clearly owns it answers instead of a model,
//! streamed as an ordinary text block. The decision is recorded on the prompt either way.

use parley_entity::{prompts, sessions};
use parley_protocol::route::RouteDecision;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::answer::Answer;
use crate::{agent_loop::Generation, error::TurnError, sink::TurnSink, skills};

/// Routes the turn's message; a winning skill's answer is streamed already.
pub(super) async fn route(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    session: &sessions::Model,
    content: &str,
    sink: &mut TurnSink,
) -> Result<skills::Routed, TurnError> {
    Ok(skills::route_turn(db, prompt, session, content, sink).await?)
}

/// The skill's answer as the turn's answer: the skill's name as `model`, `skill` as
/// `vendor`, no usage (no model was used).
pub(super) fn skill_answer(
    session: sessions::Model,
    decision: Option<RouteDecision>,
    generation: Generation,
    user_message_id: Uuid,
) -> Answer {
    let skill = decision
        .as_ref()
        .and_then(|d| d.skill_won.clone())
        .unwrap_or_default();
    let mut answer = Answer::without_model(
        session,
        (skill, skills::VENDOR),
        user_message_id,
        generation,
    );
    answer.decision = decision;
    answer
}
