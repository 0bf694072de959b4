//! Parley's runtime seams (DESIGN §1).
//!
//! Two seams keep the embedded and the distributed modes honest: the **job queue** that
//! carries `Generate` jobs from the api to the workers, and the **event log** that carries
//! a prompt's stream events from the worker to every reader. Each seam is a trait with a
//! Redis backend (distributed mode) and an in-process one (embedded mode), and each has
//! one conformance suite that runs against both, so the code above a seam cannot tell
//! which backend it talks to. A third seam, the circuit **breakers** (#10), follows the
//! same shape: state every worker of a deployment shares; and a fourth, the **quota**
//! counters (#11), state every api process shares; and a fifth, the per-user **feed**
//! (#14), what happens across one user's sessions, for every api process to follow; and a sixth,
//! the **budget** counters (#15): money reserved and spent per budget, shared by the api
//! and the workers. Beside the seams: the process's
//! Prometheus [`metrics`] and the trace context a job carries ([`trace`]).

pub mod breaker;
pub mod budget;
pub mod event_log;
pub mod metrics;
pub mod queue;
pub mod quota;
#[cfg(test)]
mod test_redis;
pub mod trace;
pub mod user_feed;

/// A Redis client for `url` whose connections send small writes at once (`TCP_NODELAY`):
/// every event is one small command, and Nagle's algorithm would hold it for the peer's
/// delayed ACK (tens of milliseconds).
pub fn redis_client(url: &str) -> redis::RedisResult<redis::Client> {
    use redis::IntoConnectionInfo;
    let info = url
        .into_connection_info()?
        .set_tcp_settings(redis::io::tcp::TcpSettings::default().set_nodelay(true));
    redis::Client::open(info)
}

/// A lazily connected Redis connection for state every process shares (the breakers,
/// the quota counters): short timeouts and one retry, so a call fails fast and its
/// caller decides (a breaker lets the call go, a quota lets the turn through).
pub(crate) fn shared_state_connection(
    url: &str,
) -> redis::RedisResult<redis::aio::ConnectionManager> {
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(Some(std::time::Duration::from_secs(2)))
        .set_response_timeout(Some(std::time::Duration::from_secs(2)))
        .set_number_of_retries(1);
    redis::aio::ConnectionManager::new_lazy_with_config(redis_client(url)?, config)
}

/// Refuses a Redis in cluster mode: the job queue's scripts touch keys in several hash
/// slots (its pending list, each worker's running list, the workers' heartbeats), which
/// Redis Cluster does not allow, so Parley needs one Redis — standalone, or a primary
/// with replicas (and Sentinel for failover). A Redis that cannot be reached passes:
/// Parley starts while Redis is down (and reports not-ready), and a cluster is refused
/// at the next start.
pub async fn check_redis_topology(url: &str) -> Result<(), TopologyError> {
    let client = redis_client(url).map_err(TopologyError::InvalidUrl)?;
    let connected = tokio::time::timeout(
        std::time::Duration::from_secs(2),
        client.get_multiplexed_async_connection(),
    )
    .await;
    let mut connection = match connected {
        Ok(Ok(connection)) => connection,
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "Redis is not reachable: its topology is not checked");
            return Ok(());
        }
        Err(_) => {
            tracing::warn!("Redis did not answer within 2 s: its topology is not checked");
            return Ok(());
        }
    };
    let info: String = match redis::cmd("INFO")
        .arg("cluster")
        .query_async(&mut connection)
        .await
    {
        Ok(info) => info,
        Err(err) => {
            tracing::warn!(error = %err, "cannot read Redis's INFO: its topology is not checked");
            return Ok(());
        }
    };
    if info.lines().any(|line| line.trim() == "cluster_enabled:1") {
        return Err(TopologyError::Cluster);
    }
    Ok(())
}

/// Why [`check_redis_topology`] refuses a Redis.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("invalid Redis URL: {0}")]
    InvalidUrl(#[source] redis::RedisError),
    #[error(
        "Redis runs in cluster mode, which Parley does not support: the job queue's \
         scripts use keys in several hash slots. Use a standalone Redis, or a primary \
         with replicas (Sentinel for failover); see docs/decisions.md, \"Redis topologies\""
    )]
    Cluster,
}
