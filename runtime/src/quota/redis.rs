//! The distributed quota store: one Redis counter per window, checked and counted by a
//! script (atomic across every api process), expiring a minute after its window ends.

use async_trait::async_trait;
use redis::Script;

use crate::topology::Shared;

use super::{Decision, QuotaError, QuotaStore, Result, Window};

/// Checks every window (KEYS) against its limit (ARGV[2i-1]); when all are below,
/// counts the turn in those marked (`ARGV[2i]` = the window's end in ms, negative: only a
/// cap) and returns 0; else returns the 1-based index of the first window at its limit.
const ADMIT: &str = r"
for i, key in ipairs(KEYS) do
  local used = tonumber(redis.call('GET', key) or '0')
  if used >= tonumber(ARGV[2 * i - 1]) then
    return i
  end
end
for i, key in ipairs(KEYS) do
  local ends = tonumber(ARGV[2 * i])
  if ends >= 0 then
    if redis.call('INCR', key) == 1 then
      redis.call('PEXPIREAT', key, ends + 60000)
    end
  end
end
return 0
";

/// Adds `ARGV[1]` to every window (KEYS); a new counter expires a minute after its
/// window's end (ARGV[i + 1]).
const ADD: &str = r"
for i, key in ipairs(KEYS) do
  redis.call('INCRBY', key, ARGV[1])
  if redis.call('PTTL', key) < 0 then
    redis.call('PEXPIREAT', key, tonumber(ARGV[i + 1]) + 60000)
  end
end
return 0
";

/// Quota counters in Redis, under `{prefix}:quota:` keys.
#[derive(Clone)]
pub struct RedisQuotas {
    connection: Shared,
    prefix: String,
    admit: Script,
    add: Script,
}

fn unavailable(doing: &str, error: redis::RedisError) -> QuotaError {
    QuotaError::Unavailable(format!("{doing}: {error}"))
}

impl RedisQuotas {
    /// A store on `url` whose keys start with `prefix` (the deployment's queue name, so
    /// deployments sharing a Redis keep apart).
    pub fn connect(url: &str, prefix: &str) -> Result<Self> {
        let connection = crate::shared_state_connection(url)
            .map_err(|error| unavailable("connecting to Redis", error))?;
        Ok(Self {
            connection,
            prefix: format!("{{{prefix}}}:quota:"),
            admit: Script::new(ADMIT),
            add: Script::new(ADD),
        })
    }

    fn key(&self, window: &Window) -> String {
        format!("{}{}", self.prefix, window.key)
    }
}

#[async_trait]
impl QuotaStore for RedisQuotas {
    async fn admit(&self, windows: &[Window]) -> Result<Decision> {
        if windows.is_empty() {
            return Ok(Decision::Admitted);
        }
        let mut invocation = self.admit.prepare_invoke();
        for w in windows {
            invocation.key(self.key(w));
            invocation.arg(w.limit);
            invocation.arg(if w.counts_turns { w.ends_at_ms } else { -1 });
        }
        let over: usize = invocation
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("admitting a turn", error))?;
        Ok(match over {
            0 => Decision::Admitted,
            i => Decision::Refused { window: i - 1 },
        })
    }

    async fn add(&self, windows: &[Window], amount: i64) -> Result<()> {
        if windows.is_empty() {
            return Ok(());
        }
        let mut invocation = self.add.prepare_invoke();
        invocation.arg(amount);
        for w in windows {
            invocation.key(self.key(w));
            invocation.arg(w.ends_at_ms);
        }
        invocation
            .invoke_async::<i64>(&mut self.connection.clone())
            .await
            .map(drop)
            .map_err(|error| unavailable("adding to quota counters", error))
    }

    async fn read(&self, windows: &[Window]) -> Result<Vec<i64>> {
        if windows.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = windows.iter().map(|w| self.key(w)).collect();
        let values: Vec<Option<i64>> = redis::cmd("MGET")
            .arg(keys)
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("reading quota counters", error))?;
        Ok(values.into_iter().map(Option::unwrap_or_default).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::super::conformance::conformance_suite;
    use super::*;

    use crate::test_redis::shared_url as redis_url;

    async fn single() -> Box<dyn QuotaStore> {
        Box::new(RedisQuotas::connect(&redis_url(), "parley-test").expect("a Redis URL"))
    }

    /// Two api processes: two connections to one Redis.
    async fn pair() -> (Box<dyn QuotaStore>, Box<dyn QuotaStore>) {
        (single().await, single().await)
    }

    conformance_suite!(single, pair);

    /// The same guarantees on a Redis Cluster.
    mod on_cluster {
        use super::super::super::conformance::conformance_suite;
        use super::*;

        async fn single() -> Box<dyn QuotaStore> {
            let url = crate::test_redis::cluster_url();
            Box::new(RedisQuotas::connect(&url, "parley-test").expect("a Redis URL"))
        }

        async fn pair() -> (Box<dyn QuotaStore>, Box<dyn QuotaStore>) {
            (single().await, single().await)
        }

        conformance_suite!(single, pair);
    }

    #[tokio::test]
    async fn an_unreachable_store_says_so() {
        let port = crate::test_redis::free_port();
        let store =
            RedisQuotas::connect(&format!("redis://127.0.0.1:{port}/"), "x").expect("a valid URL");
        let window = Window {
            key: "k".into(),
            limit: 1,
            ends_at_ms: 0,
            counts_turns: true,
        };
        assert!(matches!(
            store.admit(&[window]).await,
            Err(QuotaError::Unavailable(_))
        ));
    }
}
