//! Liveness and readiness. `/healthz` says the process serves; `/readyz` says its
//! dependencies (the database, and Redis when configured) answer.

use std::time::Duration;

use parley_protocol::error::ErrorCode;
use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::ApiTags;
use crate::{
    error::{ApiResult, Problem, statuses},
    state::AppState,
};

const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// The process is alive.
#[derive(Debug, Object)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
    /// The running Parley version.
    pub version: String,
}

/// Every dependency answered.
#[derive(Debug, Object)]
pub struct Readiness {
    /// `ok` when every check passed.
    pub status: String,
    /// Each check by name (`database`, `redis`) with `ok` or what failed.
    pub checks: std::collections::BTreeMap<String, String>,
}

/// The front door's answer.
#[derive(ApiResponse)]
pub enum FrontDoor {
    /// See the chat page.
    #[oai(status = 303)]
    SeeOther(#[oai(header = "Location")] String),
}

#[derive(ApiResponse)]
pub enum ReadyResponse {
    /// Ready to serve.
    #[oai(status = 200)]
    Ready(Json<Readiness>),
}

pub struct OpsApi;

#[OpenApi(prefix_path = "/", tag = "ApiTags::Ops")]
impl OpsApi {
    /// The front door: leads to the chat page (not an operation of the document; a
    /// route of the API's own nest, which takes `/`).
    #[oai(path = "/", method = "get", hidden)]
    async fn front_door(&self) -> FrontDoor {
        FrontDoor::SeeOther("/chat".into())
    }

    /// Liveness
    ///
    /// Answers 200 as long as the process serves HTTP; checks no dependency.
    #[oai(path = "/healthz", method = "get", operation_id = "healthz")]
    async fn healthz(&self) -> Json<Health> {
        Json(Health {
            status: "ok".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        })
    }

    /// Readiness
    ///
    /// Checks the database (that it answers and takes a write), the job queue, the
    /// event log and, when configured, Redis; 503 with a problem body naming what failed
    /// otherwise.
    #[oai(path = "/readyz", method = "get", operation_id = "readyz")]
    async fn readyz(&self, state: Data<&AppState>) -> ApiResult<ReadyResponse, statuses::NotReady> {
        let mut checks = std::collections::BTreeMap::new();
        checks.insert(
            "database".to_owned(),
            state
                .health()
                .database(CHECK_TIMEOUT)
                .await
                .as_str()
                .to_owned(),
        );
        if let Some(redis) = &state.redis {
            checks.insert("redis".to_owned(), check_redis(redis.clone()).await);
        }
        checks.insert(
            "queue".to_owned(),
            outcome(tokio::time::timeout(CHECK_TIMEOUT, state.turns.queue.ready()).await),
        );
        checks.insert(
            "event_log".to_owned(),
            outcome(tokio::time::timeout(CHECK_TIMEOUT, state.turns.events.ready()).await),
        );
        let failed: Vec<String> = checks
            .iter()
            .filter(|(_, v)| *v != "ok")
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        if failed.is_empty() {
            Ok(ReadyResponse::Ready(Json(Readiness {
                status: "ok".into(),
                checks,
            })))
        } else {
            Err(Problem::new(
                ErrorCode::NotReady,
                format!("not ready: {}", failed.join("; ")),
            )
            .into())
        }
    }
}

fn outcome<E: std::fmt::Display>(
    result: Result<Result<(), E>, tokio::time::error::Elapsed>,
) -> String {
    match result {
        Ok(Ok(())) => "ok".into(),
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "readiness check failed");
            "unavailable".into()
        }
        Err(_) => "timed out".into(),
    }
}

async fn check_redis(topology: parley_runtime::topology::Topology) -> String {
    let ping = async move {
        let mut conn = topology.dedicated(Some(CHECK_TIMEOUT)).await?;
        redis::cmd("PING").query_async::<String>(&mut conn).await
    };
    match tokio::time::timeout(CHECK_TIMEOUT, ping).await {
        Ok(Ok(_)) => "ok".into(),
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "readiness: redis check failed");
            "unreachable".into()
        }
        Err(_) => "timed out".into(),
    }
}
