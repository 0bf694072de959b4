//! `GET /v1/admin/providers`: each model provider's circuit breaker, recent error rate,
//! last failure and models (DESIGN §7, §10) — what an operator looks at first when
//! turns fail or fall back. The breakers are the workers' (Redis in distributed mode,
//! this process's in embedded mode); the calls are `ai_usage` rows.

use chrono::{DateTime, Duration, TimeZone, Utc};
use parley_entity::query;
use parley_protocol::events::CallError;
use parley_runtime::breaker::{BreakerError, BreakerState};
use poem::web::Data;
use poem_openapi::{Enum, Object, OpenApi, param::Query, payload::Json};

use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    routes::ApiTags,
    state::AppState,
};

/// The window of the error rate when `window_s` is absent: 15 minutes.
const DEFAULT_WINDOW_S: u32 = 900;

/// The state of a provider's circuit breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum BreakerStateName {
    /// Calls go.
    Closed,
    /// Calls are refused without reaching the provider until `open_until`.
    Open,
    /// The open period is over: the next call probes the provider.
    HalfOpen,
    /// The breaker store (Redis) could not be asked.
    Unknown,
}

/// A provider's circuit breaker.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ProviderBreaker {
    pub state: BreakerStateName,
    /// Consecutive failed calls so far (`closed` only).
    pub consecutive_failures: Option<u32>,
    /// When an `open` breaker lets a probe through.
    pub open_until: Option<DateTime<Utc>>,
}

impl From<BreakerState> for ProviderBreaker {
    fn from(state: BreakerState) -> Self {
        match state {
            BreakerState::Closed { failures } => Self {
                state: BreakerStateName::Closed,
                consecutive_failures: Some(failures),
                open_until: None,
            },
            BreakerState::Open { until_ms } => Self {
                state: BreakerStateName::Open,
                consecutive_failures: None,
                open_until: Utc.timestamp_millis_opt(until_ms).single(),
            },
            BreakerState::HalfOpen => Self {
                state: BreakerStateName::HalfOpen,
                consecutive_failures: None,
                open_until: None,
            },
        }
    }
}

/// A provider's latest failed call.
#[derive(Debug, Object)]
pub struct ProviderFailure {
    pub category: CallError,
    pub at: DateTime<Utc>,
}

/// One model provider.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ProviderStatus {
    /// Its name in the configuration (the `vendor` of its usage).
    pub name: String,
    /// The model ids (as clients ask for them) it serves.
    pub models: Vec<String>,
    pub breaker: ProviderBreaker,
    /// Its calls in the window (a call its open breaker refused is no call).
    pub calls: u64,
    /// Those that failed.
    pub failed_calls: u64,
    /// `failed_calls / calls`; absent with no calls.
    pub error_rate: Option<f64>,
    /// Its latest failed call, whenever it was.
    pub last_error: Option<ProviderFailure>,
}

/// The deployment's model providers.
#[derive(Debug, Object)]
pub struct ProvidersReport {
    /// The window of `calls`, `failed_calls` and `error_rate`, in seconds, up to now.
    pub window_s: u32,
    /// Every configured provider, in configuration order (none: the offline demo model
    /// answers).
    pub providers: Vec<ProviderStatus>,
}

pub struct ProvidersAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl ProvidersAdminApi {
    /// Model providers
    ///
    /// Each configured provider's circuit breaker (shared by every worker), its calls
    /// and error rate in a recent window, its last failure, and the models it serves.
    #[oai(path = "/providers", method = "get", operation_id = "admin_providers")]
    async fn providers(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// The window of the error rate, in seconds up to now (default 900).
        #[oai(validator(minimum(value = "1"), maximum(value = "2592000")))]
        window_s: Query<Option<u32>>,
    ) -> ApiResult<Json<ProvidersReport>, statuses::AdminList> {
        let window_s = window_s.0.unwrap_or(DEFAULT_WINDOW_S);
        let now = query::now();
        let since = now - Duration::seconds(i64::from(window_s));
        let providers = state
            .reports()
            .providers(since, now)
            .await?
            .into_iter()
            .map(|found| ProviderStatus {
                breaker: breaker(&found.entry.name, found.breaker),
                error_rate: (found.calls.calls > 0)
                    .then(|| found.calls.failed as f64 / found.calls.calls as f64),
                calls: found.calls.calls,
                failed_calls: found.calls.failed,
                last_error: found.last_failure.map(|l| ProviderFailure {
                    category: l.error,
                    at: l.at,
                }),
                name: found.entry.name,
                models: found.entry.models,
            })
            .collect();
        Ok(Json(ProvidersReport {
            window_s,
            providers,
        }))
    }
}

/// A provider's breaker as the store said; `unknown` when it could not be asked.
fn breaker(name: &str, said: Result<BreakerState, BreakerError>) -> ProviderBreaker {
    match said {
        Ok(state) => state.into(),
        Err(err) => {
            tracing::warn!(provider = name, error = %err, "cannot read a provider's breaker");
            ProviderBreaker {
                state: BreakerStateName::Unknown,
                consecutive_failures: None,
                open_until: None,
            }
        }
    }
}
