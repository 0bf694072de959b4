//! Parley's runtime seams (DESIGN §1).
//!
//! Two seams keep the embedded and the distributed modes honest: the **job queue** that
//! carries `PromptJob` jobs from the api to the workers, and the **event log** that carries
//! a prompt's stream events from the worker to every reader. Each seam is a trait with a
//! Redis backend (distributed mode) and an in-process one (embedded mode), and each has
//! one conformance suite that runs against both, so the code above a seam cannot tell
//! which backend it talks to. A third seam, the circuit **breakers** (#10), follows the
//! same shape: state every worker of a deployment shares; and a fourth, the **quota**
//! counters (#11), state every api process shares; and a fifth, the per-user **feed**
//! (#14), what happens across one user's sessions, for every api process to follow; and a sixth,
//! the **budget** counters (#15): money reserved and spent per budget, shared by the api
//! and the workers. Beside the seams: the process's
//! Prometheus [`metrics`], the trace context a job carries ([`trace`]), and where Redis is
//! ([`topology`]: one server or a cluster).

pub mod breaker;
pub mod budget;
pub mod event_log;
pub mod metrics;
pub mod queue;
pub mod quota;
#[cfg(test)]
mod test_redis;
pub mod topology;
pub mod trace;
pub mod user_feed;

/// A lazily connected Redis connection for state every process shares (the breakers,
/// the quota counters): short timeouts and one retry, so a call fails fast and its
/// caller decides (a breaker lets the call go, a quota lets the turn through).
pub(crate) fn shared_state_connection(url: &str) -> redis::RedisResult<topology::Shared> {
    topology::Topology::from_url(url)?.shared(topology::Timeouts {
        connect: std::time::Duration::from_secs(2),
        response: std::time::Duration::from_secs(2),
        retries: 1,
    })
}

/// Checks that the Redis at `url` runs in the mode its URL says: a `redis://` URL must
/// not reach a node of a cluster (Parley's keys would answer `MOVED` from the nodes
/// that do not hold them: use `redis+cluster://`), and a `redis+cluster://` one must
/// reach a cluster. A Redis that cannot be reached passes: Parley starts while Redis is
/// down (and reports not-ready), and a mismatch is refused at the next start.
pub async fn check_redis_topology(url: &str) -> Result<(), TopologyError> {
    let topology = topology::Topology::from_url(url).map_err(TopologyError::InvalidUrl)?;
    let mut info = None;
    // A node asked as one server, whatever the URL says: a cluster client could not
    // even connect to a Redis that is not one.
    for client in topology::Topology::node_clients(url).map_err(TopologyError::InvalidUrl)? {
        let connecting = client.get_multiplexed_async_connection();
        let mut connection =
            match tokio::time::timeout(std::time::Duration::from_secs(2), connecting).await {
                Ok(Ok(connection)) => connection,
                Ok(Err(err)) => {
                    tracing::warn!(error = %err, "a Redis node is not reachable");
                    continue;
                }
                Err(_) => {
                    tracing::warn!("a Redis node did not answer within 2 s");
                    continue;
                }
            };
        match redis::cmd("INFO")
            .arg("cluster")
            .query_async::<String>(&mut connection)
            .await
        {
            Ok(found) => {
                info = Some(found);
                break;
            }
            Err(err) => tracing::warn!(error = %err, "cannot read a Redis node's INFO"),
        }
    }
    let Some(info) = info else {
        tracing::warn!("no Redis node answered: the topology is not checked");
        return Ok(());
    };
    let cluster = info.lines().any(|line| line.trim() == "cluster_enabled:1");
    match (topology.is_cluster(), cluster) {
        (false, true) => Err(TopologyError::UnexpectedCluster),
        (true, false) => Err(TopologyError::NotACluster),
        _ => Ok(()),
    }
}

/// Why [`check_redis_topology`] refuses a Redis.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("invalid Redis URL: {0}")]
    InvalidUrl(#[source] redis::RedisError),
    #[error(
        "Redis runs in cluster mode but the URL names one server: write it as \
         redis+cluster://host:port[,host:port…] (see docs/configuration.md, `redis.url`)"
    )]
    UnexpectedCluster,
    #[error(
        "the URL is a redis+cluster:// one but Redis does not run in cluster mode: write \
         it as redis://host:port/"
    )]
    NotACluster,
}
