//! The skill router's decision for one turn (DESIGN §5.3, seed Gesahni): which skill, if
//! any, answered instead of the model, and the numbers it was chosen by. The worker
//! records it on the prompt (`prompts.route`) for every routed turn, and
//! `GET /v1/prompts/{id}` shows it.

use serde::{Deserialize, Serialize};

/// How the skill router decided a turn.
///
/// `confidence`, `cost` and `selection_score` are those of the best-scoring skill (the
/// winner, or the one that came closest); all three are 0 when no skill's pattern
/// matched the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "db", derive(sea_orm::FromJsonQueryResult))]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
pub struct RouteDecision {
    /// The skill that answered (`TimerSkill`, `MathSkill`); absent when the model did.
    #[serde(default)]
    pub skill_won: Option<String>,
    /// What the message asked for: `timer_set`, `timer_pause`, `timer_resume`,
    /// `timer_cancel`, `timer_remaining`, `math`, or `general` (left to the model).
    pub intent: String,
    /// The skill's confidence, 0–1: matched pattern groups, amount-and-unit and
    /// context bonuses.
    pub confidence: f64,
    /// The skill's cost estimate for this message (at least 0.01).
    pub cost: f64,
    /// `confidence / cost`; a skill answers when it is at least `threshold`.
    pub selection_score: f64,
    /// The selection score a skill needs to answer.
    pub threshold: f64,
}

/// The scores are finite numbers (the router never produces NaN), so equality is total;
/// the prompt row that holds a decision compares with `Eq`.
impl Eq for RouteDecision {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_round_trips_with_a_null_winner() {
        let decision = RouteDecision {
            skill_won: None,
            intent: "general".into(),
            confidence: 0.0,
            cost: 0.0,
            selection_score: 0.0,
            threshold: 0.6,
        };
        let json = serde_json::to_value(&decision).unwrap();
        assert_eq!(json["skill_won"], serde_json::Value::Null);
        assert_eq!(
            serde_json::from_value::<RouteDecision>(json).unwrap(),
            decision
        );
    }
}
