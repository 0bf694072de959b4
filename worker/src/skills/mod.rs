//! The skill router (DESIGN §5.3, seed Gesahni): before any model is called, each
//! built-in skill looks at the user's message; the best one answers instead of the model
//! when its `confidence / cost` reaches [`THRESHOLD`].
//!
//! * A [`Skill`] has regex patterns (compiled once per process, in `LazyLock`s), an
//!   intent per match, a cost estimate and an answer. [`TimerSkill`](timer) keeps
//!   named timers per user in the `timers` table; [`MathSkill`](math) evaluates
//!   arithmetic with a safe evaluator.
//! * Scoring is the seed's, exactly ([`score`]): the share of the matched pattern's named
//!   groups that matched, +0.05 when both `amount` and `unit` did (capped at 1), +0.05
//!   when the skill's base name (`timer`, `math`) is in the message, capped at 1.
//! * `selection = confidence / max(0.01, cost)`; ties go to the skill registered first.
//! * Cost is Parley's choice ([`coverage_cost`], `docs/decisions.md` "Skills"): a skill
//!   whose match is the whole request is cheap; otherwise the cost is the inverse of the
//!   share of the message the match covers, so a long message that merely contains
//!   `3-4` or a date is left to the model.
//!
//! Routing reads only the message: no database access unless a skill wins. [`turn`]
//! runs the router inside a turn and streams a winner's answer as ordinary events.
//!
//! Every skill runs one conformance suite (`conformance.rs`, a harness in each skill's
//! tests).

#[cfg(test)]
mod conformance;
mod math;
mod timer;
mod turn;

use std::{collections::BTreeMap, ops::Range, sync::LazyLock};

use async_trait::async_trait;
use parley_protocol::{config::SkillName, route::RouteDecision};
use regex::Regex;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

pub use math::MathSkill;
pub use timer::{TimerSkill, notice as timer_notice};
pub use turn::{Routed, route_turn};

/// The selection score a skill needs to answer (inclusive).
pub const THRESHOLD: f64 = 0.6;
/// The least cost a skill can have (the seed's guard against division by zero).
pub const MIN_COST: f64 = 0.01;
/// The cost of a skill whose match is the whole request: the message asks for nothing
/// else, so even the seed's weakest match (an unnamed `pause timer`: confidence 0.05)
/// selects it.
pub const WHOLE_REQUEST_COST: f64 = 0.05;
/// The seed's bonus when both `amount` and `unit` matched, and its context bonus.
const BONUS: f64 = 0.05;
/// The `vendor` of a skill's answer.
pub const VENDOR: &str = "skill";
/// The intent of a turn no skill answers.
pub const GENERAL: &str = "general";

/// What a skill's answer needs besides the message: who asks, and where.
pub struct SkillContext {
    pub db: DatabaseConnection,
    pub user_id: Uuid,
    pub session_id: Uuid,
}

/// A skill could not answer: its data could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error("a skill's storage failed: {}", crate::error::describe(.0))]
    Storage(#[from] parley_protocol::error::Error),
}

/// One pattern's match in a message: which pattern, where, and its named groups.
#[derive(Debug, Clone)]
pub struct Found<'t> {
    /// The pattern's index in its skill's list.
    pub pattern: usize,
    /// Where the match is in the message (bytes).
    pub span: Range<usize>,
    /// What it matched.
    pub text: &'t str,
    /// Every named group of the pattern, with what it matched.
    groups: BTreeMap<&'static str, Option<&'t str>>,
}

impl<'t> Found<'t> {
    /// The first match of the first pattern (in order) that matches `text`.
    pub fn first(patterns: &'static [Regex], text: &'t str) -> Option<Self> {
        patterns
            .iter()
            .enumerate()
            .find_map(|(pattern, regex)| Self::of(pattern, regex, text))
    }

    /// The first match of `regex` (pattern number `pattern`) in `text`.
    pub fn of(pattern: usize, regex: &'static Regex, text: &'t str) -> Option<Self> {
        let captures = regex.captures(text)?;
        let whole = captures.get(0)?;
        let groups = regex
            .capture_names()
            .flatten()
            .map(|name| (name, captures.name(name).map(|m| m.as_str())))
            .collect();
        Some(Self {
            pattern,
            span: whole.range(),
            text: whole.as_str(),
            groups,
        })
    }

    /// Counts the named group as not matched.
    pub fn forget(&mut self, name: &str) {
        if let Some(value) = self.groups.get_mut(name) {
            *value = None;
        }
    }

    /// How many named groups matched something.
    pub fn matched(&self) -> usize {
        self.groups.keys().filter(|n| self.get(n).is_some()).count()
    }

    /// What the named group matched, when it matched something.
    pub fn get(&self, name: &str) -> Option<&'t str> {
        self.groups
            .get(name)
            .copied()
            .flatten()
            .filter(|v| !v.is_empty())
    }
}

/// A built-in skill.
#[async_trait]
pub trait Skill: Send + Sync {
    /// Its name, the `model` of its answers (`TimerSkill`).
    fn name(&self) -> &'static str;

    /// Its name in a tool's definition (`enabled_skills`: [`SkillName`]). A skill that
    /// has none runs only for tools that list no skills.
    fn key(&self) -> Option<SkillName> {
        None
    }

    /// Whether its answers hand out a result the user asked for (an arithmetic
    /// result): such a skill does not answer for a tool with `no_direct_answers`.
    fn gives_answers(&self) -> bool {
        false
    }

    /// Its match in `text`, if it has one.
    fn find<'t>(&self, text: &'t str) -> Option<Found<'t>>;

    /// What the match asks for (`timer_set`, `math`, …).
    fn intent(&self, found: &Found<'_>) -> &'static str;

    /// What answering `text` would cost, relative to the model (see [`coverage_cost`]).
    fn cost_estimate(&self, text: &str, found: &Found<'_>) -> f64 {
        coverage_cost(text, &found.span)
    }

    /// The answer.
    async fn run(
        &self,
        context: &SkillContext,
        text: &str,
        found: &Found<'_>,
    ) -> Result<String, SkillError>;
}

/// A skill's confidence in a match, and its parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    pub pattern_score: f64,
    pub context_bonus: f64,
    pub confidence: f64,
}

/// The seed's `score_skill`: matched named groups over all of them (at least one),
/// +0.05 when `amount` and `unit` both matched (capped at 1), +0.05 when the skill's
/// base name is in the message; the sum capped at 1.
pub fn score(skill_name: &str, found: &Found<'_>, text: &str) -> Score {
    let total = found.groups.len().max(1);
    let mut pattern_score = found.matched() as f64 / total as f64;
    if found.get("amount").is_some() && found.get("unit").is_some() {
        pattern_score = (pattern_score + BONUS).min(1.0);
    }
    let base = skill_name.to_lowercase().replace("skill", "");
    let context_bonus = if !base.is_empty() && text.to_lowercase().contains(&base) {
        BONUS
    } else {
        0.0
    };
    Score {
        pattern_score,
        context_bonus,
        confidence: (pattern_score + context_bonus).min(1.0),
    }
}

/// What the user asked, without a polite or question lead-in ("please", "can you",
/// "what is", …) and without trailing courtesy and punctuation ("please", "now", "?"):
/// the part of the message a skill's match is measured against.
pub fn request_span(text: &str) -> Range<usize> {
    static LEAD_IN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^[\s,]*(?:(?:hey|hi|ok|okay|please|pls|can you|could you|would you|will you|what is|what's|whats|how much is|calculate|compute|evaluate|work out|tell me)\b[\s,:]*)*",
        )
        .expect("a valid regex")
    });
    static TRAILER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:[\s,]*\b(?:please|thanks|thank you|now)\b)*[\s?.!]*$")
            .expect("a valid regex")
    });
    let start = LEAD_IN.find(text).map_or(0, |m| m.end());
    let end = TRAILER
        .find_at(text, start)
        .map_or(text.len(), |m| m.start());
    start..end.max(start)
}

/// The share (0–1) of the request's non-space characters that `span` covers.
pub fn coverage(text: &str, span: &Range<usize>) -> f64 {
    let request = request_span(text);
    let solid = |range: Range<usize>| {
        text.get(range)
            .map_or(0, |s| s.chars().filter(|c| !c.is_whitespace()).count())
    };
    let total = solid(request.clone());
    if total == 0 {
        return 0.0;
    }
    let covered = solid(span.start.max(request.start)..span.end.min(request.end));
    (covered as f64 / total as f64).min(1.0)
}

/// Parley's cost rule: [`WHOLE_REQUEST_COST`] when the match covers the whole request,
/// else `1 / coverage` — a skill must cover at least 60 % of a message at full
/// confidence to answer it.
pub fn coverage_cost(text: &str, span: &Range<usize>) -> f64 {
    let share = coverage(text, span);
    if share >= 1.0 {
        WHOLE_REQUEST_COST
    } else {
        1.0 / share.max(f64::MIN_POSITIVE)
    }
}

/// The skills, in registration order, and the choice between them.
pub struct Router {
    skills: Vec<Box<dyn Skill>>,
}

/// A skill chosen to answer, and its match.
pub struct Winner<'r, 't> {
    pub skill: &'r dyn Skill,
    pub found: Found<'t>,
}

/// What the router decided about one message.
pub struct Routing<'r, 't> {
    pub decision: RouteDecision,
    pub winner: Option<Winner<'r, 't>>,
}

/// The built-in skills, built once per process.
pub static ROUTER: LazyLock<Router> = LazyLock::new(Router::builtin);

impl Router {
    /// A router over `skills`, in this order (the tie-break).
    pub fn new(skills: Vec<Box<dyn Skill>>) -> Self {
        Self { skills }
    }

    /// The skills' names, in registration order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.skills.iter().map(|skill| skill.name())
    }

    /// Timer, then Math: the seed's order.
    pub fn builtin() -> Self {
        Self::new(vec![Box::new(TimerSkill), Box::new(MathSkill)])
    }

    /// Scores every skill on `text` and picks the best, if it reaches the threshold.
    pub fn route<'r, 't>(&'r self, text: &'t str) -> Routing<'r, 't> {
        self.route_among(text, |_| true)
    }

    /// Like [`Router::route`], among the skills `allowed` lets answer (a tool's list and
    /// constraints): the others are not scored.
    pub fn route_among<'r, 't>(
        &'r self,
        text: &'t str,
        allowed: impl Fn(&dyn Skill) -> bool,
    ) -> Routing<'r, 't> {
        let mut best: Option<(RouteDecision, Winner<'r, 't>)> = None;
        for skill in self.skills.iter().filter(|s| allowed(s.as_ref())) {
            let Some(found) = skill.find(text) else {
                continue;
            };
            let confidence = score(skill.name(), &found, text).confidence;
            let cost = skill.cost_estimate(text, &found).max(MIN_COST);
            let selection_score = confidence / cost;
            // Strictly better only: a tie keeps the skill registered first.
            if best
                .as_ref()
                .is_some_and(|(b, _)| selection_score <= b.selection_score)
            {
                continue;
            }
            let decision = RouteDecision {
                skill_won: None,
                intent: skill.intent(&found).to_owned(),
                confidence,
                cost,
                selection_score,
                threshold: THRESHOLD,
            };
            best = Some((
                decision,
                Winner {
                    skill: skill.as_ref(),
                    found,
                },
            ));
        }
        match best {
            Some((mut decision, winner)) if decision.selection_score >= THRESHOLD => {
                decision.skill_won = Some(winner.skill.name().to_owned());
                Routing {
                    decision,
                    winner: Some(winner),
                }
            }
            Some((mut decision, _)) => {
                decision.intent = GENERAL.to_owned();
                Routing {
                    decision,
                    winner: None,
                }
            }
            None => Routing {
                decision: RouteDecision {
                    skill_won: None,
                    intent: GENERAL.to_owned(),
                    confidence: 0.0,
                    cost: 0.0,
                    selection_score: 0.0,
                    threshold: THRESHOLD,
                },
                winner: None,
            },
        }
    }
}

#[cfg(test)]
mod tests;
