//! The skill conformance suite: what the router ([`Router`]) and a turn rely on from
//! every [`Skill`], run against each one through its [`Harness`] (the timer on a
//! migrated in-memory SQLite database, math without one). A new skill adds a harness and
//! `conformance_suite!(its_harness)` beside its tests.
//!
//! Every skill:
//! * has a name of its own in the router it is registered in;
//! * on any message — plain, empty, long, odd — finds a match or none, never panics: a
//!   match is a span of the message with its text, a confidence in [0, 1], a cost above
//!   zero and an intent (a snake_case word, not `general`);
//! * wins each message the harness says is clearly its own, in its router, with the
//!   intent the harness names, and answers it with words;
//! * never reaches the threshold on a message that is not its own — a common list of
//!   requests for the model, and the harness's near misses — alone or in its router;
//! * decides the same way every time it is asked.

use std::ops::Range;

use super::{GENERAL, MIN_COST, Router, Skill, SkillContext, THRESHOLD, score};

/// How the suite reaches one skill.
#[async_trait::async_trait]
pub trait Harness: Send + Sync {
    /// The skill.
    fn skill(&self) -> Box<dyn Skill>;

    /// The router it is registered in (the built-in one unless the harness says).
    fn router(&self) -> Router {
        Router::builtin()
    }

    /// Messages that are clearly its own, in an order its answers can follow (a timer
    /// set before it is paused), each with the intent it finds.
    fn claims(&self) -> Vec<(&'static str, &'static str)>;

    /// Messages that mention what it does but are the model's.
    fn near_misses(&self) -> Vec<&'static str>;

    /// Where its answers run (the database it writes, who asks).
    async fn context(&self) -> SkillContext;
}

/// Requests for the model that no skill should take.
const FOR_THE_MODEL: &[&str] = &[
    "Write me a short story about a dragon who is afraid of the dark.",
    "What is the capital of France?",
    "Can you help me understand photosynthesis?",
    "Explain the causes of the French Revolution in three paragraphs.",
    "I have 3 cats and 2 dogs, what should I name them?",
    "My exam is on 2026-12-01 at 10:30, how should I plan my revision?",
    "Summarise chapters 4-5 of the book for me.",
    "Translate 'good morning' into Spanish.",
    "hello",
];

/// Messages that test a matcher's edges.
fn awkward() -> Vec<String> {
    vec![
        String::new(),
        " ".into(),
        "?!".into(),
        "🙂🙂🙂".into(),
        "è".repeat(300),
        "1 + ".repeat(400),
        "set timer for 99999999999999999999999 minutes".into(),
        "((((((((((1))))))))))".into(),
        "what is 1/0".into(),
        "\u{0}\u{7f}".into(),
    ]
}

/// Checks what the skill makes of `text`; returns the match's confidence and cost.
fn checked_match(skill: &dyn Skill, text: &str) -> Option<(f64, f64)> {
    let found = skill.find(text)?;
    let name = skill.name();
    let span: &Range<usize> = &found.span;
    assert_eq!(
        text.get(span.clone()),
        Some(found.text),
        "{name} on {text:?}: the match is a span of the message"
    );
    let confidence = score(name, &found, text).confidence;
    assert!(
        (0.0..=1.0).contains(&confidence),
        "{name} on {text:?}: confidence {confidence}"
    );
    let cost = skill.cost_estimate(text, &found);
    assert!(
        cost > 0.0 && !cost.is_nan(),
        "{name} on {text:?}: cost {cost}"
    );
    let intent = skill.intent(&found);
    assert!(
        !intent.is_empty()
            && intent != GENERAL
            && intent.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
        "{name} on {text:?}: intent {intent:?}"
    );
    Some((confidence, cost.max(MIN_COST)))
}

pub async fn has_a_name_of_its_own_in_its_router(harness: &dyn Harness) {
    let skill = harness.skill();
    let name = skill.name();
    assert!(
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric()),
        "{name:?} is a word (the `model` of its answers)"
    );
    let names: Vec<&str> = harness.router().names().collect();
    assert_eq!(
        names.iter().filter(|n| **n == name).count(),
        1,
        "{name} is registered once in {names:?}"
    );
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "names are unique: {names:?}");
}

pub async fn matches_are_well_formed_on_any_message(harness: &dyn Harness) {
    let skill = harness.skill();
    let claims = harness
        .claims()
        .into_iter()
        .map(|(text, _)| text.to_owned());
    let others = FOR_THE_MODEL
        .iter()
        .copied()
        .chain(harness.near_misses())
        .map(str::to_owned);
    for text in claims.chain(others).chain(awkward()) {
        checked_match(skill.as_ref(), &text);
    }
}

pub async fn wins_and_answers_what_is_clearly_its_own(harness: &dyn Harness) {
    let skill = harness.skill();
    let router = harness.router();
    let context = harness.context().await;
    let claims = harness.claims();
    assert!(!claims.is_empty(), "the harness gives messages it claims");
    for (text, intent) in claims {
        let (confidence, cost) =
            checked_match(skill.as_ref(), text).unwrap_or_else(|| panic!("it matches {text:?}"));
        assert!(
            confidence / cost >= THRESHOLD,
            "{text:?}: {confidence} / {cost}"
        );
        let routing = router.route(text);
        assert_eq!(
            routing.decision.skill_won.as_deref(),
            Some(skill.name()),
            "{text:?}: {:?}",
            routing.decision
        );
        assert_eq!(routing.decision.intent, intent, "{text:?}");
        let winner = routing.winner.expect("a winner");
        let answer = winner
            .skill
            .run(&context, text, &winner.found)
            .await
            .unwrap_or_else(|err| panic!("{text:?} is answered: {err}"));
        assert!(!answer.trim().is_empty(), "{text:?} is answered in words");
    }
}

pub async fn leaves_what_is_not_its_own_to_the_model(harness: &dyn Harness) {
    let alone = Router::new(vec![harness.skill()]);
    let router = harness.router();
    let name = harness.skill().name();
    for text in FOR_THE_MODEL.iter().chain(harness.near_misses().iter()) {
        let decision = alone.route(text).decision;
        assert!(
            decision.skill_won.is_none() && decision.selection_score < THRESHOLD,
            "{name} leaves {text:?} alone: {decision:?}"
        );
        let won = router.route(text).decision.skill_won;
        assert_ne!(won.as_deref(), Some(name), "{text:?}");
    }
}

pub async fn decides_the_same_way_every_time(harness: &dyn Harness) {
    let router = harness.router();
    let texts = harness
        .claims()
        .into_iter()
        .map(|(text, _)| text)
        .chain(harness.near_misses())
        .chain(FOR_THE_MODEL.iter().copied());
    for text in texts {
        assert_eq!(
            router.route(text).decision,
            router.route(text).decision,
            "{text:?}"
        );
    }
}

/// The suite as tests, against the harness `$harness` builds.
macro_rules! conformance_suite {
    ($harness:expr) => {
        mod conformance {
            #[allow(
                unused_imports,
                reason = "the suite's module imports what some harnesses do not use"
            )]
            use super::*;
            use $crate::skills::conformance as suite;

            #[tokio::test]
            async fn has_a_name_of_its_own_in_its_router() {
                suite::has_a_name_of_its_own_in_its_router(&$harness).await;
            }

            #[tokio::test]
            async fn matches_are_well_formed_on_any_message() {
                suite::matches_are_well_formed_on_any_message(&$harness).await;
            }

            #[tokio::test]
            async fn wins_and_answers_what_is_clearly_its_own() {
                suite::wins_and_answers_what_is_clearly_its_own(&$harness).await;
            }

            #[tokio::test]
            async fn leaves_what_is_not_its_own_to_the_model() {
                suite::leaves_what_is_not_its_own_to_the_model(&$harness).await;
            }

            #[tokio::test]
            async fn decides_the_same_way_every_time() {
                suite::decides_the_same_way_every_time(&$harness).await;
            }
        }
    };
}

pub(crate) use conformance_suite;
