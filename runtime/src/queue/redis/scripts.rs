//! The Lua scripts of the Redis queue's rarer steps: heartbeats (which reap dead
//! workers), reconciling a running list, leaving. The steps of every job (`LPUSH`,
//! `BLMOVE`, `LREM`) are plain commands.

/// `KEYS[1]` the workers set, `KEYS[2]` the pending list; `ARGV[1]` this worker, `ARGV[2]` the
/// age (ms) at which a heartbeat is dead, `ARGV[3]` the running lists' prefix. Records the
/// heartbeat and hands the jobs of dead workers back (oldest first, at the front).
pub(super) const HEARTBEAT: &str = r"
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZADD', KEYS[1], ms, ARGV[1])
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ms - tonumber(ARGV[2]))
for _, worker in ipairs(dead) do
  local running = ARGV[3] .. worker
  while redis.call('LMOVE', running, KEYS[2], 'RIGHT', 'RIGHT') do end
  redis.call('ZREM', KEYS[1], worker)
end
return #dead
";

/// `KEYS[1]` a running list, `KEYS[2]` the pending list; ARGV the jobs the worker holds.
/// Hands back every job of the list the worker does not hold; returns how many.
pub(super) const RECONCILE: &str = r"
local held = {}
for _, job in ipairs(ARGV) do held[job] = (held[job] or 0) + 1 end
local back = 0
for _, job in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if (held[job] or 0) > 0 then
    held[job] = held[job] - 1
  else
    redis.call('LREM', KEYS[1], 1, job)
    redis.call('RPUSH', KEYS[2], job)
    back = back + 1
  end
end
return back
";

/// `KEYS[1]` the workers set, `KEYS[2]` this worker's running list; `ARGV[1]` this worker.
/// Leaves the set; a worker that abandons jobs leaves them to be reaped at once.
pub(super) const LEAVE: &str = r"
if redis.call('LLEN', KEYS[2]) == 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], 0, ARGV[1])
end
";
