//! Budget holds around each model call (issue #15): before the call, its worst case —
//! the prompt as this worker counts it plus the call's output limit (the model's, or
//! the turn's below it, sent with the call as `max_tokens`), each token at the dearest price its kind could be charged — is
//! held against every budget of the
//! turn, and only while each is below its limit; after the call, whatever its end
//! (answered, failed, stalled, cancelled), the hold is settled with what the call cost:
//! the usage the provider reported, or, without it, the prompt counted here and the
//! output streamed so far — the same figures its `ai_usage` row gets.
//!
//! A worker that dies mid-call never settles: its hold lapses by itself after the
//! store's hold time (`parley_runtime::budget`), and the retried attempt holds anew.

use parley_service::budget::{Budgets, Hold, Refused, TurnBudgets, micros};
use sea_orm::DatabaseConnection;

use super::{CallUsage, model_call::Request};
use crate::{prompt, providers::Route};

/// A turn's budgets and how its calls' holds are named.
pub struct Spend<'a> {
    pub budgets: &'a Budgets,
    pub db: &'a DatabaseConnection,
    pub turn: TurnBudgets,
    /// `<prompt>:<attempt>`: each call's hold adds its number in the attempt.
    pub holder: String,
}

impl Spend<'_> {
    /// Holds the worst case of the call about to be made on `route`; `Ok(None)` when
    /// the turn has no budget.
    pub(super) async fn hold(
        &self,
        request: &Request<'_>,
        route: &Route,
        call: usize,
    ) -> Result<Option<Hold>, Refused> {
        if self.turn.is_empty() {
            return Ok(None);
        }
        let amount = worst_case(request, route);
        let id = format!("{}:{call}", self.holder);
        let now = parley_entity::query::now();
        self.budgets
            .reserve(self.db, &self.turn, id, amount, now)
            .await
    }

    /// Settles a hold with what the call cost.
    pub(super) async fn settle(&self, hold: Hold, usage: &CallUsage) {
        let actual = micros(usage.price.cost_usd(&usage.tokens));
        if actual > hold.amount() {
            tracing::warn!(
                held = hold.amount(),
                actual,
                "a model call cost more than its worst case (the provider counts the prompt differently)"
            );
        }
        self.budgets.settle(hold, actual).await;
    }
}

/// The most a call can cost, in micro-units (rounded up): the prompt (its messages, the
/// functions offered, the partial answer it continues) as this worker counts tokens,
/// with a margin per message, plus the model's output limit.
pub(super) fn worst_case(request: &Request<'_>, route: &Route) -> i64 {
    let prompt = prompt::Counter::of(&route.upstream).request(
        request.messages,
        request.offers,
        request.partial,
    );
    let cost = route
        .price
        .worst_case_usd(prompt, u64::from(route.max_tokens(request.sampling)));
    (cost * parley_service::budget::MICROS).ceil() as i64
}
