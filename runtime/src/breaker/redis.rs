//! Breakers in Redis (distributed mode): one hash per key, `parley:breaker:{<key>}`,
//! with the consecutive failures (`f`), the end of the open period (`u`, 0: closed) and
//! until when a probe holds the half-open breaker (`p`). Every change is one script, so
//! two workers never both take the probe or both count the same failure twice. A hash
//! lives for ten open periods after its last change (a closed breaker with no failures
//! has none).

use std::time::Duration;

use crate::topology::Shared;
use ::redis::Script;
use async_trait::async_trait;

use super::{
    Admission, BreakerError, BreakerPolicy, BreakerState, Breakers, Result, millis, state_of,
};

/// `KEYS[1]` the hash; `ARGV[1]` now (ms), `ARGV[2]` the probe timeout (ms).
/// Returns {0, failures} go, {1, 0} probe, {2, ms} refused for ms.
const ADMIT: &str = r"
local u = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
local now = tonumber(ARGV[1])
if u == 0 then return {0, tonumber(redis.call('HGET', KEYS[1], 'f') or '0')} end
if now < u then return {2, u - now} end
local p = tonumber(redis.call('HGET', KEYS[1], 'p') or '0')
if now >= p then
  redis.call('HSET', KEYS[1], 'p', now + tonumber(ARGV[2]))
  return {1, 0}
end
return {2, p - now}
";

/// `KEYS[1]` the hash; `ARGV[1]` '1' for a success, `ARGV[2]` now (ms), `ARGV[3]` failures to
/// open, `ARGV[4]` the open period (ms), `ARGV[5]` the hash's lifetime (ms).
/// Returns {failures, open_until} after the report.
const RECORD: &str = r"
if ARGV[1] == '1' then
  redis.call('DEL', KEYS[1])
  return {0, 0}
end
local now = tonumber(ARGV[2])
local u = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
local f = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
if u ~= 0 or f + 1 >= tonumber(ARGV[3]) then
  local until_ms = now + tonumber(ARGV[4])
  redis.call('HSET', KEYS[1], 'f', 0, 'u', until_ms, 'p', 0)
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {0, until_ms}
end
redis.call('HSET', KEYS[1], 'f', f + 1)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {f + 1, 0}
";

/// Breakers shared through Redis. Cheap to clone.
#[derive(Clone)]
pub struct RedisBreakers {
    policy: BreakerPolicy,
    connection: Shared,
    admit: Script,
    record: Script,
}

fn key(name: &str) -> String {
    format!("parley:breaker:{{{name}}}")
}

fn unavailable(doing: &str, error: ::redis::RedisError) -> BreakerError {
    BreakerError::Unavailable(format!("{doing}: {error}"))
}

impl RedisBreakers {
    /// Breakers in the Redis at `url` (connected lazily: a worker starts while Redis is
    /// down, and each call's `admit` then fails as unavailable).
    pub fn connect(url: &str, policy: BreakerPolicy) -> Result<Self> {
        let connection = crate::shared_state_connection(url)
            .map_err(|error| unavailable("connecting to Redis", error))?;
        Ok(Self {
            policy,
            connection,
            admit: Script::new(ADMIT),
            record: Script::new(RECORD),
        })
    }

    /// Breakers with another policy on the same connection (the providers' and the
    /// users' breakers of one process share it).
    pub fn with_policy(&self, policy: BreakerPolicy) -> Self {
        Self {
            policy,
            ..self.clone()
        }
    }

    fn lifetime(&self) -> i64 {
        millis(self.policy.open_for.max(Duration::from_secs(1))).saturating_mul(10)
    }
}

#[async_trait]
impl Breakers for RedisBreakers {
    async fn admit(&self, name: &str, now_ms: i64) -> Result<Admission> {
        Ok(self.admit_noting_clean(name, now_ms).await?.0)
    }

    async fn admit_noting_clean(&self, name: &str, now_ms: i64) -> Result<(Admission, bool)> {
        let (decision, value): (i64, i64) = self
            .admit
            .key(key(name))
            .arg(now_ms)
            .arg(millis(self.policy.probe_timeout))
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("asking a breaker", error))?;
        Ok(match decision {
            0 => (Admission::Go, value == 0),
            1 => (Admission::Probe, false),
            _ => (
                Admission::Refused {
                    retry_in: Duration::from_millis(u64::try_from(value.max(0)).unwrap_or(0)),
                },
                false,
            ),
        })
    }

    async fn record(&self, name: &str, ok: bool, now_ms: i64) -> Result<BreakerState> {
        let (failures, open_until): (i64, i64) = self
            .record
            .key(key(name))
            .arg(if ok { "1" } else { "0" })
            .arg(now_ms)
            .arg(self.policy.failures_to_open.max(1))
            .arg(millis(self.policy.open_for))
            .arg(self.lifetime())
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("reporting to a breaker", error))?;
        let failures = u32::try_from(failures.max(0)).unwrap_or(u32::MAX);
        Ok(state_of(failures, open_until, now_ms))
    }

    async fn state(&self, name: &str, now_ms: i64) -> Result<BreakerState> {
        let (failures, open_until): (Option<i64>, Option<i64>) = ::redis::cmd("HMGET")
            .arg(key(name))
            .arg("f")
            .arg("u")
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("reading a breaker", error))?;
        let failures = u32::try_from(failures.unwrap_or(0).max(0)).unwrap_or(u32::MAX);
        Ok(state_of(failures, open_until.unwrap_or(0), now_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::super::conformance::conformance_suite;
    use super::*;

    use crate::test_redis::shared_url as redis_url;

    async fn single(policy: BreakerPolicy) -> Box<dyn Breakers> {
        Box::new(RedisBreakers::connect(&redis_url(), policy).expect("a Redis URL"))
    }

    /// Two workers: two connections to one Redis.
    async fn pair(policy: BreakerPolicy) -> (Box<dyn Breakers>, Box<dyn Breakers>) {
        (single(policy).await, single(policy).await)
    }

    conformance_suite!(single, pair);

    /// The same guarantees on a Redis Cluster.
    mod on_cluster {
        use super::super::super::conformance::conformance_suite;
        use super::*;

        async fn single(policy: BreakerPolicy) -> Box<dyn Breakers> {
            let url = crate::test_redis::cluster_url();
            Box::new(RedisBreakers::connect(&url, policy).expect("a Redis URL"))
        }

        async fn pair(policy: BreakerPolicy) -> (Box<dyn Breakers>, Box<dyn Breakers>) {
            (single(policy).await, single(policy).await)
        }

        conformance_suite!(single, pair);
    }

    #[tokio::test]
    async fn an_unreachable_store_says_so() {
        let port = crate::test_redis::free_port();
        let breakers = RedisBreakers::connect(
            &format!("redis://127.0.0.1:{port}/"),
            BreakerPolicy::default(),
        )
        .expect("a URL");
        let err = breakers.admit("p", 0).await.unwrap_err();
        assert!(matches!(err, BreakerError::Unavailable(_)), "{err:?}");
    }
}
