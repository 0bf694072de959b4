//! The provider's circuit breaker around one model call (DESIGN §10): asked before the
//! call, told how it ended.

use parley_runtime::metrics::ProviderCallLabels;

use super::CallEnd;
use crate::providers::Route;

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Whether the route's provider breaker lets a call go. A breaker store that cannot be
/// reached lets it go (the provider may well be fine; the call's own failures still
/// bound the turn).
pub(super) async fn admit(route: &Route) -> bool {
    let Some(breakers) = &route.breakers else {
        return true;
    };
    match breakers.admit(&route.vendor, now_ms()).await {
        Ok(admission) => {
            if !admission.allowed() {
                tracing::warn!(provider = %route.vendor, ?admission, "the provider's circuit breaker is open; no call");
                parley_runtime::metrics::metrics()
                    .provider_calls
                    .get_or_create(&ProviderCallLabels {
                        provider: route.vendor.clone(),
                        outcome: "breaker_open",
                    })
                    .inc();
            }
            admission.allowed()
        }
        Err(err) => {
            tracing::warn!(provider = %route.vendor, error = %err, "cannot ask the provider's breaker; calling");
            true
        }
    }
}

/// Tells the route's provider breaker how a call ended: a finished call is a success; a
/// stalled one, or one that failed in a way another try might not (unreachable, 5xx,
/// 429, a broken stream, no first token), a failure. A refusal of the request itself
/// (400, 401, 404), a cancelled call or one that failed on Parley's side says nothing
/// about the provider's health.
pub(super) async fn report(route: &Route, end: &CallEnd) {
    let Some(breakers) = &route.breakers else {
        return;
    };
    let ok = match end {
        CallEnd::Done => true,
        CallEnd::Failed(err) if err.retryable() => false,
        CallEnd::Stalled => false,
        CallEnd::Failed(_) | CallEnd::Cancelled | CallEnd::Internal(_) => return,
    };
    match breakers.record(&route.vendor, ok, now_ms()).await {
        Ok(state) if !ok => {
            tracing::debug!(provider = %route.vendor, ?state, "provider call failure reported");
        }
        Ok(_) => {}
        Err(err) => {
            tracing::warn!(provider = %route.vendor, error = %err, "cannot report to the provider's breaker");
        }
    }
}
