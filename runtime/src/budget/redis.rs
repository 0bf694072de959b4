//! The distributed budget store: per window, a string with the spent amount and a
//! sorted set of the reservations in flight (member `<id>:<amount>`, scored by when the
//! hold lapses), both checked and changed by scripts, so every api and worker process
//! sees one counter. The keys expire an hour after their period.
//!
//! All keys share the deployment's `{prefix}` hash tag, like the quota store's, so a
//! script may touch a user's and a group's windows at once, on a Redis Cluster too (one
//! slot; see docs/decisions.md, "Redis Cluster (#17)").

use async_trait::async_trait;
use redis::Script;

use crate::topology::Shared;

use super::{BudgetError, BudgetStore, Counter, Decision, GRACE_MS, Reservation, Result, Window};

/// KEYS: spent₁, held₁, spent₂, held₂, …; ARGV: now, member, lapses at, amount, then per
/// window its limit and its end. Drops lapsed holds; returns -i when window i has no
/// counter, i when it is at or over its limit (nothing reserved), else reserves the
/// member in every window (when amount > 0) and returns 0.
const RESERVE: &str = r"
local now = tonumber(ARGV[1])
local amount = tonumber(ARGV[4])
local n = #KEYS / 2
for i = 1, n do
  local spent = redis.call('GET', KEYS[2 * i - 1])
  if not spent then
    return -i
  end
  local held = KEYS[2 * i]
  redis.call('ZREMRANGEBYSCORE', held, '-inf', now)
  local reserved = 0
  for _, m in ipairs(redis.call('ZRANGE', held, 0, -1)) do
    reserved = reserved + tonumber(string.match(m, ':(%-?%d+)$'))
  end
  if tonumber(spent) + reserved >= tonumber(ARGV[3 + 2 * i]) then
    return i
  end
end
if amount > 0 then
  local lapses = tonumber(ARGV[3])
  for i = 1, n do
    redis.call('ZADD', KEYS[2 * i], lapses, ARGV[2])
    local drop = math.max(tonumber(ARGV[4 + 2 * i]), lapses) + tonumber(ARGV[5 + 2 * n])
    redis.call('PEXPIREAT', KEYS[2 * i], drop)
  end
end
return 0
";

/// KEYS: spent₁, held₁, …; ARGV: member, actual. Ends the hold and adds the actual cost
/// to each window that still has a counter.
const SETTLE: &str = r"
for i = 1, #KEYS / 2 do
  redis.call('ZREM', KEYS[2 * i], ARGV[1])
  if redis.call('EXISTS', KEYS[2 * i - 1]) == 1 then
    redis.call('INCRBY', KEYS[2 * i - 1], ARGV[2])
  end
end
return 0
";

/// KEYS: held₁, …; ARGV: now. The amounts held (lapsed holds not counted).
const HELD: &str = r"
local out = {}
for i, key in ipairs(KEYS) do
  local reserved = 0
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', key, '(' .. ARGV[1], '+inf')) do
    reserved = reserved + tonumber(string.match(m, ':(%-?%d+)$'))
  end
  out[i] = reserved
end
return out
";

/// Budget counters in Redis, under `{prefix}:budget:` keys.
#[derive(Clone)]
pub struct RedisBudgets {
    connection: Shared,
    prefix: String,
    reserve: Script,
    settle: Script,
    held: Script,
}

fn unavailable(doing: &str, error: redis::RedisError) -> BudgetError {
    BudgetError::Unavailable(format!("{doing}: {error}"))
}

impl RedisBudgets {
    /// A store on `url` whose keys start with `prefix` (the deployment's queue name).
    pub fn connect(url: &str, prefix: &str) -> Result<Self> {
        let connection = crate::shared_state_connection(url)
            .map_err(|error| unavailable("connecting to Redis", error))?;
        Ok(Self {
            connection,
            prefix: format!("{{{prefix}}}:budget:"),
            reserve: Script::new(RESERVE),
            settle: Script::new(SETTLE),
            held: Script::new(HELD),
        })
    }

    fn spent_key(&self, window: &Window) -> String {
        format!("{}{}", self.prefix, window.key)
    }

    fn held_key(&self, window: &Window) -> String {
        format!("{}{}:held", self.prefix, window.key)
    }
}

fn member(reservation: &Reservation) -> String {
    format!("{}:{}", reservation.id, reservation.amount)
}

#[async_trait]
impl BudgetStore for RedisBudgets {
    async fn reserve(
        &self,
        windows: &[Window],
        reservation: &Reservation,
        now_ms: i64,
    ) -> Result<Decision> {
        if windows.is_empty() {
            return Ok(Decision::Admitted);
        }
        let mut invocation = self.reserve.prepare_invoke();
        invocation
            .arg(now_ms)
            .arg(member(reservation))
            .arg(reservation.expires_at_ms)
            .arg(reservation.amount);
        for w in windows {
            invocation.key(self.spent_key(w)).key(self.held_key(w));
            invocation.arg(w.limit).arg(w.ends_at_ms);
        }
        invocation.arg(GRACE_MS);
        let decided: i64 = invocation
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("reserving a budget", error))?;
        let index = |i: i64| usize::try_from(i.unsigned_abs() - 1).unwrap_or(0);
        Ok(match decided {
            0 => Decision::Admitted,
            i if i < 0 => Decision::Unseeded { window: index(i) },
            i => Decision::Refused { window: index(i) },
        })
    }

    async fn settle(
        &self,
        windows: &[Window],
        reservation: &Reservation,
        actual: i64,
    ) -> Result<()> {
        if windows.is_empty() {
            return Ok(());
        }
        let mut invocation = self.settle.prepare_invoke();
        invocation.arg(member(reservation)).arg(actual);
        for w in windows {
            invocation.key(self.spent_key(w)).key(self.held_key(w));
        }
        invocation
            .invoke_async::<i64>(&mut self.connection.clone())
            .await
            .map(drop)
            .map_err(|error| unavailable("settling a budget", error))
    }

    async fn seed(&self, window: &Window, spent: i64) -> Result<bool> {
        let set: Option<String> = redis::cmd("SET")
            .arg(self.spent_key(window))
            .arg(spent)
            .arg("NX")
            .arg("PXAT")
            .arg(window.ends_at_ms + GRACE_MS)
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("seeding a budget", error))?;
        Ok(set.is_some())
    }

    async fn read(&self, windows: &[Window], now_ms: i64) -> Result<Vec<Option<Counter>>> {
        if windows.is_empty() {
            return Ok(Vec::new());
        }
        let spent_keys: Vec<String> = windows.iter().map(|w| self.spent_key(w)).collect();
        let spent: Vec<Option<i64>> = redis::cmd("MGET")
            .arg(spent_keys)
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("reading budgets", error))?;
        let mut invocation = self.held.prepare_invoke();
        invocation.arg(now_ms);
        for w in windows {
            invocation.key(self.held_key(w));
        }
        let held: Vec<i64> = invocation
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|error| unavailable("reading budget holds", error))?;
        Ok(spent
            .into_iter()
            .zip(held)
            .map(|(spent, reserved)| spent.map(|spent| Counter { spent, reserved }))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::super::conformance::conformance_suite;
    use super::*;

    use crate::test_redis::shared_url as redis_url;

    async fn single() -> Box<dyn BudgetStore> {
        Box::new(RedisBudgets::connect(&redis_url(), "parley-test").expect("a Redis URL"))
    }

    /// An api and a worker process: two connections to one Redis.
    async fn pair() -> (Box<dyn BudgetStore>, Box<dyn BudgetStore>) {
        (single().await, single().await)
    }

    conformance_suite!(single, pair);

    /// The same guarantees on a Redis Cluster.
    mod on_cluster {
        use super::super::super::conformance::conformance_suite;
        use super::*;

        async fn single() -> Box<dyn BudgetStore> {
            let url = crate::test_redis::cluster_url();
            Box::new(RedisBudgets::connect(&url, "parley-test").expect("a Redis URL"))
        }

        async fn pair() -> (Box<dyn BudgetStore>, Box<dyn BudgetStore>) {
            (single().await, single().await)
        }

        conformance_suite!(single, pair);
    }

    #[tokio::test]
    async fn an_unreachable_store_says_so() {
        let port = crate::test_redis::free_port();
        let store =
            RedisBudgets::connect(&format!("redis://127.0.0.1:{port}/"), "x").expect("a URL");
        let window = Window {
            key: "k".into(),
            limit: 1,
            ends_at_ms: 0,
        };
        let hold = Reservation {
            id: "r".into(),
            amount: 1,
            expires_at_ms: 0,
        };
        assert!(matches!(
            store.reserve(&[window], &hold, 0).await,
            Err(BudgetError::Unavailable(_))
        ));
    }
}
