//! The router inside a turn (DESIGN §5.3): after `prompt_state in_progress`, before
//! `chat:before_ai` and any model call. A winning skill's answer streams as an ordinary
//! text block (`block_start`, `text_delta`, `block_stop`) into a [`Generation`] with no
//! model calls, which the persist stage records like any answer — with the skill's name
//! as `model`, `skill` as `vendor`, and no `ai_usage` row (no model was used).

use parley_entity::{prompts, sessions};
use parley_protocol::route::RouteDecision;
use sea_orm::DatabaseConnection;

use super::{ROUTER, SkillContext, SkillError};
use crate::{
    agent_loop::{Generation, SinkError, blocks},
    sink::TurnSink,
};

/// What the router made of a turn.
pub struct Routed {
    /// The decision, recorded on the prompt; `None` when the tool turned skills off.
    pub decision: Option<RouteDecision>,
    /// The skill's answer, streamed and checkpointed; `None` when the model answers.
    pub answer: Option<Generation>,
}

/// Routes the turn's message and, when a skill wins, runs it and streams its answer.
#[tracing::instrument(skip_all, fields(skill))]
pub async fn route_turn(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    session: &sessions::Model,
    text: &str,
    sink: &mut TurnSink,
) -> Result<Routed, SinkError> {
    if !session.config.skills_enabled() {
        return Ok(Routed {
            decision: None,
            answer: None,
        });
    }
    // A skill the tool does not list, or whose answer would break its constraints, is
    // not scored: the model answers, told the constraints in its system prompt.
    let config = &session.config;
    let routing = ROUTER.route_among(text, |skill| {
        config.skill_allowed(skill.key(), skill.gives_answers())
    });
    tracing::debug!(
        intent = %routing.decision.intent,
        confidence = routing.decision.confidence,
        cost = routing.decision.cost,
        selection_score = routing.decision.selection_score,
        prompt_id = %prompt.id,
        "skill routing"
    );
    // Labelled by the skill that answered, `none` when none did (the confidence is
    // then the best near miss's, 0 with no match at all).
    parley_runtime::metrics::metrics().skill_routed(
        routing.winner.as_ref().map_or("none", |w| w.skill.name()),
        routing.decision.confidence,
        routing.winner.is_some(),
    );
    let Some(winner) = routing.winner else {
        return Ok(Routed {
            decision: Some(routing.decision),
            answer: None,
        });
    };
    tracing::Span::current().record("skill", winner.skill.name());
    let context = SkillContext {
        db: db.clone(),
        user_id: session.user_id,
        session_id: session.id,
    };
    let text = winner
        .skill
        .run(&context, text, &winner.found)
        .await
        .map_err(|SkillError::Storage(err)| SinkError::Storage(err))?;
    let generation = blocks::whole_text(sink, text).await?;
    Ok(Routed {
        decision: Some(routing.decision),
        answer: Some(generation),
    })
}
