//! Parley's runtime seams (DESIGN §1).
//!
//! Two seams keep the embedded and the distributed modes honest: the **job queue** that
//! carries `Generate` jobs from the api to the workers, and the **event log** that carries
//! a prompt's stream events from the worker to every reader. Each seam is a trait with a
//! Redis backend (distributed mode) and an in-process one (embedded mode), and each has
//! one conformance suite that runs against both, so the code above a seam cannot tell
//! which backend it talks to. A third seam, the circuit **breakers** (#10), follows the
//! same shape: state every worker of a deployment shares.

pub mod breaker;
pub mod event_log;
pub mod queue;
#[cfg(test)]
mod test_redis;

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
