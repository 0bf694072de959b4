//! The one pub/sub connection a [`RedisEventLog`](super::RedisEventLog) shares among all
//! of its readers.
//!
//! A reader that has caught up with the stored events [`join`](Listener::join)s the
//! *topic* of its prompt and waits on the topic's broadcast channel. The first member of
//! a topic has the background task `SUBSCRIBE` the prompt's notify channel; the last one
//! to leave has it `UNSUBSCRIBE`. Each notification carries the appended event itself
//! (`<seq>:<kind JSON>`, published by the append script), so a reader that is in step
//! takes it straight from the broadcast without asking Redis; a reader that sees a gap,
//! lags behind the broadcast buffer or gets a resync fetches from the stream instead.
//!
//! The connection is opened when the first reader joins, so a worker, which only appends,
//! never opens one. The task reconciles subscriptions in batches: joins and leaves mark a
//! prompt dirty and kick the task, which compares what is wanted with what the connection
//! holds. When the connection drops, the task reconnects with backoff, resubscribes every
//! topic and tells their readers to resync, since notifications may have been lost
//! meanwhile.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ::redis::aio::{PubSub, PubSubSink};
use ::redis::{Client, Msg, RedisResult};
use futures::StreamExt;
use parley_protocol::events::{EventKind, StreamEvent};
use parley_protocol::keys;
use tokio::sync::{broadcast, mpsc, watch};
use uuid::Uuid;

/// Notifications a topic buffers for a slow reader before it must resync from the stream.
const WAKE_CAPACITY: usize = 64;
const RECONNECT_MIN: Duration = Duration::from_millis(100);
const RECONNECT_MAX: Duration = Duration::from_secs(5);

/// What a topic's members are told.
#[derive(Debug, Clone)]
pub(super) enum Wake {
    /// An event was appended.
    Event(Arc<StreamEvent>),
    /// Notifications may have been missed: read the stream.
    Resync,
}

struct Topic {
    wakes: broadcast::Sender<Wake>,
    /// True once the connection is subscribed to the topic's channel.
    ready: watch::Sender<bool>,
    members: usize,
}

#[derive(Default)]
struct State {
    topics: HashMap<Uuid, Topic>,
    /// Prompts whose subscription may need to change.
    dirty: HashSet<Uuid>,
    /// Prompts whose channel the connection is subscribed to.
    listening: HashSet<Uuid>,
}

type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> MutexGuard<'_, State> {
    // Every update under the lock is a single map or set operation; a panic elsewhere
    // cannot leave the state half-written.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

enum Command {
    Reconcile,
    /// Drop the connection as if Redis had closed it (tests).
    #[cfg(test)]
    Reconnect,
}

/// The handle shared by a log and its readers; the task ends when the last handle goes.
pub(super) struct Listener {
    state: Shared,
    commands: mpsc::Sender<Command>,
}

impl Listener {
    /// Spawns the task that owns the pub/sub connection (on the current tokio runtime).
    pub(super) fn start(client: Client) -> Arc<Self> {
        let state = Shared::default();
        let (commands, receiver) = mpsc::channel(1);
        tokio::spawn(run(client, state.clone(), receiver));
        Arc::new(Self { state, commands })
    }

    /// Becomes a member of the prompt's topic until the membership is dropped.
    pub(super) fn join(self: &Arc<Self>, prompt_id: Uuid) -> Membership {
        let mut state = lock(&self.state);
        let created = !state.topics.contains_key(&prompt_id);
        let topic = state.topics.entry(prompt_id).or_insert_with(|| Topic {
            wakes: broadcast::Sender::new(WAKE_CAPACITY),
            ready: watch::Sender::new(false),
            members: 0,
        });
        topic.members += 1;
        let membership = Membership {
            listener: self.clone(),
            prompt_id,
            wakes: topic.wakes.subscribe(),
            ready: topic.ready.subscribe(),
        };
        if created {
            state.dirty.insert(prompt_id);
            drop(state);
            self.kick();
        }
        membership
    }

    /// The prompts whose notify channel the shared connection is subscribed to.
    pub(super) fn listening(&self) -> Vec<Uuid> {
        lock(&self.state).listening.iter().copied().collect()
    }

    #[cfg(test)]
    pub(super) async fn reconnect(&self) {
        let _ = self.commands.send(Command::Reconnect).await;
    }

    fn kick(&self) {
        // A full queue already holds a command, and every command reconciles.
        let _ = self.commands.try_send(Command::Reconcile);
    }
}

/// A reader's place in a topic.
pub(super) struct Membership {
    listener: Arc<Listener>,
    prompt_id: Uuid,
    pub(super) wakes: broadcast::Receiver<Wake>,
    pub(super) ready: watch::Receiver<bool>,
}

impl Drop for Membership {
    fn drop(&mut self) {
        let mut state = lock(&self.listener.state);
        let Some(topic) = state.topics.get_mut(&self.prompt_id) else {
            return;
        };
        topic.members -= 1;
        if topic.members == 0 {
            state.topics.remove(&self.prompt_id);
            state.dirty.insert(self.prompt_id);
            drop(state);
            self.listener.kick();
        }
    }
}

enum Ended {
    Shutdown,
    Lost(String),
}

async fn run(client: Client, state: Shared, mut commands: mpsc::Receiver<Command>) {
    let mut delay = RECONNECT_MIN;
    loop {
        // Connect only once someone listens: a worker that only appends never opens one.
        while lock(&state).topics.is_empty() {
            if commands.recv().await.is_none() {
                return;
            }
        }
        let ended = match client.get_async_pubsub().await {
            Ok(pubsub) => serve(pubsub, &state, &mut commands, &mut delay).await,
            Err(error) => Ended::Lost(error.to_string()),
        };
        let Ended::Lost(why) = ended else {
            return;
        };
        tracing::warn!(error = %why, retry_in = ?delay, "event log pub/sub connection lost");
        {
            let mut state = lock(&state);
            state.listening.clear();
            for topic in state.topics.values() {
                topic.ready.send_replace(false);
            }
        }
        let pause = tokio::time::sleep(delay);
        tokio::pin!(pause);
        loop {
            tokio::select! {
                () = &mut pause => break,
                command = commands.recv() => if command.is_none() { return },
            }
        }
        delay = (delay * 2).min(RECONNECT_MAX);
    }
}

/// Runs one connection until it is lost or the log is dropped.
async fn serve(
    pubsub: PubSub,
    state: &Shared,
    commands: &mut mpsc::Receiver<Command>,
    delay: &mut Duration,
) -> Ended {
    let (mut sink, mut messages) = pubsub.split();
    // A new connection holds no subscriptions: every topic must be (re)subscribed, and its
    // readers resync because notifications may have gone missing in between.
    {
        let mut state = lock(state);
        let wanted: Vec<Uuid> = state.topics.keys().copied().collect();
        state.dirty.extend(wanted);
    }
    if let Err(error) = reconcile(&mut sink, state, true).await {
        return Ended::Lost(error.to_string());
    }
    *delay = RECONNECT_MIN;
    loop {
        tokio::select! {
            command = commands.recv() => match command {
                None => return Ended::Shutdown,
                Some(Command::Reconcile) => {
                    if let Err(error) = reconcile(&mut sink, state, false).await {
                        return Ended::Lost(error.to_string());
                    }
                }
                #[cfg(test)]
                Some(Command::Reconnect) => return Ended::Lost("reconnect requested".into()),
            },
            message = messages.next() => match message {
                Some(message) => deliver(state, &message),
                None => return Ended::Lost("the connection closed".into()),
            },
        }
    }
}

/// Brings the connection's subscriptions in line with the topics marked dirty.
async fn reconcile(sink: &mut PubSubSink, state: &Shared, resync: bool) -> RedisResult<()> {
    let (subscribe, unsubscribe) = {
        let mut state = lock(state);
        let dirty: Vec<Uuid> = state.dirty.drain().collect();
        let (mut subscribe, mut unsubscribe) = (Vec::new(), Vec::new());
        for prompt_id in dirty {
            let held = state.listening.contains(&prompt_id);
            match (state.topics.get(&prompt_id), held) {
                (Some(_), false) => subscribe.push(prompt_id),
                (Some(topic), true) => {
                    topic.ready.send_replace(true);
                }
                (None, true) => unsubscribe.push(prompt_id),
                (None, false) => {}
            }
        }
        (subscribe, unsubscribe)
    };
    if !subscribe.is_empty() {
        sink.subscribe(channels(&subscribe)).await?;
        let mut state = lock(state);
        for prompt_id in subscribe {
            state.listening.insert(prompt_id);
            match state.topics.get(&prompt_id) {
                Some(topic) => {
                    // Resync first: a member that sees `ready` finds it queued and knows
                    // its next read covers it.
                    if resync {
                        let _ = topic.wakes.send(Wake::Resync);
                    }
                    topic.ready.send_replace(true);
                }
                // Its last member left while we subscribed: unsubscribe on the next kick.
                None => {
                    state.dirty.insert(prompt_id);
                }
            }
        }
    }
    if !unsubscribe.is_empty() {
        sink.unsubscribe(channels(&unsubscribe)).await?;
        let mut state = lock(state);
        for prompt_id in unsubscribe {
            state.listening.remove(&prompt_id);
        }
    }
    Ok(())
}

fn channels(prompt_ids: &[Uuid]) -> Vec<String> {
    prompt_ids.iter().map(|id| keys::notify(*id)).collect()
}

/// Hands a notification to the members of its topic.
fn deliver(state: &Shared, message: &Msg) {
    let Some(prompt_id) = prompt_of(message.get_channel_name()) else {
        return;
    };
    let wake = parse_notification(prompt_id, message.get_payload_bytes())
        .map_or(Wake::Resync, |event| Wake::Event(Arc::new(event)));
    if let Some(topic) = lock(state).topics.get(&prompt_id) {
        // No receivers only means every member is between two fetches.
        let _ = topic.wakes.send(wake);
    }
}

/// The prompt of a `parley:{<prompt_id>}:notify` channel.
fn prompt_of(channel: &str) -> Option<Uuid> {
    let tagged = channel.strip_prefix(keys::PREFIX)?.strip_prefix(":{")?;
    tagged.strip_suffix("}:notify")?.parse().ok()
}

/// Parses the `<seq>:<kind JSON>` payload the append script publishes.
fn parse_notification(prompt_id: Uuid, payload: &[u8]) -> Option<StreamEvent> {
    let text = std::str::from_utf8(payload).ok()?;
    let (seq, kind) = text.split_once(':')?;
    let kind: EventKind = serde_json::from_str(kind).ok()?;
    Some(StreamEvent {
        seq: seq.parse().ok()?,
        prompt_id,
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notifications_parse_back_into_events() {
        let id = Uuid::now_v7();
        assert_eq!(prompt_of(&keys::notify(id)), Some(id));
        assert_eq!(prompt_of(&keys::events(id)), None);
        let event = parse_notification(id, br#"7:{"type":"block_stop","index":2}"#);
        assert_eq!(
            event,
            Some(StreamEvent {
                seq: 7,
                prompt_id: id,
                kind: EventKind::BlockStop { index: 2 },
            })
        );
        assert_eq!(parse_notification(id, b"7"), None);
        assert_eq!(parse_notification(id, br#"x:{"type":"cancelled"}"#), None);
    }
}
