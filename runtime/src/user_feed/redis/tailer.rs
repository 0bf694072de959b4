//! The one task per [`RedisUserFeed`](super::RedisUserFeed) that watches the streams of
//! the users with local subscribers, so subscribers need neither a connection nor a
//! blocking read of their own.
//!
//! A subscriber [`follow`](Tailer::follow)s its user; the task loops on one `XREAD
//! BLOCK` over every followed user's stream (after the last id it saw of each) on a
//! connection of its own, opened when the first subscriber follows. When entries come
//! it bumps the user's watch, and the subscribers read what is new themselves. A user
//! followed while the task was blocked joins the next `XREAD`, at most [`BLOCK`] later,
//! from a cursor a little in the past ([`LOOKBACK`]), so an event appended meanwhile
//! still wakes it. When the connection fails the task reconnects with backoff and wakes
//! every subscriber.
//!
//! On a Redis Cluster ([`run_sharded`]) the task subscribes instead to the wake channel
//! of each followed user (sharded pub/sub, each on the node of the user's slot), and
//! wakes the user's subscribers when the subscription is confirmed (an event appended
//! before it would not be announced) and on every announcement.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use std::collections::HashSet;

use crate::topology::{Subscriber, Topology};
use ::redis::aio::MultiplexedConnection;
use ::redis::{AsyncConnectionConfig, Client};
use parley_protocol::keys;
use tokio::sync::{Notify, watch};
use uuid::Uuid;

use crate::user_feed::clock_micros;

/// How long one `XREAD` blocks: the longest a newly followed user waits to be watched.
const BLOCK: Duration = Duration::from_secs(1);
/// How far before "now" a newly followed user's cursor starts (covers clock skew
/// between the appending process and this one).
const LOOKBACK: Duration = Duration::from_secs(60);
const RECONNECT_MIN: Duration = Duration::from_millis(100);
const RECONNECT_MAX: Duration = Duration::from_secs(5);

struct Followed {
    /// The last entry id the task saw of the user's stream.
    cursor: String,
    wakes: watch::Sender<u64>,
    members: usize,
}

#[derive(Default)]
struct State {
    users: HashMap<Uuid, Followed>,
}

/// The handle shared by a feed and its subscribers; the task ends when the last one goes.
pub(super) struct Tailer {
    state: Arc<Mutex<State>>,
    /// Kicks the task when the first user is followed.
    kick: Arc<Notify>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Tailer {
    pub(super) fn start(topology: Topology) -> Arc<Self> {
        let state = Arc::new(Mutex::new(State::default()));
        let kick = Arc::new(Notify::new());
        let tailer = Arc::new(Self {
            state: state.clone(),
            kick: kick.clone(),
        });
        match topology {
            Topology::Single(client) => {
                tokio::spawn(run(client, Arc::downgrade(&state), kick));
            }
            cluster @ Topology::Cluster(_) => {
                tokio::spawn(run_sharded(cluster, Arc::downgrade(&state), kick));
            }
        }
        tailer
    }

    /// Follows `user_id`'s feed until the returned handle is dropped.
    pub(super) fn follow(self: &Arc<Self>, user_id: Uuid, after: u64) -> Following {
        let mut state = lock(&self.state);
        let new = !state.users.contains_key(&user_id);
        let lookback = u64::try_from(LOOKBACK.as_micros()).unwrap_or(0);
        let followed = state.users.entry(user_id).or_insert_with(|| Followed {
            cursor: format!("{}-0", after.max(clock_micros().saturating_sub(lookback))),
            wakes: watch::Sender::new(0),
            members: 0,
        });
        followed.members += 1;
        let wakes = followed.wakes.subscribe();
        drop(state);
        if new {
            self.kick.notify_one();
        }
        Following {
            tailer: self.clone(),
            user_id,
            wakes,
        }
    }

    /// How many users it follows.
    pub(super) fn followed(&self) -> usize {
        lock(&self.state).users.len()
    }

    /// How many local subscribers follow `user_id`.
    pub(super) fn followers(&self, user_id: Uuid) -> usize {
        lock(&self.state)
            .users
            .get(&user_id)
            .map_or(0, |f| f.members)
    }
}

/// A subscriber's place among the followers of one user.
pub(super) struct Following {
    tailer: Arc<Tailer>,
    user_id: Uuid,
    /// Changes when the user's stream got entries.
    pub(super) wakes: watch::Receiver<u64>,
}

impl Drop for Following {
    fn drop(&mut self) {
        let mut state = lock(&self.tailer.state);
        if let Some(followed) = state.users.get_mut(&self.user_id) {
            followed.members -= 1;
            if followed.members == 0 {
                state.users.remove(&self.user_id);
                drop(state);
                self.tailer.kick.notify_one();
            }
        }
    }
}

type Entries = Vec<(String, Vec<(String, Vec<String>)>)>;

async fn run(client: Client, state: std::sync::Weak<Mutex<State>>, kick: Arc<Notify>) {
    let mut connection: Option<MultiplexedConnection> = None;
    let mut delay = RECONNECT_MIN;
    loop {
        let Some(shared) = state.upgrade() else {
            return;
        };
        let (keys, cursors): (Vec<String>, Vec<String>) = lock(&shared)
            .users
            .iter()
            .map(|(user_id, followed)| (keys::user_feed(*user_id), followed.cursor.clone()))
            .unzip();
        let users: HashMap<String, Uuid> = lock(&shared)
            .users
            .keys()
            .map(|user_id| (keys::user_feed(*user_id), *user_id))
            .collect();
        drop(shared);
        if keys.is_empty() {
            // Nobody follows: wait for a kick, looking now and then whether the feed
            // (and so the task) is gone.
            let _ = tokio::time::timeout(BLOCK * 5, kick.notified()).await;
            continue;
        }
        let conn = match &mut connection {
            Some(conn) => conn,
            None => match connect(&client).await {
                Ok(conn) => connection.insert(conn),
                Err(error) => {
                    tracing::warn!(%error, retry_in = ?delay, "user feed tailer cannot connect");
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(RECONNECT_MAX);
                    continue;
                }
            },
        };
        let block = u64::try_from(BLOCK.as_millis()).unwrap_or(1000);
        let read: ::redis::RedisResult<Option<Entries>> = ::redis::cmd("XREAD")
            .arg("COUNT")
            .arg(100)
            .arg("BLOCK")
            .arg(block)
            .arg("STREAMS")
            .arg(&keys)
            .arg(&cursors)
            .query_async(conn)
            .await;
        let Some(shared) = state.upgrade() else {
            return;
        };
        match read {
            Ok(found) => {
                delay = RECONNECT_MIN;
                let mut state = lock(&shared);
                for (key, entries) in found.unwrap_or_default() {
                    let Some(last) = entries.last() else { continue };
                    let followed = users.get(&key).and_then(|id| state.users.get_mut(id));
                    if let Some(followed) = followed {
                        followed.cursor = last.0.clone();
                        followed.wakes.send_modify(|n| *n = n.wrapping_add(1));
                    }
                }
            }
            Err(error) => {
                tracing::warn!(%error, retry_in = ?delay, "user feed tailer lost its connection");
                connection = None;
                // Entries may have come meanwhile: every subscriber reads.
                for followed in lock(&shared).users.values() {
                    followed.wakes.send_modify(|n| *n = n.wrapping_add(1));
                }
                drop(shared);
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(RECONNECT_MAX);
            }
        }
    }
}

async fn connect(client: &Client) -> ::redis::RedisResult<MultiplexedConnection> {
    let config = AsyncConnectionConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(2)))
        .set_response_timeout(Some(BLOCK + Duration::from_secs(5)));
    client
        .get_multiplexed_async_connection_with_config(&config)
        .await
}

/// The tailer on a Redis Cluster: one subscriber connection, subscribed to the wake
/// channel of every followed user.
async fn run_sharded(topology: Topology, state: std::sync::Weak<Mutex<State>>, kick: Arc<Notify>) {
    let mut delay = RECONNECT_MIN;
    loop {
        if state.strong_count() == 0 {
            return;
        }
        let idle = state
            .upgrade()
            .is_none_or(|shared| lock(&shared).users.is_empty());
        if idle {
            let _ = tokio::time::timeout(BLOCK * 5, kick.notified()).await;
            continue;
        }
        let lost = match topology.subscriber().await {
            Ok(subscriber) => {
                delay = RECONNECT_MIN;
                follow_sharded(subscriber, &state, &kick).await
            }
            Err(error) => Some(error.to_string()),
        };
        let Some(why) = lost else { return };
        tracing::warn!(error = %why, retry_in = ?delay, "user feed tailer lost its connection");
        if let Some(shared) = state.upgrade() {
            // Announcements may have been lost: every subscriber reads.
            for followed in lock(&shared).users.values() {
                followed.wakes.send_modify(|n| *n = n.wrapping_add(1));
            }
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(RECONNECT_MAX);
    }
}

/// Serves one subscriber connection; `None` once the feed is gone, else why the
/// connection was lost.
async fn follow_sharded(
    mut subscriber: Subscriber,
    state: &std::sync::Weak<Mutex<State>>,
    kick: &Notify,
) -> Option<String> {
    let mut subscribed: HashSet<Uuid> = HashSet::new();
    loop {
        let shared = state.upgrade()?;
        let wanted: HashSet<Uuid> = lock(&shared).users.keys().copied().collect();
        drop(shared);
        let join: Vec<Uuid> = wanted.difference(&subscribed).copied().collect();
        let leave: Vec<Uuid> = subscribed.difference(&wanted).copied().collect();
        if !leave.is_empty() {
            let channels = leave.iter().map(|id| keys::user_feed_wake(*id)).collect();
            if let Err(error) = subscriber.unsubscribe(channels).await {
                return Some(error.to_string());
            }
            leave.iter().for_each(|id| {
                subscribed.remove(id);
            });
        }
        if !join.is_empty() {
            let channels = join.iter().map(|id| keys::user_feed_wake(*id)).collect();
            if let Err(error) = subscriber.subscribe(channels).await {
                return Some(error.to_string());
            }
            subscribed.extend(join.iter().copied());
            // What was appended before the subscription was not announced: read now.
            wake(state, join.iter().copied());
        }
        tokio::select! {
            () = kick.notified() => {}
            // Now and then: is the feed (and so the task) gone?
            () = tokio::time::sleep(BLOCK * 5) => {}
            message = subscriber.next() => match message {
                Some((channel, _)) => {
                    if let Some(user_id) = user_of_wake(&channel) {
                        wake(state, [user_id]);
                    }
                }
                None => return Some("the connection closed".into()),
            },
        }
    }
}

fn wake(state: &std::sync::Weak<Mutex<State>>, users: impl IntoIterator<Item = Uuid>) {
    let Some(shared) = state.upgrade() else {
        return;
    };
    let state = lock(&shared);
    for user_id in users {
        if let Some(followed) = state.users.get(&user_id) {
            followed.wakes.send_modify(|n| *n = n.wrapping_add(1));
        }
    }
}

/// The user of a `parley:{user:<id>}:feed:wake` channel.
fn user_of_wake(channel: &str) -> Option<Uuid> {
    let tagged = channel
        .strip_prefix(keys::PREFIX)?
        .strip_prefix(":{user:")?;
    tagged.strip_suffix("}:feed:wake")?.parse().ok()
}
