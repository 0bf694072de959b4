//! `GET /metrics`: the process's Prometheus metrics (`parley_runtime::metrics`), with
//! the gauges of shared state read at each scrape — the unfinished prompts by state and
//! the oldest one's age (one query over the partial index of unfinished prompts), the
//! queue's depth and the providers' breakers. A gauge whose source does not answer
//! keeps its last reading; the scrape still succeeds, with the failure logged.
//!
//! The route is not part of the OpenAPI document (it is for Prometheus, not for API
//! clients). On the API's port it is open by default, like `/healthz`; with
//! `http.metrics_token` it needs that bearer token, and with `http.metrics_listen` it
//! is served on a listener of its own instead (the compose and Kubernetes files under
//! `deploy/` do that, and expose the API's port only).

use std::time::Duration;

use parley_entity::query::{self, metrics::prompt_stats};
use parley_protocol::error::ErrorCode;
use parley_runtime::metrics::{CONTENT_TYPE, metrics};
use poem::{Response, handler, http::header, web::Data};

use crate::state::AppState;

/// The longest a scrape waits for one source.
const SOURCE_TIMEOUT: Duration = Duration::from_secs(2);

/// `/metrics` on the API's port: open, behind `http.metrics_token`, or not here at all
/// (404 when a listener of its own serves it).
#[handler]
pub async fn scrape_guarded(request: &poem::Request, state: Data<&AppState>) -> Response {
    use crate::{
        error::{Problem, problem_response},
        state::MetricsAccess,
    };
    match &state.edge.metrics {
        MetricsAccess::Open => {}
        MetricsAccess::Elsewhere => {
            return problem_response(Problem::new(ErrorCode::NotFound, "no such route"));
        }
        MetricsAccess::Token(expected) => {
            // Hashes are compared: what a guess's timing could tell is of no use.
            let given = request
                .header(header::AUTHORIZATION)
                .and_then(|value| value.strip_prefix("Bearer "))
                .map(crate::auth::hash_token);
            if given.as_ref() != Some(expected) {
                return problem_response(Problem::new(
                    ErrorCode::Unauthenticated,
                    "`/metrics` needs the bearer token `http.metrics_token`",
                ));
            }
        }
    }
    render(&state).await
}

/// `/metrics` on its own listener: open (the listener's network is the access rule).
#[handler]
pub async fn scrape(state: Data<&AppState>) -> Response {
    render(&state).await
}

async fn render(state: &AppState) -> Response {
    let m = metrics();
    let (prompts, (), breakers) = tokio::join!(
        read_prompts(state),
        m.read_queue_depth(state.turns.queue.as_ref()),
        read_breakers(state)
    );
    if let Some((counts, oldest)) = prompts {
        let counts: Vec<(&str, i64)> = counts.iter().map(|(s, n)| (s.as_str(), *n)).collect();
        m.set_prompts(
            &prompt_stats::UNFINISHED.map(|s| s.as_str()),
            &counts,
            oldest,
        );
    }
    m.set_breakers(breakers.iter().map(|(p, s)| (p.as_str(), *s)));
    Response::builder()
        .content_type(CONTENT_TYPE)
        .header(header::CACHE_CONTROL, "no-store")
        .body(m.render())
}

type Unfinished = (Vec<(parley_entity::enums::PromptState, i64)>, f64);

async fn read_prompts(state: &AppState) -> Option<Unfinished> {
    match tokio::time::timeout(SOURCE_TIMEOUT, prompt_stats::unfinished(&state.db)).await {
        Ok(Ok((counts, oldest))) => {
            let age = oldest.map_or(0.0, |at| {
                (query::now() - at).num_milliseconds() as f64 / 1000.0
            });
            Some((counts, age))
        }
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "metrics: cannot count unfinished prompts");
            None
        }
        Err(_) => {
            tracing::warn!("metrics: counting unfinished prompts timed out");
            None
        }
    }
}

/// Each configured provider's breaker state name (`unknown`: the store did not answer).
async fn read_breakers(state: &AppState) -> Vec<(String, &'static str)> {
    let now = query::now().timestamp_millis();
    let mut states = Vec::with_capacity(state.providers.entries.len());
    for entry in state.providers.entries.iter() {
        let read = state.providers.breaker_state(&entry.name, now);
        let name = match tokio::time::timeout(SOURCE_TIMEOUT, read).await {
            Ok(Ok(s)) => s.name(),
            _ => "unknown",
        };
        states.push((entry.name.clone(), name));
    }
    states
}
